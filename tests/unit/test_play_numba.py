"""The same playground files under real Numba (NUMBA_ENABLE_CUDASIM=1) give the same C as pysim;
siboehm's kernels 4 and 10, written again in Numba (tests/unit/play/numba_siboehm.py), give pysim's C and global loads.

Skipped where Numba is not installed. Numba runs in a subprocess, because its
simulator must be chosen (by the environment variable) before it is imported.
"""

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from pysim.core.matrices import operands
from pysim.core.trace import Trace, count_step
from pysim.hardware.blocktile_params import Blocktile1DParams, WarptileParams
from pysim.kernels import KERNELS
from pysim.play import run

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "pysim" / "play" / "solutions"
HARNESS = Path(__file__).parent / "play" / "numba_harness.py"
SIBOEHM = Path(__file__).parent / "play" / "numba_siboehm.py"
# Small sizes: the simulator runs every GPU thread as an OS thread.
CASES = [
    ("smem_tiled.py", 6, 6, 9),
    ("naive.py", 5, 7, 3),
    ("naive_coalesced.py", 9, 33, 4),
    ("register_tiled.py", 9, 7, 5),
    ("register_1d.py", 9, 11, 5),
    ("blocktile1d.py", 9, 11, 5),  # 512 threads: about 3 s
    ("copy.py", 5, 7, 7),
    ("transpose.py", 7, 7, 7),
    ("transpose_padded.py", 7, 7, 7),
]


def under_numba(script, cases):
    """What `script` prints (JSON) for `cases` (JSON on stdin), run under Numba's CUDA simulator."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    out = subprocess.run(
        [sys.executable, str(script)], input=json.dumps(cases), capture_output=True, text=True, timeout=600, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_numba_simulator_gives_the_same_c():
    cases = []
    for name, M, N, K in CASES:
        A, B = operands(M, N, K)
        cases.append({"file": str(SOLUTIONS / name), "M": M, "N": N, "K": K, "A": A.tolist(), "B": B.tolist()})
    for (name, M, N, K), numba_c in zip(CASES, under_numba(HARNESS, cases)):
        ours = run((SOLUTIONS / name).read_text(), M, N, K, keep=False)
        np.testing.assert_array_equal(np.array(numba_c, dtype=np.float32), ours.C, err_msg=name)


# Sizes that are not multiples of the tiles (2×2 blocks, 2 or 3 bkIdx steps), small tiles: about 4 s together.
SIBOEHM_CASES = [
    ("blocktile1d", Blocktile1DParams(M=19, N=21, K=9, BM=16, BN=16, BK=4, TM=4)),  # 64 threads
    (  # 4 warps in a 2×2 of warp tiles, WMITER = 1, WNITER = 2; K and N multiples of 4 (float4 alignment)
        "warptile",
        WarptileParams(M=37, N=68, K=20, BM=32, BN=64, BK=16, WM=16, WN=32, WNITER=2, TM=2, TN=4, threads=128),
    ),
]


def test_siboehm_kernels_in_numba_give_pysims_c_and_global_loads():
    traces = [Trace(KERNELS[key], params) for key, params in SIBOEHM_CASES]
    cases = [
        {
            "kernel": key,
            "params": {f.name: getattr(params, f.name) for f in fields(params) if f.name != "device"},
            "A": trace.A.tolist(),
            "B": trace.B.tolist(),
        }
        for (key, params), trace in zip(SIBOEHM_CASES, traces)
    ]
    for (key, _), trace, numba in zip(SIBOEHM_CASES, traces, under_numba(SIBOEHM, cases)):
        numba_c = np.array(numba["C"], dtype=np.float32)
        np.testing.assert_array_equal(numba_c, trace.A @ trace.B, err_msg=key)
        np.testing.assert_array_equal(numba_c, trace.final_c(), err_msg=key)
        stepped = sum(count_step(step).global_loads for step in trace)  # the steps, not the closed form
        assert numba["loads"] == trace.totals.global_loads == stepped, key
        assert numba["stores"] == trace.totals.global_stores, key


FIXTURES = Path(__file__).parent / "play"
# (file, M, N, K, what NumPy says C is): atomics and Numba's negative-index wraparound. The operands are
# digits, so the atomic sums are exact in any order and Numba's thread order cannot change C.
SEMANTICS_CASES = [
    ("atomic_split_k.py", 5, 11, 9, lambda A, B: A @ B),
    ("negative_index.py", 6, 5, 7, lambda A, B: A[::-1] @ B[:, ::-1]),
    (
        "atomic_max_min.py",
        4,
        5,
        6,
        lambda A, B: np.c_[
            A.max(axis=1), -A.max(axis=1), np.full(len(A), A.shape[1]), np.ones(len(A)), np.zeros(len(A))
        ],
    ),
]


def test_atomics_and_negative_indices_give_numbas_c():
    cases = []
    for name, M, N, K, _ in SEMANTICS_CASES:
        A, B = operands(M, N, K)
        cases.append({"file": str(FIXTURES / name), "M": M, "N": N, "K": K, "A": A.tolist(), "B": B.tolist()})
    for (name, M, N, K, numpy_c), numba_c in zip(SEMANTICS_CASES, under_numba(HARNESS, cases)):
        ours = run((FIXTURES / name).read_text(), M, N, K, expected=numpy_c)
        np.testing.assert_array_equal(np.array(numba_c, dtype=np.float32), ours.C, err_msg=name)
        assert ours.c_matches and not ours.diagnostics, (name, ours.diagnostics)
