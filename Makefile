# Tandem — every target delegates to scripts/; see README.md "Commands".
SHELL := /bin/bash
.DEFAULT_GOAL := help
SCALE ?= 1

# Newest JDK >= 21 (empty if none: the scripts then say what to install) and the pinned tools first.
export JAVA_HOME := $(shell scripts/java-home.sh 2>/dev/null)
export PATH := $(CURDIR)/.tools/bin:$(PATH)

# Where make bench writes runs and make dashboard reads them (an absolute path; tests point it elsewhere).
export TANDEM_RESULTS_DIR ?= $(CURDIR)/results

.PHONY: help test run down seed bench dashboard build tools deps token k8s-validate proto-check proto-baseline

help:                 ## this list (also what plain `make` prints)
	@echo "Tandem: REST and gRPC over one domain, one cache, and a bench that compares them. Targets:"
	@sed -n 's/^\([a-z0-9-]*\):.*## \(.*\)$$/  make \1\t\2/p' $(MAKEFILE_LIST) | expand -t 22
	@echo "Start with: make run (then the README's \"The API on both wires\"), or make bench, or make test."

test:                 ## install what is missing, start MariaDB+Redis, run every test, stop them
	@scripts/test.sh

run:                  ## MariaDB, Redis and both services in the background, seeded at scale 1 when empty (make down stops them)
	@scripts/deps.sh java servers tools
	@scripts/servers.sh start
	@scripts/build.sh --if-stale
	@scripts/seed.sh if-empty 1
	@scripts/services.sh start
	@scripts/services.sh hints

down:                 ## stop what make run started: the services, then the servers (fine when nothing runs)
	-@scripts/services.sh stop
	@scripts/servers.sh stop

token:                ## print a write token: TOKEN=$(make -s token), then -H "Authorization: Bearer $TOKEN"
	@scripts/deps.sh java >&2
	@scripts/token.sh

seed:                 ## reset the tandem database and load seed data at SCALE (default 1)
	@scripts/deps.sh java servers
	@scripts/servers.sh start
	@scripts/build.sh --if-stale
	@scripts/seed.sh reset $(SCALE)

bench:                ## build, start servers+services, run PROFILE (quick|full|smoke|file.toml), write results/; TARGET=rest=URL,grpc=HOST:PORT,... measures running services instead
	@PROFILE=$(or $(PROFILE),quick) TARGET="$(TARGET)" scripts/bench.sh

dashboard:            ## build the dashboard and serve it with results/ on http://127.0.0.1:5173 (after make bench)
	@test -f $(TANDEM_RESULTS_DIR)/index.json || { \
	  echo "make dashboard: no bench results yet ($(TANDEM_RESULTS_DIR)/index.json does not exist), so there is nothing to plot." >&2; \
	  echo "  Run a bench first: make bench (the quick profile, ~15 min) or make bench PROFILE=smoke (~2 min), then make dashboard." >&2; \
	  exit 1; }
	@scripts/deps.sh node
	npm --prefix dashboard run build && RESULTS_DIR=$(TANDEM_RESULTS_DIR) npm --prefix dashboard run serve

build:                ## build both service jars (./mvnw package, no tests)
	@scripts/deps.sh java
	@scripts/build.sh

tools:                ## ghz, k6, grpcurl into .tools/bin (and docker-compose)
	@scripts/deps.sh tools

deps:                 ## everything make test needs
	@scripts/deps.sh all

k8s-validate:         ## render deploy/k8s with kustomize and check it against the Kubernetes schemas (no cluster)
	@scripts/deps.sh k8s
	@scripts/k8s-validate.sh

proto-check:          ## buf lint + buf breaking against proto/buf-baseline.binpb (also a make test stage; README "The proto contract")
	@scripts/deps.sh proto
	@scripts/proto-contract.sh check

proto-baseline:       ## rebuild proto/buf-baseline.binpb: publish the contract (a commit of its own, saying why)
	@scripts/deps.sh proto
	@scripts/proto-contract.sh baseline
