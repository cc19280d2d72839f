import json
"""Keys of the bench cells: page tokens as the service issues them, full pages, hot/cold split."""
import base64
import pytest

from tandem_bench import keys


def test_page_token_is_the_services_encoding():
    # tandem.internal.PageToken{subject: "algorithms", after_id: 11}: field 1 (0x0a, length 10),
    # field 2 varint (0x10, 11), base64url without padding
    raw = b"\x0a\x0aalgorithms\x10\x0b"
    assert keys.page_token("algorithms", 11) == base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    assert keys.page_token("algorithms", 0) == ""
    # multi-byte varint
    assert base64.urlsafe_b64decode(keys.page_token("physics", 300) + "==")[-3:] == b"\x10\xac\x02"


def test_every_list_start_leaves_a_full_page_of_its_subject():
    scale, n = 2, 3   # 100 groups, 10 per subject
    starts = keys.list_group_starts(scale, n)
    assert len(starts) == len(set(starts)) == 10 * (10 - n + 1)
    for subject, after_id in starts:
        i = keys.SUBJECTS.index(subject)
        ids_of_subject = [g for g in range(1, 101) if (g - 1) % 10 == i]
        assert after_id == 0 or after_id in ids_of_subject
        assert len([g for g in ids_of_subject if g > after_id]) >= n


def test_hot_and_cold_sets_do_not_overlap():
    ids = keys.all_keys("GetGroup", 10, None)
    hot, cold = keys.split(ids, 100)
    assert len(hot) == 100 and len(cold) == 400 and not set(hot) & set(cold)


def test_requests_per_wire():
    assert keys.rest_request("GetGroup", 7, None) == "/api/v1/groups/7"
    assert keys.grpc_request("GetGroup", 7, None) == {"id": 7}
    assert keys.rest_request("ListGroups", ("biology", 0), 20) == "/api/v1/groups?subject=biology&page_size=20"
    token = keys.page_token("biology", 12)
    assert keys.rest_request("ListGroups", ("biology", 12), 20).endswith(f"&page_token={token}")
    assert keys.grpc_request("ListGroups", ("biology", 12), 20) == \
        {"subject": "biology", "page_size": 20, "page_token": token}
    assert keys.rest_request("Hello", None, None) == "/api/v1/hello"
    assert keys.grpc_request("Hello", None, None) == {}


def test_key_files(tmp_path):
    files = keys.KeyFiles(tmp_path, scale=2, hot=10)
    path, n = files.get("rest", "GetGroup", None, "cold")
    assert n == 90 and path.read_text().startswith('["/api/v1/groups/11"')
    path, n = files.get("grpc", "Hello", None, "cold")
    assert n == 1


def test_each_cold_slice_gets_a_file_of_its_own(tmp_path):
    """Two cold cells of one operation and page size in the same start and round ask different
    slices. The files were cached by (protocol, operation, page size, which) alone, and `which` named
    only the start and round: the second cell was handed the first one's keys, already asked."""
    files = keys.KeyFiles(tmp_path, scale=2, hot=10)
    first, second = keys.cold_slices("GetGroup", 2, None, 10, 2)
    path_a, _ = files.get("rest", "GetGroup", None, keys.cold_name(0, 0, 0), first)
    path_b, n = files.get("rest", "GetGroup", None, keys.cold_name(1, 0, 0), second)
    assert path_a != path_b and n == len(second)
    assert path_b.read_text() == json.dumps([keys.rest_request("GetGroup", k, None) for k in second], separators=(",", ":"))
    with pytest.raises(ValueError, match="other keys"):
        files.get("rest", "GetGroup", None, keys.cold_name(0, 0, 0), second)


@pytest.mark.parametrize("scale, hot", [(1, 10), (100, 200), (1000, 200)])
def test_cold_windows_get_keys_of_their_own_even_at_seed_scale_1(scale, hot):
    miss = keys.jit_miss_keys("GetGroup", scale, None, hot)
    slices = keys.cold_slices("GetGroup", scale, None, hot, 4)
    assert miss and all(slices)                      # scale 1 once had no cold key at all
    asked = [k for s in slices for k in s]
    assert len(set(asked)) == len(asked)             # disjoint windows
    assert not set(asked) & set(miss) and not set(asked) & set(keys.all_keys("GetGroup", scale, None)[:hot])
