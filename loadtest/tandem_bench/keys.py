"""The keys a cell's requests use, and the files k6 and ghz read them from.

Seed data (shared-domain SeedData) has groups 1..50·scale with subject SUBJECTS[(id - 1) % 10],
so everything here is computed, never fetched (fetching pages would itself touch the cache).

  * GetGroup: a group id.
  * ListGroups at page size n: (subject, page token). A token is what the service issues: base64url
    (no padding) of tandem.internal.PageToken{subject, after_id}; the service resumes its keyset
    walk after after_id. Key k is subject k mod 10 starting after that subject's (k div 10)-th
    group (no token for the first), limited to starts that still leave a full page of n groups.
    Every key is a distinct page, so a cold cell that walks them touches a new cache entry with
    each request.
  * Hello: one request, always the same.

The hot set (warm and no-cache cells cycle over it) is the first hot_keys keys; cold cells use the
keys after it, so their warm-up (on the hot set) never touches a key they measure.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path

SUBJECTS = ("algorithms", "biology", "chemistry", "databases", "economics", "history",
            "linear-algebra", "literature", "physics", "statistics")

GRPC_METHODS = {
    "Hello": "tandem.v1.HelloService/Hello",
    "GetGroup": "tandem.v1.StudyGroupService/GetGroup",
    "ListGroups": "tandem.v1.StudyGroupService/ListGroups",
}


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def page_token(subject: str, after_id: int) -> str:
    """The token the service issues for the page after group after_id (PageTokens.encode)."""
    if after_id <= 0:
        return ""
    raw = subject.encode()
    message = b"\x0a" + _varint(len(raw)) + raw + b"\x10" + _varint(after_id)
    return base64.urlsafe_b64encode(message).rstrip(b"=").decode()


def group_count(scale: int) -> int:
    return 50 * scale


def get_group_ids(scale: int) -> list[int]:
    return list(range(1, group_count(scale) + 1))


def list_group_starts(scale: int, page_size: int) -> list[tuple[str, int]]:
    """(subject, after_id) of every page start that leaves a full page, interleaved by subject."""
    groups = group_count(scale)
    per_subject = groups // len(SUBJECTS)
    starts_per_subject = per_subject - page_size + 1
    out = []
    for position in range(max(starts_per_subject, 0)):
        for i, subject in enumerate(SUBJECTS):
            # the position-th group of subject i is id i + 1 + 10·(position - 1); start after it
            after_id = 0 if position == 0 else i + 1 + len(SUBJECTS) * (position - 1)
            out.append((subject, after_id))
    return out


def all_keys(operation: str, scale: int, page_size: int | None) -> list:
    if operation == "Hello":
        return [None]
    if operation == "GetGroup":
        return get_group_ids(scale)
    if operation == "ListGroups":
        return list_group_starts(scale, page_size)
    raise ValueError(f"unknown operation {operation}")


def split(keys: list, hot: int) -> tuple[list, list]:
    """(hot set, cold set): the first hot keys, and the rest."""
    return keys[:hot], keys[hot:]


def rest_request(operation: str, key, page_size: int | None) -> str:
    if operation == "Hello":
        return "/api/v1/hello"
    if operation == "GetGroup":
        return f"/api/v1/groups/{key}"
    subject, after_id = key
    token = page_token(subject, after_id)
    return f"/api/v1/groups?subject={subject}&page_size={page_size}" + (f"&page_token={token}" if token else "")


def grpc_request(operation: str, key, page_size: int | None) -> dict:
    if operation == "Hello":
        return {}
    if operation == "GetGroup":
        return {"id": key}
    subject, after_id = key
    message = {"subject": subject, "page_size": page_size}
    token = page_token(subject, after_id)
    if token:
        message["page_token"] = token
    return message


JIT_MISS_KEYS = 2000   # after the hot set: the miss path's JIT warm-up (never measured)


def jit_miss_count(total: int, hot: int) -> int:
    """Keys reserved for the miss path's warm-up: JIT_MISS_KEYS, or a quarter of the keys past the
    hot set when there are few (seed scale 1 has 50 groups: 2,000 reserved left no cold key)."""
    return min(JIT_MISS_KEYS, max(0, total - hot) // 4)


def cold_slices(operation: str, scale: int, page_size: int | None, hot: int, slices: int) -> list[list]:
    """The cold keys cut into `slices` disjoint runs, one per (cold cell, service start, round), so
    that no cold window asks a key another window (or the JIT warm-up) has asked before."""
    every = all_keys(operation, scale, page_size)
    keys = every[hot + jit_miss_count(len(every), hot):]
    size = len(keys) // max(slices, 1)
    return [keys[i * size:(i + 1) * size] for i in range(slices)]


def cold_name(slice_index: int, start: int, rnd: int) -> str:
    """The `which` of a cold window's key file: its slice (one per cold cell, start and round, see
    cold_slices) names it, so two cold cells never share a file."""
    return f"cold{slice_index}-s{start}-r{rnd}"


def jit_miss_keys(operation: str, scale: int, page_size: int | None, hot: int) -> list:
    every = all_keys(operation, scale, page_size)
    return every[hot:hot + jit_miss_count(len(every), hot)]


class KeyFiles:
    """Writes (once) and names the JSON arrays of requests the load generators read."""

    def __init__(self, directory: Path, scale: int, hot: int):
        self.directory = Path(directory)
        self.scale = scale
        self.hot = hot
        self._cache: dict[tuple, tuple[Path, int]] = {}
        self._keys: dict[tuple, list | None] = {}

    def get(self, protocol: str, operation: str, page_size: int | None, which: str,
            keys: list | None = None) -> tuple[Path, int]:
        """(path, number of requests) of the hot or cold key file, or of `keys` named `which`."""
        k = (protocol, operation, page_size, which)
        if k in self._cache and keys is not None and self._keys[k] != keys:
            raise ValueError(f"key file {which} of {protocol} {operation} was made for other keys")
        if k not in self._cache:
            self._keys[k] = keys
            if keys is None:
                hot, cold = split(all_keys(operation, self.scale, page_size), self.hot)
                keys = hot if which == "hot" or operation == "Hello" else cold
            build = rest_request if protocol == "rest" else grpc_request
            requests = [build(operation, key, page_size) for key in keys]
            name = f"{protocol}-{operation}{page_size or ''}-{which}.json"
            path = self.directory / name
            self.directory.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(requests, separators=(",", ":")))
            self._cache[k] = (path, len(requests))
        return self._cache[k]
