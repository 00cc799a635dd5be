import sys
from pathlib import Path

# The sample bots are standalone scripts; their policies are imported here to test them in-process.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sample_bots" / "python"))
