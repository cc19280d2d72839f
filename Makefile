# Tandem — every target delegates to scripts/; see DESIGN.md "Commands".
SHELL := /bin/bash
.DEFAULT_GOAL := help
SCALE ?= 1

# Newest JDK >= 21 (empty if none: the scripts then say what to install) and the pinned tools first.
export JAVA_HOME := $(shell scripts/java-home.sh 2>/dev/null)
export PATH := $(CURDIR)/.tools/bin:$(PATH)

REST_JAR := rest-service/target/rest-service.jar

.PHONY: help test run down seed bench dashboard build tools deps token k8s-validate

help:
	@echo "make test | run | down | token | seed [SCALE=n] | bench | dashboard | build | tools | deps | k8s-validate"

test:                 ## install what is missing, start MariaDB+Redis, run every test, stop them
	@scripts/test.sh

run:                  ## servers + both services in the background (make down stops them)
	@scripts/deps.sh java servers tools
	@scripts/servers.sh start
	./mvnw -B -q package -DskipTests
	@scripts/services.sh start
	@scripts/services.sh hints

down:                 ## stop the services, then the servers
	-@scripts/services.sh stop
	@scripts/servers.sh stop

token:                ## print a write token: TOKEN=$$(make -s token), then -H "Authorization: Bearer $$TOKEN"
	@scripts/deps.sh java >&2
	@scripts/token.sh

seed:                 ## reset the tandem database and load seed data at SCALE (default 1)
	@scripts/deps.sh java servers
	@scripts/servers.sh start
	@test -f $(REST_JAR) || ./mvnw -B -q package -DskipTests
	TANDEM_SEED_MODE=reset TANDEM_SEED_SCALE=$(SCALE) TANDEM_SEED_EXIT=true \
	SPRING_MAIN_WEB_APPLICATION_TYPE=none "$$JAVA_HOME/bin/java" -jar $(REST_JAR)

bench:                ## build, start servers+services, run PROFILE (quick|full|smoke|file.toml), write results/; TARGET=rest=URL,grpc=HOST:PORT,... measures running services instead
	@PROFILE=$(or $(PROFILE),quick) TARGET="$(TARGET)" scripts/bench.sh

dashboard:            ## build the dashboard and serve it with results/ on http://127.0.0.1:5173
	@test -f dashboard/package.json || { echo "make dashboard: no dashboard/package.json yet (the dashboard is not built yet)" >&2; exit 1; }
	@scripts/deps.sh node
	npm --prefix dashboard run build && npm --prefix dashboard run serve

build:
	@scripts/deps.sh java
	./mvnw -B -q package -DskipTests

tools:                ## ghz, k6, grpcurl into .tools/bin (and docker-compose)
	@scripts/deps.sh tools

deps:                 ## everything make test needs
	@scripts/deps.sh all

k8s-validate:         ## render deploy/k8s with kustomize and check it against the Kubernetes schemas (no cluster)
	@scripts/deps.sh k8s
	@scripts/k8s-validate.sh
