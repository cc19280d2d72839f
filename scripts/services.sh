#!/usr/bin/env bash
# The two service jars in the background, on the newest JDK (scripts/java-home.sh).
#
#   scripts/services.sh start|stop|restart|status|hints   (hints: example curl/grpcurl commands and a write token)
#
#   rest-service  rest-service/target/rest-service.jar   http://127.0.0.1:8080  (health /actuator/health)
#   grpc-service  grpc-service/target/grpc-service.jar   127.0.0.1:9090 gRPC, http://127.0.0.1:8081/actuator/health
#
# Logs: .run/logs/<service>.log   pids: .run/pids/<service>.pid   (under TANDEM_RUN_DIR when set)
# The environment passes through to the jars (TANDEM_DB_*, SPRING_DATA_REDIS_*, TANDEM_SEED_*, ...),
# except SERVER_PORT: the REST port is TANDEM_REST_PORT (else SERVER_PORT), and the gRPC service's web
# server (its actuator alone) gets TANDEM_GRPC_MANAGEMENT_PORT as its SERVER_PORT. Knobs of this script:
#   TANDEM_REST_PORT (8080)  TANDEM_GRPC_PORT (9090)  TANDEM_GRPC_MANAGEMENT_PORT (8081)
#   TANDEM_JAVA_OPTS (JVM flags for both)  TANDEM_SERVICE_START_TIMEOUT (180 s)
# TLS (README "TLS"): with TANDEM_TLS_ENABLED=true and TANDEM_TLS_CERTIFICATE/TANDEM_TLS_PRIVATE_KEY
# the jars serve HTTPS and gRPC over TLS; this script then checks REST's health over https,
# trusting TANDEM_TLS_CERTIFICATE (the gRPC service's management port stays plain HTTP).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# TANDEM_RUN_DIR (as scripts/servers.sh reads it) moves the logs and pid files with the servers' data.
RUN=${TANDEM_RUN_DIR:-$ROOT/.run}
LOGS=$RUN/logs
PIDS=$RUN/pids

REST_PORT=${TANDEM_REST_PORT:-${SERVER_PORT:-8080}}
GRPC_PORT=${TANDEM_GRPC_PORT:-${SPRING_GRPC_SERVER_PORT:-9090}}
GRPC_MGMT_PORT=${TANDEM_GRPC_MANAGEMENT_PORT:-8081}
START_TIMEOUT=${TANDEM_SERVICE_START_TIMEOUT:-180}
TLS=false; REST_SCHEME=http; CA_ARGS=()
# every spelling Spring binds as true, as the services read it (CanonicalSettings)
tls_setting=${TANDEM_TLS_ENABLED:-false}
if [[ ${tls_setting,,} =~ ^(true|on|yes|1)$ ]]; then
  TLS=true; REST_SCHEME=https; CA_ARGS=(--cacert "${TANDEM_TLS_CERTIFICATE:-}")
fi
STOP_TIMEOUT=${TANDEM_SERVICE_STOP_TIMEOUT:-40}

SERVICES=(rest-service grpc-service)

say() { echo "services: $*"; }
err() { echo "services: ERROR: $*" >&2; }

jar_of()    { echo "$ROOT/$1/target/$1.jar"; }
health_of() {
  case $1 in
    rest-service) echo "$REST_SCHEME://127.0.0.1:$REST_PORT/actuator/health" ;;
    grpc-service) echo "http://127.0.0.1:$GRPC_MGMT_PORT/actuator/health" ;;
  esac
}
port_of() { case $1 in rest-service) echo "$REST_PORT" ;; grpc-service) echo "$GRPC_PORT" ;; esac; }

alive() {
  local st
  st=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $st && $st != Z && $st != X ]]
}

svc_pid() {  # pid of a service this script started, if it still runs
  local f=$PIDS/$1.pid pid
  [[ -s $f ]] || return 1
  pid=$(tr -dc '0-9' <"$f")
  [[ -n $pid ]] && alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$1.jar" || return 1
  echo "$pid"
}

http_get() {  # an https URL is checked against TANDEM_TLS_CERTIFICATE (when TLS is on)
  local ca=()
  [[ $1 == https://* ]] && ca=("${CA_ARGS[@]}")
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 3 "${ca[@]}" "$1" 2>/dev/null
  else
    python3 - "$1" "${TANDEM_TLS_CERTIFICATE:-}" <<'PY' 2>/dev/null
import ssl, sys, urllib.request
context = ssl.create_default_context(cafile=sys.argv[2]) if sys.argv[1].startswith("https") and sys.argv[2] else None
print(urllib.request.urlopen(sys.argv[1], timeout=3, context=context).read().decode())
PY
  fi
}

is_up() { http_get "$1" | grep -qE '"status" *: *"UP"'; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

log_tail() {
  local f=$LOGS/$1.log
  [[ -f $f ]] || return 0
  echo "---- last lines of ${f#"$ROOT"/} ----" >&2; tail -n 40 "$f" >&2; echo "----" >&2
}

stop_one() {
  local name=$1 pid i
  if ! pid=$(svc_pid "$name"); then rm -f "$PIDS/$name.pid"; say "$name not running"; return 0; fi
  kill -TERM "$pid" 2>/dev/null || true
  for (( i = 0; i < STOP_TIMEOUT * 10; i++ )); do
    alive "$pid" || break
    sleep 0.1
  done
  if alive "$pid"; then
    err "$name (pid $pid) did not stop within ${STOP_TIMEOUT}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$PIDS/$name.pid"
  say "$name stopped"
}

launch() {  # launch NAME JAVA ; starts without waiting
  local name=$1 java=$2
  local -a envs=()
  case $name in
    rest-service) envs=(SERVER_PORT="$REST_PORT") ;;
    # The gRPC service's web server serves only its actuator: its port is SERVER_PORT, as the system
    # tests and the bench give it. Moved with MANAGEMENT_SERVER_PORT instead, Boot ran a second web
    # server for the actuator, on every interface (a management port of its own binds
    # management.server.address, not server.address), and the first still took 8081 (ServicesScriptTest).
    grpc-service) envs=(SERVER_PORT="$GRPC_MGMT_PORT" SPRING_GRPC_SERVER_PORT="$GRPC_PORT") ;;
  esac
  local -a args; mapfile -t args <"$RUN/launch/$name.args"
  {
    echo "==== $(date -u +%FT%TZ) starting $name: $java ${TANDEM_JAVA_OPTS:-} ${args[*]//"$ROOT"\//}"
  } >>"$LOGS/$name.log"
  # shellcheck disable=SC2086  # TANDEM_JAVA_OPTS is a list of flags
  setsid env "${envs[@]}" "$java" ${TANDEM_JAVA_OPTS:-} "${args[@]}" </dev/null >>"$LOGS/$name.log" 2>&1 &
  echo $! >"$PIDS/$name.pid"
}

# How each jar starts (scripts/jar-launch.sh: its extracted layout and AOT cache, made on first use
# of a jar, both jars side by side) into $RUN/launch/<name>.args, which launch reads.
prepare_launch() {  # prepare_launch JAVA NAME...
  local java=$1 name failed=0; shift
  local -a jobs=()
  mkdir -p "$RUN/launch"
  for name in "$@"; do
    JAVA=$java "$ROOT/scripts/jar-launch.sh" "$(jar_of "$name")" >"$RUN/launch/$name.args" &
    jobs+=($!)
  done
  for job in "${jobs[@]}"; do wait "$job" || failed=1; done
  (( failed == 0 )) || { err "scripts/jar-launch.sh failed"; return 1; }
}

start() {
  local name missing=0 java_home java
  for name in "${SERVICES[@]}"; do
    if [[ ! -f $(jar_of "$name") ]]; then
      err "missing $name/target/$name.jar — build it first: make build  (./mvnw -B -q package -DskipTests)"
      missing=1
    fi
  done
  (( missing == 0 )) || return 1
  java_home=$("$ROOT/scripts/java-home.sh") || return 1
  java=$java_home/bin/java
  mkdir -p "$LOGS" "$PIDS"

  local -a to_start=()
  for name in "${SERVICES[@]}"; do
    svc_pid "$name" >/dev/null || to_start+=("$name")
  done
  (( ${#to_start[@]} == 0 )) || prepare_launch "$java" "${to_start[@]}" || return 1

  local -a started=()
  for name in "${SERVICES[@]}"; do
    if pid=$(svc_pid "$name"); then say "$name already running (pid $pid)"; continue; fi
    local busy=""
    case $name in
      rest-service) port_open "$REST_PORT" && busy=$REST_PORT ;;
      grpc-service) { port_open "$GRPC_PORT" && busy=$GRPC_PORT; } || { port_open "$GRPC_MGMT_PORT" && busy=$GRPC_MGMT_PORT; } || true ;;
    esac
    if [[ -n $busy ]]; then
      err "port 127.0.0.1:$busy (for $name) is taken by a process this script did not start"
      for n in "${started[@]}"; do stop_one "$n" >/dev/null; done
      return 1
    fi
    launch "$name" "$java"
    started+=("$name")
  done

  # wait for both (they start in parallel)
  local t0=$SECONDS pending=("${SERVICES[@]}") still pid
  while (( ${#pending[@]} )); do
    still=()
    for name in "${pending[@]}"; do
      if is_up "$(health_of "$name")"; then
        say "$name UP ($(health_of "$name")) after $(( SECONDS - t0 ))s"
        continue
      fi
      if ! pid=$(svc_pid "$name"); then
        err "$name exited during start-up"; log_tail "$name"
        for n in "${SERVICES[@]}"; do stop_one "$n" >/dev/null; done
        return 1
      fi
      still+=("$name")
    done
    pending=("${still[@]+"${still[@]}"}")
    (( ${#pending[@]} )) || break
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      for name in "${pending[@]}"; do
        err "$name not UP at $(health_of "$name") within ${START_TIMEOUT}s"; log_tail "$name"
      done
      for n in "${SERVICES[@]}"; do stop_one "$n" >/dev/null; done
      return 1
    fi
    sleep 1
  done

  local tls_note=""
  [[ $TLS == true ]] && tls_note="  TLS on: trust ${TANDEM_TLS_CERTIFICATE:-} (curl --cacert, grpcurl -cacert)
"
  cat <<EOF
services: running on $java_home
${tls_note}  REST     $REST_SCHEME://127.0.0.1:$REST_PORT/api/v1/groups    OpenAPI $REST_SCHEME://127.0.0.1:$REST_PORT/v3/api-docs
           health  $REST_SCHEME://127.0.0.1:$REST_PORT/actuator/health   metrics $REST_SCHEME://127.0.0.1:$REST_PORT/actuator/prometheus
  gRPC     127.0.0.1:$GRPC_PORT (tandem.v1.StudyGroupService, reflection, grpc.health.v1.Health$([[ $TLS == true ]] && echo ', over TLS'))
           health  http://127.0.0.1:$GRPC_MGMT_PORT/actuator/health   metrics http://127.0.0.1:$GRPC_MGMT_PORT/actuator/prometheus
  logs     ${LOGS#"$ROOT"/}/rest-service.log  ${LOGS#"$ROOT"/}/grpc-service.log
EOF
}

status() {
  local name pid rc=0 h
  for name in "${SERVICES[@]}"; do
    h=$(health_of "$name")
    if pid=$(svc_pid "$name"); then
      if is_up "$h"; then say "$name running (pid $pid), UP at $h"
      else say "$name running (pid $pid), not UP at $h"; rc=1; fi
    else
      say "$name stopped"; rc=1
    fi
  done
  return $rc
}

hints() {
  local token
  token=$("$ROOT/scripts/token.sh" 2>/dev/null) || token="(scripts/token.sh failed; build first: make build)"
  local curl="curl -s" grpcurl="grpcurl -plaintext"
  if [[ $TLS == true ]]; then
    curl="curl -s --cacert ${TANDEM_TLS_CERTIFICATE:-}"; grpcurl="grpcurl -cacert ${TANDEM_TLS_CERTIFICATE:-}"
  fi
  cat <<EOF

Ready. A write token (valid 30 days; make -s token prints a fresh one):
  TOKEN=$token
Try (every operation on both wires, top to bottom: README, "The API on both wires"):
  export PATH="$ROOT/.tools/bin:\$PATH"     # grpcurl
  $curl $REST_SCHEME://127.0.0.1:$REST_PORT/api/v1/groups/1
  $grpcurl -d '{"id":1}' 127.0.0.1:$GRPC_PORT tandem.v1.StudyGroupService/GetGroup
  $curl '$REST_SCHEME://127.0.0.1:$REST_PORT/api/v1/groups?subject=physics&page_size=2'
  $curl -XPOST -H "Authorization: Bearer \$TOKEN" $REST_SCHEME://127.0.0.1:$REST_PORT/api/v1/users -H 'Content-Type: application/json' -d '{"name":"Ada","email":"ada@example.test"}'
  $grpcurl 127.0.0.1:$GRPC_PORT list
Then: make bench (measure), make dashboard (plot), make down (stop everything).
EOF
}

case ${1:-} in
  start)   start ;;
  hints)   hints ;;
  stop)    rc=0; for n in grpc-service rest-service; do stop_one "$n" || rc=1; done; exit $rc ;;
  restart) for n in grpc-service rest-service; do stop_one "$n"; done; start ;;
  status)  status ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
