#!/usr/bin/env bash
# What `make bench [PROFILE=quick|full|smoke|path.toml]` runs:
#   1 scripts/deps.sh java servers tools python   (JDK >= 21 check, MariaDB/Redis, ghz/k6, .tools/venv)
#   2 scripts/build.sh --if-stale                  (./mvnw package when a source is newer than the jars)
#   3 .tools/venv/bin/python loadtest/bench.py --profile PROFILE [BENCH_ARGS...]
#     which starts MariaDB+Redis if needed, seeds, starts both services per cache mode, measures,
#     writes results/<run-id>/run.json and prints the summary; it stops whatever it started, also
#     on failure and Ctrl-C (see loadtest/tandem_bench/orchestrate.py).
# Extra arguments go to bench.py, e.g. scripts/bench.sh --dry-run, or --results-dir DIR.
#
# `make bench TARGET=rest=http://host:8080,grpc=host:9090[,rest-mgmt=URL]...[,grpc-mgmt=URL]...[,ca=FILE]`
# measures services that are already running (a docker compose deployment, a cluster) instead:
# no MariaDB/Redis are installed or started, nothing is seeded, only the cache mode the target
# reports is measured (loadtest/tandem_bench/target.py). The build still runs: the gRPC jar carries
# the .proto files ghz and k6 need, the REST jar mints the write token for the cache flushes (unless
# TANDEM_TOKEN is set; TANDEM_AUTH_JWT_SECRET must then be the target's secret).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH="$ROOT/.tools/bin:$PATH"
PROFILE=${PROFILE:-quick}
t0=$SECONDS

say() { printf '\n==== [%s] bench: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

TARGET=${TARGET:-}
if [[ -n $TARGET ]]; then
  say "dependencies (scripts/deps.sh java tools python; target $TARGET, no local servers)"
  scripts/deps.sh java tools python
  set -- --target "$TARGET" "$@"
else
  say "dependencies (scripts/deps.sh java servers tools python)"
  scripts/deps.sh java servers tools python
fi
JAVA_HOME=$(scripts/java-home.sh)
export JAVA_HOME

say "build (scripts/build.sh --if-stale, JAVA_HOME=$JAVA_HOME)"
scripts/build.sh --if-stale

# make exports TANDEM_RESULTS_DIR (results/ unless set); an explicit --results-dir argument still wins.
if [[ -n ${TANDEM_RESULTS_DIR:-} ]]; then set -- --results-dir "$TANDEM_RESULTS_DIR" "$@"; fi

say "profile $PROFILE"
rc=0
.tools/venv/bin/python loadtest/bench.py --profile "$PROFILE" "$@" || rc=$?
echo "bench: make bench took $(( SECONDS - t0 )) s in all (exit $rc)"
exit $rc
