#!/usr/bin/env bash
# A self-signed certificate and its private key for TLS on the services' API ports
# (tandem.tls.*), valid for 127.0.0.1, ::1 and localhost (subjectAltName), as PEM files:
#
#   scripts/tls-cert.sh [DIR]     (default DIR: .run/tls)
#
#   DIR/tandem.crt  the certificate (clients trust it: curl --cacert, grpcurl -cacert, ghz --cacert)
#   DIR/tandem.key  its private key (unencrypted PKCS#8, mode 600)
#
# Idempotent: an existing pair that is still valid for a day is kept (the bench restarts the
# services with it); otherwise a new one is made. Prints the two paths, as environment settings:
#   TANDEM_TLS_CERTIFICATE=...  TANDEM_TLS_PRIVATE_KEY=...
# For local testing only: a self-signed certificate proves nothing to anyone else.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-$ROOT/.run/tls}
CERT=$DIR/tandem.crt
KEY=$DIR/tandem.key
DAYS=${TANDEM_TLS_CERT_DAYS:-825}

command -v openssl >/dev/null 2>&1 || {
  echo "tls-cert: openssl is missing (Debian: apt-get install openssl; or scripts/deps.sh tools)" >&2; exit 1; }

mkdir -p "$DIR"
if [[ -s $CERT && -s $KEY ]] && openssl x509 -in "$CERT" -noout -checkend 86400 >/dev/null 2>&1 \
   && [[ $(openssl x509 -in "$CERT" -noout -pubkey) == "$(openssl pkey -in "$KEY" -pubout 2>/dev/null)" ]]; then
  :  # still good, and the key belongs to it
else
  # a fresh pair, written beside and moved into place so that no reader sees half a file
  umask 077
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$DAYS" \
    -subj "/CN=localhost/O=Tandem (self-signed, local testing)" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
    -addext "basicConstraints=critical,CA:FALSE" \
    -addext "keyUsage=critical,digitalSignature,keyEncipherment" \
    -addext "extendedKeyUsage=serverAuth" \
    -keyout "$KEY.tmp" -out "$CERT.tmp" >/dev/null 2>&1 \
    || { rm -f "$KEY.tmp" "$CERT.tmp"; echo "tls-cert: openssl failed to make a certificate" >&2; exit 1; }
  chmod 600 "$KEY.tmp"; chmod 644 "$CERT.tmp"
  mv -f "$KEY.tmp" "$KEY"; mv -f "$CERT.tmp" "$CERT"
fi
echo "TANDEM_TLS_CERTIFICATE=$CERT"
echo "TANDEM_TLS_PRIVATE_KEY=$KEY"
