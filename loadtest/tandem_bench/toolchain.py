"""The load generators as installed, rather than as run (loadgen.py): each tool's version, for the
run's environment block, and the .proto import paths k6 and ghz need, taken from the very jars the
gRPC service runs with. Done once per run, before any window.
"""
from __future__ import annotations

import io
import re
import subprocess
import zipfile
from pathlib import Path

from .loadgen import LoadGenError, tool_path

ROOT = Path(__file__).resolve().parents[2]
PROTO_SRC = ROOT / "proto" / "src" / "main" / "protobuf"


def tool_version(name: str) -> str | None:
    """'k6 v1.8.1', 'ghz v0.120.0', 'h2load nghttp2/1.52.0', 'oha 1.16.0'; None when absent."""
    try:
        if name == "k6":
            out = subprocess.run([tool_path("k6"), "version"], capture_output=True, text=True, timeout=30).stdout
            m = re.search(r"k6 (v\S+)", out)
            return f"k6 {m.group(1)}" if m else out.strip() or None
        if name == "ghz":
            out = subprocess.run([tool_path("ghz"), "--version"], capture_output=True, text=True, timeout=30)
            v = (out.stdout or out.stderr).strip()
            return f"ghz {v if v.startswith('v') else 'v' + v}" if v else None
        if name == "h2load":
            out = subprocess.run([tool_path("h2load"), "--version"], capture_output=True, text=True, timeout=30).stdout
            m = re.search(r"nghttp2/(\S+)", out)
            return f"h2load nghttp2/{m.group(1)}" if m else None
        if name == "oha":
            out = subprocess.run([tool_path("oha"), "--version"], capture_output=True, text=True, timeout=30).stdout
            return out.strip() or None
        raise ValueError(name)
    except (LoadGenError, OSError, subprocess.SubprocessError):
        return None


PROTO_LIBS = re.compile(r"BOOT-INF/lib/(proto-google-common-protos|grpc-services)-[0-9][^/]*\.jar$")


def extract_protos(service_jar: Path, out_dir: Path) -> list[str]:
    """The import paths k6 and ghz need for tandem/v1/study_groups.proto and
    grpc/health/v1/health.proto: the project's proto sources, and the google/api/*.proto, google/rpc/*.proto and
    grpc/health/v1/*.proto files taken from the very jars the gRPC service runs with
    (proto-google-common-protos, grpc-services inside its BOOT-INF/lib). google/protobuf/*.proto
    are built into both tools."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    found = []
    with zipfile.ZipFile(service_jar) as outer:
        for name in outer.namelist():
            if not PROTO_LIBS.search(name):
                continue
            found.append(name)
            with zipfile.ZipFile(io.BytesIO(outer.read(name))) as inner:
                for entry in inner.namelist():
                    if entry.endswith(".proto"):
                        target = out_dir / entry
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(inner.read(entry))
    if len(found) < 2 or not (out_dir / "grpc/health/v1/health.proto").exists() \
            or not (out_dir / "google/api/annotations.proto").exists():
        raise LoadGenError(f"{service_jar}: could not find the google/api and grpc health .proto files "
                           f"(found {found})")
    return [str(PROTO_SRC), str(out_dir)]
