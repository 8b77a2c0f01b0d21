"""bench/pysim_bench.py runs here in its short form, so it does not rot (the benches that drive Chromium are
tests/browser/test_bench.py)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_pysim_bench_prints_its_figures():
    done = subprocess.run(
        [sys.executable, "bench/pysim_bench.py", "--quick"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "(a) closed-form counters" in out and "steps/s" in out and "MB" in out
    assert "ladder rows + roofline + why_faster" in out and "python -m pysim speed" in out
