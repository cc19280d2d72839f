# Sourced by scripts/tracing-cost.sh, refusal-cost.sh, io-cost.sh, thread-cost.sh and balancer-overload.sh, which
# measure a service's own CPU time per request: their arguments (wire, requests per window,
# windows), the jar, free ports, the counter they read and the bench's placement. Not a command of
# its own.
#   $1 rest|grpc   $2 requests per window (50000)   $3 windows per setting (3)
#   TANDEM_COST_CONCURRENCY (8)   TANDEM_COST_WARMUP (150000)   TANDEM_COST_JAR (the wire's jar)
#   TANDEM_COST_JVM_OPTIONS (options added to the service's JVM, a profiler agent say; split on spaces)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WIRE=${1:?rest or grpc}
REQUESTS=${2:-50000}
WINDOWS=${3:-3}
CONCURRENCY=${TANDEM_COST_CONCURRENCY:-8}
# Requests before the first window: until the JIT has compiled the hot path, CPU per request falls.
WARMUP=${TANDEM_COST_WARMUP:-150000}
JAVA=$("$ROOT/scripts/java-home.sh")/bin/java
PATH=$ROOT/.tools/bin:$PATH
WORK=$(mktemp -d)
PORT=$((20000 + RANDOM % 20000)); MGMT=$((PORT + 1))
case $WIRE in
  rest) JAR=${TANDEM_COST_JAR:-$ROOT/rest-service/target/rest-service.jar}; HEALTH=http://127.0.0.1:$PORT/actuator/health ;;
  grpc) JAR=${TANDEM_COST_JAR:-$ROOT/grpc-service/target/grpc-service.jar}; HEALTH=http://127.0.0.1:$MGMT/actuator/health ;;
  *) echo "$(basename "$0" .sh): wire must be rest or grpc" >&2; exit 2 ;;
esac
TICKS=$(getconf CLK_TCK)

# The CPU time (user + system, in clock ticks) process $1 has used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# The same, user time only and system (kernel) time only.
user_ticks() { awk '{print $14}' "/proc/$1/stat"; }
system_ticks() { awk '{print $15}' "/proc/$1/stat"; }

# The bench's placement of its many-user cells, where the machine has 2 or more CPUs: the service on
# CPU 0 as if it had one (-XX:ActiveProcessorCount=1), the generator on CPU 1. Empty where it cannot
# pin; PINNED says which.
SERVICE_CPU=(); GENERATOR_CPU=(); JVM_CPUS=(); PINNED=
if (( $(nproc) >= 2 )) && taskset -c 0 true 2>/dev/null; then
  SERVICE_CPU=(taskset -c 0); GENERATOR_CPU=(taskset -c 1); JVM_CPUS=(-XX:ActiveProcessorCount=1); PINNED=1
fi

# What each script's EXIT trap does: stops the processes it started (their pids as arguments; an
# empty one is skipped), waits for them, and removes $WORK.
stop_and_clean() {
  local p
  for p in "$@"; do [[ -n $p ]] && { kill "$p" 2>/dev/null || true; }; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}

# The JVM flags the bench starts the services with (loadtest/tandem_bench/orchestrate.py's
# JAVA_OPTIONS), for a script that sets SERVICE_JVM_OPTIONS to measure as the bench does (io-cost,
# thread-cost, balancer-overload).
BENCH_JVM_OPTIONS=(-Xms512m -Xmx512m -XX:-UseDynamicNumberOfCompilerThreads)
SERVICE_JVM_OPTIONS=()
read -ra EXTRA_JVM_OPTIONS <<<"${TANDEM_COST_JVM_OPTIONS:-}"

# Starts the wire's jar as label $1 with the environment "${@:2}" (NAME=value ...): seeded at scale 1
# if its database is empty, placed as above, with SERVICE_JVM_OPTIONS then TANDEM_COST_JVM_OPTIONS,
# its log in $WORK/<label>.log. Waits up to 180 s for its health and ends the script with the log's
# tail if it never comes. SERVICE is its pid.
start_service() {
  local label=$1; shift
  env "$@" TANDEM_SEED_MODE=if-empty TANDEM_SEED_SCALE=1 \
    SERVER_PORT="$([[ $WIRE == rest ]] && echo "$PORT" || echo "$MGMT")" SPRING_GRPC_SERVER_PORT="$PORT" \
    "${SERVICE_CPU[@]}" "$JAVA" "${SERVICE_JVM_OPTIONS[@]}" "${JVM_CPUS[@]}" "${EXTRA_JVM_OPTIONS[@]}" \
    -jar "$JAR" >"$WORK/$label.log" 2>&1 &
  SERVICE=$!
  for _ in $(seq 180); do curl -fs "$HEALTH" >/dev/null 2>&1 && break; sleep 1; done
  curl -fs "$HEALTH" >/dev/null || {
    echo "$(basename "$0" .sh): $label did not start; log:" >&2; tail -30 "$WORK/$label.log" >&2; exit 1; }
}
