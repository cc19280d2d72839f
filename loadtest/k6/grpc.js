// gRPC/Protobuf over HTTP/2 through k6/net/grpc: METHOD (e.g. tandem.v1.StudyGroupService/GetGroup)
// with the request message taken from KEYS_FILE (see common.js).
// The .proto files are compiled here, in the init context, from PROTO_PATHS (comma-separated import
// paths) rather than by server reflection: reflection's own traffic would be counted in
// data_sent/data_received, the wire bytes per request.
// Each VU connects once, on its first iteration, so connections = VUs.
// Exactly one check per call: k6 has no failure metric for gRPC, parse_k6 counts errors as failed checks.
// TLS=true: HTTP/2 over TLS (plaintext: false), verifying the server's certificate against the
// system roots, which the orchestrator points at the bench's own certificate (SSL_CERT_FILE).
import grpc from 'k6/net/grpc';
import { check } from 'k6';
import { nextKey, options as commonOptions, writeSummary } from './common.js';

export const options = commonOptions;

const client = new grpc.Client();
client.load(__ENV.PROTO_PATHS.split(','), 'tandem/v1/study_groups.proto', 'tandem/v1/hello.proto');

const method = __ENV.METHOD;
// the call's deadline (the overload profile: the services' request timeout); k6's default is 60 s
const callParams = __ENV.TIMEOUT ? { timeout: __ENV.TIMEOUT } : {};
const okStatus = (r) => r && r.status === grpc.StatusOK;

export default function () {
  if (__ITER === 0) {
    client.connect(__ENV.GRPC_ADDR, { plaintext: __ENV.TLS !== 'true' });
  }
  const res = client.invoke(method, nextKey(), callParams);
  check(res, { 'status is OK': okStatus });
}

export function handleSummary(data) {
  return writeSummary(data);
}
