#!/usr/bin/env python3
"""Entry point of `make bench` (scripts/bench.sh): python loadtest/bench.py --profile quick ..."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tandem_bench.orchestrate import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
