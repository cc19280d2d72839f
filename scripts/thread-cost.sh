#!/usr/bin/env bash
# What a warm GetGroup costs beyond the wire's hello-world, thread by thread: windows of the
# hello-world (GET /api/v1/hello, tandem.v1.HelloService/Hello) and of warm GetGroup alternate on
# one service, placed as the bench places its many-user cells, and each window prints the service's
# CPU a request, user and system, and each kind of thread's share of it.
#
#   scripts/thread-cost.sh rest|grpc [requests per window (150000)] [pairs (4)]
#
# Why: the hot path's goal divides GetGroup's CPU a request by the hello-world's, and that ratio
# moves from day to day (README, "The hot path against the framework's floor"). Split by thread it
# says whose the difference is: the carrier thread that runs the virtual threads (the request's own
# code), the I/O threads (Tomcat's poller, Netty's event loops), the collector, the JIT. The notebook
# (docs/hot-path.md, "Why REST's CPU ratio moves between days") has the figures.
#
# Placement and generators as in scripts/io-cost.sh: the service on CPU 0 with
# -XX:ActiveProcessorCount=1 and the bench's heap flags, the generator on CPU 1; TANDEM_COST_CONCURRENCY
# users (50) a connection each, one request in flight each: oha for REST, h2load for gRPC. CPU from
# /proc/<pid>/stat and /proc/<pid>/task/*/stat, a thread's kind from its name with its number left
# off; context switches summed over the threads; the generator's CPU over the window's wall time.
# TANDEM_COST_JVM_OPTIONS are added to the service's JVM options (e.g.
# -XX:FlightRecorderOptions:stackdepth=256 for a JFR profile of the windows).
#
# Needs the servers (scripts/servers.sh start), the jar (make build), oha or h2load.
# TANDEM_COST_WARMUP (150000, of each endpoint) and TANDEM_COST_JAR as in the other cost scripts.
set -euo pipefail

: "${TANDEM_COST_CONCURRENCY:=50}"
# shellcheck source=scripts/cost-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/cost-common.sh"
REQUESTS=${2:-150000}
PAIRS=${3:-4}
SERVICE=
cleanup() { stop_and_clean "$SERVICE"; }
trap cleanup EXIT

GENERATOR=$([[ $WIRE == rest ]] && echo oha || echo h2load)
command -v "$GENERATOR" >/dev/null || { echo "thread-cost: $GENERATOR not found (make bench installs it)" >&2; exit 1; }
# gRPC requests as frames: GetGroup {id: 1} (field 1 = 1) and an empty HelloRequest
printf '\x00\x00\x00\x00\x02\x08\x01' >"$WORK/GetGroup.frame"
printf '\x00\x00\x00\x00\x00' >"$WORK/Hello.frame"

load() {  # $1 Hello|GetGroup, $2 requests; fails unless every one was answered 200
  local ok
  if [[ $WIRE == rest ]]; then
    local path; path=$([[ $1 == Hello ]] && echo hello || echo groups/1)
    "${GENERATOR_CPU[@]}" oha --no-tui -n "$2" -c "$CONCURRENCY" "http://127.0.0.1:$PORT/api/v1/$path" >"$WORK/load.txt"
    ok=$(awk '/^\s*\[200\]/ {print $2}' "$WORK/load.txt")
  else
    local method; method=$([[ $1 == Hello ]] && echo tandem.v1.HelloService/Hello || echo tandem.v1.StudyGroupService/GetGroup)
    "${GENERATOR_CPU[@]}" h2load -n "$2" -c "$CONCURRENCY" -m 1 -t 1 --header 'content-type: application/grpc' \
      --header 'te: trailers' --data "$WORK/$1.frame" "http://127.0.0.1:$PORT/$method" >"$WORK/load.txt"
    ok=$(sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' "$WORK/load.txt")
  fi
  [[ ${ok:-0} == "$2" ]] || { echo "thread-cost: $WIRE $1 answered ${ok:-0} of $2 with 200; the generator said:" >&2; cat "$WORK/load.txt" >&2; exit 1; }
}

# Each thread's kind (its name without a trailing number), user and system ticks, and context
# switches, one line per thread of process $1.
threads() {
  local t name
  for t in /proc/"$1"/task/*; do
    name=$(tr ' ' _ <"$t/comm" 2>/dev/null) || continue
    # the fields after the name, which may hold spaces ("C2 CompilerThre"): state, ..., utime (the
    # 12th from there), stime
    awk -v n="$name" -v sw="$(awk '/ctxt_switches/ {s += $2} END {print s + 0}' "$t/status" 2>/dev/null)" \
      '{sub(/^.*\) /, ""); sub(/[-_]?[0-9]+$/, "", n); print n, $12, $13, sw}' "$t/stat" 2>/dev/null || true
  done
}

SERVICE_JVM_OPTIONS=("${BENCH_JVM_OPTIONS[@]}")
start_service service

echo "$WIRE: the hello-world and warm GetGroup alternating, $CONCURRENCY users a connection each, $WARMUP requests of" \
     "warm-up of each, then $PAIRS pairs of windows of $REQUESTS; $([[ -n $PINNED ]] && echo "service on CPU 0, generator on CPU 1" || echo "nothing pinned");" \
     "jar ${JAR#"$ROOT"/}; µs a request (user + system), by thread kind where at least 0.1"
load Hello "$WARMUP"; load GetGroup "$WARMUP"   # JIT, L1 filled
for pair in $(seq "$PAIRS"); do
  for op in Hello GetGroup; do
    threads "$SERVICE" | sort >"$WORK/before"
    # the generator's CPU: this shell's waited-for children's times (the builtin, which does not
    # fork, written to a file) around the window, over its wall time
    times >"$WORK/times0"; t0=$(date +%s.%N)
    load "$op" "$REQUESTS"
    times >"$WORK/times1"; t1=$(date +%s.%N)
    threads "$SERVICE" | sort >"$WORK/after"
    generator=$(awk -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" '
      function s(x) { split(x, p, "m"); return p[1] * 60 + p[2] }
      FNR == 2 { c[++k] = s($1) + s($2) } END { printf "%.2f", (c[2] - c[1]) / wall }' "$WORK/times0" "$WORK/times1")
    # per kind, the ticks its threads had after the window less those they had before (a thread
    # that ended within the window takes its ticks with it; the pools' threads live for the run)
    awk -v op="$op" -v pair="$pair" -v hz="$TICKS" -v n="$REQUESTS" -v gen="$generator" '
      FNR == NR { u0[$1] += $2; s0[$1] += $3; c0 += $4; next }
      { u1[$1] += $2; s1[$1] += $3; c1 += $4 }
      END {
        for (k in u1) { du = (u1[k] - u0[k]) / hz / n * 1e6; ds = (s1[k] - s0[k]) / hz / n * 1e6; U += du; S += ds
                        if (du + ds >= 0.1) parts = parts sprintf(", %s %.1f + %.1f", k, du, ds) }
        printf "pair %d %-8s %5.1f us a request (user %5.1f, system %5.1f), %.2f context switches, generator %s of a core%s\n",
               pair, op, U + S, U, S, (c1 - c0) / n, gen, parts
      }' "$WORK/before" "$WORK/after"
  done
done
