#!/usr/bin/env bash
# The compose balancer (deploy/compose/nginx.conf) outside Docker, on loopback: the same file, with
# only what Docker provides replaced, so that what is checked and measured here is what compose runs.
#
#   scripts/balancer.sh render DIR [CONFIG]   writes DIR/nginx.conf (and DIR/logs/) from CONFIG
#                                             (default deploy/compose/nginx.conf)
#   then: nginx -p DIR -c DIR/nginx.conf -e DIR/logs/error.log -g 'daemon off;'
#
# What rendering changes, each checked (a config that no longer has the line fails here, loudly):
#   * the upstream servers rest-service:8080 and grpc-service:9090 (Docker's DNS names, re-resolved
#     with "resolve", which needs nginx >= 1.27.3; Debian 12 has 1.22) become
#     TANDEM_BALANCER_REST_UPSTREAM (127.0.0.1:8080) and TANDEM_BALANCER_GRPC_UPSTREAM (127.0.0.1:9090);
#   * "listen 8080" and "listen 9090 http2" become 127.0.0.1:TANDEM_BALANCER_REST_PORT (8080) and
#     127.0.0.1:TANDEM_BALANCER_GRPC_PORT (9090);
#   * the pid file goes under DIR;
#   * TANDEM_BALANCER_WORKERS (unset: the file's "auto") sets worker_processes, and
#     TANDEM_BALANCER_REST_IN_FLIGHT (unset: the file's figure) the REST in-flight limit.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "balancer: $*" >&2; exit 1; }

# sed -i "s/$2/$3/" on $1, which must have a line matching $2 (else the config moved on)
must_sed() {
  local file=$1 match=$2 replacement=$3
  grep -q -e "$match" "$file" || die "$CONFIG has no line matching '$match' to render"
  sed -i -e "s|$match|$replacement|" "$file"
}

render() {
  local dir=${1:?usage: balancer.sh render DIR [CONFIG]}
  CONFIG=${2:-$ROOT/deploy/compose/nginx.conf}
  [[ -f $CONFIG ]] || die "no $CONFIG"
  mkdir -p "$dir/logs"
  local out=$dir/nginx.conf
  cp "$CONFIG" "$out"
  must_sed "$out" "server rest-service:8080 resolve" "server ${TANDEM_BALANCER_REST_UPSTREAM:-127.0.0.1:8080}"
  must_sed "$out" "server grpc-service:9090 resolve" "server ${TANDEM_BALANCER_GRPC_UPSTREAM:-127.0.0.1:9090}"
  must_sed "$out" "listen 8080;" "listen 127.0.0.1:${TANDEM_BALANCER_REST_PORT:-8080};"
  must_sed "$out" "listen 9090 http2;" "listen 127.0.0.1:${TANDEM_BALANCER_GRPC_PORT:-9090} http2;"
  must_sed "$out" "^pid .*" "pid $dir/nginx.pid;"
  if [[ -n ${TANDEM_BALANCER_WORKERS:-} ]]; then
    must_sed "$out" "^worker_processes .*" "worker_processes $TANDEM_BALANCER_WORKERS;"
  fi
  if [[ -n ${TANDEM_BALANCER_REST_IN_FLIGHT:-} ]]; then
    must_sed "$out" "limit_conn rest_in_flight [0-9]*;" "limit_conn rest_in_flight $TANDEM_BALANCER_REST_IN_FLIGHT;"
  fi
}

case ${1:-} in
  render) shift; render "$@" ;;
  *) echo "usage: scripts/balancer.sh render DIR [CONFIG]" >&2; exit 2 ;;
esac
