#!/usr/bin/env bash
# The "seed" one-shot of docker-compose.yml: seeds an empty database once, before any replica
# starts. With --scale rest-service=3 every replica seeding "if-empty" at once would race (each
# sees an empty database); so the replicas run with TANDEM_SEED_MODE=off and wait for this to exit 0.
# It runs the REST service's own jar (migrations and seeding are part of its start-up), waits until
# it is healthy (seeding done), stops it with SIGTERM and exits with its status.
#   APP_JAR (default /app/app.jar), SERVER_PORT (default 8080), SEED_TIMEOUT seconds (default 300)
set -uo pipefail
jar=${APP_JAR:-/app/app.jar}
port=${SERVER_PORT:-8080}
timeout=${SEED_TIMEOUT:-300}
export TANDEM_SEED_MODE=${TANDEM_SEED_MODE:-if-empty}

java -jar "$jar" &
pid=$!
healthy() {
  # no curl in the JRE image: HTTP/1.0 through bash's /dev/tcp (refused until the port is open)
  ( exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET /actuator/health HTTP/1.0\r\n\r\n' >&3 && grep -q '"UP"' <&3 ) 2>/dev/null
}
for (( waited = 0; waited < timeout; waited++ )); do
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"; rc=$?
    echo "seed: the service exited with $rc before it was healthy" >&2
    exit $(( rc == 0 ? 1 : rc ))
  fi
  if healthy; then
    echo "seed: database ready (seed mode $TANDEM_SEED_MODE); stopping"
    kill -TERM "$pid"
    wait "$pid"; rc=$?
    # 143 = ended by the SIGTERM we sent, which a Spring Boot JVM may report instead of 0
    (( rc == 0 || rc == 143 )) && exit 0
    exit "$rc"
  fi
  sleep 1
done
echo "seed: not healthy within ${timeout}s" >&2
kill -TERM "$pid"; wait "$pid"
exit 1
