// REST/JSON over HTTP/1.1: GET BASE_URL + path, the path taken from KEYS_FILE (see common.js).
// One keep-alive connection per VU (k6's default), so connections = VUs.
// BASE_URL https://...: HTTP/1.1 over TLS (the service offers no h2), verifying the server's
// certificate against the system roots, which the orchestrator points at the bench's own
// certificate (SSL_CERT_FILE) — verified, not insecureSkipTLSVerify, as a real client would.
// body_bytes: the byte length of each successful response body (responseType 'binary', so k6 hands
// over the bytes it received and does not decode them), which parse_k6 reports as bodyBytes.
import http from 'k6/http';
import { Trend } from 'k6/metrics';
import { nextKey, options as commonOptions, writeSummary } from './common.js';

export const options = commonOptions;

const base = __ENV.BASE_URL;
const bodyBytes = new Trend('body_bytes');
const params = { responseType: 'binary', tags: { name: __ENV.OPERATION || 'request' } };

export default function () {
  const res = http.get(base + nextKey(), params);
  if (res.status >= 200 && res.status < 300 && res.body) {
    bodyBytes.add(res.body.byteLength);
  }
}

export function handleSummary(data) {
  return writeSummary(data);
}
