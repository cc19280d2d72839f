#!/usr/bin/env bash
# Checks deploy/compose/nginx.conf (the load balancer of docker-compose.yml) offline with nginx -t:
# syntax, directives, upstreams, the HTTP/2 listener and grpc_pass, without Docker and without
# starting a server. Debian 12 has nginx 1.22, older than the image's 1.28: it checks the copy
# scripts/balancer.sh renders for loopback (the upstream "resolve" parameter, nginx >= 1.27.3,
# dropped, and the Compose service names on loopback, since nginx -t resolves upstream names and
# Docker's DNS does not exist here), plain and as deploy/compose/balancer-start.sh makes it for TLS.
# How it behaves in front of replicas: scripts/tests/test_balancer.py.
#
#   scripts/nginx-config-test.sh [CONFIG]      (default deploy/compose/nginx.conf)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CONFIG=${1:-$ROOT/deploy/compose/nginx.conf}
command -v nginx >/dev/null 2>&1 || { echo "nginx-config-test: nginx not installed (scripts/deps.sh tools)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# rendering fails unless the upstreams are rest-service:8080 and grpc-service:9090 with 'resolve'
# (new replicas are found by re-resolving)
"$ROOT/scripts/balancer.sh" render "$work" "$CONFIG"
# -p: a prefix of our own, so nginx -t touches nothing under /var; -e: no default error log file.
nginx -t -q -p "$work" -e /dev/stderr -c "$work/nginx.conf"
# and as docker-compose.yml starts it with TANDEM_TLS_ENABLED=true (a throwaway certificate)
"$ROOT/scripts/tls-cert.sh" "$work/tls" >/dev/null
TANDEM_TLS_ENABLED=true TANDEM_TLS_CERTIFICATE="$work/tls/tandem.crt" TANDEM_TLS_PRIVATE_KEY="$work/tls/tandem.key" \
  TANDEM_BALANCER_CONFIG="$work/nginx.conf" TANDEM_BALANCER_OUT="$work/nginx-tls.conf" TANDEM_BALANCER_NO_EXEC=1 \
  sh "$ROOT/deploy/compose/balancer-start.sh"
nginx -t -q -p "$work" -e /dev/stderr -c "$work/nginx-tls.conf"
echo "nginx-config-test: $(basename "$CONFIG") OK, plain and with TLS (nginx $(nginx -v 2>&1 | sed 's|.*/||'), 'resolve' left to the 1.28 image)"
