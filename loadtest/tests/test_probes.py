from tandem_bench import probes


def test_compile_share_is_compile_time_over_wall_time_per_service():
    shares = probes.compile_shares({"rest": 1000.0, "grpc": 500.0}, {"rest": 3800.0, "grpc": 560.0}, 2.0)
    assert shares == {"rest": 1.4, "grpc": 0.03}


def test_a_service_that_cannot_be_read_is_left_out_not_read_as_settled():
    shares = probes.compile_shares({"rest": None, "grpc": 100.0}, {"rest": 900.0, "grpc": None}, 2.0)
    assert shares == {}
