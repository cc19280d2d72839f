#!/usr/bin/env bash
# Project-local MariaDB and Redis, data under .run/, loopback only, ports that never collide with
# system servers.
#
#   scripts/servers.sh start|stop|restart|status [mariadb|redis|all]     (default: all)
#
#   MariaDB  127.0.0.1:13306  .run/mariadb/{data,mariadb.sock,mariadb.pid,mariadb.log}
#            databases tandem, tandem_test; user tandem/tandem (@127.0.0.1 and @localhost) with ALL
#            on tandem, tandem_test and tandem_* (tests may create per-test schemas)
#   Redis    127.0.0.1:16379  .run/redis/{redis.pid,redis.log}, no persistence
#
# TANDEM_MARIADB_EXTRA_ARGS adds mariadbd options (word-split), e.g. for a replication pair:
#   "--log-bin --server-id=1 --binlog-format=ROW" (primary), "--server-id=2 --read-only" (replica).
#
# start is idempotent and waits (bounded) until the server answers; stop stops only what start
# started (by pid file) and waits until it has exited. Both are quick, so tests can stop and restart
# one server mid-run: scripts/servers.sh stop redis && scripts/servers.sh start redis
# Exit status: 0 on success; status exits 0 only when every named server is running.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# TANDEM_RUN_DIR moves everything (data, pid files, logs) elsewhere: with other ports, a second
# pair of servers that a test may stop and restart without disturbing the first.
RUN=${TANDEM_RUN_DIR:-$ROOT/.run}

# The ports, under the names the services read them by (tandem.db.port -> TANDEM_DB_PORT,
# spring.data.redis.port -> SPRING_DATA_REDIS_PORT), so one environment moves the servers and the
# services of `make run` together (a test's second pair sets them with TANDEM_RUN_DIR).
MARIADB_PORT=${TANDEM_DB_PORT:-13306}
REDIS_PORT=${SPRING_DATA_REDIS_PORT:-16379}
read -r -a MARIADB_EXTRA_ARGS <<<"${TANDEM_MARIADB_EXTRA_ARGS:-}"
START_TIMEOUT=${TANDEM_SERVER_START_TIMEOUT:-90}   # seconds
STOP_TIMEOUT=${TANDEM_SERVER_STOP_TIMEOUT:-60}     # seconds

M_DIR=$RUN/mariadb
M_DATA=$M_DIR/data
M_PID=$M_DIR/mariadb.pid
M_LOG=$M_DIR/mariadb.log
M_INIT_MARK=$M_DIR/.initialised
M_SOCK=$M_DIR/mariadb.sock
# A unix socket path must stay under 108 bytes; deep checkouts get one in /tmp instead.
if (( ${#M_SOCK} > 100 )); then
  M_SOCK=/tmp/tandem-mariadb-$(echo -n "$ROOT" | sha256sum | cut -c1-12).sock
fi

R_DIR=$RUN/redis
R_PID=$R_DIR/redis.pid
R_LOG=$R_DIR/redis.log

say() { echo "servers: $*"; }
err() { echo "servers: ERROR: $*" >&2; }

need() {
  command -v "$1" >/dev/null 2>&1 || { err "$1 not found; run scripts/deps.sh servers (installs mariadb-server redis-server)"; exit 1; }
}

# pid from a pid file when that process is alive and is the program we expect
live_pid() {  # live_pid PIDFILE NAME-PATTERN
  local f=$1 pat=$2 pid
  [[ -s $f ]] || return 1
  pid=$(tr -dc '0-9' <"$f")
  [[ -n $pid ]] && alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE "$pat" || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

log_tail() {
  local f=$1
  if [[ -f $f ]]; then echo "---- last lines of ${f#"$ROOT"/} ----" >&2; tail -n 25 "$f" >&2; echo "----" >&2; fi
}

# alive = exists and is not a zombie (a daemon's parent may be an init that reaps late)
alive() {
  local st
  st=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $st && $st != Z && $st != X ]]
}

wait_exit() {  # wait_exit PID NAME
  local pid=$1 name=$2 i
  for (( i = 0; i < STOP_TIMEOUT * 10; i++ )); do
    alive "$pid" || return 0
    sleep 0.1
  done
  err "$name (pid $pid) did not stop within ${STOP_TIMEOUT}s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  sleep 0.5
  ! alive "$pid"
}

# ------------------------------------------------------------------ MariaDB
mysql_root() { mariadb --no-defaults --protocol=socket --socket="$M_SOCK" -uroot "$@"; }

mariadb_pid() { live_pid "$M_PID" 'mariadbd|mysqld'; }

mariadb_init() {
  [[ -f $M_INIT_MARK && -d $M_DATA/mysql ]] && return 0
  need mariadb-install-db
  say "initialising MariaDB data directory .run/mariadb/data (first start)"
  rm -rf "$M_DATA"; mkdir -p "$M_DATA"
  if ! mariadb-install-db --no-defaults --user="$(id -un)" --datadir="$M_DATA" \
        --auth-root-authentication-method=socket --skip-test-db \
        >"$M_DIR/install-db.log" 2>&1; then
    err "mariadb-install-db failed"; log_tail "$M_DIR/install-db.log"; return 1
  fi
  touch "$M_INIT_MARK"
}

mariadb_start() {
  need mariadbd; need mariadb
  mkdir -p "$M_DIR"
  local pid
  if pid=$(mariadb_pid); then
    say "mariadb already running (pid $pid) on 127.0.0.1:$MARIADB_PORT"
    mariadb_provision || return 1
    return 0
  fi
  rm -f "$M_PID"
  if port_open "$MARIADB_PORT"; then
    err "127.0.0.1:$MARIADB_PORT is taken by a process this script did not start (no live .run/mariadb/mariadb.pid)"
    return 1
  fi
  mariadb_init || return 1
  rm -f "$M_SOCK"
  # setsid + closed stdio: the server outlives this shell and holds no caller's pipe open.
  setsid mariadbd --no-defaults \
    --user="$(id -un)" \
    --datadir="$M_DATA" --socket="$M_SOCK" --pid-file="$M_PID" --log-error="$M_LOG" \
    --port="$MARIADB_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
    --innodb-buffer-pool-size=256M --max-connections=500 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --default-time-zone=+00:00 \
    ${MARIADB_EXTRA_ARGS[@]+"${MARIADB_EXTRA_ARGS[@]}"} \
    </dev/null >>"$M_LOG" 2>&1 &
  local spawned=$! t0=$SECONDS
  until mysql_root -e "select 1" >/dev/null 2>&1; do
    if ! kill -0 "$spawned" 2>/dev/null; then
      err "mariadbd exited during start-up"; log_tail "$M_LOG"; return 1
    fi
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      err "mariadb did not answer on 127.0.0.1:$MARIADB_PORT within ${START_TIMEOUT}s"; log_tail "$M_LOG"
      kill -TERM "$spawned" 2>/dev/null || true
      return 1
    fi
    sleep 0.2
  done
  mariadb_provision || return 1
  say "mariadb up (pid $(mariadb_pid || echo "$spawned")) on 127.0.0.1:$MARIADB_PORT in $(( SECONDS - t0 ))s"
}

# databases and the tandem user; idempotent, also re-asserted when already running
mariadb_provision() {
  local u sql="CREATE DATABASE IF NOT EXISTS tandem CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS tandem_test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;"
  for u in "'tandem'@'127.0.0.1'" "'tandem'@'localhost'"; do
    sql+="
CREATE USER IF NOT EXISTS $u IDENTIFIED BY 'tandem';
ALTER USER $u IDENTIFIED BY 'tandem';
GRANT ALL PRIVILEGES ON \`tandem\`.* TO $u;
GRANT ALL PRIVILEGES ON \`tandem\\_%\`.* TO $u;"
  done
  if ! mysql_root -e "$sql" 2>"$M_DIR/provision.err"; then
    err "could not create the tandem databases/user:"; cat "$M_DIR/provision.err" >&2; return 1
  fi
}

mariadb_stop() {
  local pid
  if ! pid=$(mariadb_pid); then
    rm -f "$M_PID"; say "mariadb not running"; return 0
  fi
  kill -TERM "$pid"
  wait_exit "$pid" mariadb || { err "mariadb (pid $pid) would not stop"; return 1; }
  rm -f "$M_PID"
  say "mariadb stopped"
}

mariadb_status() {
  local pid
  if pid=$(mariadb_pid); then
    if mysql_root -e 'select 1' >/dev/null 2>&1; then
      say "mariadb running (pid $pid) on 127.0.0.1:$MARIADB_PORT — mariadb -h127.0.0.1 -P$MARIADB_PORT -utandem -ptandem tandem"
      return 0
    fi
    say "mariadb process $pid alive but not answering"; return 1
  fi
  say "mariadb stopped"; return 1
}

# ------------------------------------------------------------------ Redis
redis_pid() { live_pid "$R_PID" "redis-server.*:$REDIS_PORT"; }

redis_start() {
  need redis-server; need redis-cli
  mkdir -p "$R_DIR"
  local pid
  if pid=$(redis_pid); then
    say "redis already running (pid $pid) on 127.0.0.1:$REDIS_PORT"; return 0
  fi
  rm -f "$R_PID"
  if port_open "$REDIS_PORT"; then
    err "127.0.0.1:$REDIS_PORT is taken by a process this script did not start (no live .run/redis/redis.pid)"
    return 1
  fi
  local t0=$SECONDS
  if ! redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$R_DIR" \
        --daemonize yes --pidfile "$R_PID" --logfile "$R_LOG" \
        --save '' --appendonly no </dev/null >>"$R_LOG" 2>&1; then
    err "redis-server failed to start"; log_tail "$R_LOG"; return 1
  fi
  until [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]] && redis_pid >/dev/null; do
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      err "redis did not answer on 127.0.0.1:$REDIS_PORT within ${START_TIMEOUT}s"; log_tail "$R_LOG"; return 1
    fi
    sleep 0.1
  done
  say "redis up (pid $(redis_pid)) on 127.0.0.1:$REDIS_PORT in $(( SECONDS - t0 ))s"
}

redis_stop() {
  local pid
  if ! pid=$(redis_pid); then
    rm -f "$R_PID"; say "redis not running"; return 0
  fi
  kill -TERM "$pid"
  wait_exit "$pid" redis || { err "redis (pid $pid) would not stop"; return 1; }
  rm -f "$R_PID"
  say "redis stopped"
}

redis_status() {
  local pid
  if pid=$(redis_pid); then
    say "redis running (pid $pid) on 127.0.0.1:$REDIS_PORT — redis-cli -p $REDIS_PORT"; return 0
  fi
  say "redis stopped"; return 1
}

# ------------------------------------------------------------------ main
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

action=${1:-}
which=${2:-all}
case $which in
  mariadb|mysql) servers=(mariadb) ;;
  redis)         servers=(redis) ;;
  all)           servers=(mariadb redis) ;;
  *) usage >&2; exit 2 ;;
esac

rc=0
case $action in
  start)   for s in "${servers[@]}"; do "${s}_start" || { rc=1; break; }; done ;;
  stop)    for s in "${servers[@]}"; do "${s}_stop" || rc=1; done ;;
  restart) for s in "${servers[@]}"; do { "${s}_stop" && "${s}_start"; } || { rc=1; break; }; done ;;
  status)  for s in "${servers[@]}"; do "${s}_status" || rc=1; done ;;
  -h|--help|help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
exit $rc
