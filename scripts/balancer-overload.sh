#!/usr/bin/env bash
# What shedding at the balancer buys an overloaded REST instance: the REST service alone, then
# behind the compose balancer (deploy/compose/nginx.conf, rendered by scripts/balancer.sh) with its
# in-flight limit, both driven past saturation in the open model; per step the goodput, the
# refusals, the accepted requests' p50/p99 timed from when each was due, and the CPU of the service
# and of nginx.
#
#   scripts/balancer-overload.sh [in-flight limit (the config's)] [rounds (2)]
#
# Why: README "Under overload". A refusal in the REST service costs about what serving the request
# does (Tomcat's reads and writes, and its closing of the connection after a 503), so an instance
# cannot refuse its way back to short queues; refusing in nginx costs a fraction of that.
#
# Placement (2 or more CPUs): the service (-XX:ActiveProcessorCount=1, the bench's heap flags) and
# nginx (one worker) share CPU 0, as a balancer on the instance's machine would; oha on CPU 1.
# Per round and path (direct, then through the balancer): a closed window of 50 users (through the
# balancer, 7/8 of its limit when that is fewer: users it refused would ask again at once, and the
# refusals would take CPU from the capacity measured), whose goodput is that path's capacity, then
# open-model windows (oha -q, --latency-correction, 500 connections, deadline 10 s) at 25, 100 and
# 200 % of it. The goals of issue #17 per path: goodput at 200 % >= 0.8 x the best step's, accepted
# p99 at 200 % <= 10 x the 25 % step's.
#
# Needs the servers (scripts/servers.sh start), the jar (make build), oha (make bench installs it)
# and nginx (scripts/deps.sh servers). TANDEM_COST_WARMUP (150000), TANDEM_COST_JAR and
# TANDEM_COST_JVM_OPTIONS as in the other cost scripts; TANDEM_OVERLOAD_SECONDS (8) a window.
set -euo pipefail

LIMIT_ARG=${1:-}
ROUNDS=${2:-2}
set -- rest
# shellcheck source=scripts/cost-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/cost-common.sh"
SECONDS_PER_WINDOW=${TANDEM_OVERLOAD_SECONDS:-8}
USERS=500
STEPS=(25 100 200)
command -v oha >/dev/null || { echo "balancer-overload: oha not found (make bench installs it)" >&2; exit 1; }
command -v nginx >/dev/null || { echo "balancer-overload: nginx not found (scripts/deps.sh servers)" >&2; exit 1; }

SERVICE=; BALANCER=
cleanup() { stop_and_clean "$BALANCER" "$SERVICE"; }
trap cleanup EXIT

PLACEMENT=$([[ -n $PINNED ]] && echo "service and nginx on CPU 0, oha on CPU 1" || echo "one CPU (or no taskset): nothing pinned")

SERVICE_JVM_OPTIONS=("${BENCH_JVM_OPTIONS[@]}")
start_service service

BALANCER_PORT=$((PORT + 2))
env TANDEM_BALANCER_REST_UPSTREAM="127.0.0.1:$PORT" TANDEM_BALANCER_GRPC_UPSTREAM="127.0.0.1:$((PORT + 4))" \
  TANDEM_BALANCER_REST_PORT="$BALANCER_PORT" TANDEM_BALANCER_GRPC_PORT="$((PORT + 3))" TANDEM_BALANCER_WORKERS=1 \
  TANDEM_BALANCER_REST_IN_FLIGHT="$LIMIT_ARG" "$ROOT/scripts/balancer.sh" render "$WORK/balancer"
LIMIT=$(sed -n 's/.*limit_conn rest_in_flight \([0-9]*\);.*/\1/p' "$WORK/balancer/nginx.conf")
"${SERVICE_CPU[@]}" nginx -p "$WORK/balancer" -c "$WORK/balancer/nginx.conf" -e "$WORK/balancer/logs/error.log" -g 'daemon off;' &
BALANCER=$!
for _ in $(seq 20); do curl -fs "http://127.0.0.1:$BALANCER_PORT/balancer-health" >/dev/null 2>&1 && break; sleep 0.5; done
NGINX_WORKER=$(pgrep -P "$BALANCER" | head -1)
[[ -n $NGINX_WORKER ]] || { echo "balancer-overload: nginx did not start:" >&2; cat "$WORK/balancer/logs/error.log" >&2; exit 1; }

CLOSED_USERS=$(( LIMIT - LIMIT / 8 < 50 ? LIMIT - LIMIT / 8 : 50 ))   # at least 1 for a limit of 1

# one window: $1 path (direct|balancer) $2 closed|<rate>; prints "ok refused other p50 p99 serviceCpu nginxCpu"
window() {
  local base=http://127.0.0.1:$([[ $1 == direct ]] && echo "$PORT" || echo "$BALANCER_PORT")
  local args=(-c "$([[ $1 == direct ]] && echo 50 || echo "$CLOSED_USERS")") s0 n0 s1 n1
  [[ $2 == closed ]] || args=(-c "$USERS" -q "$2" --latency-correction)
  rm -f "$WORK/oha.db"
  s0=$(cpu_ticks "$SERVICE"); n0=$(cpu_ticks "$NGINX_WORKER")
  "${GENERATOR_CPU[@]}" oha --no-tui --output-format json --output "$WORK/oha.json" --worker-threads 1 \
    -z "${SECONDS_PER_WINDOW}s" -t 10s --wait-ongoing-requests-after-deadline --db-url "$WORK/oha.db" \
    "${args[@]}" "$base/api/v1/groups/1" >/dev/null 2>&1
  s1=$(cpu_ticks "$SERVICE"); n1=$(cpu_ticks "$NGINX_WORKER")
  python3 - "$WORK/oha.db" "$WORK/oha.json" <<EOF
import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT coalesce(start_latency_correction, start), end, status FROM oha").fetchall()
report = json.load(open(sys.argv[2]))
errors = sum((report.get("errorDistribution") or {}).values())   # no response: not in the database
ok = sorted((end - due) * 1e3 for due, end, status in rows if status == 200)
refused = sum(1 for r in rows if r[2] == 503)
other = len(rows) - len(ok) - refused + errors
q = lambda p: ok[min(len(ok) - 1, int(p * len(ok)))] if ok else float("nan")
s = $SECONDS_PER_WINDOW
print(f"{len(ok) / s:.0f} {refused / s:.0f} {other} {q(0.5):.2f} {q(0.99):.2f} "
      f"{($s1 - $s0) / $TICKS / s:.2f} {($n1 - $n0) / $TICKS / s:.2f}")
EOF
}

echo "balancer-overload: warm GetGroup 1, REST alone and behind the compose balancer (in-flight limit $LIMIT);" \
     "$PLACEMENT; $USERS connections in the open steps, ${SECONDS_PER_WINDOW}-s windows; jar ${JAR#"$ROOT"/}"
"${GENERATOR_CPU[@]}" oha --no-tui -n "$WARMUP" -c 50 "http://127.0.0.1:$PORT/api/v1/groups/1" >/dev/null
"${GENERATOR_CPU[@]}" oha --no-tui -n $((WARMUP / 3)) -c 50 "http://127.0.0.1:$BALANCER_PORT/api/v1/groups/1" >/dev/null

printf '%-6s %-9s %-8s %8s %9s %9s %6s %9s %9s %8s %6s\n' round path step offered "ok/s" "refused/s" other "p50 ms" "p99 ms" "service" nginx
for round in $(seq "$ROUNDS"); do
  for path in direct balancer; do
    read -r capacity capacity_refused _ <<<"$(window "$path" closed)"
    declare -A good=() p99=()
    for step in "${STEPS[@]}"; do
      rate=$(( capacity * step / 100 ))
      read -r ok refused other p50 p99s service nginx <<<"$(window "$path" "$rate")"
      good[$step]=$ok; p99[$step]=$p99s
      printf '%-6s %-9s %-8s %8s %9s %9s %6s %9s %9s %8s %6s\n' "$round" "$path" "$step %" "$rate" "$ok" "$refused" "$other" "$p50" "$p99s" "$service" "$([[ $path == direct ]] && echo - || echo "$nginx")"
      sleep 2   # a step's backlog drains before the next
    done
    python3 -c "
good = {s: float(v) for s, v in zip((25, 100, 200), '${good[25]} ${good[100]} ${good[200]}'.split())}
print(f'       $path: capacity $capacity ok/s (closed, $([[ $path == direct ]] && echo 50 || echo "$CLOSED_USERS") users, $capacity_refused refused/s); at 200 %: goodput {good[200] / max(good.values()):.2f} x the best step (>= 0.8), '
      f'p99 {float(\"${p99[200]}\") / float(\"${p99[25]}\"):.1f} x the 25 % step (<= 10)')"
    unset good p99
  done
done
