// REST over HTTP/1.1: GET BASE_URL + path, the path taken from KEYS_FILE (see common.js), asking
// for ACCEPT (application/json or application/x-protobuf) and ACCEPT_ENCODING (identity or gzip).
// One keep-alive connection per VU (k6's default), so connections = VUs.
// BASE_URL https://...: over TLS, verifying the server's certificate against the system roots,
// which the orchestrator points at the bench's own certificate (SSL_CERT_FILE) — verified, not
// insecureSkipTLSVerify, as a real client would; HTTP/2 by ALPN unless the orchestrator turns Go's
// HTTP/2 client off (GODEBUG=http2client=0) for an HTTP/1.1 cell.
// body_bytes: the byte length of each successful response body (responseType 'binary', so k6 hands
// over the bytes it received and does not decode them), which parse_k6 reports as bodyBytes.
import http from 'k6/http';
import { Trend } from 'k6/metrics';
import { nextKey, options as commonOptions, writeSummary } from './common.js';

export const options = commonOptions;

const base = __ENV.BASE_URL;
const bodyBytes = new Trend('body_bytes');
const params = {
  responseType: 'binary',
  headers: { Accept: __ENV.ACCEPT || 'application/json', 'Accept-Encoding': __ENV.ACCEPT_ENCODING || 'identity' },
  tags: { name: __ENV.OPERATION || 'request' },
  // the longest a request may wait (the overload profile: the services' request timeout)
  ...(__ENV.TIMEOUT ? { timeout: __ENV.TIMEOUT } : {}),
};

export default function () {
  const res = http.get(base + nextKey(), params);
  if (res.status >= 200 && res.status < 300 && res.body) {
    bodyBytes.add(res.body.byteLength);
  }
}

export function handleSummary(data) {
  return writeSummary(data);
}
