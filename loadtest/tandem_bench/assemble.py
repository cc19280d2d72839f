"""From what a run gathered to the content of run.json: each cell's record and summary (pooled
percentiles, bootstrap intervals), the fits, the headline ratios, the sweeps with their knees, the
resolved settings and the notes. Assemble is a mixin of orchestrate.Bench (assemble reads the
run's state); the functions after it are its pure helpers.
"""
from __future__ import annotations

import os
import zlib
from datetime import datetime

from . import headline, keys, overload, pooled, stats, watch, windows
from .service_start import body_key


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def admission_settings(settings: dict, environ, against_target: bool) -> dict[str, str]:
    """The services' admission settings where they differ from their defaults, as run.json records
    them: the profile's (its admission table) and over them the bench's environment, which the
    services inherit (TANDEM_ADMISSION_ENABLED=false make bench PROFILE=overload). Against a target
    neither applies: its services run as they were deployed."""
    if against_target:
        return {}
    return dict(sorted({**(settings.get("admission_env") or {}),
                        **{k: v for k, v in environ.items() if k.startswith("TANDEM_ADMISSION_")}}.items()))


class Assemble:
    def assemble(self, run_id: str, started: datetime, finished: datetime, env: dict) -> dict:
        draws = pooled.Plans(seed=zlib.crc32(run_id.encode()))
        records = []
        for cell_id, run in self.runs.items():
            if not run.windows:
                continue
            c = run.plan
            body = self.cell_body_bytes(c)
            summary, cell_flags = run.summary(draws.for_group(headline.group_of(c), list(run.data)), body)
            window_flags = [dict(f, reason=f"start {w['start'] + 1} round {w['round'] + 1}: {f['reason']}")
                            for w in run.windows for f in w["flags"]]
            for w in run.windows:
                self.notes += [f"{c.id} start {w['start'] + 1} round {w['round'] + 1}: {n}" for n in w.pop("notes")]
            records.append({
                "id": c.id, "protocol": c.protocol, "tool": c.tool, "transport": c.transport,
                "operation": c.operation, "pageSize": c.page_size, "cacheMode": c.cache_mode,
                "temperature": c.temperature, "model": c.model, "concurrency": c.concurrency,
                # k6 connects once per VU; ghz and oha are told connections = concurrency; h2load
                # multiplexes `streams` requests per connection
                "connections": c.connections, "targetRate": c.target_rate,
                "durationSeconds": c.duration_seconds, "warmupSeconds": c.warmup_seconds,
                "repetitions": c.repetitions, "starts": 1 if self.target else c.starts, "tls": c.tls,
                "tracing": c.tracing,
                "encoding": c.encoding, "http": c.http, "compression": c.compression,
                "revalidate": c.revalidate, "sweep": c.sweep, "role": c.role, "windows": run.windows, "summary": summary,
                "flags": window_flags + cell_flags, "headlineEligible": bool(run.eligible()),
                **overload_fields(c, run.windows),
            })
        fits, fit_notes = stats.fits_from_cells([r for r in records if r["model"] == "closed" and r["concurrency"] > 1])
        head = headline.compute(self.runs, draws, self.body_bytes)
        sweeps = sweep_records(records, self.cells)
        overloads = overload.records(self.runs, draws, headline.group_of)
        watches = watch.records(self.watch_runs, self.cells)
        hot = self.settings["hot_keys"]
        resolved = {
            "database": None if self.target else self.db_name,
            "ports": None if self.target else
            {"rest": self.ports.rest, "grpc": self.ports.grpc, "grpcManagement": self.ports.grpc_management,
             **({"restTls": self.ports.rest_tls, "grpcTls": self.ports.grpc_tls} if self.tls_files else {})},
            "hotKeys": hot,
            "helloEndpoints": {"rest": "GET /api/v1/hello", "grpc": keys.GRPC_METHODS["Hello"]},
            "bootstrapReplicates": draws.replicates,
            "source": self.prof["source"],
        }
        overrides = admission_settings(self.settings, os.environ, bool(self.target))
        if overrides:
            resolved["admissionOverrides"] = overrides
        # likewise a cache setting (TANDEM_CACHE_L1_REFRESH_AFTER=0 make bench ...); the mode is the bench's own
        cache = {k: v for k, v in sorted(os.environ.items())
                 if k.startswith("TANDEM_CACHE_") and k not in ("TANDEM_CACHE_MODE", "TANDEM_CACHE_REDIS_KEY_PREFIX")}
        if cache:
            resolved["cacheOverrides"] = cache
        if self.services.balancer_rest_in_flight is not None:
            # what the overload cells through the balancer met: the compose file as rendered
            # (TANDEM_BALANCER_REST_IN_FLIGHT in the bench's environment replaces its limit)
            resolved["balancer"] = {"config": "deploy/compose/nginx.conf",
                                    "restInFlight": self.services.balancer_rest_in_flight}
        if self.tls_files:
            resolved["tlsCertificate"] = str(self.tls_files.certificate)
        if self.otlp_sink:
            # what the traced services exported, per service (its own path of the sink)
            resolved["tracingSink"] = {"endpoint": self.otlp_sink.endpoint("<service>"),
                                       "received": self.otlp_sink.counts()}
        env["jvm"] = {"options": self.services.java_opts + self.services.launch_options, "heapMaxBytes": self.heap_max}
        load_end = os.getloadavg()
        notes = [
            f"Placement: {self.placement.note}.",
            *([f"Service CPU cap: {self.cpu_quota.note}."] if self.cpu_quota.cores is not None else []),
            "Throughput counts successful requests only, per second of the measured span (first request sent to "
            "last response); errors are their own figure. Latency percentiles are pooled from every window's "
            "requests (HdrHistogram), and reported only with enough samples (p99 from 1,000, p99.9 from 10,000).",
            "Intervals: bootstrap 95 % over service starts and rounds (two-level), "
            f"{draws.replicates} replicates; cells of the same service processes are resampled together.",
            "Latency figures that mean latency come from one-user cells and open-model cells (role latency); "
            "closed cells at many users measure capacity, and their p50 is queueing.",
            f"Machine load average (1/5/15 min) before measuring: "
            f"{' / '.join(f'{x:.2f}' for x in self.load_at_start)}; at the end: "
            f"{' / '.join(f'{x:.2f}' for x in load_end)}.",
            "Cold windows: each asks keys no earlier window, start or warm-up asked (caches flushed at every service "
            f"start, the keys cut into one disjoint slice per window); warm windows cycle over the {hot} hot keys "
            "primed before each window (every hot key asked once). The miss path is JIT-warmed on keys of its own before any window.",
            "Body bytes: the same responses fetched with curl on both wires (JSON body; Protobuf message without "
            "the gRPC frame's 5-byte prefix), the mean over the first hot keys. h2load sends one pre-encoded request "
            "per gRPC cell, the same for the whole window (the notes below name it); such a cell's body bytes are "
            "that request's answer. Its gRPC successes are checked against the service's own count of successful "
            "calls.",
            *([TLS_NOTE] if any(c.tls for c in self.cells) else []),
            *([TRACING_NOTE] if any(c.tracing for c in self.cells) else []),
            *([watch.WATCH_NOTE] if watches else []),
            *self.notes, *condense_fit_notes(fit_notes),
        ]
        return {
            "schemaVersion": 2, "runId": run_id, "startedAt": iso(started), "finishedAt": iso(finished),
            "profile": {"name": self.prof["name"], "description": self.prof["description"],
                        **{k: v for k, v in self.prof["settings"].items()}, "matrix": self.prof["matrix"],
                        "sweep": self.prof.get("sweep", []),
                        **({"overload": self.prof["overload"]} if self.prof.get("overload") else {}),
                        **({"watch": self.prof["watch"]} if self.prof.get("watch") else {}),
                        "resolved": resolved},
            "environment": env, "cells": records, "sweeps": sweeps, "fits": fits, "headline": head,
            **({"overload": overloads} if overloads else {}),
            **({"watch": watches} if watches else {}),
            "notes": notes + ([OVERLOAD_NOTE] if overloads else []),
        }


def overload_fields(c, windows_: list) -> dict:
    """An overload cell's record: its pair and step (percent of capacity, None for the capacity
    cell) and, for a step, the arrival rate its windows were driven at (the median: each window's
    is a percent of its own start's and round's capacity)."""
    if not c.pair:
        return {}
    fields = {"overload": {"pair": c.pair, "step": c.step, "timeoutSeconds": c.timeout_seconds,
                           "settleSeconds": c.settle_seconds}}
    rates = [w["offeredRate"] for w in windows_ if w.get("offeredRate") is not None]
    if c.model == "open":
        fields["targetRate"] = round(float(sorted(rates)[len(rates) // 2]), 1) if rates else 0.0
    return fields


OVERLOAD_NOTE = (
    "Overload pairs: in every start and round, a closed-model capacity window with both wires loaded at once, "
    "then each step with both wires' open-model generators running at the same time, at the step's percent of "
    "the goodput each wire showed in that capacity window. Goodput counts successful responses; refusals "
    "(503 / UNAVAILABLE) and timeouts (504 / DEADLINE_EXCEEDED or the generator's timeout, set to the services' "
    "request timeout) are counted apart from other errors; p50/p99 are of the accepted requests, timed from their "
    "due time. Every window is measured after its settle seconds (overload.settleSeconds), in which the "
    "generators open their connections: the requests due then are in no figure but the services' own counters. "
    "The goals at 2× are read at the lowest step that offered at least twice the wire's peak goodput "
    "(its doubleStep). A paired window's generator CPU is both generators' (they share the generator's cores).")


def sweep_records(records: list[dict], plans: list) -> list[dict]:
    """One record per sweep: its points in ascending rate and the knee (the last rate whose p99
    and dropped arrivals stayed within the limits, when a later one passed them). A sweep past the
    limits at its lowest rate has no knee to name but is not unsaturated: saturatedAtLowest says so."""
    out = {}
    limits = {c.sweep: c.sweep_limits for c in plans if c.sweep}
    dropped_share = {}
    for r in records:
        if not r["sweep"]:
            continue
        # what was due over the point's windows, as the live sweep divides it (Measurement.sweep)
        due = r["targetRate"] * r["durationSeconds"] * max(1, len(r["windows"]))
        dropped_share[r["id"]] = (r["summary"]["droppedIterations"] or 0) / max(due, 1)
        s = out.setdefault(r["sweep"], {
            "id": r["sweep"], "protocol": r["protocol"], "tool": r["tool"], "operation": r["operation"],
            "pageSize": r["pageSize"], "cacheMode": r["cacheMode"], "temperature": r["temperature"], "tls": r["tls"],
            "limits": {"p99Ms": limits[r["sweep"]][0], "dropRate": limits[r["sweep"]][1]}, "points": [], "knee": None,
            "saturatedAtLowest": None})
        sm = r["summary"]
        s["points"].append({"cellId": r["id"], "targetRate": r["targetRate"], "achievedRate": sm["achievedRate"],
                            "throughputRps": sm["throughputRps"]["value"], "p50": sm["latencyMs"]["p50"],
                            "p99": sm["latencyMs"]["p99"], "p999": sm["latencyMs"]["p999"],
                            "droppedIterations": sm["droppedIterations"], "errorRate": sm["errorRate"],
                            "flags": r["flags"]})
    for s in out.values():
        s["points"].sort(key=lambda p: p["targetRate"])
        p99_limit, drop_limit = s["limits"]["p99Ms"], s["limits"]["dropRate"]
        good = None
        for p in s["points"]:
            due = p["targetRate"]
            dropped = dropped_share[p["cellId"]]
            broke = (p["p99"] is not None and p["p99"] > p99_limit) or dropped > drop_limit or \
                (p["achievedRate"] is not None and p["achievedRate"] < windows.RATE_SHORT * due)
            if broke:
                why = (f"p99 {p['p99']:.3g} ms above {p99_limit:g} ms" if p["p99"] and p["p99"] > p99_limit
                       else "arrivals dropped or started late")
                if good:
                    s["knee"] = {"targetRate": good["targetRate"], "throughputRps": good["throughputRps"],
                                 "reason": f"{why} at {due:g}/s; {good['targetRate']:g}/s was the last rate within limits"}
                else:
                    s["saturatedAtLowest"] = {
                        "targetRate": due, "throughputRps": p["throughputRps"],
                        "reason": f"{why} at {due:g}/s, the sweep's lowest rate: the knee is at or below it"}
                break
            good = p
    return list(out.values())


TLS_NOTE = (
    "TLS cells (tls: true): the same service processes as the plain cells, through a second port each that "
    "serves the API over TLS (tandem.tls.extra-port; a self-signed P-256 certificate from scripts/tls-cert.sh): "
    "REST is HTTP/1.1 over TLS, gRPC HTTP/2 over TLS (ALPN h2). "
    "k6 and ghz verify the certificate (k6 through SSL_CERT_FILE, ghz with --cacert), not skip "
    "verification; each connection shakes hands once, before the window's steady state. Their wire "
    "bytes include TLS's overhead (record headers and authentication tags, and the handshake of "
    "connections opened in the window), so they exceed the plain cells' by more than the payload. "
    "Compare TLS with plain through the tlsOverPlain* ratios, which pair cells of this run only.")


TRACING_NOTE = (
    "Traced cells (tracing: true): services started with tandem.tracing.enabled=true and every request sampled "
    "(management.tracing.sampling.probability 1.0), exporting their spans over OTLP/HTTP to a sink in the bench's "
    "process (each service to its own path; profile.resolved.tracingSink counts what arrived, and each traced "
    "window's exportedSpans what arrived during it: batches leave every 5 s or per 512 spans, so a window's count "
    "lags its requests). They are measured in service starts of their own, after the untraced starts of the same "
    "cache mode, so traced ÷ untraced also holds the spread between starts (the tracedOverUntraced* intervals "
    "resample both sides' starts). The other headline ratios use untraced cells only.")


def condense_fit_notes(notes: list[str]) -> list[str]:
    """stats.fits_from_cells says, for every ListGroups cell group measured at one page size only,
    that it has no fit; one line says the same for all of them."""
    single = [n for n in notes if n.startswith("no A + B·N fit") and "got [" in n]
    other = [n for n in notes if n not in single]
    if single:
        other.append(f"no A + B·N fit for {len(single)} ListGroups cell group(s) measured at a single page size "
                     "(a fit needs two or more)")
    return other

