"""`make bench TARGET=...`: the bench against services that are already running (a docker compose
deployment behind its balancer, a Kubernetes service, two jars started by hand) instead of its own.

    TARGET=rest=http://host:8080,grpc=host:9090[,rest-mgmt=URL]...[,grpc-mgmt=URL]...[,ca=FILE]

  rest       the REST base URL (http:// or https://), as a client reaches it (the balancer)
  grpc       the gRPC address host:port (plaintext h2c) or grpcs://host:port (TLS)
  rest-mgmt  a REST instance's management base URL (its /actuator/cache); repeat the key, one per
  grpc-mgmt  instance; a gRPC instance's management base URL (port 8081 by default); repeat too
  ca         a PEM file of the CA (or self-signed certificate) to trust for https:// and grpcs://
The write token for the cache flushes comes from TANDEM_TOKEN, else it is minted with
TANDEM_AUTH_JWT_SECRET (the development secret when unset), as `make token` does.

What changes with a target (Plan): no servers or services are started and nothing is seeded (the
data the profile's keys need must exist: `check_seeded` says how to seed otherwise); only the cells
of the cache mode the target reports (GET /actuator/cache) and of its TLS setting run. Behind a
balancer the counters of one instance are not the service's, so hit ratios are recorded only when
the management URLs given cover every instance that follows the target's invalidation log
(each instance lists its peers); otherwise they are null and the run's notes say why. Cold cells
need the caches flushed (one DELETE /actuator/cache flushes L2 and, through the invalidation
log, every instance's L1): without any management URL and without the REST actuator the
cold cells are dropped rather than run warm under a cold label.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from . import cachestats, keys

KEYS = ("rest", "grpc", "rest-mgmt", "grpc-mgmt", "ca")
REPEATABLE = ("rest-mgmt", "grpc-mgmt")


class TargetError(ValueError):
    pass


@dataclass
class Target:
    """Where the services run. Duck-types services.Ports for the parts the bench reads."""
    rest_base: str
    grpc_address: str
    grpc_tls: bool = False
    rest_management: list[str] = field(default_factory=list)
    grpc_management: list[str] = field(default_factory=list)
    ca_file: Path | None = None

    @property
    def tls(self) -> bool:
        return self.rest_base.startswith("https://")

    def management_bases(self, protocol: str) -> list[str]:
        return self.rest_management if protocol == "rest" else self.grpc_management

    @property
    def flush_base(self) -> str | None:
        """Where a flush goes: any instance's actuator flushes L2 and every L1 (through the log).
        The REST service serves its actuator on its API port, so the balancer's URL does too."""
        bases = self.rest_management + self.grpc_management
        return bases[0] if bases else self.rest_base

    def describe(self) -> dict:
        """For run.json's environment.target: what was measured, not how to log in (no token)."""
        return {
            "rest": self.rest_base,
            "grpc": ("grpcs://" if self.grpc_tls else "") + self.grpc_address,
            "restManagement": list(self.rest_management),
            "grpcManagement": list(self.grpc_management),
            "caFile": str(self.ca_file) if self.ca_file else None,
        }


def _url(key: str, value: str) -> str:
    u = urllib.parse.urlsplit(value)
    if u.scheme not in ("http", "https") or not u.hostname:
        raise TargetError(f"{key}={value}: want http(s)://host[:port]")
    if u.path not in ("", "/") or u.query:
        raise TargetError(f"{key}={value}: a base URL without a path (the bench adds /api/v1/... and /actuator/...)")
    return f"{u.scheme}://{u.netloc}"


def _grpc(value: str) -> tuple[str, bool]:
    tls = value.startswith("grpcs://")
    address = value.removeprefix("grpcs://").removeprefix("grpc://")
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or "/" in address:
        raise TargetError(f"grpc={value}: want host:port or grpcs://host:port")
    return address, tls


def parse(text: str) -> Target:
    """TARGET's value: comma-separated key=value pairs (rest-mgmt and grpc-mgmt may repeat)."""
    values: dict[str, list[str]] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise TargetError(f"'{part}': want key=value ({', '.join(KEYS)})")
        if key not in KEYS:
            raise TargetError(f"unknown key '{key}' (known: {', '.join(KEYS)})")
        if key in values and key not in REPEATABLE:
            raise TargetError(f"'{key}' given twice (only {' and '.join(REPEATABLE)} may repeat, one per instance)")
        values.setdefault(key, []).append(value)
    missing = [k for k in ("rest", "grpc") if k not in values]
    if missing:
        raise TargetError(f"TARGET needs {' and '.join(missing)}, e.g. rest=http://localhost:8080,grpc=localhost:9090")
    grpc_address, grpc_tls = _grpc(values["grpc"][0])
    target = Target(
        rest_base=_url("rest", values["rest"][0]),
        grpc_address=grpc_address, grpc_tls=grpc_tls,
        rest_management=list(dict.fromkeys(_url("rest-mgmt", v) for v in values.get("rest-mgmt", []))),
        grpc_management=list(dict.fromkeys(_url("grpc-mgmt", v) for v in values.get("grpc-mgmt", []))),
        ca_file=Path(values["ca"][0]) if "ca" in values else None,
    )
    if target.tls != target.grpc_tls:
        raise TargetError("rest and grpc disagree on TLS (https:// with grpcs://, or http:// with a plain "
                          "host:port): the bench's cells are either TLS or plain on both wires")
    if target.ca_file is not None and not target.ca_file.is_file():
        raise TargetError(f"ca={target.ca_file}: no such file")
    return target


# ---------------------------------------------------------------- what the target reports

@dataclass
class Reading:
    """One instance's /actuator/cache: its id, the peers it hears, and the normalised counters."""
    base: str
    instance_id: str | None
    peers: list[str]
    mode: str | None
    counters: dict


def read_instance(base: str, timeout: float = 5.0) -> Reading:
    url = f"{base}/actuator/cache"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            doc = json.loads(r.read())
    except (urllib.error.URLError, OSError, json.JSONDecodeError) as e:
        raise cachestats.CacheEndpointError(f"GET {url}: {e}") from e
    # The instances that follow the same invalidation log ("log"; "channel" in builds before it).
    follows = doc.get("log") if isinstance(doc.get("log"), dict) else doc.get("channel")
    follows = follows if isinstance(follows, dict) else {}
    peers = follows.get("peers") if isinstance(follows.get("peers"), list) else []
    mode = doc.get("mode")
    return Reading(base, doc.get("instanceId"), [str(p) for p in peers],
                   str(mode).lower() if mode is not None else None, cachestats.normalise(doc))


def coverage(readings: list[Reading]) -> tuple[bool, str]:
    """Whether the readings are every instance's: the instance ids read must include every id any
    of them lists as a peer following the invalidation log (both services share one log). Returns
    (complete, why) for the run's notes."""
    if not readings:
        return False, "no management URL given (rest-mgmt=..., grpc-mgmt=...)"
    read_ids = {r.instance_id for r in readings if r.instance_id}
    if len(read_ids) < len(readings):
        return False, ("two management URLs answered for the same instance (or one without an instance id): "
                       "behind a balancer, give each instance's own management URL")
    heard = set().union(*(set(r.peers) for r in readings))
    unread = heard - read_ids
    if unread:
        return False, (f"{len(unread)} instance(s) following the invalidation log have no management URL "
                       f"among the {len(readings)} given")
    return True, f"all {len(read_ids)} instances' counters read"


def combine(readings: list[Reading]) -> dict:
    """The counters of several instances as one service's: hits and misses summed per cache and level."""
    caches: dict = {}
    health = {"redisErrors": 0.0, "l1Trusted": None, "breaker": None}
    for r in readings:
        for name, levels in r.counters["caches"].items():
            for level, counts in levels.items():
                into = caches.setdefault(name, {}).setdefault(level, {"hits": 0.0, "misses": 0.0})
                into["hits"] += counts["hits"]
                into["misses"] += counts["misses"]
        h = r.counters.get("health") or {}
        health["redisErrors"] += h.get("redisErrors") or 0
        if h.get("l1Trusted") is not None:
            health["l1Trusted"] = bool(health["l1Trusted"] is not False and h["l1Trusted"])
        if h.get("breaker") not in (None, "CLOSED", "DISABLED"):
            health["breaker"] = h["breaker"]
        for bypasses in ("l1Bypasses", "l2Bypasses"):
            if h.get(bypasses) is not None:
                health[bypasses] = health.get(bypasses, 0) + h[bypasses]
        for outcome, n in (h.get("l1Refreshes") or {}).items():
            refreshes = health.setdefault("l1Refreshes", {})
            refreshes[outcome] = refreshes.get(outcome, 0) + n
    return {"mode": readings[0].mode if readings else None, "caches": caches, "health": health}


# ---------------------------------------------------------------- the plan

@dataclass
class Plan:
    """What a bench run against the target does, decided before measuring."""
    cache_mode: str
    cells: list
    hit_ratios: bool
    notes: list[str]


def plan(cells: list, reported_mode: str, target: Target, complete: bool, why: str, can_flush: bool) -> Plan:
    """Keeps the cells the target can run honestly: its cache mode, its TLS setting, no pair through
    the bench's own balancer, and cold cells only when the caches can be flushed."""
    notes = [f"bench against an already-running target ({target.rest_base}, gRPC "
             f"{'grpcs://' if target.grpc_tls else ''}{target.grpc_address}): no servers or services "
             f"started, nothing seeded; cache mode {reported_mode} as the target reports it"]
    kept = [c for c in cells if c.cache_mode == reported_mode]
    if len(kept) < len(cells):
        other = sorted({c.cache_mode for c in cells} - {reported_mode})
        notes.append(f"{len(cells) - len(kept)} cell(s) of cache mode(s) {', '.join(other)} not run: "
                     f"the target runs {reported_mode} (restart it with TANDEM_CACHE_MODE to measure another)")
    tls_kept = [c for c in kept if c.tls == target.tls]
    if len(tls_kept) < len(kept):
        notes.append(f"{len(kept) - len(tls_kept)} {'plain' if target.tls else 'TLS'} cell(s) not run: the target "
                     f"speaks {'TLS' if target.tls else 'plain HTTP/h2c'} only")
    kept = tls_kept
    fronted = [c for c in kept if c.balanced]
    if fronted:
        kept = [c for c in kept if not c.balanced]
        notes.append(f"{len(fronted)} overload cell(s) of pairs through the bench's compose balancer not run: the "
                     "bench starts that balancer in front of services of its own; a target's front is its own")
    own = [c for c in kept if c.tracing or c.operation == "WatchGroup"]
    if own:
        kept = [c for c in kept if c not in own]
        notes.append(f"{len(own)} traced or WatchGroup cell(s) not run: traced cells need services the bench starts "
                     "traced, and WatchGroup cells write to the groups they watch (the bench writes to its own "
                     "database only)")
    if not can_flush:
        cold = [c for c in kept if c.temperature == "cold"]
        if cold:
            kept = [c for c in kept if c.temperature != "cold"]
            notes.append(f"{len(cold)} cold cell(s) not run: the target's caches cannot be flushed "
                         "(no management URL answers DELETE /actuator/cache), so they would not be cold")
    if reported_mode != "none":
        if complete:
            notes.append(f"hit ratios: sums of every instance's counters ({why})")
        else:
            notes.append(f"hit ratios not measured ({why}); behind a balancer one instance's counters are not "
                         "the service's. Cold windows still start from flushed caches, warm ones after priming")
    return Plan(reported_mode, kept, complete and reported_mode != "none", notes)


def check_seeded(target: Target, scale: int, timeout: float = 10.0) -> None:
    """The groups the profile's keys name must exist on the target: the last group of the seed
    scale must answer 200 (a target seeded at a smaller scale answers 404)."""
    last = max(keys.get_group_ids(scale))
    url = f"{target.rest_base}/api/v1/groups/{last}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            r.read()
            return
    except urllib.error.HTTPError as e:
        status = e.code
    except (urllib.error.URLError, OSError) as e:
        raise TargetError(f"GET {url}: {e}") from e
    raise TargetError(
        f"the target lacks the profile's data (GET {url} answered {status}; seed_scale {scale} needs "
        f"{keys.group_count(scale)} groups). Seed it once, e.g. start one REST instance of it with "
        f"TANDEM_SEED_MODE=reset TANDEM_SEED_SCALE={scale}, or use a profile with a smaller seed_scale")
