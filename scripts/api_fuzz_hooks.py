"""Schemathesis hooks of scripts/api-fuzz.sh (loaded through SCHEMATHESIS_HOOKS).

One check, the other half of not_a_server_error as scripts/api-fuzz.toml configures it.

X-Request-Timeout is documented as an integer from 1 to 999999999 milliseconds, so the fuzzer
rightly sends 1, and a 1 ms deadline passes before MariaDB answers: the service then answers what
its contract says, 504 problem+json with code DEADLINE_EXCEEDED, the REST twin of gRPC's
DEADLINE_EXCEEDED for a call whose client deadline passed. Schemathesis's not_a_server_error
counts every 5xx as a failure, so it would report the contract itself. The toml lets that check
pass 504 and nothing else; this check then fails every 504 that is not exactly that case: the
request carried a valid X-Request-Timeout, at least that long went by before the answer came, and
the answer is problem+json with code DEADLINE_EXCEEDED. A 504 without the header, a 504 sooner
than the client's timeout, or a 504 of another shape still fails the run.
"""

import json
import re

import schemathesis

HEADER = "X-Request-Timeout"
MILLIS = re.compile(r"[0-9]{1,9}")


@schemathesis.check
def gateway_timeout_only_after_the_clients_own_timeout(ctx, response, case):
    """A 504 is allowed only as DEADLINE_EXCEEDED, and only once the client's X-Request-Timeout has passed."""
    if response.status_code != 504:
        return None
    sent = response.request.headers.get(HEADER)
    if sent is None:
        raise AssertionError(f"504 to a request without {HEADER}: the server missed its own deadline")
    if not MILLIS.fullmatch(sent.strip()) or int(sent.strip()) < 1:
        raise AssertionError(f"504 to {HEADER}: {sent!r}, which is no timeout from 1 to 999999999 ms: "
                             "the client's mistake must be a 400 naming the header")
    timeout_ms = int(sent.strip())
    elapsed_ms = response.elapsed * 1000
    if elapsed_ms < timeout_ms:
        raise AssertionError(
            f"504 after {elapsed_ms:.1f} ms, before the client's {HEADER}: {timeout_ms} had passed")
    content_type = ",".join(response.headers.get("content-type", []))
    if not content_type.startswith("application/problem+json"):
        raise AssertionError(f"504 with Content-Type '{content_type}', not application/problem+json")
    try:
        code = json.loads(response.content).get("code")
    except (ValueError, AttributeError):
        code = None
    if code != "DEADLINE_EXCEEDED":
        raise AssertionError(f"504 with code {code!r}, not DEADLINE_EXCEEDED")
    return None
