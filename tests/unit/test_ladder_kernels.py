"""siboehm's kernels 4, 6 and 10 (blocktile1d, vectorized, warptile): closed forms against traces
and tests/bruteforce.py, C from the stores, the load-instruction and sector figures, their
parameter rules, the CLI and the ladder rows."""

import json
import subprocess
import sys
from dataclasses import replace
from math import ceil

import numpy as np
import pytest
from stepsums import summed

import bruteforce
from pysim.core.counters import Counters
from pysim.core.trace import Trace
from pysim.core.warps import INACTIVE, by_warp
from pysim.hardware.blocktile_params import Blocktile1DParams, VectorizedParams, WarptileParams
from pysim.hardware.params import ParamError, RegisterParams
from pysim.kernels import KERNELS
from pysim.lessons.ladder import SIBOEHM_ROWS, LadderParams, siboehm_ladder
from pysim.lessons.narration import narration

TEACH_WARP = {"BM": 16, "BN": 64, "BK": 8, "WM": 16, "WN": 64, "WNITER": 2, "TM": 1, "TN": 4, "threads": 32}
CASES = [
    ("blocktile1d", dict(M=8, N=8, K=8, BM=8, BN=8, BK=2, TM=4)),
    ("blocktile1d", dict(M=9, N=7, K=5, BM=8, BN=8, BK=2, TM=4)),
    ("blocktile1d", dict(M=1, N=1, K=1, BM=4, BN=4, BK=2, TM=2)),
    ("blocktile1d", dict(M=70, N=33, K=19, BM=64, BN=64, BK=8, TM=8)),
    ("blocktile1d", dict(M=3, N=5, K=7, BM=16, BN=16, BK=4, TM=4)),
    ("vectorized", dict(M=16, N=16, K=8, BM=16, BN=16, BK=4, TM=4, TN=4)),
    ("vectorized", dict(M=9, N=12, K=8, BM=16, BN=16, BK=4, TM=4, TN=4)),
    ("vectorized", dict(M=1, N=4, K=4, BM=16, BN=16, BK=4, TM=4, TN=4)),
    ("vectorized", dict(M=20, N=8, K=12, BM=8, BN=8, BK=4, TM=2, TN=4)),
    ("vectorized", dict(M=33, N=20, K=12, BM=128, BN=128, BK=8, TM=8, TN=8)),
    ("warptile", dict(M=16, N=64, K=16, **TEACH_WARP)),
    ("warptile", dict(M=13, N=20, K=12, **TEACH_WARP)),
    ("warptile", dict(M=1, N=4, K=4, **TEACH_WARP)),
    ("warptile", dict(M=40, N=36, K=20, BM=128, BN=128, BK=16, WM=64, WN=64, WNITER=4, TM=8, TN=4, threads=128)),
    # TM=2: a thread's As pairs are scalar in the listing, merged by nvcc (issue 40: the counters follow)
    ("warptile", dict(M=121, N=20, K=4, BM=64, BN=128, BK=8, WM=64, WN=64, WNITER=4, TM=2, TN=8, threads=64)),
]
BRUTE = {"blocktile1d": bruteforce.blocktile1d, "vectorized": bruteforce.vectorized, "warptile": bruteforce.warptile}
PARAMS = {"blocktile1d": Blocktile1DParams, "vectorized": VectorizedParams, "warptile": WarptileParams}


def build(name, values):
    return PARAMS[name](**values)


@pytest.mark.parametrize("name,values", CASES)
def test_closed_form_trace_and_brute_force_agree(name, values):
    p = build(name, values)
    kernel = KERNELS[name]
    closed = kernel.counters(p)
    assert closed.as_dict() == BRUTE[name](**{k: v for k, v in values.items()})
    trace = Trace(kernel, p)
    assert summed(trace) == closed
    assert trace[len(trace) - 1].counters == closed
    assert len(list(kernel.block_steps(p, trace.A, trace.B, 0, 0))) == kernel.steps_per_block(p)


@pytest.mark.parametrize("name,values", CASES)
def test_c_from_the_stores_is_a_times_b(name, values):
    """C assembled here from the store accesses alone (no pysim helper) equals NumPy's A @ B."""
    p = build(name, values)
    trace = Trace(KERNELS[name], p)
    c = np.full((p.M, p.N), np.nan, dtype=np.float32)
    for step in trace:
        for access in step.global_stores():
            for instr, lane in zip(*np.nonzero(access.rows != INACTIVE)):
                row, col = access.rows[instr, lane], access.cols[instr, lane]
                value = access.values[instr, lane]
                c[row, col : col + access.width] = value
    np.testing.assert_array_equal(c, trace.A @ trace.B)
    assert trace.c_matches()


@pytest.mark.parametrize("name,values", CASES)
def test_global_loads_formula(name, values):
    p = build(name, values)
    M, N, K = p.M, p.N, p.K
    assert KERNELS[name].counters(p).global_loads == M * K * ceil(N / p.BN) + K * N * ceil(M / p.BM)


def load_instructions(trace):
    """Warp-wide global load instructions with at least one active lane, counted from the trace."""
    total = 0
    for step in trace:
        for access in step.accesses:
            if access.space == "global" and access.op == "load":
                total += int(np.count_nonzero((by_warp(access.words) != INACTIVE).any(axis=-1)))
    return total


@pytest.mark.parametrize(
    "M,N,K,BM,BN,BK,TM,TN",
    [(16, 16, 8, 16, 16, 4, 4, 4), (64, 64, 16, 32, 32, 8, 4, 4), (128, 128, 16, 128, 128, 8, 8, 8)],
)
def test_vectorized_issues_a_quarter_of_the_load_instructions(M, N, K, BM, BN, BK, TM, TN):
    tiles = dict(M=M, N=N, K=K, BM=BM, BN=BN, BK=BK, TM=TM, TN=TN)
    two_d, vectorized = (
        Trace(KERNELS["register"], RegisterParams(**tiles)),
        Trace(KERNELS["vectorized"], VectorizedParams(**tiles)),
    )
    assert 4 * load_instructions(vectorized) == load_instructions(two_d)
    assert vectorized.totals.global_loads == two_d.totals.global_loads
    assert vectorized.totals.global_sectors <= two_d.totals.global_sectors


@pytest.mark.parametrize("M,N,K", [(20, 24, 12), (9, 8, 4), (100, 60, 36)])
def test_vectorized_sectors_never_exceed_the_2d_kernel(M, N, K):
    tiles = dict(M=M, N=N, K=K, BM=16, BN=16, BK=4, TM=4, TN=4)
    ours = KERNELS["vectorized"].counters(VectorizedParams(**tiles))
    theirs = KERNELS["register"].counters(RegisterParams(**tiles))
    assert ours.global_sectors <= theirs.global_sectors and ours.global_loads == theirs.global_loads


# What each step executes, from the listings: (phase, accesses) -> text its first line holds.
STATEMENTS = {
    "blocktile1d": {
        ("load", (("A", "load"), ("As", "store"))): "As[innerRowA",
        ("load", (("B", "load"), ("Bs", "store"))): "Bs[innerRowB",
        ("compute", (("Bs", "load"),)): "float tmpB = Bs[",
        ("compute", (("As", "load"),)): "threadResults[resIdx] += As[",
        ("store", (("C", "store"),)): "C[r * N + c] = threadResults[resIdx]",
    },
    "vectorized": {
        ("load", (("A", "load"), ("As", "store"))): "float4 tmp = (rA < M && cA < K)",
        ("load", (("B", "load"), ("Bs", "store"))): "reinterpret_cast<float4 *>(&Bs[",
        ("compute", (("As", "load"),)): "regM[i] = As[",
        ("compute", (("Bs", "load"),)): "regN[i] = Bs[",
        ("compute", ()): "+= regM[resIdxM] * regN[resIdxN]",
        ("store", (("C", "store"),)): "reinterpret_cast<float4 *>(&C[r * N + c])",
    },
    "warptile": {
        ("load", (("A", "load"), ("As", "store"))): "float4 tmp = (rA < M && cA < K)",
        ("load", (("B", "load"), ("Bs", "store"))): "reinterpret_cast<float4 *>(&Bs[",
        ("compute", (("As", "load"),)): "regM[wSubRowIdx",
        ("compute", (("Bs", "load"),)): "regN[wSubColIdx",
        ("compute", ()): "+= regM[wSubRowIdx",
        ("store", (("C", "store"),)): "reinterpret_cast<float4 *>(&C[r * N + c])",
    },
}


@pytest.mark.parametrize("name,values", [CASES[1], CASES[6], CASES[11]])
def test_highlighted_lines_and_narration(name, values):
    p = build(name, values)
    kernel, words = KERNELS[name], narration(name)
    source = kernel.source(p)
    assert not any("@@" in line for line in source)
    for step in Trace(kernel, p):
        kind = (step.phase, tuple((a.array, a.op) for a in step.accesses))
        if kind in STATEMENTS[name]:
            assert STATEMENTS[name][kind] in source[step.line - 1], (kind, source[step.line - 1])
        sentence = words.narrate(step, p, kernel.threads(p) - 1)
        assert sentence.startswith("Block (") and sentence.endswith(".")
        assert words.phase_detail(step, p)
        kernel.focus(p, step, 0)
        kernel.regions(p, step)


@pytest.mark.parametrize("name,values", [CASES[1], CASES[8], CASES[11]])
def test_owner_inverts_owned_cells(name, values):
    p = build(name, values)
    kernel = KERNELS[name]
    gx, gy = kernel.grid(p)
    seen = {}
    for by in range(gy):
        for bx in range(gx):
            for thread in range(kernel.threads(p)):
                for cell in kernel.owned_cells(p, (bx, by), thread):
                    seen[cell] = ((bx, by), thread)
    assert len(seen) == p.M * p.N
    for (row, col), who in seen.items():
        assert kernel.owner(p, row, col) == who


@pytest.mark.parametrize(
    "cls,raw,param,fragment",
    [
        (Blocktile1DParams, {"TM": "3"}, "TM", "BM=64 is not divisible by TM=3"),
        (Blocktile1DParams, {"BK": "4"}, "BK", "each thread copies exactly one element"),
        (Blocktile1DParams, {"BN": "32", "BK": "4"}, "BN", "BN·BK must both equal"),
        (Blocktile1DParams, {"BM": "512", "BN": "512", "BK": "64", "TM": "64"}, "TM", "4,096 threads per block"),
        (Blocktile1DParams, {"BM": "256", "BN": "256", "TM": "256", "BK": "1"}, "TM", "at most 255 registers"),
        (VectorizedParams, {"K": "6"}, "K", "K=6 is not a multiple of 4"),
        (VectorizedParams, {"N": "1"}, "N", "float4 must start on a 16-byte boundary"),
        (VectorizedParams, {"BK": "16"}, "BK", "exactly one float4 of A and one of B"),
        (VectorizedParams, {"TM": "3"}, "TM", "BM=128 is not divisible by TM=3"),
        (WarptileParams, {"threads": "100"}, "threads", "every warp must be full"),
        (WarptileParams, {"threads": "256"}, "threads", "4 warp tiles but threads=256 makes 8 warps"),
        (WarptileParams, {"WM": "48"}, "WM", "BM=128 is not divisible by WM=48"),
        (WarptileParams, {"WNITER": "3"}, "WNITER", "WMITER = WM·WN/(32·TM·TN·WNITER) must be a whole number"),
        (WarptileParams, {"BK": "12"}, "BK", "static_assert"),
        (WarptileParams, {"K": "2"}, "K", "K=2 is not a multiple of 4"),
        (WarptileParams, {"BK": "64"}, "BK", "bytes of shared memory"),
        (WarptileParams, {"TN": "2"}, "TN", "TN=2 is not a multiple of 4"),
    ],
)
def test_invalid_values_name_the_parameter(cls, raw, param, fragment):
    with pytest.raises(ParamError) as caught:
        cls.parse(raw)
    assert caught.value.param == param
    assert fragment in caught.value.message, caught.value.message


def test_presets_and_defaults_are_valid_and_siboehms():
    for cls in PARAMS.values():
        for values in cls.PRESETS.values():
            cls(**values)
    assert (Blocktile1DParams().BM, Blocktile1DParams().BK, Blocktile1DParams().TM) == (64, 8, 8)
    assert Blocktile1DParams().threads == 512
    v = VectorizedParams()
    assert (v.BM, v.BN, v.BK, v.TM, v.TN, v.threads) == (128, 128, 8, 8, 8, 256)
    w = WarptileParams()
    assert (w.threads, w.BM, w.BN, w.BK, w.WM, w.WN, w.WNITER, w.TM, w.TN, w.WMITER) == (
        128, 128, 128, 16, 64, 64, 4, 8, 4, 1,
    )  # fmt: skip


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "pysim", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name,values", [CASES[1], CASES[8], CASES[11]])
def test_cli_count_json(name, values):
    flags = [item for key, value in values.items() for item in (f"--{key}", str(value))]
    out = run_cli("count", "--kernel", name, *flags, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["c_matches"] is True
    assert {k: data[k] for k in Counters().as_dict()} == BRUTE[name](**values)


@pytest.mark.parametrize(
    "args,param",
    [
        (["count", "--kernel", "vectorized", "--K", "7"], "K"),
        (["count", "--kernel", "warptile", "--WNITER", "x"], "WNITER"),
        (["count", "--kernel", "blocktile1d", "--TN", "4"], "--TN"),
        (["trace", "--kernel", "warptile", "--threads", "33"], "threads"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(args, param):
    out = run_cli(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and param in lines[0]


def test_siboehm_ladder_rows():
    rungs = siboehm_ladder(LadderParams(N=4096, device="rtxa6000"))
    assert tuple(r.key for r in rungs) == SIBOEHM_ROWS
    numbers = [r.label.split(" · ")[0] for r in rungs[:-1]]
    assert numbers == ["1", "2", "3", "4", "5", "6", "10", "11", "12", "13"]
    assert rungs[0].params.map == "row" and rungs[1].params.map == "col"
    hopper = next(r for r in rungs if r.key == "wgmma")  # sm_90a only: refused on the RTX A6000, naming why
    assert not hopper.runs and "sm_90a" in hopper.reason
    rungs = tuple(r for r in rungs if r is not hopper)
    for rung in rungs:
        assert rung.runs, rung.reason
        assert rung.counters == KERNELS[rung.kernel].counters(rung.params)
    loads = {r.key: r.counters.global_loads for r in rungs}
    assert loads["vectorized"] == loads["warptile"] == loads["register-production"] == 2 * 4096**3 // 128
    assert loads["blocktile1d"] == 2 * 4096**3 // 64
    odd = {r.key: r for r in siboehm_ladder(LadderParams(N=1001))}
    assert not odd["vectorized"].runs and "multiple of 4" in odd["vectorized"].reason


def test_siboehm_ladder_commands_print_the_same_counters():
    small = LadderParams(N=32, T=8, BM=16, BN=16, BK=4, TM=4, TN=4)
    rungs = [r for r in siboehm_ladder(small) if r.key != "wgmma"]  # sm_90a: the h100's row below
    rungs += [r for r in siboehm_ladder(replace(small, device="h100")) if r.key == "wgmma"]
    for rung in rungs:
        out = run_cli("count", *rung.cli, "--json")
        assert out.returncode == 0, out.stderr
        printed = json.loads(out.stdout)
        assert {k: printed[k] for k in rung.counters.as_dict()} == rung.counters.as_dict()
        assert printed["c_matches"] is True
