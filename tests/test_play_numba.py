"""The same playground files under real Numba (NUMBA_ENABLE_CUDASIM=1) give the same C as pysim.

Skipped where Numba is not installed. Numba runs in a subprocess, because its
simulator must be chosen (by the environment variable) before it is imported.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pysim.core.matrices import operands
from pysim.play import run

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "pysim" / "play" / "solutions"
HARNESS = Path(__file__).parent / "play" / "numba_harness.py"
# Small sizes: the simulator runs every GPU thread as an OS thread.
CASES = [
    ("smem_tiled.py", 6, 6, 9),
    ("naive.py", 5, 7, 3),
    ("naive_coalesced.py", 9, 33, 4),
    ("register_tiled.py", 9, 7, 5),
    ("register_1d.py", 9, 11, 5),
    ("copy.py", 5, 7, 7),
    ("transpose.py", 7, 7, 7),
    ("transpose_padded.py", 7, 7, 7),
]


def test_numba_simulator_gives_the_same_c():
    cases = []
    for name, M, N, K in CASES:
        A, B = operands(M, N, K)
        cases.append({"file": str(SOLUTIONS / name), "M": M, "N": N, "K": K, "A": A.tolist(), "B": B.tolist()})
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    out = subprocess.run(
        [sys.executable, str(HARNESS)], input=json.dumps(cases), capture_output=True, text=True, timeout=600, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    for (name, M, N, K), numba_c in zip(CASES, json.loads(out.stdout)):
        ours = run((SOLUTIONS / name).read_text(), M, N, K, keep=False)
        np.testing.assert_array_equal(np.array(numba_c, dtype=np.float32), ours.C, err_msg=name)
