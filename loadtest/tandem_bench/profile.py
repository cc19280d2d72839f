"""Bench profiles: a small TOML file (loadtest/profiles/*.toml) → the list of cells to measure.

A profile has top-level settings and [[matrix]] blocks. Each block is expanded as the cartesian
product of its lists; a block may override any setting for its own cells. Rules the schema also
enforces are applied while expanding, so a block can name several cache modes and temperatures
without producing impossible cells:

  * cache mode "none" has temperature "none" (there is no cache to be cold or warm);
  * Hello touches no cache, so its temperature is "none" whatever mode the service runs in;
  * ListGroups has a page size (one cell per page size), the other operations none;
  * a block with target_rates gives open-model cells (one per rate), otherwise closed-model ones;
  * tls = [false, true] measures each cell over plain TCP and over TLS (default [false]: plain);
  * tracing = [false, true] measures each cell against untraced services and against services
    started traced, exporting every request's spans to the bench's OTLP sink (default [false]);
  * a [[watch]] block gives WatchGroup cells, one per wire, write rate and cache mode: change-to-
    client latency of group watches while writers change other groups at the block's rate;
  * a [[sweep]] block gives one open-model cell per rate, run in ascending order until the p99 or
    the dropped arrivals pass the block's limits: the latency-vs-throughput curve and its knee;
  * an [[overload]] block gives paired cells, one per wire, whose two generators run at the same
    time: a closed-model capacity cell per wire, then one open-model cell per wire and step (a
    percent of that wire's capacity, known only when the run measures it).

Cells that come out identical from two blocks are measured once (the first block wins).
Everything here is pure, so the expansion is unit-tested.

Longer than ~350 lines on purpose: the vocabulary (OPERATIONS, DRIVERS, ...), the checks of a
file against it (normalise) and the expansion that relies on those checks (expand) are one
contract, best read together. What a run of the cells will be (order of the service starts,
estimated duration, seed scale check, dry-run listing) is in run_plan.py.
"""
from __future__ import annotations

import itertools
import os
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

PROFILES_DIR = Path(__file__).resolve().parents[1] / "profiles"

OPERATIONS = ("Hello", "GetGroup", "ListGroups")
CACHE_MODES = ("none", "local", "redis", "hybrid")
TEMPERATURES = ("cold", "warm")
# protocol/tool: k6 on both wires (the same generator, the reference), ghz (gRPC; open model with
# --async), h2load (gRPC with one pre-encoded frame; REST over HTTP/2) and oha (REST, closed, or
# open with latency correction): native generators cheap enough to leave the services the bottleneck.
# rest/h2load over HTTP/2 only: h2load 1.52's HTTP/1.1 parser (llhttp) reports no status for a
# status line without a reason phrase, which is what Tomcat sends ("HTTP/1.1 200 "), so it counts
# every REST response over HTTP/1.1 as failed.
DRIVERS = ("rest/k6", "grpc/k6", "grpc/ghz", "grpc/h2load", "rest/oha", "rest/h2load")
# tools of one family may be paired across the wires: the same tool, or two native generators
FAMILY = {"h2load": "native", "oha": "native"}
OPEN_MODEL_TOOLS = ("k6", "ghz", "oha")
# how a REST cell's bodies travel (gRPC's are always protobuf over HTTP/2): the representation it
# asks for (Accept), the HTTP version, and whether it asks for gzip (both wires)
ENCODINGS = ("json", "protobuf")
HTTP_VERSIONS = ("1.1", "2")
COMPRESSIONS = ("identity", "gzip")
ROLES = ("throughput", "latency", "reference", "cold", "sweep", "capacity", "overload")
# WatchGroup cells ([[watch]] blocks): per wire, the client that holds the watches open (REST: the
# bench's own Server-Sent Events reader; gRPC: grpcurl, which prints each message as it arrives)
WATCH = "WatchGroup"
WATCH_CLIENTS = {"rest": "sse", "grpc": "grpcurl"}

# settings a profile (or a block) may set, with their defaults
DEFAULTS = {
    "seed_scale": 1000,           # TANDEM_SEED_SCALE: 50·scale groups, 5·scale per subject
    "repetitions": 2,             # measured windows per cell and service start (rounds)
    "starts": 2,                  # service starts per cache mode; windows = starts × repetitions
    "duration_seconds": 10,       # one measured window
    "warmup_seconds": 3,          # per cell, before its first window, excluded (primes warm cells)
    "jit_warmup_seconds": 10,     # after each service start, before the first cell of that mode
    "jit_settle_max_seconds": 4,  # per cell after its warm-up: 1-s steps until its service stops compiling
    "hot_keys": 500,              # the key set that warm (and no-cache) cells cycle over
}
BLOCK_LISTS = ("operations", "drivers", "cache_modes", "temperatures", "concurrency", "page_sizes",
               "target_rates", "tls", "tracing", "encodings", "http", "compression", "revalidate")
BLOCK_SETTINGS = ("repetitions", "duration_seconds", "warmup_seconds", "role", "streams")
SWEEP_KEYS = ("operations", "drivers", "cache_modes", "page_sizes", "rates", "concurrency", "duration_seconds",
              "p99_limit_ms", "drop_limit", "tls")
OVERLOAD_KEYS = ("operations", "drivers", "cache_modes", "page_sizes", "percents", "concurrency",
                 "capacity_concurrency", "duration_seconds", "warmup_seconds", "timeout_seconds", "drain_seconds",
                 "settle_seconds", "balancer")
OVERLOAD_DEFAULTS = {
    "cache_modes": ["hybrid"],
    "percents": [50, 100, 150, 200, 300],
    # open model: the connections per wire (oha: the most requests in flight; ghz --async: the
    # connections its calls are spread over); a number, or { rest = N, grpc = M }
    "concurrency": 1000,
    "capacity_concurrency": 50,   # closed model: users per wire of the capacity window (or { rest = N, grpc = M })
    "timeout_seconds": 10,        # a request's deadline: the services' tandem.limits.request-timeout
    "drain_seconds": 2,           # pause after each window, so one step's backlog does not enter the next
    # the first seconds of every window, run but not measured: the generators open their connections
    # then (500 REST, 200 gRPC in the profile), against capped services, and the requests due meanwhile
    # waited for that, not for the load (docs/overload.md, "An unloaded reference")
    "settle_seconds": 1,
    # the wires whose generator goes through the compose balancer (deploy/compose/nginx.conf, run by
    # the bench in front of its services) instead of to the service: where it sheds load
    "balancer": [],
}
WATCH_KEYS = ("protocols", "cache_modes", "watchers", "write_rates", "duration_seconds", "repetitions", "starts",
              "pause_ms")
WATCH_DEFAULTS = {
    "protocols": ["rest", "grpc"],
    "cache_modes": ["hybrid"],
    "watchers": 4,         # watched groups, each with its own watch and its own writer
    "write_rates": [0],    # load writes per second (joins and leaves of other groups), besides the watched ones
    "pause_ms": 200,       # most a watched group's writer waits (uniformly random) before its next change
}
# the services' admission control (tandem.admission.*, AdmissionProperties) a profile may set: its
# runs are then what `make bench PROFILE=...` measures, not what a note's environment variables did.
# The bench's environment still wins (TANDEM_ADMISSION_ENABLED=false make bench PROFILE=overload).
ADMISSION_KEYS = ("enabled", "algorithm", "initial_limit", "min_limit", "max_limit")
ADMISSION_ALGORITHMS = ("gradient", "vegas", "fixed")
TOP_LEVEL = ("name", "description", "matrix", "sweep", "overload", "watch", "cpus", "service_cpu_quota", "admission",
             *DEFAULTS)


class ProfileError(ValueError):
    """The profile cannot be used; the message names the file and the key."""


def _admission_env(admission, source: str) -> dict[str, str]:
    """admission = { enabled = true, max_limit = 100, ... } as the services' environment variables."""
    where = f"{source}: admission"
    if not isinstance(admission, dict) or not admission:
        raise ProfileError(f"{where} must be a table such as {{ enabled = true, max_limit = 100 }}")
    unknown = sorted(set(admission) - set(ADMISSION_KEYS))
    if unknown:
        raise ProfileError(f"{where}: unknown {unknown} (known: {', '.join(ADMISSION_KEYS)})")
    env = {}
    for key, value in admission.items():
        if key == "enabled":
            if not isinstance(value, bool):
                raise ProfileError(f"{where}.enabled must be true or false, got {value!r}")
            text = str(value).lower()
        elif key == "algorithm":
            if value not in ADMISSION_ALGORITHMS:
                raise ProfileError(f"{where}.algorithm must be one of {', '.join(ADMISSION_ALGORITHMS)}, got {value!r}")
            text = value
        else:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ProfileError(f"{where}.{key} must be a whole number of at least 1, got {value!r}")
            text = str(value)
        env[f"TANDEM_ADMISSION_{key.upper()}"] = text
    return env


@dataclass(frozen=True)
class CellPlan:
    protocol: str
    tool: str
    operation: str
    page_size: int | None
    cache_mode: str
    temperature: str
    model: str
    concurrency: int
    target_rate: float | None
    duration_seconds: float
    warmup_seconds: float
    repetitions: int
    # over TLS (the same services' second port, tandem.tls.extra-port) or plain TCP
    tls: bool = False
    # against services started traced (tandem.tracing.enabled, spans exported to the bench's sink)
    tracing: bool = False
    starts: int = 1
    role: str = "reference"
    streams: int = 1              # h2load: requests in flight per connection (concurrency / streams connections)
    sweep: str | None = None      # the sweep this cell is a point of
    sweep_limits: tuple | None = None   # (p99 ms, drop rate) of its sweep
    encoding: str = "json"        # REST: json | protobuf (Accept); gRPC: protobuf
    http: str = "1.1"             # REST: 1.1 | 2 (h2c by prior knowledge, h2 by ALPN over TLS); gRPC: 2
    compression: str = "identity" # identity | gzip, as the client asks (REST Accept-Encoding, gRPC per call)
    # REST: a client that revalidates the copy it holds (If-None-Match) and is answered 304 with no body
    revalidate: bool = False
    # overload: the pair this cell belongs to (its twin on the other wire runs at the same time), its
    # step in percent of the wire's measured capacity (None: the capacity cell itself), a request's
    # deadline, and the pause after each window
    pair: str | None = None
    step: float | None = None
    timeout_seconds: float | None = None
    drain_seconds: float = 0.0
    # overload: the seconds each window runs before it is measured (the generator runs them on top of
    # duration_seconds; the requests due in them are left out of every figure)
    settle_seconds: float = 0.0
    # WatchGroup: the most a watched group's writer pauses before its next change
    pause_ms: float | None = None
    # overload: the wires of the cell's pair whose requests go through the compose balancer (its
    # block's balancer list); a pair with one is another pair than the same one without
    balanced: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        op = self.operation + (f"{self.page_size}" if self.page_size else "")
        if self.operation == WATCH:
            # concurrency: the watches held open; target_rate: the load writes per second
            return f"{self.protocol}-{self.tool}-{op}-{self.cache_mode}-c{self.concurrency}-w{self.target_rate:g}"
        if self.pair:
            what = "capacity" if self.step is None else f"overload{self.step:g}"
            balanced = "".join(f"-{w}-lb" for w in self.balanced)
            return (f"{self.protocol}-{self.tool}-{op}-{self.cache_mode}-{self.temperature}-c{self.concurrency}"
                    f"{balanced}-{what}")
        rate = f"-open{self.target_rate:g}" if self.model == "open" else ""
        # cells of the defaults (plain, JSON over HTTP/1.1, identity) keep the ids they had before
        # those dimensions
        tls = "-tls" if self.tls else ""
        tls += "-traced" if self.tracing else ""
        sweep = "-sweep" if self.sweep else ""
        streams = f"-m{self.streams}" if self.streams > 1 else ""
        body = ""
        if self.protocol == "rest":
            body += "-pb" if self.encoding == "protobuf" else ""
            body += "-h2" if self.http == "2" else ""
        body += "-gz" if self.compression == "gzip" else ""
        body += "-304" if self.revalidate else ""
        return (f"{self.protocol}-{self.tool}-{op}-{self.cache_mode}-{self.temperature}"
                f"-c{self.concurrency}{streams}{rate}{body}{tls}{sweep}")

    @property
    def front(self) -> str | None:
        """"balancer" when this cell's requests go through the compose balancer, else None."""
        return "balancer" if self.protocol in self.balanced else None

    @property
    def service_config(self) -> str:
        """What the services are started with for this cell: its cache mode, and whether they trace
        (a process-wide setting: traced cells need starts of their own). A TLS cell runs against
        the same processes as its plain twin, through their TLS ports (tandem.tls.extra-port)."""
        return self.cache_mode + ("+traced" if self.tracing else "")

    @property
    def driver(self) -> str:
        return f"{self.protocol}/{self.tool}"

    @property
    def family(self) -> str:
        return FAMILY.get(self.tool, self.tool)

    @property
    def transport(self) -> str:
        return "h2" if self.protocol == "grpc" or self.http == "2" else "http1"

    @property
    def connections(self) -> int:
        return self.concurrency // self.streams

    @property
    def windows(self) -> int:
        return self.starts * self.repetitions

    def as_dict(self) -> dict:
        d = asdict(self)
        d["id"] = self.id
        return d


def profile_path(name_or_path: str) -> Path:
    """A profile name (quick, full, smoke → loadtest/profiles/<name>.toml) or a path to a file."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        return p
    return PROFILES_DIR / f"{name_or_path}.toml"


def load(name_or_path: str) -> dict:
    path = profile_path(name_or_path)
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except FileNotFoundError:
        known = ", ".join(sorted(p.stem for p in PROFILES_DIR.glob("*.toml")))
        raise ProfileError(f"no profile {name_or_path!r} ({path}); known: {known}") from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{path}: not valid TOML: {e}") from e
    return normalise(raw, source=str(path))


def normalise(raw: dict, source: str = "profile") -> dict:
    """Checks the keys and fills defaults; returns {name, description, settings, matrix, source}."""
    unknown = sorted(set(raw) - set(TOP_LEVEL))
    if unknown:
        raise ProfileError(f"{source}: unknown key(s) {unknown}; known: {sorted(TOP_LEVEL)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ProfileError(f"{source}: needs name = \"...\"")
    settings = {k: raw.get(k, v) for k, v in DEFAULTS.items()}
    _check_positive(settings, source, ("seed_scale", "repetitions", "starts", "duration_seconds", "hot_keys"))
    cpus = raw.get("cpus")
    if cpus is not None:
        if not isinstance(cpus, dict) or set(cpus) != {"services", "generator"} \
                or not all(isinstance(v, str) for v in cpus.values()):
            raise ProfileError(f'{source}: cpus must be {{ services = "0", generator = "1" }} (taskset CPU lists)')
        settings["cpus"] = cpus
    quota = raw.get("service_cpu_quota")
    if quota is not None:
        # of one core, for both service JVMs together (cpu_quota.py); absent: no cap
        cores = os.cpu_count() or 1
        if isinstance(quota, bool) or not isinstance(quota, (int, float)) or not 0 < quota <= cores:
            raise ProfileError(f"{source}: service_cpu_quota must be a number in (0, {cores}] (the cores the two "
                               f"services may use together, e.g. 0.4; this machine has {cores}), got {quota!r}")
        settings["service_cpu_quota"] = float(quota)
    admission = raw.get("admission")
    if admission is not None:
        settings["admission_env"] = _admission_env(admission, source)
    for i, block in enumerate(raw.get("sweep") or []):
        where = f"{source}: [[sweep]] #{i + 1}"
        unknown = sorted(set(block) - set(SWEEP_KEYS))
        if unknown:
            raise ProfileError(f"{where}: unknown key(s) {unknown}; known: {sorted(SWEEP_KEYS)}")
        _check_open_block(block, where, "rates")
        _check_positive(block, where, ("concurrency", "duration_seconds", "p99_limit_ms", "drop_limit"))
    _check_non_negative(settings, source, ("warmup_seconds", "jit_warmup_seconds", "jit_settle_max_seconds"))
    overload = [_normalise_overload(block, f"{source}: [[overload]] #{i + 1}")
                for i, block in enumerate(raw.get("overload") or [])]
    watch = [_normalise_watch(block, f"{source}: [[watch]] #{i + 1}") for i, block in enumerate(raw.get("watch") or [])]
    matrix = raw.get("matrix")
    if (overload or watch) and matrix is None:
        matrix = []
    elif not isinstance(matrix, list) or not matrix:
        raise ProfileError(f"{source}: needs at least one [[matrix]] (or [[overload]] or [[watch]]) block")
    for i, block in enumerate(matrix):
        where = f"{source}: [[matrix]] #{i + 1}"
        unknown = sorted(set(block) - set(BLOCK_LISTS) - set(BLOCK_SETTINGS))
        if unknown:
            raise ProfileError(f"{where}: unknown key(s) {unknown}; known: "
                               f"{sorted(BLOCK_LISTS + BLOCK_SETTINGS)}")
        for key in ("operations", "drivers", "concurrency"):
            if not block.get(key):
                raise ProfileError(f"{where}: needs {key} = [...]")
        for key in BLOCK_LISTS:
            if key in block and not isinstance(block[key], list):
                raise ProfileError(f"{where}: {key} must be a list, e.g. {key} = [{block[key]!r}]")
        _check_members(block.get("operations", []), OPERATIONS, where, "operations")
        _check_members(block.get("drivers", []), DRIVERS, where, "drivers")
        _check_members(block.get("cache_modes", []), CACHE_MODES, where, "cache_modes")
        _check_members(block.get("temperatures", []), TEMPERATURES, where, "temperatures")
        for key in ("concurrency", "page_sizes"):
            for v in block.get(key, []):
                if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                    raise ProfileError(f"{where}: {key} must hold integers >= 1, got {v!r}")
        for key in ("tls", "tracing", "revalidate"):
            for v in block.get(key, []):
                if not isinstance(v, bool):
                    raise ProfileError(f"{where}: {key} must hold true and/or false, got {v!r}")
        if True in block.get("revalidate", []):
            wrong = [d for d in block["drivers"] if d not in ("rest/oha", "rest/h2load")]
            if wrong or block["operations"] != ["GetGroup"]:
                raise ProfileError(f"{where}: revalidate = [true] needs operations = [\"GetGroup\"] and drivers among "
                                   "[\"rest/oha\", \"rest/h2load\"] (gRPC has no conditional request; k6's cells "
                                   f"are not given the header), got {block['operations']} and {wrong or block['drivers']}")
        _check_members(block.get("encodings", []), ENCODINGS, where, "encodings")
        _check_members(block.get("http", []), HTTP_VERSIONS, where, "http")
        _check_members(block.get("compression", []), COMPRESSIONS, where, "compression")
        for v in block.get("target_rates", []):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0:
                raise ProfileError(f"{where}: target_rates must hold numbers > 0, got {v!r}")
        if "ListGroups" in block["operations"] and not block.get("page_sizes"):
            raise ProfileError(f"{where}: ListGroups needs page_sizes = [...]")
        _check_positive(block, where, ("repetitions", "duration_seconds"))
        _check_non_negative(block, where, ("warmup_seconds",))
        streams = block.get("streams", 1)
        if not isinstance(streams, int) or isinstance(streams, bool) or streams < 1:
            raise ProfileError(f"{where}: streams must be an integer >= 1, got {streams!r}")
        if streams > 1 and (any(d != "grpc/h2load" for d in block["drivers"])
                            or any(c % streams for c in block["concurrency"])):
            raise ProfileError(f"{where}: streams = {streams} needs drivers = [\"grpc/h2load\"] (HTTP/2 "
                               "multiplexing) and a concurrency that is a multiple of it")
        if "role" in block and block["role"] not in ROLES:
            raise ProfileError(f"{where}: role {block['role']!r} not among {list(ROLES)}")
        open_blocked = [d for d in block.get("drivers", []) if d.split("/")[1] not in OPEN_MODEL_TOOLS]
        if block.get("target_rates") and open_blocked:
            raise ProfileError(f"{where}: {open_blocked} cannot hold an arrival rate (closed model only)")
    return {"name": name, "description": raw.get("description", ""), "settings": settings,
            "matrix": matrix, "sweep": raw.get("sweep") or [], "overload": overload, "watch": watch,
            "source": source}


def _normalise_watch(block: dict, where: str) -> dict:
    """A [[watch]] block with its defaults filled. Watches follow the invalidation log, which cache
    mode none does not have (the services answer UNIMPLEMENTED / 501)."""
    unknown = sorted(set(block) - set(WATCH_KEYS))
    if unknown:
        raise ProfileError(f"{where}: unknown key(s) {unknown}; known: {sorted(WATCH_KEYS)}")
    block = {**WATCH_DEFAULTS, **block}
    for key in ("protocols", "cache_modes", "write_rates"):
        if not isinstance(block[key], list) or not block[key]:
            raise ProfileError(f"{where}: {key} must be a non-empty list")
    _check_members(block["protocols"], tuple(WATCH_CLIENTS), where, "protocols")
    _check_members(block["cache_modes"], CACHE_MODES[1:], where, "cache_modes (a watch needs the invalidation log: "
                   "not none)")
    for v in block["write_rates"]:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ProfileError(f"{where}: write_rates must hold numbers >= 0, got {v!r}")
    if isinstance(block["watchers"], bool) or not isinstance(block["watchers"], int) or block["watchers"] < 1:
        raise ProfileError(f"{where}: watchers must be an integer >= 1, got {block['watchers']!r}")
    _check_positive(block, where, ("duration_seconds", "repetitions", "starts", "pause_ms"))
    return block


def _normalise_overload(block: dict, where: str) -> dict:
    """An [[overload]] block with its defaults filled: one REST and one gRPC open-model driver, the
    steps as ascending percents of capacity."""
    unknown = sorted(set(block) - set(OVERLOAD_KEYS))
    if unknown:
        raise ProfileError(f"{where}: unknown key(s) {unknown}; known: {sorted(OVERLOAD_KEYS)}")
    block = {**OVERLOAD_DEFAULTS, **block}
    _check_open_block(block, where, "percents")
    protocols = sorted(d.split("/")[0] for d in block["drivers"])
    if protocols != ["grpc", "rest"]:
        raise ProfileError(f"{where}: drivers must be one REST and one gRPC driver (both wires are loaded at "
                           f"once), got {block['drivers']}")
    for key in ("concurrency", "capacity_concurrency"):
        users = block[key]
        if isinstance(users, dict):
            if set(users) != {"rest", "grpc"}:
                raise ProfileError(f"{where}: {key} must be a number or {{ rest = N, grpc = M }}, got {users!r}")
            _check_positive(users, where, ("rest", "grpc"))
        else:
            _check_positive(block, where, (key,))
    _check_positive(block, where, ("duration_seconds", "timeout_seconds"))
    _check_non_negative(block, where, ("warmup_seconds", "drain_seconds", "settle_seconds"))
    balancer = block["balancer"]
    if not isinstance(balancer, list) or not set(balancer) <= {"rest", "grpc"} or len(set(balancer)) != len(balancer):
        raise ProfileError(f"{where}: balancer lists the wires that go through the compose balancer, "
                           f"[\"rest\"], [\"grpc\"] or both; got {balancer!r}")
    return block


def _check_open_block(block: dict, where: str, rates_key: str) -> None:
    """What a [[sweep]] and an [[overload]] block share: operations and open-model drivers, a page
    size for ListGroups, and ascending rates (or percents of a capacity) above 0."""
    for key in ("operations", "drivers", rates_key):
        if not block.get(key) or not isinstance(block[key], list):
            raise ProfileError(f"{where}: needs {key} = [...]")
    _check_members(block["operations"], OPERATIONS, where, "operations")
    _check_members(block["drivers"], DRIVERS, where, "drivers")
    _check_members(block.get("cache_modes", []), CACHE_MODES, where, "cache_modes")
    closed_only = [d for d in block["drivers"] if d.split("/")[1] not in OPEN_MODEL_TOOLS]
    if closed_only:
        raise ProfileError(f"{where}: {closed_only} cannot hold an arrival rate; open-model drivers: "
                           f"{[d for d in DRIVERS if d.split('/')[1] in OPEN_MODEL_TOOLS]}")
    if "ListGroups" in block["operations"] and not block.get("page_sizes"):
        raise ProfileError(f"{where}: ListGroups needs page_sizes = [...]")
    rates = block[rates_key]
    if sorted(rates) != rates or any(isinstance(r, bool) or not isinstance(r, (int, float)) or r <= 0 for r in rates):
        raise ProfileError(f"{where}: {rates_key} must be ascending numbers > 0, got {rates!r}")


def _check_members(values, allowed, where, key):
    bad = [v for v in values if v not in allowed]
    if bad:
        raise ProfileError(f"{where}: {key} {bad} not among {list(allowed)}")


def _check_positive(d, where, keys):
    for k in keys:
        if k in d and (not isinstance(d[k], (int, float)) or isinstance(d[k], bool) or d[k] <= 0):
            raise ProfileError(f"{where}: {k} must be a number > 0, got {d[k]!r}")


def _check_non_negative(d, where, keys):
    for k in keys:
        if k in d and (not isinstance(d[k], (int, float)) or isinstance(d[k], bool) or d[k] < 0):
            raise ProfileError(f"{where}: {k} must be a number >= 0, got {d[k]!r}")


def expand(profile: dict) -> list[CellPlan]:
    """Every cell of the profile, in the order they run: grouped by cache mode (the services are
    restarted once per mode, in the order none, local, redis, hybrid), within a mode the plain cells
    before the TLS ones (which run against the same processes, through their TLS ports), then by
    block order."""
    settings = profile["settings"]
    cells: dict[str, CellPlan] = {}
    for block in profile["matrix"]:
        reps = block.get("repetitions", settings["repetitions"])
        duration = block.get("duration_seconds", settings["duration_seconds"])
        warmup = block.get("warmup_seconds", settings["warmup_seconds"])
        rates = block.get("target_rates") or [None]
        tls_values = list(dict.fromkeys(block.get("tls") or [False]))
        bodies = list(itertools.product(block.get("encodings") or ["json"], block.get("http") or ["1.1"],
                                        block.get("compression") or ["identity"],
                                        list(dict.fromkeys(block.get("revalidate") or [False]))))
        tracing_values = list(dict.fromkeys(block.get("tracing") or [False]))
        for op, driver, mode, conc, rate, tls, tracing, (encoding, http, compression, revalidate) in itertools.product(
                block["operations"], block["drivers"], block.get("cache_modes", ["none"]),
                block["concurrency"], rates, tls_values, tracing_values, bodies):
            protocol, tool = driver.split("/")
            if protocol == "grpc":
                # what gRPC always is; the block's encodings and HTTP versions are REST's
                encoding, http = "protobuf", "2"
            _check_body(profile["source"], tool, protocol, http, tls, compression)
            if mode == "none" or op == "Hello":
                temps = ["none"]
            else:
                temps = block.get("temperatures", list(TEMPERATURES))
                if tool == "h2load" and "cold" in temps:
                    raise ProfileError(f"{profile['source']}: h2load sends one pre-encoded request, so it cannot "
                                       "measure a cold cell (every request a new key): give its block "
                                       "temperatures = [\"warm\"]")
                if tool in ("ghz", "oha") and "cold" in temps:
                    # a cold window asks each of its never-asked keys once and ends when they run
                    # out; ghz and oha stop on a count or a duration, not on both, and cycle their
                    # key list until the duration ends: a fast cold window asked its keys again and
                    # read 35 % from cache (smoke run 20261124T064257Z-smoke-640b818)
                    raise ProfileError(f"{profile['source']}: {tool} cycles its key list until its duration ends, "
                                       "so a cold cell (every key once) needs k6: use rest/k6 or grpc/k6 for "
                                       "temperatures = [\"cold\"]")
            sizes = block["page_sizes"] if op == "ListGroups" else [None]
            for temp, size in itertools.product(temps, sizes):
                role = block.get("role") or default_role(tool, temp, conc, rate)
                cell = CellPlan(protocol=protocol, tool=tool, operation=op, page_size=size,
                                cache_mode=mode, temperature=temp,
                                model="open" if rate is not None else "closed",
                                concurrency=conc, target_rate=float(rate) if rate is not None else None,
                                duration_seconds=float(duration), warmup_seconds=float(warmup),
                                repetitions=int(reps), tls=tls, tracing=tracing, starts=int(settings["starts"]),
                                role=role,
                                streams=int(block.get("streams", 1)), encoding=encoding, http=http,
                                compression=compression, revalidate=revalidate)
                cells.setdefault(cell.id, cell)
    for block in profile.get("sweep", []):
        for op, driver, mode, tls in itertools.product(block["operations"], block["drivers"],
                                                       block.get("cache_modes", ["hybrid"]), block.get("tls", [False])):
            protocol, tool = driver.split("/")
            temp = "none" if mode == "none" or op == "Hello" else "warm"
            for size in (block["page_sizes"] if op == "ListGroups" else [None]):
                sweep = f"sweep-{protocol}-{tool}-{op}{size or ''}-{mode}-{temp}" + ("-tls" if tls else "")
                limits = (float(block.get("p99_limit_ms", 50)), float(block.get("drop_limit", 0.01)))
                for rate in block["rates"]:
                    cell = CellPlan(protocol=protocol, tool=tool, operation=op, page_size=size, cache_mode=mode,
                                    temperature=temp, model="open", concurrency=int(block.get("concurrency", 100)),
                                    target_rate=float(rate),
                                    duration_seconds=float(block.get("duration_seconds", settings["duration_seconds"])),
                                    warmup_seconds=0.0, repetitions=1, tls=bool(tls), starts=1, role="sweep",
                                    sweep=sweep, sweep_limits=limits,
                                    **({"encoding": "protobuf", "http": "2"} if protocol == "grpc" else {}))
                    cells.setdefault(cell.id, cell)
    for block in profile.get("overload", []):
        for cell in overload_cells(block, settings):
            cells.setdefault(cell.id, cell)
    for block in profile.get("watch", []):
        for cell in watch_cells(block, settings):
            cells.setdefault(cell.id, cell)
    # sorted is stable: within a mode, tracing and TLS setting, the cells keep the order of the blocks
    return sorted(cells.values(), key=lambda c: (CACHE_MODES.index(c.cache_mode), c.tracing, c.tls))


def watch_cells(block: dict, settings: dict) -> list[CellPlan]:
    """Per cache mode, write rate and wire, one WatchGroup cell: `watchers` watches held open on
    that wire, each on a group its own writer changes (through REST) at random moments, while load
    writers change other groups at the write rate."""
    cells = []
    for mode, rate, protocol in itertools.product(block["cache_modes"], block["write_rates"], block["protocols"]):
        cells.append(CellPlan(
            protocol=protocol, tool=WATCH_CLIENTS[protocol], operation=WATCH, page_size=None, cache_mode=mode,
            temperature="none", model="closed", concurrency=int(block["watchers"]), target_rate=float(rate),
            duration_seconds=float(block.get("duration_seconds", settings["duration_seconds"])), warmup_seconds=0.0,
            repetitions=int(block.get("repetitions", settings["repetitions"])),
            # at most the profile's: a block may measure in the first starts only
            starts=min(int(block.get("starts", settings["starts"])), int(settings["starts"])), role="watch", pause_ms=float(block["pause_ms"]),
            **({"encoding": "protobuf", "http": "2"} if protocol == "grpc" else {})))
    return cells


def overload_cells(block: dict, settings: dict) -> list[CellPlan]:
    """Per operation, cache mode and page size, one pair: per wire a closed-model capacity cell, then
    an open-model cell per step (its rate is the step's percent of the capacity the run measures)."""
    cells = []
    duration = float(block.get("duration_seconds", settings["duration_seconds"]))
    def per_wire(users):
        return users if isinstance(users, dict) else {"rest": users, "grpc": users}
    step_users, capacity_users = per_wire(block["concurrency"]), per_wire(block["capacity_concurrency"])
    for op, mode in itertools.product(block["operations"], block["cache_modes"]):
        temp = "none" if mode == "none" or op == "Hello" else "warm"
        for size in (block["page_sizes"] if op == "ListGroups" else [None]):
            balanced = tuple(sorted(block["balancer"]))
            pair = f"overload-{op}{size or ''}-{mode}-{temp}" + "".join(f"-{w}-lb" for w in balanced)
            for step in [None, *block["percents"]]:
                for driver in sorted(block["drivers"], key=lambda d: d.split("/")[0] != "rest"):
                    protocol, tool = driver.split("/")
                    cells.append(CellPlan(
                        protocol=protocol, tool=tool, operation=op, page_size=size, cache_mode=mode, temperature=temp,
                        model="closed" if step is None else "open",
                        concurrency=int((capacity_users if step is None else step_users)[protocol]),
                        target_rate=None, duration_seconds=duration,
                        warmup_seconds=float(block.get("warmup_seconds", settings["warmup_seconds"])) if step is None
                        else 0.0,
                        repetitions=int(settings["repetitions"]), starts=int(settings["starts"]),
                        role="capacity" if step is None else "overload", pair=pair,
                        step=None if step is None else float(step), timeout_seconds=float(block["timeout_seconds"]),
                        drain_seconds=float(block["drain_seconds"]), settle_seconds=float(block["settle_seconds"]),
                        balanced=balanced,
                        **({"encoding": "protobuf", "http": "2"} if protocol == "grpc" else {})))
    return cells


def _check_body(source: str, tool: str, protocol: str, http: str, tls: bool, compression: str) -> None:
    """What each generator can send: h2load drives REST over HTTP/2 only (its HTTP/1.1 parser
    counts Tomcat's reason-less status line as a failure); k6 speaks HTTP/2 only over TLS (Go's
    client has no h2c); k6's gRPC client cannot ask for compression."""
    if protocol != "rest":
        if tool == "k6" and compression == "gzip":
            raise ProfileError(f"{source}: grpc/k6 cannot ask for gzip (its gRPC client has no compression): "
                               "use grpc/ghz or grpc/h2load for compression = [\"gzip\"]")
        return
    if tool == "h2load" and http != "2":
        raise ProfileError(f"{source}: rest/h2load drives REST over HTTP/2 only: give its block http = [\"2\"]")
    if tool == "k6" and http == "2" and not tls:
        raise ProfileError(f"{source}: k6 speaks HTTP/2 only over TLS (ALPN): give rest/k6 with http = [\"2\"] "
                           "tls = [true], or use rest/oha or rest/h2load for h2c")


def default_role(tool: str, temperature: str, concurrency: int, rate) -> str:
    """Why a cell is measured, when its block does not say: one user or an arrival rate measure
    latency; h2load measures capacity; cold cells the miss path; k6 and ghz at many users are the
    same-tool reference."""
    if temperature == "cold":
        return "cold"
    if rate is not None or concurrency == 1:
        return "latency"
    if FAMILY.get(tool) == "native":
        return "throughput"
    return "reference"
