"""Cache hit ratios of a measured window, from the service's own counters.

The services expose GET /actuator/cache on their management port: the cache mode and, per cache
name (group, groups-page, leaderboard, user) and level (l1 = Caffeine, l2 = Redis), cumulative hits
and misses. A window's hit ratio is computed from the counters read just before and just after it
(deltas), so the warm-up, the priming pass and other cells never count.

  level ratio  = Δhits / (Δhits + Δmisses) at that level; None when the level saw no lookup in the
                 window (not in play: l2 under local, l1 under redis, either under none)
  overall      = share of lookups answered by some cache level rather than the database:
                 (Δhits_l1 + Δhits_l2) / (Δhits_l1 + Δmisses_l1) when L1 is in play (L2 is asked
                 only on an L1 miss), the l2 ratio when only L2 is (redis mode), None when neither is.

Only the caches the operation reads count (OPERATION_CACHES), so e.g. a user lookup made while
building a group would not blur GetGroup's figure; when the service reports none of them, every
cache counts and the caller gets a note.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request

LEVELS = ("l1", "l2")

OPERATION_CACHES = {
    "GetGroup": ("group",),
    "ListGroups": ("groups-page",),
    "Hello": (),
}


class CacheEndpointError(RuntimeError):
    pass


def _number(v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise CacheEndpointError(f"counter is not a number: {v!r}")
    return float(v)


def normalise(doc: dict) -> dict:
    """{"mode": str|None, "caches": {name: {"l1": {"hits", "misses"}, "l2": {...}}}} from the
    endpoint's JSON. Accepts the caches under "caches" or at the top level; a level may be
    missing (e.g. no l2 in local mode)."""
    if not isinstance(doc, dict):
        raise CacheEndpointError(f"cache endpoint answered {type(doc).__name__}, expected an object")
    mode = doc.get("mode")
    caches_doc = doc.get("caches", doc)
    if not isinstance(caches_doc, dict):
        raise CacheEndpointError("cache endpoint: 'caches' is not an object")
    caches = {}
    for name, levels in caches_doc.items():
        if not isinstance(levels, dict) or not any(l in levels for l in LEVELS):
            continue  # "mode" and other non-cache entries
        caches[name] = {}
        for level in LEVELS:
            counters = levels.get(level)
            if isinstance(counters, dict) and "hits" in counters and "misses" in counters:
                caches[name][level] = {"hits": _number(counters["hits"]),
                                       "misses": _number(counters["misses"])}
    errors = doc.get("redisErrors")
    l1_doc = doc["l1"] if isinstance(doc.get("l1"), dict) else {}
    l2_doc = doc["l2"] if isinstance(doc.get("l2"), dict) else {}
    health = {
        "redisErrors": sum(v for v in errors.values() if isinstance(v, (int, float))) if isinstance(errors, dict) else 0,
        # whether L1 is served: only meaningful where there is an L1 (local, hybrid)
        "l1Trusted": doc["l1"].get("trusted") if isinstance(doc.get("l1"), dict) and doc["l1"].get("enabled", True)
        else None,
        "breaker": doc.get("breaker"),
        # counters since the service started (absent from services older than refresh ahead)
        "l1Bypasses": l1_doc.get("bypasses"),
        "l1Refreshes": l1_doc.get("refreshes") if isinstance(l1_doc.get("refreshes"), dict) else None,
        # reads that went past L2 to MySQL because L2 was not read then (absent from older services)
        "l2Bypasses": l2_doc.get("bypasses"),
    }
    flushes = doc.get("l1Flushes")
    # L1 flushes so far, by reason (a whole-L1 flush: the invalidation log could not be trusted)
    l1_flushes = {str(k): _number(v) for k, v in flushes.items()} if isinstance(flushes, dict) else None
    return {"mode": mode, "caches": caches, "health": health, "l1Flushes": l1_flushes}


def flushes_between(before: dict | None, after: dict | None) -> dict | None:
    """The L1 flushes of a window, by reason (reasons that did not occur left out: {} is none at
    all); None when either reading lacks the counters."""
    b, a = (before or {}).get("l1Flushes"), (after or {}).get("l1Flushes")
    if b is None or a is None:
        return None
    moved = {reason: n - b.get(reason, 0.0) for reason, n in a.items()}
    return {reason: n for reason, n in sorted(moved.items()) if n > 0}


def health_notes(before: dict, after: dict) -> list[str]:
    """What went wrong with the cache itself during a window (Redis errors, L1 not trusted, an
    open breaker): reads then take another path, which the reader of a hit ratio must know."""
    notes = []
    b, a = before.get("health") or {}, after.get("health") or {}
    errors = (a.get("redisErrors") or 0) - (b.get("redisErrors") or 0)
    if errors > 0:
        notes.append(f"{errors:g} Redis errors during the window")
    if a.get("l1Trusted") is False:
        notes.append("L1 not trusted at the end of the window (the invalidation log was not read within the "
                     "staleness bound): reads bypassed L1")
    bypassed = _moved(b.get("l1Bypasses"), a.get("l1Bypasses"))
    if bypassed:
        notes.append(f"{bypassed:g} reads bypassed L1 (not trusted: the invalidation log was not read within the "
                     "staleness bound); each counts as an L1 miss")
    bypassed_l2 = _moved(b.get("l2Bypasses"), a.get("l2Bypasses"))
    if bypassed_l2:
        notes.append(f"{bypassed_l2:g} reads bypassed L2 (not read then: an invalidation not relayed yet, a re-check "
                     "after a reconnect, the log not read within the bound, or the breaker open); each counts as "
                     "an L2 miss")
    refreshed = {k: _moved((b.get("l1Refreshes") or {}).get(k, 0), v) for k, v in (a.get("l1Refreshes") or {}).items()}
    if refreshed.get("superseded") or refreshed.get("failed"):
        notes.append("L1 refreshes ahead of expiry: " + ", ".join(f"{refreshed.get(k) or 0:g} {k}" for k in
                                                                  ("replaced", "superseded", "failed"))
                     + " (a superseded or failed one leaves its entry to expire under its readers)")
    if a.get("breaker") not in (None, "CLOSED", "DISABLED"):
        notes.append(f"Redis circuit breaker {a.get('breaker')} at the end of the window")
    return notes


def _moved(before, after) -> float:
    """How far a counter moved between two readings; 0 when either is missing or it went down."""
    if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
        return 0
    return max(0, after - before)


def _ratio(num: float, den: float) -> float | None:
    if den <= 0:
        return None
    return min(1.0, max(0.0, num / den))


def hit_ratio(before: dict, after: dict, operation: str | None = None) -> tuple[dict, list[str]]:
    """({"l1", "l2", "overall"}, notes) over the window between two normalised readings.

    A counter that went down (the service restarted or reset its counters mid-window) makes the
    window unmeasurable: its ratios are None and a note says why."""
    counts, notes = hit_counts(before, after, operation)
    return ratios(counts), notes


def hit_counts(before: dict, after: dict, operation: str | None = None) -> tuple[dict | None, list[str]]:
    """({"l1": {"hits", "misses"}, "l2": {...}}, notes): what the caches the operation reads counted
    between two normalised readings, per level; None when a counter went down (hit_ratio)."""
    notes = []
    names = set(OPERATION_CACHES.get(operation, ())) if operation else set()
    available = set(after["caches"])
    if operation == "Hello":
        names = set()
    elif not names or not (names & available):
        if operation and names:
            notes.append(f"cache endpoint reports none of {sorted(names)} (has {sorted(available)}); "
                         "hit ratio over every cache")
        names = available
    else:
        names = names & available

    totals = {level: {"hits": 0.0, "misses": 0.0} for level in LEVELS}
    for name in sorted(names):
        for level in LEVELS:
            a = after["caches"].get(name, {}).get(level)
            if a is None:
                continue
            b = before["caches"].get(name, {}).get(level) or {"hits": 0.0, "misses": 0.0}
            dh, dm = a["hits"] - b["hits"], a["misses"] - b["misses"]
            if dh < 0 or dm < 0:
                notes.append(f"cache counters of {name}/{level} went down during the window "
                             "(reset or restart): hit ratio not measured")
                return None, notes
            totals[level]["hits"] += dh
            totals[level]["misses"] += dm
    return totals, notes


def ratios(counts: dict | None) -> dict:
    """{"l1", "l2", "overall"} of hit_counts' counts (the module's docstring); all None without them."""
    if counts is None:
        return {"l1": None, "l2": None, "overall": None}
    l1, l2 = counts["l1"], counts["l2"]
    l1_lookups = l1["hits"] + l1["misses"]
    l2_lookups = l2["hits"] + l2["misses"]
    ratio = {"l1": _ratio(l1["hits"], l1_lookups), "l2": _ratio(l2["hits"], l2_lookups)}
    if l1_lookups > 0:
        ratio["overall"] = _ratio(l1["hits"] + l2["hits"], l1_lookups)
    else:
        ratio["overall"] = ratio["l2"]
    return ratio


def summed(counts: list[dict]) -> dict:
    """Several windows' hit_counts added up, per level: what ratios() of a cell reads."""
    return {level: {k: sum(c[level][k] for c in counts) for k in ("hits", "misses")} for level in LEVELS}


# ---------------------------------------------------------------- reading the service

def read(base_url: str, timeout: float = 5.0) -> dict:
    """The normalised counters from <management base URL>/actuator/cache."""
    url = f"{base_url}/actuator/cache"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return normalise(json.loads(r.read()))
    except (urllib.error.URLError, OSError, json.JSONDecodeError) as e:
        raise CacheEndpointError(f"GET {url}: {e}") from e


def flush(base_url: str, token: str | None = None, timeout: float = 10.0) -> None:
    """Empties L1 and L2 through the endpoint (DELETE /actuator/cache). A flush is a write, so the
    services want a writer's bearer token (services.mint_write_token)."""
    url = f"{base_url}/actuator/cache"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(url, method="DELETE", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            r.read()
    except (urllib.error.URLError, OSError) as e:
        raise CacheEndpointError(f"DELETE {url}: {e}") from e
