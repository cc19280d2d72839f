#!/usr/bin/env bash
# Checks deploy/compose/nginx.conf (the load balancer of docker-compose.yml) offline with nginx -t:
# syntax, directives, upstreams, the HTTP/2 listener and grpc_pass, without Docker and without
# starting a server. Debian 12 has nginx 1.22, older than the image's 1.28: the copy it checks drops
# the upstream "resolve" parameter (nginx >= 1.27.3) and points the Compose service names at
# loopback, since nginx -t resolves upstream names and Docker's DNS does not exist here.
#
#   scripts/nginx-config-test.sh [CONFIG]      (default deploy/compose/nginx.conf)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONFIG=${1:-$ROOT/deploy/compose/nginx.conf}
command -v nginx >/dev/null 2>&1 || { echo "nginx-config-test: nginx not installed (scripts/deps.sh tools)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -q 'server rest-service:8080 resolve' "$CONFIG" && grep -q 'server grpc-service:9090 resolve' "$CONFIG" || {
  echo "nginx-config-test: $CONFIG must name rest-service:8080 and grpc-service:9090 with 'resolve' (new replicas are found by re-resolving)" >&2
  exit 1
}
sed -e 's/\(server [a-z-]*:[0-9]*\) resolve/\1/' \
    -e 's/server rest-service:/server 127.0.0.1:/' \
    -e 's/server grpc-service:/server 127.0.0.1:/' \
    -e "s|^pid .*|pid $work/nginx.pid;|" \
    "$CONFIG" >"$work/nginx.conf"
# -p: a prefix of our own, so nginx -t touches nothing under /var; -e: no default error log file.
mkdir -p "$work/logs"
nginx -t -q -p "$work" -e /dev/stderr -c "$work/nginx.conf"
echo "nginx-config-test: $(basename "$CONFIG") OK (nginx $(nginx -v 2>&1 | sed 's|.*/||'), 'resolve' left to the 1.28 image)"
