import sys
from pathlib import Path

import pytest

# smoke_run holds assertions shared with the README test: rewrite them as pytest does in tests
pytest.register_assert_rewrite("smoke_run")

# tests import the package as `tandem_bench`, from loadtest/, wherever pytest is started
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
