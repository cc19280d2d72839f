#!/usr/bin/env bash
# Builds the two service jars, or says why it need not.
#
#   scripts/build.sh            ./mvnw -B -q package -DskipTests, always (make build)
#   scripts/build.sh --if-stale the same, but only when a jar is missing or some source is newer than
#                               the older of the two jars (make run, make seed, make bench, make token)
#   scripts/build.sh --check    builds nothing: exit 0 when the jars are up to date, 1 (naming the first
#                               newer source) when they are not
#
# "Source" is everything Maven reads to build them: the root pom.xml, .mvn/, and each module's pom.xml
# and src/main/ (proto, shared-domain, rest-service, grpc-service). Tests are not part of a jar, so
# editing one does not force a rebuild. The check costs ~0.1 s; a build, about a minute on 2 cores.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

JARS=(rest-service/target/rest-service.jar grpc-service/target/grpc-service.jar)
MODULES=(proto shared-domain rest-service grpc-service)

say() { echo "build: $*"; }

# Prints why the jars are stale (and returns 0), or nothing (returns 1) when they are up to date.
stale_reason() {
  local jar oldest=""
  for jar in "${JARS[@]}"; do
    [[ -f $jar ]] || { echo "$jar is missing"; return 0; }
    if [[ -z $oldest || $jar -ot $oldest ]]; then oldest=$jar; fi
  done
  local sources=(pom.xml .mvn) m newer
  for m in "${MODULES[@]}"; do sources+=("$m/pom.xml" "$m/src/main"); done
  newer=$(find "${sources[@]}" -newer "$oldest" -type f -print -quit 2>/dev/null || true)
  if [[ -n $newer ]]; then echo "$newer changed since $oldest was built"; return 0; fi
  return 1
}

package() {
  local java_home
  java_home=$("$ROOT/scripts/java-home.sh")
  local t0=$SECONDS
  JAVA_HOME=$java_home ./mvnw -B -q package -DskipTests
  # Maven leaves a jar untouched when its inputs look unchanged (a source only touched, not edited):
  # stamp both, so the check above compares against when they were last known to match the sources.
  touch "${JARS[@]}"
  say "jars built in $(( SECONDS - t0 )) s"
}

case ${1:-} in
  "")
    package ;;
  --if-stale)
    if reason=$(stale_reason); then
      say "$reason: ./mvnw -B -q package -DskipTests (about a minute) ..."
      package
    else
      say "jars are up to date (newer than every source file); not rebuilding"
    fi ;;
  --check)
    if reason=$(stale_reason); then say "stale: $reason"; exit 1; fi
    say "up to date" ;;
  *)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
