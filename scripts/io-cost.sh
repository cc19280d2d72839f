#!/usr/bin/env bash
# Where a request's CPU goes between the service's code and the kernel: per warm GetGroup (an L1
# hit), the service's user and system CPU time, its threads' context switches and, where perf can
# count them, its system calls; one wire at a time, placed as the bench places its many-user cells.
#
#   scripts/io-cost.sh rest|grpc [requests per window (100000)] [windows (3)]
#
# Why: in `make bench PROFILE=protocols` the step from REST (Protobuf over HTTP/2, Tomcat) to gRPC
# (the same bytes over HTTP/2, Netty) divides the server's CPU per request by about 2.6. This shows
# how much of that is each server's way of doing I/O: how often it enters the kernel and hands a
# request between threads. README, "Where the difference comes from", has the figures.
#
# Placement: on a machine with 2 or more CPUs the service runs on CPU 0 with -XX:ActiveProcessorCount=1
# and the bench's heap flags, the generator on CPU 1 (the bench's placement: a request's hand-off
# from one thread to another is then a context switch on one core). 50 users, each on a connection of
# its own, one request in flight each: oha for REST over HTTP/1.1, h2load for gRPC and for REST over
# HTTP/2 (TANDEM_COST_REST_HTTP=2: h2c, Protobuf), the bench's native generators. Counts: user and system time from /proc/<pid>/stat; context switches summed over
# /proc/<pid>/task/*/status (voluntary and not); system calls from `perf stat` on the kernel's
# syscall tracepoints (root, or kernel.perf_event_paranoid <= 1; otherwise "n/a"): all of them, and
# the I/O and thread ones by name. Each over a window of N requests, divided by N; the generator's
# own are not in them.
#
# Needs the servers (scripts/servers.sh start), the jar (make build), oha or h2load.
# TANDEM_COST_CONCURRENCY (50), TANDEM_COST_WARMUP (150000), TANDEM_COST_JAR and TANDEM_COST_JVM_OPTIONS as in the other cost
# scripts.
set -euo pipefail

: "${TANDEM_COST_CONCURRENCY:=50}"
# shellcheck source=scripts/cost-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/cost-common.sh"
REQUESTS=${2:-100000}
SERVICE=; COUNTER=
cleanup() { stop_and_clean "$COUNTER" "$SERVICE"; }
trap cleanup EXIT

PLACEMENT=$([[ -n $PINNED ]] && echo "service on CPU 0, generator on CPU 1" || echo "one CPU (or no taskset): nothing pinned")
# REST over HTTP/2 (h2c) in Protobuf: the same bytes over the same protocol as gRPC, so that only the
# server stack differs (the protocols profile's last step)
REST_HTTP=${TANDEM_COST_REST_HTTP:-1.1}
[[ $REST_HTTP == 1.1 || $REST_HTTP == 2 ]] || { echo "io-cost: TANDEM_COST_REST_HTTP is 1.1 or 2" >&2; exit 2; }
GENERATOR=$([[ $WIRE == rest && $REST_HTTP == 1.1 ]] && echo oha || echo h2load)
command -v "$GENERATOR" >/dev/null || { echo "io-cost: $GENERATOR not found (make bench installs it)" >&2; exit 1; }
# the calls a server's I/O and its thread hand-offs are made of (Tomcat's NIO, Netty's epoll, the JDK's
# virtual-thread scheduler); a name none of them made in a window is left out of its line
PERF=; PERF_EVENTS=
if command -v perf >/dev/null && perf stat -e raw_syscalls:sys_enter -x, -o /dev/null -- true 2>/dev/null; then
  PERF=perf; PERF_EVENTS=raw_syscalls:sys_enter
  for name in read write readv writev recvfrom sendto recvmsg sendmsg epoll_wait epoll_pwait epoll_pwait2 epoll_ctl futex; do
    # a kernel without one of these tracepoints just does not count it
    if perf stat -e "syscalls:sys_enter_$name" -x, -o /dev/null -- true 2>/dev/null; then
      PERF_EVENTS+=",syscalls:sys_enter_$name"
    fi
  done
fi
# GetGroup {id: 1} as a gRPC message: no compression, length 2, field 1 = 1
printf '\x00\x00\x00\x00\x02\x08\x01' >"$WORK/get-group-1.frame"

load() {  # n requests of warm GetGroup 1; fails unless every one was answered 200
  local ok
  if [[ $WIRE == rest && $REST_HTTP == 1.1 ]]; then
    "${GENERATOR_CPU[@]}" oha --no-tui -n "$1" -c "$CONCURRENCY" "http://127.0.0.1:$PORT/api/v1/groups/1" >"$WORK/load.txt"
    ok=$(awk '/^\s*\[200\]/ {print $2}' "$WORK/load.txt")
  else
    if [[ $WIRE == rest ]]; then  # h2c by prior knowledge, the protobuf representation
      H2LOAD_CALL=(--header 'accept: application/x-protobuf' "http://127.0.0.1:$PORT/api/v1/groups/1")
    else
      H2LOAD_CALL=(--header 'content-type: application/grpc' --header 'te: trailers' --data "$WORK/get-group-1.frame"
                   "http://127.0.0.1:$PORT/tandem.v1.StudyGroupService/GetGroup")
    fi
    "${GENERATOR_CPU[@]}" h2load -n "$1" -c "$CONCURRENCY" -m 1 -t 1 "${H2LOAD_CALL[@]}" >"$WORK/load.txt"
    ok=$(sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' "$WORK/load.txt")
  fi
  [[ ${ok:-0} == "$1" ]] || { echo "io-cost: $WIRE answered ${ok:-0} of $1 with 200; the generator said:" >&2; cat "$WORK/load.txt" >&2; exit 1; }
}

# The context switches of every thread process $1 has now.
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {n += $2} END {print n + 0}'; }

SERVICE_JVM_OPTIONS=("${BENCH_JVM_OPTIONS[@]}")
start_service service SERVER_HTTP2_ENABLED="$([[ $REST_HTTP == 2 ]] && echo true || echo false)"

echo "$WIRE$([[ $WIRE == rest ]] && echo " (HTTP/$REST_HTTP$([[ $REST_HTTP == 2 ]] && echo ", Protobuf"))"): warm GetGroup, $CONCURRENCY users a connection each, $WARMUP requests of warm-up, then $REQUESTS per window;" \
     "$PLACEMENT; jar ${JAR#"$ROOT"/}"
load "$WARMUP"  # JIT, L1 filled
for w in $(seq "$WINDOWS"); do
  if [[ -n $PERF ]]; then
    perf stat -e "$PERF_EVENTS" -x, -o "$WORK/perf.txt" -p "$SERVICE" 2>/dev/null &
    COUNTER=$!
    sleep 0.5  # perf attaches to every thread before the window starts
  fi
  u0=$(user_ticks "$SERVICE"); s0=$(system_ticks "$SERVICE"); c0=$(switches "$SERVICE")
  load "$REQUESTS"
  u1=$(user_ticks "$SERVICE"); s1=$(system_ticks "$SERVICE"); c1=$(switches "$SERVICE")
  calls="n/a system calls (perf cannot count them here)"
  if [[ -n $PERF ]]; then
    kill -INT "$COUNTER"; wait "$COUNTER" 2>/dev/null || true; COUNTER=
    # counted from perf's attach to its interrupt: the window plus half a second of an idle service
    calls=$(awk -F, -v n="$REQUESTS" '
      $3 == "raw_syscalls:sys_enter" { total = sprintf("%.2f", $1 / n) }
      $3 ~ /^syscalls:sys_enter_/ && $1 / n >= 0.005 { sub("syscalls:sys_enter_", "", $3); named = named sprintf(" %s %.2f,", $3, $1 / n) }
      END { sub(",$", "", named); print total " system calls (" substr(named, 2) ")" }' "$WORK/perf.txt")
  fi
  awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v hz="$TICKS" -v n="$REQUESTS" -v w="$w" -v calls="$calls" \
    'BEGIN { printf "window %d: CPU %5.1f us a request (user %5.1f, system %5.1f), %.2f context switches, %s\n",
             w, (u + s) / hz / n * 1e6, u / hz / n * 1e6, s / hz / n * 1e6, c / n, calls }'
done
