#!/usr/bin/env bash
# Everything `make test` does. Two lanes run side by side once the build starts, because neither fills
# the two cores alone (Maven's tests wait on failovers, restarts and process starts about half the
# time):
#
#   1 deps      scripts/deps.sh java servers (JDK >= 21 check; apt mariadb-server redis-server nginx)
#   2 servers   scripts/servers.sh start (MariaDB 127.0.0.1:13306, Redis 127.0.0.1:16379)
#   3 build     ./mvnw -B -ntp install -DskipTests: compiles main and test code, makes the jars the later
#               stages start and installs the modules into ~/.m2, so that each later Maven run can take
#               only some modules (-pl); nothing rebuilds the jars after this (JAVA_HOME =
#               scripts/java-home.sh)
#   then, side by side:
#   Java lane                                   other lane (starts with stage 3)
#                                               5 proto-contract  scripts/deps.sh proto (buf, npm); scripts/
#                                                            proto-contract.sh: buf lint, buf breaking against
#                                                            proto/buf-baseline.binpb (~3 s on a new machine,
#                                                            first so that a broken contract shows at once)
#   4 maven-domain-system                       5 tools      scripts/deps.sh tools browser (apt docker-compose
#               ./mvnw -B -ntp -fae test -pl                 nginx nghttp2-client chromium; Go ghz, k6, grpcurl;
#               shared-domain,system-tests:                  Rust oha): the longest step on a new machine
#               the domain's and the cache's    10 readme     after stage 3 succeeded: TANDEM_README_TEST=1 pytest
#               tests against the servers of                 scripts/tests, a new user's first five minutes (make,
#               stage 2, then the service jars               make run on a fresh data directory, the README's API
#               as processes (test phase only:               table, TLS and representations examples as written,
#               the jars stay stage 3's)                     the API fuzzer, make bench PROFILE=smoke checked by
#                                                            loadtest/tests/smoke_run.py, make dashboard in
#                                                            Chromium) on its own MariaDB/Redis (23306/26379) and
#                                                            the README's service ports 8080/9090/8081, which must
#                                                            be free; and scripts/tests/test_proto_contract.py:
#                                                            stage 5's checks on broken copies of the protos,
#                                                            the Google protos against the service jar's
#   then each in whichever lane is free first (first_free_runs_the_rest), so that the two lanes end
#   close together:
#                4 maven-rest   ./mvnw -B -ntp test -pl rest-service
#                4 maven-grpc   ./mvnw -B -ntp test -pl grpc-service
#   and after them, once stage 5 ended:
#                6 pytest       scripts/deps.sh python; .tools/venv/bin/pytest -q -rfEs loadtest
#                7 dashboard    scripts/deps.sh node; npm --prefix dashboard test, then run test:browser
#                               (headless Chromium)
#                8 compose      docker-compose config -q; scripts/compose-check.py; scripts/nginx-config-test.sh
#                               (nginx -t, no server)
#                9 k8s          scripts/deps.sh k8s; scripts/k8s-validate.sh (kustomize render checked
#                               against the Kubernetes JSON schemas)
# No test stops the shared servers of stage 2 (outage tests start pairs of their own), and each module
# has its own test database and Redis key prefix, so Maven runs in the two lanes may overlap.
# The Java lane's output streams (and goes to .run/make-test/<stage>.log too); each stage of the other
# lane writes .run/make-test/<stage>.log, printed whole when the stage ends. Every stage after the
# build runs even when another fails; the exit status is that of the first failure (in stage order),
# 0 if none, and the summary ends with each failed stage's own lines. On any exit (failure, Ctrl-C,
# kill) both lanes are ended and the servers this run started itself are stopped.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
source scripts/test-env.sh
drop_service_settings
source scripts/prune-test-runs.sh
prune_earlier_test_runs "$ROOT/.run"
export PATH="$ROOT/.tools/bin:$PATH"
export CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}   # for the dashboard's browser test

LOGS=$ROOT/.run/make-test          # the other lane's stage logs, its results, the build's outcome
rm -rf "$LOGS" && mkdir -p "$LOGS"
: >"$LOGS/results"                 # one line per finished stage: order name rc seconds

started_servers=()
child=""                           # the Java lane's running stage
other_lane=""                      # the other lane's subshell

# Each stage runs as a child that the shell waits for, so a signal is handled at once (a plain
# foreground command would delay the trap until it ends); the handler ends both lanes' process trees.
kill_tree() {
  local p=$1 c
  for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do kill_tree "$c"; done
  kill -TERM "$p" 2>/dev/null || true
}
run_child() {
  "$@" &
  child=$!
  local rc=0
  wait "$child" || rc=$?
  child=""
  return $rc
}
on_signal() {
  echo "make test: $1" >&2
  local p i
  for p in $child $other_lane; do
    kill_tree "$p"
    for (( i = 0; i < 100; i++ )); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  exit "$2"
}

header() { printf '\n======== [%s] %s ========\n' "$(date -u +%H:%M:%S)" "$*"; }
record() { echo "$1 $2 $3 $4" >>"$LOGS/results"; }     # order name rc seconds

# tee_to LOG CMD... : CMD's output to the terminal and to LOG; CMD's exit status
tee_to() {
  local log=$1; shift
  "$@" 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}

# stage ORDER NAME CMD... : the Java lane's way: output streams (and goes to $LOGS/NAME.log, for the
# summary's excerpt of a failure); prints and records the outcome
stage() {
  local order=$1 name=$2; shift 2
  header "$name: $*"
  local t0=$SECONDS rc=0
  run_child tee_to "$LOGS/$name.log" "$@" || rc=$?
  local dt=$(( SECONDS - t0 ))
  if (( rc == 0 )); then echo "-------- $name: ok in ${dt}s"; else echo "-------- $name: FAILED (exit $rc) after ${dt}s"; fi
  record "$order" "$name" "$rc" "$dt"
  return $rc
}

# lane_stage ORDER NAME CMD... : the other lane's way: output to $LOGS/NAME.log, printed whole at the end
# (one block, so it does not interleave line by line with the Java lane's)
lane_stage() {
  local order=$1 name=$2; shift 2
  local t0=$SECONDS rc=0 log=$LOGS/$name.log began
  began=$(date -u +%H:%M:%S)
  "$@" >"$log" 2>&1 </dev/null || rc=$?
  local dt=$(( SECONDS - t0 ))
  local verdict="ok in ${dt}s"
  (( rc == 0 )) || verdict="FAILED (exit $rc) after ${dt}s"
  { printf '\n======== [%s, other lane] %s: %s ========\n' "$began" "$name" "$*"; cat "$log"
    echo "-------- $name: $verdict"; } 2>&1
  record "$order" "$name" "$rc" "$dt"
  return $rc
}
skip() { header "$2"; echo "-------- skipped: $3"; record "$1" "$2" skip 0; }

finish() {
  local st=$?
  trap - EXIT INT TERM
  if (( ${#started_servers[@]} )); then
    header "stop the servers this run started: ${started_servers[*]}"
    local s
    for s in "${started_servers[@]}"; do scripts/servers.sh stop "$s" || true; done
  fi
  header "summary"
  local first_rc=0 first_stage="" order name rc dt
  while read -r order name rc dt; do
    case $rc in
      skip) printf '  %-22s skipped\n' "$name" ;;
      0)    printf '  %-22s ok     %5ss\n' "$name" "$dt" ;;
      *)    printf '  %-22s FAILED %5ss  (exit %s)\n' "$name" "$dt" "$rc"
            (( first_rc == 0 )) && first_rc=$rc first_stage=$name ;;
    esac
  done < <(sort -n -s -k1,1 "$LOGS/results")
  (( first_rc == 0 && st != 0 )) && first_rc=$st first_stage=interrupted
  # A failure's own lines again, last: a CI page that keeps only the end of the output still says why.
  while read -r order name rc dt; do
    [[ $rc == 0 || $rc == skip || ! -s $LOGS/$name.log ]] && continue
    echo "---- why $name failed (from .run/make-test/$name.log) ----"
    if grep -q '^\[ERROR\]' "$LOGS/$name.log"; then   # Maven: its failure list, not the trailing help
      grep '^\[ERROR\]' "$LOGS/$name.log" | grep -v -e '^\[ERROR\] *$' -e 're-run Maven' -e 'full stack trace' \
        -e 'debug logging' -e 'about the errors' -e 'Help 1\]' -e 'MojoFailureException' | head -n 40
      # The failing classes' surefire reports without stack frames: the tests' own messages (one may
      # quote a service's log), which the list above cuts to their first line.
      grep -o -e '<<< FAILURE! -- in [A-Za-z0-9_.$]*' -e '<<< ERROR! -- in [A-Za-z0-9_.$]*' "$LOGS/$name.log" \
        | awk '{ print $NF }' | sort -u | head -n 2 | while read -r class; do
          for report in */target/surefire-reports/"$class".txt; do
            [[ -f $report ]] || continue
            echo "---- $report (stack frames left out) ----"
            grep -v -e '^[[:space:]]*at ' -e '^[[:space:]]*\.\.\. [0-9]* more$' "$report" | head -n 45
          done
        done
    else
      tail -n 40 "$LOGS/$name.log"
    fi
  done < <(sort -n -s -k1,1 "$LOGS/results")
  if (( first_rc == 0 )); then
    echo "make test: all stages passed in ${SECONDS}s"
  else
    echo "make test: FAILED — first failure: $first_stage (exit $first_rc); total ${SECONDS}s"
  fi
  exit "$first_rc"
}
trap finish EXIT
trap 'on_signal interrupted 130' INT
trap 'on_signal terminated 143' TERM

# ---- 1 deps the Java lane needs
stage 1 deps scripts/deps.sh java servers || exit
JAVA_HOME=$(scripts/java-home.sh) || exit
export JAVA_HOME
echo "JAVA_HOME=$JAVA_HOME"

# ---- 2 servers (remember which ones were not running before, to stop only those)
for s in mariadb redis; do
  scripts/servers.sh status "$s" >/dev/null 2>&1 || started_servers+=("$s")
done
stage 2 servers scripts/servers.sh start || exit

# ---- the other lane, from now on, beside the build and the Java tests
pytest_loadtest() {
  scripts/deps.sh python || return
  if [[ ! -x .tools/venv/bin/pytest ]]; then
    echo "no .tools/venv/bin/pytest: add pytest to loadtest/requirements.txt" >&2; return 1
  fi
  local rc=0
  .tools/venv/bin/pytest -q -rfEs loadtest || rc=$?   # -rs: why a test was skipped
  # exit 5: no test collected, where loadtest/tests holds tests (the stage runs only then): a failure
  if (( rc == 5 )); then echo "pytest collected no tests under loadtest/ (exit 5)" >&2; fi
  return $rc
}
compose_validate() {
  docker-compose -f docker-compose.yml config -q || return
  docker-compose -f docker-compose.yml config | python3 scripts/compose-check.py || return
  scripts/nginx-config-test.sh
}
k8s_validate() {
  scripts/deps.sh k8s || return   # its own tools: a failed install fails only this stage
  scripts/k8s-validate.sh
}
proto_contract() {
  scripts/deps.sh proto || return   # its own tool: a failed install fails only this stage
  scripts/proto-contract.sh check
}
readme_test() {
  scripts/deps.sh python node proto || return   # proto: buf for test_proto_contract.py
  TANDEM_README_TEST=1 .tools/venv/bin/pytest -q -rfEs --durations=12 scripts/tests
}
other_lane() {
  lane_stage 5 proto-contract proto_contract
  local tools_rc=0
  lane_stage 5 tools scripts/deps.sh tools browser || tools_rc=$?
  echo "$tools_rc" >"$LOGS/tools.rc"
  # The README's commands start the jars: wait for the build (the Java lane writes its outcome).
  while [[ ! -f $LOGS/build.rc ]]; do sleep 1; done
  if [[ $(<"$LOGS/build.rc") == 0 ]]; then
    lane_stage 10 readme readme_test
  else
    skip 10 readme "the build failed"
  fi
  first_free_runs_the_rest lane_stage
  exit 0   # each stage recorded its own outcome; any other exit status means the lane itself broke
}
# Each wire module's tests (~3 min each alone) and the light stages (the bench's Python tests, the
# dashboard's, the manifests' checks: ~2 min together) go to whichever lane is free first: after the
# readme stage in the other lane, or after the domain and system tests in the Java lane. On a new
# machine the other lane builds the tools first (the Go tools and oha take ~10 min), so which lane
# is free first differs from machine to machine; three pieces of a few minutes let the lanes end
# within a piece of each other. mkdir claims each piece atomically; the light stages wait for the
# tools (the browser test needs Chromium, and apt must not run twice at once).
first_free_runs_the_rest() {
  local run=$1 module
  for module in rest grpc; do
    mkdir "$LOGS/maven-$module.claimed" 2>/dev/null || continue
    if [[ $(<"$LOGS/build.rc") == 0 ]]; then
      "$run" 4 "maven-$module" ./mvnw -B -ntp test -pl "$module-service"
    else
      skip 4 "maven-$module" "the build failed"
    fi
  done
  mkdir "$LOGS/light-stages.claimed" 2>/dev/null || return 0
  while [[ ! -f $LOGS/tools.rc ]]; do sleep 1; done
  if [[ -d loadtest/tests ]]; then "$run" 6 pytest pytest_loadtest; else skip 6 pytest "no loadtest/tests yet"; fi
  if [[ -f dashboard/package.json ]]; then
    if "$run" 7 dashboard-deps scripts/deps.sh node; then
      "$run" 7 dashboard-test npm --prefix dashboard test
      "$run" 7 dashboard-browser npm --prefix dashboard run test:browser
    else
      skip 7 dashboard-tests "node_modules could not be installed"
    fi
  else
    skip 7 dashboard "no dashboard/package.json yet"
  fi
  "$run" 8 compose compose_validate
  "$run" 9 k8s k8s_validate
  return 0
}

other_lane &
other_lane=$!

# ---- 3 build, then 4 the Java tests (the Java lane)
build_rc=0
stage 3 build ./mvnw -B -ntp install -DskipTests || build_rc=$?
echo "$build_rc" >"$LOGS/build.rc"
if (( build_rc == 0 )); then
  stage 4 maven-domain-system ./mvnw -B -ntp -fae test -pl test-support,shared-domain,system-tests
  first_free_runs_the_rest stage
else
  skip 4 maven "the build failed"
fi

header "waiting for the other lane"
lane_rc=0
wait "$other_lane" || lane_rc=$?
other_lane=""
(( lane_rc == 0 )) || { echo "make test: the other lane itself broke (exit $lane_rc); see above"; record 11 other-lane "$lane_rc" 0; }
