#!/usr/bin/env bash
# How a service jar is started: prints the java arguments that start JAR, one per line, after
# preparing them on first use —
#
#   scripts/jar-launch.sh rest-service/target/rest-service.jar
#   -XX:AOTCache=.../rest-service/target/launch/rest-service.aot
#   -jar
#   .../rest-service/target/launch/extracted/rest-service.jar
#
# the way Spring Boot recommends for production: from the jar's extracted layout
# (`java -Djarmode=tools -jar x.jar extract`) and, on JDK 25 or newer, with an ahead-of-time cache of
# its loaded and linked classes (JEP 483/514) recorded by one training run. The REST jar's start to
# a refreshed context (`java -Xmx512m -Dspring.context.exit=onRefresh ...`, /usr/bin/time, on a
# 2-core machine) cost 24.6 s of CPU from the executable jar and 8.7-11 s with this script's
# arguments. make run, make seed, the bench and the system tests (test-support's ServiceLaunch)
# all start jars through it. The classes are the jar's own; only how fast the JVM finds them changes.
#
# Both are kept in <jar's directory>/launch while the jar (path, size, time) and the JDK are the
# same; a rebuilt jar is extracted and trained again. The training run starts the service against
# the servers this environment names (TANDEM_DB_*, SPRING_DATA_REDIS_*), in a database of its own
# (TANDEM_LAUNCH_TRAINING_DB, default tandem_launch_training; no seed) on ports 0, and exits once
# its context is refreshed (spring.context.exit=onRefresh), before any port is bound. A failed
# training run only costs speed: the jar then starts extracted, without the cache (said on stderr).
# Two callers at once (make run starts both services in parallel, the system tests several JVMs)
# wait for each other (flock). Temurin 25.0.3 may print two "[warning][aot,codecache...] Failed to
# link AdapterHandlerEntry" lines at start: its AOT adapter cache, not the class cache, is refused.
#
#   JAVA  the java binary (default: scripts/java-home.sh's)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -eq 1 && -f $1 ]] || { echo "usage: scripts/jar-launch.sh JAR (an existing service jar)" >&2; exit 2; }
jar=$(realpath "$1")
name=$(basename "$jar" .jar)
java=${JAVA:-$("$ROOT/scripts/java-home.sh")/bin/java}
dir=$(dirname "$jar")/launch
extracted=$dir/extracted/$name.jar
cache=$dir/$name.aot

mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9

version=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = //p')
stamp="$jar $(stat -c '%s %.9Y' "$jar") $version"
if [[ ! -f $dir/source.stamp || $(<"$dir/source.stamp") != "$stamp" || ! -f $extracted ]]; then
  rm -rf "$dir/extracted" "$cache" "$dir/source.stamp"
  echo "jar-launch: $name.jar is new here: extracting it and recording its class cache (once per built jar)" >&2
  if ! "$java" -Djarmode=tools -jar "$jar" extract --destination "$dir/extracted" >"$dir/extract.log" 2>&1; then
    echo "jar-launch: extracting $jar failed (see $dir/extract.log); starting it as an executable jar" >&2
    printf '%s\n' -jar "$jar"
    exit 0
  fi
  if (( ${version%%[.+-]*} >= 25 )); then
    # The training run is a service start of its own: none of the caller's ports, seeding or exit flags.
    env -u TANDEM_SEED_EXIT -u SPRING_MAIN_WEB_APPLICATION_TYPE -u TANDEM_TLS_EXTRA_PORT \
        TANDEM_DB_NAME="${TANDEM_LAUNCH_TRAINING_DB:-tandem_launch_training}" TANDEM_CACHE_REDIS_KEY_PREFIX=tandem:cache:launch-training: TANDEM_SEED_MODE=off \
        SERVER_PORT=0 SPRING_GRPC_SERVER_PORT=0 MANAGEMENT_SERVER_PORT=0 \
        timeout 300 "$java" -Xmx512m -XX:AOTCacheOutput="$cache" -Dspring.context.exit=onRefresh -jar "$extracted" \
        </dev/null >"$dir/training.log" 2>&1 || rm -f "$cache"
    [[ -f $cache ]] ||
      echo "jar-launch: the AOT training run of $name failed (see $dir/training.log); it starts without the cache, only slower" >&2
  fi
  echo "$stamp" >"$dir/source.stamp"
fi
[[ -f $cache ]] && echo "-XX:AOTCache=$cache"
printf '%s\n' -jar "$extracted"
