#!/usr/bin/env bash
# Fuzzes the REST service from its own OpenAPI document: Schemathesis (pinned in
# scripts/api-fuzz-requirements.txt; scripts/deps.sh fuzz installs it) reads BASE_URL/v3/api-docs,
# generates about 1,000 requests to every operation — valid and invalid parameters, bodies and
# headers, X-Request-Timeout included — sends them with a write token, and checks every answer:
#
#   not_a_server_error            no 5xx (504 only as below)
#   gateway_timeout_only_after_the_clients_own_timeout
#                                 (scripts/api_fuzz_hooks.py) a 504 only as problem+json
#                                 DEADLINE_EXCEEDED, and only once the request's own X-Request-Timeout
#                                 has passed: the documented answer to a client that asks for 1 ms,
#                                 which not_a_server_error alone would report (scripts/api-fuzz.toml
#                                 lets it pass 504 and no other 5xx, this check fails every other 504)
#   response_schema_conformance   the body matches the documented schema of its status
#   status_code_conformance       the status is one the document lists for the operation
#   content_type_conformance      the Content-Type is one the document lists for that status
#
#   scripts/deps.sh fuzz && scripts/api-fuzz.sh http://127.0.0.1:8080
#
# Bounded and reproducible: a fixed seed (API_FUZZ_SEED, 11), one worker, --max-examples per
# operation (API_FUZZ_MAX_EXAMPLES, 15) for the fuzzing and stateful phases on top of the coverage
# phase's boundary cases, no example database carried between runs, and a hard time limit
# (API_FUZZ_TIME_LIMIT, 300 s) after which the run is stopped and fails. Only loopback targets are
# accepted, and requests go to BASE_URL whatever the document's `servers` says (no redirects).
# The run writes: it creates users, groups, memberships, ratings and sessions and may delete seeded
# groups, so run it against a database that may be reseeded afterwards.
#
# Exit 0 when every check passed; 1 when a check failed (the failures are printed); 2 for a bad
# argument or a run that could not start or finish. Reports (JSON run report, HAR of every request)
# and Schemathesis's own output: .run/api-fuzz/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ST=$ROOT/.tools/fuzz-venv/bin/st
PY=$ROOT/.tools/fuzz-venv/bin/python
OUT=$ROOT/.run/api-fuzz

SEED=${API_FUZZ_SEED:-11}
MAX_EXAMPLES=${API_FUZZ_MAX_EXAMPLES:-15}
TIME_LIMIT=${API_FUZZ_TIME_LIMIT:-300}
# Fewer requests than this means the run did not really fuzz anything (the document lost its operations?).
MIN_REQUESTS=${API_FUZZ_MIN_REQUESTS:-500}

die() { echo "api-fuzz: ERROR: $*" >&2; exit 2; }

(( $# == 1 )) || die "usage: scripts/api-fuzz.sh BASE_URL   (e.g. http://127.0.0.1:8080)"
BASE=${1%/}
[[ $BASE =~ ^(https?)://(127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}|localhost|\[::1\])(:[0-9]{1,5})?$ ]] ||
  die "BASE_URL must be http(s)://127.x.x.x, localhost or [::1] with an optional port and no path; got '$1'"
SCHEME=${BASH_REMATCH[1]}
[[ -x $ST ]] || die "Schemathesis is missing: run scripts/deps.sh fuzz first"
command -v timeout >/dev/null || die "timeout (coreutils) is needed"

TOKEN=$("$ROOT/scripts/token.sh") || die "scripts/token.sh failed"
TLS=()
# A loopback service with TLS on (tandem.tls.enabled) has a self-signed certificate.
[[ $SCHEME == https ]] && TLS=(--tls-verify false)

rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT"   # anything Schemathesis or Hypothesis writes stays in the git-ignored .run/

CMD=("$ST" --config-file "$ROOT/scripts/api-fuzz.toml" run "$BASE/v3/api-docs"
  --url "$BASE"
  -H "Authorization: Bearer $TOKEN"
  # GET /api/v1/groups/{id}/events is a stream that ends only when the group is deleted: every valid
  # request would hang until --request-timeout. Its answers are tested by GroupEventsRestTest.
  --exclude-operation-id WatchGroup
  --checks not_a_server_error,gateway_timeout_only_after_the_clients_own_timeout,response_schema_conformance,status_code_conformance,content_type_conformance
  --phases coverage,fuzzing,stateful
  --mode all
  --max-examples "$MAX_EXAMPLES"
  --seed "$SEED"
  --workers 1
  --generation-database none
  --max-redirects 0
  --request-timeout 15
  --wait-for-schema 120
  "${TLS[@]}"
  --no-color
  --report json,har --report-dir "$OUT" --report-json-path "$OUT/run.json" --report-har-path "$OUT/requests.har")

echo "api-fuzz: Schemathesis $("$ST" --version | awk '{print $NF}') against $BASE/v3/api-docs (seed $SEED, max $MAX_EXAMPLES examples per operation and phase, limit ${TIME_LIMIT}s)"
# The command, token left out, for a rerun by hand: .run/api-fuzz/command.txt
shown=("${CMD[@]/#Authorization: Bearer */Authorization: Bearer \$TOKEN}")
printf '%q ' SCHEMATHESIS_HOOKS=scripts/api_fuzz_hooks.py timeout --kill-after=10 "$TIME_LIMIT" "${shown[@]#$ROOT/}" >"$OUT/command.txt"
echo >>"$OUT/command.txt"
rc=0
SCHEMATHESIS_HOOKS=$ROOT/scripts/api_fuzz_hooks.py \
  timeout --kill-after=10 "$TIME_LIMIT" "${CMD[@]}" >"$OUT/output.txt" 2>&1 || rc=$?

if (( rc == 124 || rc == 137 )); then
  tail -n 20 "$OUT/output.txt" >&2
  die "Schemathesis did not finish within ${TIME_LIMIT}s (API_FUZZ_TIME_LIMIT); output: .run/api-fuzz/output.txt"
fi
if [[ ! -f $OUT/run.json ]]; then
  tail -n 30 "$OUT/output.txt" >&2
  die "Schemathesis exited $rc without a report; output: .run/api-fuzz/output.txt"
fi

# The short summary, from the reports.
summary_rc=0
"$PY" - "$OUT/run.json" "$OUT/requests.har" "$MIN_REQUESTS" <<'EOF' || summary_rc=$?
import collections, json, sys
run = json.load(open(sys.argv[1]))
har = json.load(open(sys.argv[2]))
minimum = int(sys.argv[3])
entries = har["log"]["entries"]
statuses = collections.Counter(entry["response"]["status"] for entry in entries)
failures = run["test_cases"]["unique_failures"]
errors = len(run.get("errors") or [])
print(f"api-fuzz: {len(entries)} requests, {run['test_cases']['generated']} test cases, "
      f"{run['operations']['tested']}/{run['operations']['selected']} operations, "
      f"{run['running_time']:.1f} s: {failures} failures, {errors} errors")
print("api-fuzz: statuses " + ", ".join(f"{status} x{count}" for status, count in sorted(statuses.items())))
if failures or errors:
    sys.exit(1)  # an operation stops at its first failure: fewer requests then say nothing
if len(entries) < minimum:
    print(f"api-fuzz: ERROR: only {len(entries)} requests (fewer than {minimum}): nothing was really fuzzed", file=sys.stderr)
    sys.exit(2)
EOF

if (( rc != 0 || summary_rc != 0 )); then
  # Schemathesis's failures (with a curl line to reproduce each) and its summary.
  awk '/^=+ (FAILURES|ERRORS) =+$/ { shown = 1 } shown' "$OUT/output.txt" >&2
  if (( summary_rc == 2 )); then exit 2; fi
  echo "api-fuzz: FAILED (Schemathesis exit $rc); reports: .run/api-fuzz/" >&2
  exit 1
fi
echo "api-fuzz: passed; reports: .run/api-fuzz/"
