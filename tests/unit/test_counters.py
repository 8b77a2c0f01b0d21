"""pysim's closed forms and traces against the brute-force counters and NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stepsums import summed

from bruteforce import naive, register, smem, transpose
from pysim.core.counters import Counters
from pysim.core.trace import Trace
from pysim.hardware.params import NaiveParams, RegisterParams, SmemParams, TransposeParams
from pysim.kernels import KERNELS

SMEM_CASES = [
    (4, 4, 8, 2),
    (6, 6, 9, 3),
    (1, 1, 1, 1),
    (5, 7, 3, 2),
    (7, 3, 10, 4),
    (33, 17, 40, 8),
    (16, 16, 16, 16),
    (40, 40, 8, 32),
]
NAIVE_CASES = [(4, 4, 8, 2), (1, 1, 1, 1), (5, 7, 3, 2), (33, 9, 10, 4), (20, 40, 3, 16)]
REGISTER_CASES = [
    (8, 8, 8, 4, 4, 4, 2, 2),
    (1, 1, 1, 1, 1, 1, 1, 1),
    (9, 7, 5, 4, 4, 3, 2, 1),
    (32, 32, 32, 16, 16, 8, 4, 4),
    (20, 12, 9, 8, 16, 4, 2, 4),
    (64, 64, 16, 64, 64, 8, 8, 8),
]
TRANSPOSE_CASES = [(64, 32, 0), (64, 32, 1), (40, 32, 1), (37, 32, 2), (5, 4, 0), (33, 16, 0)]


def assert_matches(counters: Counters, expected: dict) -> None:
    got = counters.as_dict()
    for name, value in expected.items():
        assert got[name] == value, f"{name}: pysim {got[name]} != brute force {value}"


@pytest.mark.parametrize("M,N,K,T", SMEM_CASES)
def test_smem_closed_form_and_trace_match_brute_force(M, N, K, T):
    p = SmemParams(M=M, N=N, K=K, T=T)
    expected = smem(M, N, K, T)
    assert_matches(KERNELS["smem"].counters(p), expected)
    trace = Trace(KERNELS["smem"], p)
    assert_matches(summed(trace), expected)
    assert trace[len(trace) - 1].counters == KERNELS["smem"].counters(p)


@pytest.mark.parametrize("M,N,K,T", NAIVE_CASES)
def test_naive_closed_form_and_trace_match_brute_force(M, N, K, T):
    p = NaiveParams(M=M, N=N, K=K, T=T)
    expected = naive(M, N, K, T)
    assert_matches(KERNELS["naive"].counters(p), expected)
    assert_matches(summed(Trace(KERNELS["naive"], p)), expected)


@pytest.mark.parametrize("M,N,K,BM,BN,BK,TM,TN", REGISTER_CASES)
def test_register_closed_form_and_trace_match_brute_force(M, N, K, BM, BN, BK, TM, TN):
    p = RegisterParams(M=M, N=N, K=K, BM=BM, BN=BN, BK=BK, TM=TM, TN=TN)
    expected = register(M, N, K, BM, BN, BK, TM, TN)
    assert_matches(KERNELS["register"].counters(p), expected)
    assert_matches(summed(Trace(KERNELS["register"], p)), expected)


@pytest.mark.parametrize("n,TILE,pad", TRANSPOSE_CASES)
def test_transpose_closed_form_and_trace_match_brute_force(n, TILE, pad):
    p = TransposeParams(n=n, TILE=TILE, pad=pad)
    expected = transpose(n, TILE, pad)
    assert_matches(KERNELS["transpose"].counters(p), expected)
    assert_matches(summed(Trace(KERNELS["transpose"], p)), expected)


def test_spec_formulas_hold():
    """The SPEC §2 closed forms, written out here independently."""
    M, N, K, T = 6, 6, 9, 3
    c = KERNELS["smem"].counters(SmemParams(M=M, N=N, K=K, T=T))
    assert c.global_loads == M * K * 2 + K * N * 2
    c = KERNELS["naive"].counters(NaiveParams(M=M, N=N, K=K, T=T))
    assert c.global_loads == 2 * M * N * K
    p = RegisterParams(M=20, N=12, K=9, BM=8, BN=16, BK=4, TM=2, TN=4)
    c = KERNELS["register"].counters(p)
    assert c.global_loads == 20 * 9 * 1 + 9 * 12 * 3
    assert c.register_reads == 2 * c.fma


def test_transpose_bank_lesson():
    """32×32 column read: 31 extra cycles per warp; 32×33: none."""
    unpadded = KERNELS["transpose"].counters(TransposeParams(n=32, TILE=32, pad=0))
    padded = KERNELS["transpose"].counters(TransposeParams(n=32, TILE=32, pad=1))
    assert unpadded.bank_extra_cycles == 32 * 31
    assert padded.bank_extra_cycles == 0


@settings(max_examples=40, deadline=None)
@given(M=st.integers(1, 20), N=st.integers(1, 20), K=st.integers(1, 20), T=st.integers(1, 8))
def test_smem_property(M, N, K, T):
    p = SmemParams(M=M, N=N, K=K, T=T)
    assert_matches(KERNELS["smem"].counters(p), smem(M, N, K, T))
    trace = Trace(KERNELS["smem"], p)
    assert trace.c_matches()


@settings(max_examples=30, deadline=None)
@given(
    M=st.integers(1, 20),
    N=st.integers(1, 20),
    K=st.integers(1, 12),
    BM=st.sampled_from([1, 2, 4, 8]),
    BN=st.sampled_from([1, 2, 4, 8]),
    BK=st.integers(1, 5),
    TM=st.sampled_from([1, 2, 4]),
    TN=st.sampled_from([1, 2, 4]),
)
def test_register_property(M, N, K, BM, BN, BK, TM, TN):
    TM, TN = min(TM, BM), min(TN, BN)
    p = RegisterParams(M=M, N=N, K=K, BM=BM, BN=BN, BK=BK, TM=TM, TN=TN)
    assert_matches(KERNELS["register"].counters(p), register(M, N, K, BM, BN, BK, TM, TN))
    assert Trace(KERNELS["register"], p).c_matches()


@pytest.mark.parametrize(
    "name,params",
    [
        ("naive", NaiveParams(M=7, N=5, K=6, T=3)),
        ("smem", SmemParams(M=7, N=5, K=6, T=3)),
        ("register", RegisterParams(M=9, N=7, K=5, BM=4, BN=4, BK=3, TM=2, TN=1)),
        ("smem", SmemParams(M=1, N=1, K=1, T=1)),
    ],
)
def test_trace_stores_equal_numpy(name, params):
    """The values the trace's threads store into C are NumPy's A @ B."""
    trace = Trace(KERNELS[name], params)
    c = np.full((params.M, params.N), np.nan, dtype=np.float32)
    for step in trace:
        if step.phase != "store":
            continue
        store = step.access("C")
        values = step.registers.get("partialSum", step.registers.get("sum"))
        for instr in range(store.rows.shape[0]):
            for t in range(store.rows.shape[1]):
                if store.rows[instr, t] < 0:
                    continue
                if values is None:
                    tx, ty = KERNELS[name].thread_xy(params, t)
                    i, j = divmod(instr, params.TN)
                    value = step.registers["threadResults"][t, i, j]
                else:
                    value = values[t]
                c[store.rows[instr, t], store.cols[instr, t]] = value
    np.testing.assert_array_equal(c, trace.A @ trace.B)
