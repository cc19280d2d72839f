"""h2load sends one pre-encoded gRPC request for a whole cell (it cannot vary the body), while oha,
ghz and k6 cycle the hot keys: which key that one request asks, and the body bytes such a cell
records."""
import json

from tandem_bench import keys, orchestrate, profile, wire
from tandem_bench.service_start import body_key


class FakeEncoder:
    def encode(self, method, request):
        return json.dumps(request, sort_keys=True).encode()


class Bench(orchestrate.Bench):
    """Just what measure_body_bytes and invocation read; curl's answers come from `sizes`."""

    def __init__(self, tmp_path, hot=200):
        self.target, self.work, self.encoder = None, tmp_path, FakeEncoder()
        self.keyfiles = keys.KeyFiles(tmp_path / "keys", 1000, hot)
        self.body_bytes, self.h2load_requests, self.notes = {}, {}, []
        self.placement = type("Placement", (), {"generator_prefix": lambda _: []})()
        self.ports = type("Ports", (), {"rest_base": "http://rest", "grpc_address": "grpc"})()


def answer_size(protocol, request):
    """A GetGroup answer's size grows with the group id (REST's JSON a little larger): group 1,
    the first hot key, has the smallest."""
    group = request["id"] if protocol == "grpc" else int(request.rsplit("/", 1)[1])
    return (100 if protocol == "grpc" else 300) + group


def fake_curl(monkeypatch):
    """curl's answers, sized by answer_size, on both wires."""
    def grpc_call(base, method, request_frame, ca_file=None, headers=None):
        return b"x" * answer_size("grpc", json.loads(request_frame[5:])), "0"

    def rest_body(base, path, ca_file=None, headers=None):
        return b"x" * answer_size("rest", path)
    monkeypatch.setattr(wire, "grpc_call", grpc_call)
    monkeypatch.setattr(wire, "rest_body", rest_body)


def test_an_h2load_grpc_cell_asks_the_hot_key_whose_answer_is_the_median_and_records_that_answer(tmp_path, monkeypatch):
    fake_curl(monkeypatch)
    grpc = profile.CellPlan("grpc", "h2load", "GetGroup", None, "hybrid", "warm", "closed", 50, None, 3.0, 1.0, 1)
    rest = profile.CellPlan("rest", "oha", "GetGroup", None, "hybrid", "warm", "closed", 50, None, 3.0, 1.0, 1)
    bench = Bench(tmp_path)
    bench.measure_body_bytes([grpc, rest])
    inv = bench.invocation(grpc, executor="constant-vus", vus=50, duration=3.0, which="hot", tag="t")
    sent = inv.request_frame.read_bytes()
    # 200 hot keys, groups 1..200: the lower median of their answers is group 100's
    assert sent == wire.frame(FakeEncoder().encode(keys.GRPC_METHODS["GetGroup"], {"id": 100})), sent
    # what the cell records is the answer to what it sent, not a mean over other keys
    assert bench.cell_body_bytes(grpc) == answer_size("grpc", {"id": 100}) == 200
    # a cell that cycles the keys keeps the curl mean over the sampled keys
    assert bench.cell_body_bytes(rest) == bench.body_bytes[body_key(rest)] == 300 + 10.5
    # and the run says so
    assert any("h2load" in n and "GetGroup" in n and "one request" in n for n in bench.notes), bench.notes


def test_the_median_request_is_the_lower_median_of_the_answers_and_the_first_of_equals():
    from tandem_bench.service_start import median_request
    assert median_request(["a", "b", "c"], [30, 10, 20]) == ("c", 20)
    assert median_request(["a", "b", "c", "d"], [40, 10, 30, 20]) == ("d", 20)
    assert median_request(["a", "b", "c"], [5, 5, 5]) == ("a", 5)
    assert median_request(["hello"], [7]) == ("hello", 7)
