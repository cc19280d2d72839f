"""The run's environment block: where and with what the figures were measured."""
from __future__ import annotations

import os
import platform
import re
import subprocess
import zipfile
from pathlib import Path

from . import servers, toolchain

ROOT = Path(__file__).resolve().parents[2]


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def cpu_model() -> str | None:
    m = re.search(r"^model name\s*:\s*(.+)$", _read("/proc/cpuinfo"), re.M)
    return m.group(1).strip() if m else (platform.processor() or None)


def memory_bytes() -> int | None:
    m = re.search(r"^MemTotal:\s*(\d+) kB", _read("/proc/meminfo"), re.M)
    return int(m.group(1)) * 1024 if m else None


def os_name() -> str | None:
    m = re.search(r'^PRETTY_NAME="?([^"\n]+)"?', _read("/etc/os-release"), re.M)
    return m.group(1) if m else platform.system() or None


def jdk_version(java: str) -> str | None:
    try:
        r = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    lines = [l.strip() for l in r.stderr.splitlines() if l.strip()]
    # e.g. openjdk version "25.0.3" 2026-04-21 LTS / OpenJDK Runtime Environment Temurin-25.0.3+9 (build ...)
    return " / ".join(lines[:2]) if lines else None


def jar_library_version(jar: Path, library: str) -> str | None:
    """The version of BOOT-INF/lib/<library>-<version>.jar inside a Spring Boot jar."""
    try:
        with zipfile.ZipFile(jar) as z:
            for name in z.namelist():
                m = re.fullmatch(rf"BOOT-INF/lib/{re.escape(library)}-(\d[^/]*)\.jar", name)
                if m:
                    return m.group(1)
    except (OSError, zipfile.BadZipFile):
        return None
    return None


def git(*args: str) -> str | None:
    try:
        r = subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT, timeout=30)
    except OSError:
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def collect(java: str) -> dict:
    grpc_jar = ROOT / "grpc-service/target/grpc-service.jar"
    rest_jar = ROOT / "rest-service/target/rest-service.jar"
    boot = jar_library_version(rest_jar, "spring-boot") or jar_library_version(grpc_jar, "spring-boot")
    grpc_java = jar_library_version(grpc_jar, "grpc-core")
    versions = servers.server_versions()
    status = git("status", "--porcelain")
    cores = os.cpu_count()
    return {
        "cpuModel": cpu_model(),
        "cores": cores,
        "memoryBytes": memory_bytes(),
        "os": os_name(),
        "kernel": platform.release() or None,
        "jdk": jdk_version(java),
        "springBoot": boot,
        "grpcJava": grpc_java,
        "redis": versions["redis"],
        "mariadb": versions["mariadb"],
        "k6": toolchain.tool_version("k6"),
        "ghz": toolchain.tool_version("ghz"),
        "gitCommit": git("rev-parse", "HEAD"),
        "gitDirty": None if status is None else bool(status),
        "loadGeneratorNote": (
            f"k6/ghz ran on the same machine as both services, MariaDB and Redis, sharing its {cores} "
            "cores (no pinning); every figure includes that contention. Each cell records the CPU "
            "its generator used (loadGenCpuPercent, percent of one core)."),
    }
