#!/usr/bin/env bash
# What a refusal costs next to what it saves: the service's CPU time per warm GetGroup served (an L1
# hit, admission control off) and per GetGroup refused by admission control (on, limit 1, the one
# permit held by an update that waits for a row lock this script holds), one wire at a time.
#
#   scripts/refusal-cost.sh rest|grpc [requests per window (50000)] [windows per setting (3)]
#
# Why it matters: past saturation an instance spends CPU on every arrival, served or refused. With
# r = refusal cost / served cost, at k times the capacity the admitted requests keep at most
# (1 - k r) / (1 - r) of the peak goodput (k = 2: at least 0.8 only if r <= 1/6). README, "Under
# overload", has the figures.
#
# Needs the servers (scripts/servers.sh start), the jar (make build), oha (REST) or ghz and grpcurl
# (gRPC) on PATH or in .tools/bin. CPU time is user + system from /proc/<pid>/stat over a window of
# N requests, divided by N; the load generator's own CPU is not in it. Placed as the bench places its
# many-user cells (cost-common.sh: the service on CPU 0, the generator on CPU 1). TANDEM_COST_JAR overrides the
# jar (one built at another commit, to compare); TANDEM_COST_JVM_OPTIONS adds options to the service's JVM
# (a profiler agent, say), split on spaces.
set -euo pipefail

# shellcheck source=scripts/cost-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/cost-common.sh"
DB=tandem_refusal_cost
# A connection per caller, as oha opens for REST and as the overload bench's ghz does (200 users, 200
# connections). ghz's own default is one connection for every caller, where the streams share each
# read and write: a refusal cost 10-13 µs that way against about 20 in the bench (README, "Under
# overload"). TANDEM_COST_GRPC_CONNECTIONS=1 measures that case.
GRPC_CONNECTIONS=${TANDEM_COST_GRPC_CONNECTIONS:-$CONCURRENCY}
SERVICE=; HOLDERS=()
cleanup() { stop_and_clean "${HOLDERS[@]}" "$SERVICE"; }
trap cleanup EXIT

load() {  # n requests of GetGroup 1; prints how many came back OK and how many refused
  case $WIRE in
    rest) "${GENERATOR_CPU[@]}" oha --no-tui -n "$1" -c "$CONCURRENCY" "http://127.0.0.1:$PORT/api/v1/groups/1" >"$WORK/load.txt"
          awk '/^\s*\[200\]/ {ok = $2} /^\s*\[503\]/ {refused = $2} END {print ok + 0, refused + 0}' "$WORK/load.txt" ;;
    grpc) "${GENERATOR_CPU[@]}" ghz --insecure --call tandem.v1.StudyGroupService/GetGroup -d '{"id":1}' -n "$1" -c "$CONCURRENCY" \
            --connections "$GRPC_CONNECTIONS" \
            "127.0.0.1:$PORT" >"$WORK/load.txt"
          awk '/^\s*\[OK\]/ {ok = $2} /^\s*\[Unavailable\]/ {refused = $2} END {print ok + 0, refused + 0}' "$WORK/load.txt" ;;
  esac
}

stop() { kill "$SERVICE"; wait "$SERVICE" 2>/dev/null || true; SERVICE=; }

windows() {  # label: prints CPU per request (and how much of it the kernel's) and what the requests got, per window
  local label=$1 w u0 s0 u1 s1 answers
  for w in $(seq "$WINDOWS"); do
    u0=$(user_ticks "$SERVICE"); s0=$(system_ticks "$SERVICE")
    answers=$(load "$REQUESTS")
    u1=$(user_ticks "$SERVICE"); s1=$(system_ticks "$SERVICE")
    awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v hz="$TICKS" -v n="$REQUESTS" -v l="$label" -v w="$w" -v a="$answers" \
      'BEGIN { split(a, x, " "); printf "%-28s window %d: %6.1f us CPU per request (system %5.1f) (%d served, %d refused)\n",
               l, w, (u + s) / hz / n * 1e6, s / hz / n * 1e6, x[1], x[2] }'
  done
}

# Holds the only permit: a row lock on group 1 in a MariaDB session of its own, and an update of
# that group, admitted, waiting for it (the request deadline is raised so it outlasts the windows).
hold_the_permit() {
  mariadb -h127.0.0.1 -P13306 -utandem -ptandem "$DB" \
    -e "BEGIN; SELECT id FROM study_groups WHERE id = 1 FOR UPDATE; SELECT SLEEP(3600);" >/dev/null 2>&1 &
  HOLDERS+=($!)
  # The lock is held once that session sleeps (its FOR UPDATE ran first). A fixed pause here let the
  # update run before the lock on a busy machine, finish, and leave the permit free.
  local _ sleeping=0
  for _ in $(seq 100); do
    sleeping=$(mariadb -h127.0.0.1 -P13306 -utandem -ptandem -N \
      -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(3600)'")
    (( sleeping > 0 )) && break
    sleep 0.1
  done
  (( sleeping > 0 )) || { echo "refusal-cost: the session meant to hold group 1's row lock never got it" >&2; exit 1; }
  # The update names the group's current version: it commits once the holder is gone (when this
  # script ends), so a second run finds version 1 or more, and an update naming 0 would fail at once
  # with ABORTED, give its permit back and leave nothing to refuse. (A new name each run: the update changes something.)
  local version; version=$(mariadb -h127.0.0.1 -P13306 -utandem -ptandem -N "$DB" -e "SELECT version FROM study_groups WHERE id = 1")
  local token; token=$("$ROOT/scripts/token.sh")
  case $WIRE in
    rest) curl -s -XPATCH -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
            -d '{"group":{"name":"held '"$RANDOM"'"},"updateMask":"name","expectedVersion":'"$version"'}' \
            "http://127.0.0.1:$PORT/api/v1/groups/1" >"$WORK/update.txt" 2>&1 & ;;
    grpc) grpcurl -plaintext -max-time 3600 -H "authorization: Bearer $token" \
            -d '{"id":1,"group":{"name":"held '"$RANDOM"'"},"update_mask":{"paths":["name"]},"expected_version":'"$version"'}' \
            "127.0.0.1:$PORT" tandem.v1.StudyGroupService/UpdateGroup >"$WORK/update.txt" 2>&1 & ;;
  esac
  HOLDERS+=($!)
  local answers
  for _ in $(seq 60); do
    answers=$(load 1)
    [[ $answers == "0 1" ]] && return 0
    sleep 0.5
  done
  echo "refusal-cost: requests were not refused after 30 s; is the update waiting for the lock? It answered:" >&2
  cat "$WORK/update.txt" >&2; exit 1
}

echo "$WIRE: GetGroup 1, $WARMUP requests of warm-up, then $REQUESTS per window, concurrency $CONCURRENCY$([[ $WIRE == grpc ]] && echo " over $GRPC_CONNECTIONS connection(s)")"
start_service served TANDEM_DB_NAME=$DB TANDEM_CACHE_REDIS_KEY_PREFIX=tandem:cache:$DB: TANDEM_ADMISSION_ENABLED=false
load "$WARMUP" >/dev/null
windows "served (admission off)"
stop

start_service refused TANDEM_DB_NAME=$DB TANDEM_CACHE_REDIS_KEY_PREFIX=tandem:cache:$DB: TANDEM_ADMISSION_ENABLED=true TANDEM_ADMISSION_ALGORITHM=fixed TANDEM_ADMISSION_INITIAL_LIMIT=1 \
  TANDEM_ADMISSION_MIN_LIMIT=1 TANDEM_ADMISSION_MAX_LIMIT=1 TANDEM_LIMITS_REQUEST_TIMEOUT=1h
load "$WARMUP" >/dev/null   # served one at a time, then refused: both paths compiled
hold_the_permit
load 20000 >/dev/null   # the refused path at this concurrency, before the windows (the lock waits 50 s at most)
windows "refused (limit 1, held)"
