#!/usr/bin/env bash
# What `make bench [PROFILE=quick|full|smoke|path.toml]` runs:
#   1 scripts/deps.sh java servers tools python   (JDK >= 21 check, MariaDB/Redis, ghz/k6, .tools/venv)
#   2 ./mvnw -B -q package -DskipTests             (JAVA_HOME = scripts/java-home.sh)
#   3 .tools/venv/bin/python loadtest/bench.py --profile PROFILE [BENCH_ARGS...]
#     which starts MariaDB+Redis if needed, seeds, starts both services per cache mode, measures,
#     writes results/<run-id>/run.json and prints the summary; it stops whatever it started, also
#     on failure and Ctrl-C (see loadtest/tandem_bench/orchestrate.py).
# Extra arguments go to bench.py, e.g. scripts/bench.sh --dry-run, or --results-dir DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH="$ROOT/.tools/bin:$PATH"
PROFILE=${PROFILE:-quick}
t0=$SECONDS

say() { printf '\n==== [%s] bench: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

say "dependencies (scripts/deps.sh java servers tools python)"
scripts/deps.sh java servers tools python
JAVA_HOME=$(scripts/java-home.sh)
export JAVA_HOME

say "build (./mvnw -B -q package -DskipTests, JAVA_HOME=$JAVA_HOME)"
tb=$SECONDS
./mvnw -B -q package -DskipTests
echo "bench: build took $(( SECONDS - tb )) s"

say "profile $PROFILE"
rc=0
.tools/venv/bin/python loadtest/bench.py --profile "$PROFILE" "$@" || rc=$?
echo "bench: make bench took $(( SECONDS - t0 )) s in all (exit $rc)"
exit $rc
