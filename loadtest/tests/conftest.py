import sys
from pathlib import Path

# tests import the package as `tandem_bench`, from loadtest/, wherever pytest is started
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
