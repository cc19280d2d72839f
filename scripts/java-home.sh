#!/usr/bin/env bash
# Prints the JAVA_HOME of the newest JDK >= 21 on this machine.
#   - an existing $JAVA_HOME is honoured when it is a JDK >= 21;
#   - otherwise /usr/lib/jvm/* (and /opt/java/openjdk, as in the eclipse-temurin images) are scanned
#     and the highest major version wins.
# Exits 1 with a message on stderr when there is none.
set -euo pipefail

MIN_MAJOR=21

# major version of the JDK at $1, or nothing
jdk_major() {
  local home=$1 v=""
  [[ -x "$home/bin/java" && -x "$home/bin/javac" ]] || return 0
  if [[ -r "$home/release" ]]; then
    v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release" | head -n1)
  fi
  if [[ -z "$v" ]]; then
    # e.g. openjdk version "25.0.3" 2026-04-21  /  java version "1.8.0_402"
    v=$("$home/bin/java" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n1)
  fi
  [[ -n "$v" ]] || return 0
  if [[ $v == 1.* ]]; then v=${v#1.}; fi   # 1.8.0 -> 8
  v=${v%%[.+_-]*}
  [[ $v =~ ^[0-9]+$ ]] && echo "$v"
  return 0
}

if [[ -n "${JAVA_HOME:-}" ]]; then
  m=$(jdk_major "$JAVA_HOME")
  if [[ -n "$m" ]] && (( m >= MIN_MAJOR )); then
    echo "${JAVA_HOME%/}"
    exit 0
  fi
fi

best="" best_major=0
shopt -s nullglob
# TANDEM_JVM_DIRS (space-separated globs) overrides the scan list, e.g. for testing this script.
for cand in ${TANDEM_JVM_DIRS:-/usr/lib/jvm/* /opt/java/openjdk}; do
  [[ -d "$cand" ]] || continue
  real=$(readlink -f "$cand")
  m=$(jdk_major "$real")
  [[ -n "$m" ]] || continue
  if (( m > best_major )); then best=$real best_major=$m; fi
done

if [[ -n "$best" ]] && (( best_major >= MIN_MAJOR )); then
  echo "$best"
  exit 0
fi

{
  echo "Tandem needs a JDK 21 or newer; install one, or set JAVA_HOME to one. Debian 12's own packages stop at"
  echo "  openjdk-17; Temurin 21 or 25 (Adoptium's apt repository, packages temurin-21-jdk / temurin-25-jdk) lands in /usr/lib/jvm"
  if [[ -n "$best" ]]; then echo "  (newest JDK found: $best, Java $best_major)"; fi
  if [[ -n "${JAVA_HOME:-}" ]]; then echo "  (JAVA_HOME=$JAVA_HOME is not a JDK >= $MIN_MAJOR)"; fi
} >&2
exit 1
