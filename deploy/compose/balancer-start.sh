#!/bin/sh
# The compose balancer's start (docker-compose.yml, service balancer; POSIX sh: the nginx image has
# no bash). TANDEM_TLS_ENABLED true (or on, yes, 1, as the services read it) puts the replicas' API
# ports on TLS, so the balancer must speak TLS to them, and its own published ports speak TLS too,
# with the services' certificate (TANDEM_TLS_CERTIFICATE, TANDEM_TLS_PRIVATE_KEY): the README's
# https:// and grpcurl -cacert examples then work against compose as against make run. Otherwise
# nginx.conf runs as it is. scripts/tests/test_balancer.py runs this on loopback.
#
#   balancer-start.sh            writes TANDEM_BALANCER_OUT (/tmp/nginx.conf) from
#                                TANDEM_BALANCER_CONFIG (/etc/nginx/nginx.conf), then runs nginx on it
#   TANDEM_BALANCER_NO_EXEC=1    writes it and stops there
set -eu
src=${TANDEM_BALANCER_CONFIG:-/etc/nginx/nginx.conf}
out=${TANDEM_BALANCER_OUT:-/tmp/nginx.conf}

# sed "s|$1|$2|" on the copy, which must have a line matching $1 (else nginx.conf moved on)
must_sed() {
  grep -q -e "$1" "$out" || { echo "balancer-start: $src has no line matching '$1'" >&2; exit 1; }
  sed -i -e "s|$1|$2|" "$out"
}

cp "$src" "$out"
case $(printf %s "${TANDEM_TLS_ENABLED:-false}" | tr 'A-Z' 'a-z') in
  true|on|yes|1)
    cert=${TANDEM_TLS_CERTIFICATE:?TANDEM_TLS_CERTIFICATE is not set}
    key=${TANDEM_TLS_PRIVATE_KEY:?TANDEM_TLS_PRIVATE_KEY is not set}
    for f in "$cert" "$key"; do
      [ -r "$f" ] || { echo "balancer-start: TLS is on but $f is missing or unreadable" >&2; exit 1; }
    done
    tls="ssl_certificate $cert; ssl_certificate_key $key;"
    must_sed '^\( *listen [^ ;]*\);' "\\1 ssl; $tls"
    must_sed '^\( *listen [^ ;]*\) http2;' "\\1 ssl http2; $tls"
    # the replicas' certificate is the one above, issued for the clients' names, not for the
    # replicas' addresses on the compose network: not verified (the network is compose's own)
    must_sed 'proxy_pass http://rest_replicas;' 'proxy_pass https://rest_replicas;'
    must_sed 'grpc_pass grpc://grpc_replicas;' 'grpc_pass grpcs://grpc_replicas;'
    ;;
esac
[ -n "${TANDEM_BALANCER_NO_EXEC:-}" ] || exec nginx -c "$out" -g 'daemon off;'
