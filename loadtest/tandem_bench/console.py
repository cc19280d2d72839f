"""What the bench prints while it runs: lines flushed at once (a run is watched live, often through
a pipe or tee) and durations as m:ss. Its own module because every phase of the run prints, and
the phases' modules must not import orchestrate, which imports them."""
from __future__ import annotations


def say(*parts) -> None:
    print(*parts, flush=True)


def mmss(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else \
        f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
