#!/usr/bin/env python3
"""Checks what `docker-compose config -q` cannot: that docker-compose.yml still scales.

    docker-compose -f docker-compose.yml config | python3 scripts/compose-check.py

Reads the resolved file (YAML on stdin) and fails, saying why, when
  - rest-service or grpc-service has a container_name or publishes host ports (either stops
    `docker compose up --scale rest-service=3 --scale grpc-service=3`);
  - the balancer does not publish 8080 and 9090 or does not wait for healthy services;
  - a depends_on waits for service_healthy on a service without a healthcheck (it would wait forever),
    or for service_completed_successfully on a service that restarts.
Uses PyYAML, which Debian's docker-compose depends on (python3-yaml).
"""
import sys

import yaml

SCALED = ("rest-service", "grpc-service")


def problems(config: dict) -> list[str]:
    services = config.get("services") or {}
    out = []
    for name in SCALED:
        s = services.get(name)
        if s is None:
            out.append(f"no service {name}")
            continue
        if "container_name" in s:
            out.append(f"{name} has container_name {s['container_name']!r}: replicas cannot share it")
        if s.get("ports"):
            out.append(f"{name} publishes host ports {s['ports']}: a second replica could not bind them "
                       "(the balancer publishes 8080/9090)")
    balancer = services.get("balancer")
    if balancer is None:
        out.append("no balancer service")
    else:
        published = {int(p["published"]) if isinstance(p, dict) else int(str(p).split(":")[-2])
                     for p in balancer.get("ports") or []}
        for port in (8080, 9090):
            if port not in published:
                out.append(f"the balancer does not publish {port} (publishes {sorted(published)})")
        for name in SCALED:
            condition = (balancer.get("depends_on") or {}).get(name, {}).get("condition")
            if condition != "service_healthy":
                out.append(f"the balancer waits for {name} with {condition!r}, not service_healthy")
    for name, s in services.items():
        for dep, how in (s.get("depends_on") or {}).items():
            condition = how.get("condition") if isinstance(how, dict) else None
            target = services.get(dep)
            if target is None:
                out.append(f"{name} depends on unknown service {dep}")
            elif condition == "service_healthy" and "healthcheck" not in target:
                out.append(f"{name} waits for {dep} to be healthy, but {dep} has no healthcheck")
            elif condition == "service_completed_successfully" and target.get("restart") not in (None, "no"):
                out.append(f"{name} waits for {dep} to complete, but {dep} restarts ({target.get('restart')})")
    return out


def main() -> int:
    found = problems(yaml.safe_load(sys.stdin))
    for p in found:
        print(f"compose-check: {p}", file=sys.stderr)
    if not found:
        print("compose-check: rest-service and grpc-service scale; balancer on 8080/9090; depends_on conditions hold")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
