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
# The cache holds the loaded and linked classes only (JEP 483), not the method profiles JDK 25 records
# by default (JEP 515, -XX:-AOTRecordTraining): a training run that ends at the context's refresh
# profiles start-up code only. Replayed, those profiles had the JIT compile start-up code early and
# fitted the request path's shared code to start-up's types. By hand on a 2-core machine (2026-12-03,
# the REST jar with -XX:ActiveProcessorCount=1 on CPU 0, oha -c 50 on CPU 1, warm GetGroup, three
# 10-s windows after 200,000 requests; five pairs of starts, the profiles left out by this flag in
# three and by -XX:-AOTReplayTraining at launch in two): the service's CPU a request without the
# profiles was 0.72-0.99 of that with them (pairs' means; median 0.92, lower in all five), a start to
# a refreshed context cost 8.2 s of CPU against 10.2 (4.7 against 5.5 with the tests' C1-only JIT),
# and the training run 45 s against 55. (A cache recorded by a C1-only JVM was worse
# still: its profiles left the request path ~25 % slower.)
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
# The recipe's name is in the stamp too, so that a cache made another way is made again.
stamp="$jar $(stat -c '%s %.9Y' "$jar") $version classes-only"
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
        timeout 300 "$java" -Xmx512m -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining \
        -XX:AOTCacheOutput="$cache" -Dspring.context.exit=onRefresh -jar "$extracted" \
        </dev/null >"$dir/training.log" 2>&1 || rm -f "$cache"
    [[ -f $cache ]] ||
      echo "jar-launch: the AOT training run of $name failed (see $dir/training.log); it starts without the cache, only slower" >&2
  fi
  echo "$stamp" >"$dir/source.stamp"
fi
[[ -f $cache ]] && echo "-XX:AOTCache=$cache"
printf '%s\n' -jar "$extracted"
