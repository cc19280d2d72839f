from tandem_bench import probes


def test_compile_share_is_compile_time_over_wall_time_per_service():
    shares = probes.compile_shares({"rest": 1000.0, "grpc": 500.0}, {"rest": 3800.0, "grpc": 560.0}, 2.0)
    assert shares == {"rest": 1.4, "grpc": 0.03}


def test_a_service_that_cannot_be_read_is_left_out_not_read_as_settled():
    shares = probes.compile_shares({"rest": None, "grpc": 100.0}, {"rest": 900.0, "grpc": None}, 2.0)
    assert shares == {}


# A scrape as the services publish it (tandem-service.yml's histograms), cut to a few buckets. A call
# an interceptor refuses (rate limit, write check) is closed with a status that has no cause: Micrometer
# labels it error="none", and only grpc_status_code tells it from a success (checked against a running
# service).
SCRAPE = """\
# TYPE grpc_server_seconds histogram
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="OK",rpc_method="GetGroup",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="0.001"} 50
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="OK",rpc_method="GetGroup",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="0.002"} 90
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="OK",rpc_method="GetGroup",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="+Inf"} 100
grpc_server_seconds_count{application="grpc-service",error="none",grpc_status_code="OK",rpc_method="GetGroup",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY"} 100
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="RESOURCE_EXHAUSTED",rpc_method="GetGroup",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="0.001"} 7
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="RESOURCE_EXHAUSTED",rpc_method="GetGroup",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="0.002"} 7
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="RESOURCE_EXHAUSTED",rpc_method="GetGroup",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="+Inf"} 7
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="OK",rpc_method="ListGroups",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="0.001"} 3
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="OK",rpc_method="ListGroups",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="0.002"} 3
grpc_server_seconds_bucket{application="grpc-service",error="none",grpc_status_code="OK",rpc_method="ListGroups",rpc_service="tandem.v1.StudyGroupService",rpc_type="UNARY",le="+Inf"} 3
"""


def test_a_services_latency_histogram_is_read_for_the_operations_successful_calls_only(monkeypatch):
    monkeypatch.setattr(probes.services, "http_get", lambda url, timeout=5: (200, SCRAPE.encode()))
    read = probes.jvm_and_calls("http://127.0.0.1:1", "grpc", "GetGroup", "tandem.v1.StudyGroupService/GetGroup")
    assert read["okCalls"] == 100
    assert read["okLatencyBuckets"] == {0.001: 50, 0.002: 90, float("inf"): 100}


def test_the_histogram_alone_is_asked_for_by_its_family_and_read_as_with_the_other_counters(monkeypatch):
    asked = []
    monkeypatch.setattr(probes.services, "http_get", lambda url, timeout=5: (asked.append(url), (200, SCRAPE.encode()))[1])
    read = probes.latency_histogram("http://127.0.0.1:1", "grpc", "GetGroup", "tandem.v1.StudyGroupService/GetGroup")
    # the family's name (checked against a running service: its _bucket series' name matches nothing)
    assert asked == ["http://127.0.0.1:1/actuator/prometheus?includedNames=grpc_server_seconds"]
    assert read == {0.001: 50, 0.002: 90, float("inf"): 100}
    monkeypatch.setattr(probes.services, "http_get", lambda url, timeout=5: (503, b""))
    assert probes.latency_histogram("http://127.0.0.1:1", "rest", "GetGroup", None) is None


def test_a_service_without_histograms_reads_as_none(monkeypatch):
    counts_only = "\n".join(line for line in SCRAPE.splitlines() if "_bucket" not in line)
    monkeypatch.setattr(probes.services, "http_get", lambda url, timeout=5: (200, counts_only.encode()))
    read = probes.jvm_and_calls("http://127.0.0.1:1", "grpc", "GetGroup", "tandem.v1.StudyGroupService/GetGroup")
    assert read["okCalls"] == 100 and read["okLatencyBuckets"] is None


def test_a_window_counts_what_the_histogram_counted_between_its_readings():
    before = {"okCalls": 100, "okLatencyBuckets": {0.001: 50, 0.002: 90, float("inf"): 100}}
    after = {"okCalls": 300, "okLatencyBuckets": {0.001: 150, 0.002: 260, float("inf"): 300}}
    assert probes.delta(before, after) == {"okCalls": 200,
                                           "okLatencyBuckets": {0.001: 100, 0.002: 170, float("inf"): 200}}
    # a restart in between (other buckets, or none): nothing to say about the window
    assert probes.delta({"okLatencyBuckets": None}, after)["okLatencyBuckets"] is None
    assert probes.histogram_delta({0.001: 1, float("inf"): 1}, after["okLatencyBuckets"]) is None


def test_quantiles_interpolate_within_the_bucket_the_rank_falls_in_as_prometheus_does():
    buckets = {0.001: 50, 0.002: 90, 0.004: 99, 0.008: 100, float("inf"): 100}
    assert probes.histogram_quantile(0.5, buckets) == 0.001
    assert probes.histogram_quantile(0.25, buckets) == 0.0005           # from 0 within the first bucket
    assert abs(probes.histogram_quantile(0.95, buckets) - (0.002 + 0.002 * 5 / 9)) < 1e-12
    assert probes.histogram_quantile(0.99, buckets) == 0.004
    # a rank in +Inf is the largest finite bound; nothing counted has no quantile
    assert probes.histogram_quantile(0.99, {0.001: 10, float("inf"): 20}) == 0.001
    assert probes.histogram_quantile(0.5, {0.001: 0, float("inf"): 0}) is None


def test_a_rest_route_whose_template_holds_braces_is_read_with_its_200s_and_304s(monkeypatch):
    """The label set ends at the first brace outside quotes: uri="/api/v1/groups/{id}" is one label
    (until 2026-11-30 the reader ended it inside the template and read REST GetGroup as 0 calls)."""
    scrape = """\
http_server_requests_seconds_count{error="none",method="GET",outcome="SUCCESS",status="200",uri="/api/v1/groups/{id}"} 10
http_server_requests_seconds_bucket{error="none",method="GET",outcome="SUCCESS",status="200",uri="/api/v1/groups/{id}",le="0.001"} 4
http_server_requests_seconds_bucket{error="none",method="GET",outcome="SUCCESS",status="200",uri="/api/v1/groups/{id}",le="+Inf"} 10
http_server_requests_seconds_count{error="none",method="GET",outcome="CLIENT_ERROR",status="404",uri="/api/v1/groups/{id}"} 2
http_server_requests_seconds_count{error="none",method="GET",outcome="REDIRECTION",status="304",uri="/api/v1/groups/{id}"} 5
http_server_requests_seconds_bucket{error="none",method="GET",outcome="REDIRECTION",status="304",uri="/api/v1/groups/{id}",le="0.001"} 5
http_server_requests_seconds_bucket{error="none",method="GET",outcome="REDIRECTION",status="304",uri="/api/v1/groups/{id}",le="+Inf"} 5
http_server_requests_seconds_count{error="none",method="GET",outcome="SUCCESS",status="200",uri="/api/v1/hello"} 7
"""
    monkeypatch.setattr(probes.services, "http_get", lambda url, timeout=5: (200, scrape.encode()))
    read = probes.jvm_and_calls("http://127.0.0.1:1", "rest", "GetGroup", None)
    # a revalidating client's 304s are its answers too; the 404s are not
    assert read["okCalls"] == 15
    assert read["okLatencyBuckets"] == {0.001: 9, float("inf"): 15}
