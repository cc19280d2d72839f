#!/usr/bin/env bash
# Everything `make test` does, in order:
#   1 deps      scripts/deps.sh java servers tools browser (JDK >= 21 check, apt mariadb/redis/
#               chromium/docker-compose/nginx, Go tools); the python venv and the dashboard's node_modules
#               are installed by their own stages, so a broken lock file fails only its stage
#   2 servers   scripts/servers.sh start (MariaDB 127.0.0.1:13306, Redis 127.0.0.1:16379)
#   3 maven     ./mvnw -B verify                                   (JAVA_HOME = scripts/java-home.sh)
#   4 pytest    scripts/deps.sh python; .tools/venv/bin/pytest -q loadtest   when loadtest/tests exists
#   5 dashboard scripts/deps.sh node; npm --prefix dashboard test; npm --prefix dashboard run test:browser
#                                                                  when dashboard/package.json exists
#   6 compose   docker-compose -f docker-compose.yml config -q; scripts/compose-check.py (the services
#               still scale: no container_name or host ports, balancer and depends_on conditions);
#               scripts/nginx-config-test.sh (the balancer's nginx.conf through nginx -t, no server started)
#   7 k8s       scripts/deps.sh k8s; scripts/k8s-validate.sh: deploy/k8s rendered by kustomize and checked
#               against the Kubernetes JSON schemas (no cluster, no network), with a self-test
#   8 readme    TANDEM_README_TEST=1 .tools/venv/bin/pytest scripts/tests: a new user's first five minutes
#               — make, make help, make down and make dashboard with nothing there, make run on a fresh
#               data directory, the README's API table and TLS example run as written, the API fuzzer
#               against that make run, make run twice, make bench PROFILE=smoke (its run checked as
#               loadtest/tests/smoke_run.py says: every driver, hit ratios, CPU, intervals, sweeps) then
#               make dashboard showing the run in headless Chromium (its own MariaDB/Redis ports 33306/36379; the
#               services on the README's 8080/9090/8081, so those must be free)
# and stops, on any exit (failure, Ctrl-C, kill), the servers that it started itself.
# Stages 3-8 all run even when one fails; the exit status is that of the first failure, 0 if none.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH="$ROOT/.tools/bin:$PATH"
export CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}   # for the dashboard's browser test

first_rc=0 first_stage=""
summary=()
started_servers=()
child=""

# Each stage runs as a child that the shell waits for, so a signal is handled at once (a plain
# foreground command would delay the trap until it ends); the handler ends the child's process tree.
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
  if [[ -n $child ]]; then
    kill_tree "$child"
    local i; for (( i = 0; i < 100; i++ )); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
  fi
  exit "$2"
}

header() { printf '\n======== [%s] %s ========\n' "$(date -u +%H:%M:%S)" "$*"; }

# stage NAME CMD... : runs CMD, prints elapsed seconds, remembers the first failure
stage() {
  local name=$1; shift
  header "$name: $*"
  local t0=$SECONDS rc=0
  run_child "$@" || rc=$?
  local dt=$(( SECONDS - t0 ))
  if (( rc == 0 )); then
    echo "-------- $name: ok in ${dt}s"
    summary+=("$(printf '%-22s ok     %5ss' "$name" "$dt")")
  else
    echo "-------- $name: FAILED (exit $rc) after ${dt}s"
    summary+=("$(printf '%-22s FAILED %5ss  (exit %s)' "$name" "$dt" "$rc")")
    if (( first_rc == 0 )); then first_rc=$rc first_stage=$name; fi
  fi
  return $rc
}

skip() { header "$1"; echo "-------- skipped: $2"; summary+=("$(printf '%-22s skipped (%s)' "$1" "$2")"); }

finish() {
  local st=$?
  trap - EXIT INT TERM
  if (( ${#started_servers[@]} )); then
    header "stop the servers this run started: ${started_servers[*]}"
    local s
    for s in "${started_servers[@]}"; do scripts/servers.sh stop "$s" || true; done
  fi
  (( first_rc == 0 && st != 0 )) && first_rc=$st first_stage=${first_stage:-interrupted}
  header "summary"
  printf '  %s\n' "${summary[@]+"${summary[@]}"}"
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

# ---- 1 deps
stage deps scripts/deps.sh java servers tools browser || exit
JAVA_HOME=$(scripts/java-home.sh) || exit
export JAVA_HOME
echo "JAVA_HOME=$JAVA_HOME"

# ---- 2 servers (remember which ones were not running before, to stop only those)
for s in mariadb redis; do
  scripts/servers.sh status "$s" >/dev/null 2>&1 || started_servers+=("$s")
done
stage servers scripts/servers.sh start || exit

# ---- 3 Java: unit and integration tests against the servers above
stage maven ./mvnw -B -ntp verify

# ---- 4 loadtest (Python)
if [[ -d loadtest/tests ]]; then
  pytest_loadtest() {
    scripts/deps.sh python || return
    if [[ ! -x .tools/venv/bin/pytest ]]; then
      echo "no .tools/venv/bin/pytest: add pytest to loadtest/requirements.txt" >&2; return 1
    fi
    local rc=0
    .tools/venv/bin/pytest -q loadtest || rc=$?
    if (( rc == 5 )); then echo "pytest collected no tests under loadtest/ (exit 5, counted as a pass)"; rc=0; fi
    return $rc
  }
  stage pytest pytest_loadtest
else
  skip pytest "no loadtest/tests yet"
fi

# (The bench's smoke profile end to end runs once, in the readme stage: the README's
# `make bench PROFILE=smoke`, its run checked by loadtest/tests/smoke_run.py.)

# ---- 5 dashboard (node unit tests, then one browser test in headless Chromium)
if [[ -f dashboard/package.json ]]; then
  if stage dashboard-deps scripts/deps.sh node; then
    stage dashboard-test npm --prefix dashboard test
    stage dashboard-browser npm --prefix dashboard run test:browser
  else
    skip dashboard-tests "node_modules could not be installed"
  fi
else
  skip dashboard "no dashboard/package.json yet"
fi

# ---- 6 docker-compose.yml still parses and its balancer's nginx.conf passes nginx -t (no engine needed)
compose_validate() {
  docker-compose -f docker-compose.yml config -q || return
  docker-compose -f docker-compose.yml config | python3 scripts/compose-check.py || return
  scripts/nginx-config-test.sh
}
stage compose compose_validate

# ---- 7 the Kubernetes manifests render and validate (no cluster needed); installs its own tools, so
# a failed install fails only this stage
k8s_validate() {
  scripts/deps.sh k8s || return
  scripts/k8s-validate.sh
}
stage k8s k8s_validate

# ---- 8 the README as a test: its commands, as written, on a fresh data directory
readme_test() {
  scripts/deps.sh python node || return
  TANDEM_README_TEST=1 .tools/venv/bin/pytest -q -rs scripts/tests
}
stage readme readme_test

exit "$first_rc"
