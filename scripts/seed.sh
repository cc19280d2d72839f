#!/usr/bin/env bash
# Loads the deterministic seed data (dev.tandem.seed) into the tandem database.
#
#   scripts/seed.sh if-empty [SCALE]   seed SCALE (default 1) only when the database holds no users yet
#                                      (make run); a database that has data is left alone
#   scripts/seed.sh reset [SCALE]      empty every table and seed SCALE (make seed)
#
# The database is the one the services use: TANDEM_DB_HOST, TANDEM_DB_PORT, TANDEM_DB_NAME,
# TANDEM_DB_USER, TANDEM_DB_PASSWORD (defaults 127.0.0.1, 13306, tandem, tandem, tandem). Seeding runs
# the REST jar once without a web server (Flyway creates the schema first), as the compose file's
# seed one-shot does, so the services themselves never seed and two of them can never seed at once.
# if-empty asks the database first (~0.1 s) and starts no JVM when there is data.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

mode=${1:-}
scale=${2:-1}
case $mode in
  if-empty|reset) ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
[[ $scale =~ ^[1-9][0-9]*$ ]] || { echo "seed: SCALE must be a whole number >= 1, not '$scale'" >&2; exit 2; }

DB_HOST=${TANDEM_DB_HOST:-127.0.0.1}
DB_PORT=${TANDEM_DB_PORT:-13306}
DB_NAME=${TANDEM_DB_NAME:-tandem}
say() { echo "seed: $*"; }

# The number of users, or nothing when the schema does not exist yet (a new database).
users() {
  MYSQL_PWD=${TANDEM_DB_PASSWORD:-tandem} mariadb --no-defaults -h"$DB_HOST" -P"$DB_PORT" \
    -u"${TANDEM_DB_USER:-tandem}" -N -B "$DB_NAME" -e 'SELECT COUNT(*) FROM users' 2>/dev/null || true
}

if [[ $mode == if-empty ]]; then
  n=$(users)
  if [[ -n $n && $n != 0 ]]; then
    say "database $DB_NAME on $DB_HOST:$DB_PORT already has data ($n users); not seeding (make seed SCALE=k resets it)"
    exit 0
  fi
  say "database $DB_NAME on $DB_HOST:$DB_PORT is empty: seeding scale $scale ($(( 100 * scale )) users, $(( 50 * scale )) groups) ..."
else
  say "resetting database $DB_NAME on $DB_HOST:$DB_PORT to seed scale $scale ..."
fi

java_home=$("$ROOT/scripts/java-home.sh")
t0=$SECONDS
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# started as services.sh starts it (extracted, with its AOT cache): scripts/jar-launch.sh
launch_args=$(JAVA=$java_home/bin/java "$ROOT/scripts/jar-launch.sh" rest-service/target/rest-service.jar)
mapfile -t launch <<<"$launch_args"
if ! TANDEM_SEED_MODE=reset TANDEM_SEED_SCALE=$scale TANDEM_SEED_EXIT=true SPRING_MAIN_WEB_APPLICATION_TYPE=none \
     "$java_home/bin/java" "${launch[@]}" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "seed: ERROR: seeding failed (the lines above are the end of its log)" >&2
  exit 1
fi
say "$(grep -o 'Seeded scale .*' "$log" | tail -n 1) (took $(( SECONDS - t0 )) s in all)"
