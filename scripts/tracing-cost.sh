#!/usr/bin/env bash
# What tracing costs per request: the service's CPU time per warm GetGroup (an L1 hit), measured
# with tracing off (the default), on but sampling nothing (the spans are made, not recorded), and on
# with every request sampled and its spans exported over OTLP/HTTP to a sink this script runs; one
# wire at a time.
#
#   scripts/tracing-cost.sh rest|grpc [requests per window (50000)] [windows per setting (3)]
#
# Needs the servers (scripts/servers.sh start), the jar (make build or ./mvnw package -DskipTests),
# and oha (REST) or ghz (gRPC) on PATH or in .tools/bin. The service's CPU time (user + system, from
# /proc/<pid>/stat) over a window of N requests, divided by N, is what one request costs it,
# whatever else shares the machine; the export's work (batching, encoding, sending) is inside it.
# TANDEM_COST_JAR overrides the jar (e.g. one built before tracing existed, for a baseline).
set -euo pipefail

# shellcheck source=scripts/cost-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/cost-common.sh"
SINK=$((PORT + 2))
SERVICE=; SINK_PID=
cleanup() { stop_and_clean "$SERVICE" "$SINK_PID"; }
trap cleanup EXIT

# The OTLP sink (loadtest/tandem_bench/otlp_sink.py, the bench's own): takes every export and
# answers 200 with an empty ExportTraceServiceResponse.
PYTHONPATH="$ROOT/loadtest" python3 -m tandem_bench.otlp_sink "$SINK" &
SINK_PID=$!

load() {  # n requests of warm GetGroup 1
  case $WIRE in
    rest) oha --no-tui -n "$1" -c "$CONCURRENCY" "http://127.0.0.1:$PORT/api/v1/groups/1" >"$WORK/load.txt" ;;
    grpc) ghz --insecure --call tandem.v1.StudyGroupService/GetGroup -d '{"id":1}' -n "$1" -c "$CONCURRENCY" \
            "127.0.0.1:$PORT" >"$WORK/load.txt" ;;
  esac
}

measure() {  # label, env...
  local label=$1; shift
  env "$@" SERVER_PORT="$([[ $WIRE == rest ]] && echo "$PORT" || echo "$MGMT")" SPRING_GRPC_SERVER_PORT="$PORT" \
    TANDEM_SEED_MODE=if-empty TANDEM_SEED_SCALE=1 \
    MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT="http://127.0.0.1:$SINK/v1/traces" \
    "$JAVA" -jar "$JAR" >"$WORK/$label.log" 2>&1 &
  SERVICE=$!
  for _ in $(seq 180); do curl -fs "$HEALTH" >/dev/null 2>&1 && break; sleep 1; done
  curl -fs "$HEALTH" >/dev/null || { echo "tracing-cost: $label did not start; log:" >&2; tail -30 "$WORK/$label.log" >&2; exit 1; }
  load "$WARMUP"  # JIT, L1 filled
  local w before after
  for w in $(seq "$WINDOWS"); do
    before=$(cpu_ticks "$SERVICE"); load "$REQUESTS"; after=$(cpu_ticks "$SERVICE")
    awk -v t=$((after - before)) -v hz="$TICKS" -v n="$REQUESTS" -v l="$label" -v w="$w" \
      'BEGIN { printf "%-34s window %d: %6.1f us CPU per request\n", l, w, t / hz / n * 1e6 }'
  done
  kill "$SERVICE"; wait "$SERVICE" 2>/dev/null || true; SERVICE=
}

echo "$WIRE: warm GetGroup, $WARMUP requests of warm-up, then $REQUESTS per window, concurrency $CONCURRENCY, jar ${JAR#"$ROOT"/}"
measure "tracing off (default)" TANDEM_TRACING_ENABLED=false
if [[ -z ${TANDEM_COST_JAR:-} ]]; then
  # The instrumentation without recording or export: what tracing costs at a low sampling rate.
  measure "tracing on, sampled 0.0" TANDEM_TRACING_ENABLED=true MANAGEMENT_TRACING_SAMPLING_PROBABILITY=0
  measure "tracing on, sampled 1.0, exported" TANDEM_TRACING_ENABLED=true
fi
