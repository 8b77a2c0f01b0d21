"""Pipelined warptiling (k11, cp.async): closed form against the trace and tests/bruteforce.py at several
sizes and stage counts, C from the stores, what the async copies change against warptiling, the
pipeline's order (commit, wait, barrier), its parameter rules, the CLI."""

import json
import subprocess
import sys

import numpy as np
import pytest
from groups import replay
from stepsums import summed

import bruteforce
from pysim.core.counters import Counters
from pysim.core.trace import Trace
from pysim.core.warps import INACTIVE
from pysim.hardware.blocktile_params import WarptileParams
from pysim.hardware.params import ParamError
from pysim.hardware.pipelined_params import PipelinedParams
from pysim.kernels import KERNELS, k11_pipelined
from pysim.lessons.narration import narration

TEACH = {"BM": 16, "BN": 64, "BK": 8, "WM": 16, "WN": 64, "WNITER": 2, "TM": 1, "TN": 4, "threads": 32}
BIG = {"BM": 128, "BN": 128, "BK": 16, "WM": 64, "WN": 64, "WNITER": 4, "TM": 8, "TN": 4, "threads": 128}
CASES = [
    dict(M=16, N=64, K=32, stages=2, **TEACH),
    dict(M=13, N=20, K=12, stages=2, **TEACH),  # non-multiples: zero-filled copies, guarded stores
    dict(M=13, N=20, K=36, stages=3, **TEACH),
    dict(M=1, N=4, K=4, stages=4, **TEACH),  # fewer tiles than stages: empty groups only
    dict(M=20, N=68, K=44, stages=4, **TEACH),
    dict(M=40, N=36, K=20, stages=3, **BIG),
    # TM=2: As read as scalar pairs in the listing, merged by nvcc (issue 40: the counters follow)
    dict(M=114, N=64, K=16, BM=64, BN=128, BK=16, WM=32, WN=64, WNITER=4, TM=2, TN=4, threads=128, stages=2),
    dict(M=70, N=64, K=40, BM=64, BN=128, BK=16, WM=32, WN=64, WNITER=4, TM=2, TN=4, threads=128, stages=2),
]
KERNEL = KERNELS["pipelined"]


@pytest.mark.parametrize("values", CASES)
def test_closed_form_trace_and_brute_force_agree(values):
    p = PipelinedParams(**values)
    closed = KERNEL.counters(p)
    assert closed.as_dict() == bruteforce.pipelined(**values)
    trace = Trace(KERNEL, p)
    assert summed(trace) == closed
    assert len(list(KERNEL.block_steps(p, trace.A, trace.B, 0, 0))) == KERNEL.steps_per_block(p)


@pytest.mark.parametrize("values", CASES)
def test_c_from_the_stores_is_a_times_b(values):
    p = PipelinedParams(**values)
    trace = Trace(KERNEL, p)
    c = np.full((p.M, p.N), np.nan, dtype=np.float32)
    for step in trace:
        for access in step.global_stores():
            for instr, lane in zip(*np.nonzero(access.rows != INACTIVE)):
                c[access.rows[instr, lane], access.cols[instr, lane] : access.cols[instr, lane] + access.width] = (
                    access.values[instr, lane]
                )
    np.testing.assert_array_equal(c, trace.A @ trace.B)
    assert trace.c_matches()


@pytest.mark.parametrize("values", CASES[:3] + CASES[5:])
def test_async_copies_replace_the_shared_stores_and_nothing_else(values):
    """Against warptiling at the same sizes: the same global loads, FMAs, stores and shared-memory costs (As
    is written transposed and read as warptiling does); no thread stores to shared memory; every element of
    every tile arrives as 4 async-copy bytes. A's 4-byte copies are 4 instructions where warptiling had one
    float4 load: more sectors summed over instructions, the same elements."""
    p = PipelinedParams(**values)
    w = WarptileParams(**{k: v for k, v in values.items() if k != "stages"})
    ours, theirs = KERNEL.counters(p), KERNELS["warptile"].counters(w)
    same = (
        "global_loads",
        "global_stores",
        "shared_loads",
        "fma",
        "barriers",
        "bank_extra_cycles",
        "shared_wavefronts",
    )
    for name in same:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.global_sectors > theirs.global_sectors
    assert ours.shared_stores == 0 and ours.async_copy_bytes == 4 * theirs.shared_stores
    assert ours.mma_instructions == ours.tma_bytes == ours.mbarrier_waits == 0


def test_each_tile_lands_before_it_is_read_and_waits_keep_s_minus_1_in_flight():
    """Replays the groups: a compute step only reads a stage whose tile's group wait_group has retired,
    and no copy overwrites a stage before the barrier after its last read."""
    for values in CASES[:5]:
        p = PipelinedParams(**values)
        trace = Trace(KERNEL, p)
        assert replay(trace, p.stages) == list(range(p.tiles)), values


@pytest.mark.parametrize("values", [CASES[1], CASES[3]])
def test_highlighted_lines_and_narration(values):
    p = PipelinedParams(**values)
    words, source = narration("pipelined"), KERNEL.source(p)
    assert not any("@@" in line for line in source)
    expected = {
        "load": "cpAsync",
        "commit": "cp.async.commit_group",
        "wait": f"cp.async.wait_group {p.stages - 1}",
        "store": "reinterpret_cast<float4 *>(&C[r * N + c])",
    }
    for step in Trace(KERNEL, p):
        if step.phase in expected:
            assert expected[step.phase] in source[step.line - 1], source[step.line - 1]
        assert words.narrate(step, p, KERNEL.threads(p) - 1).endswith(".")
        assert words.phase_detail(step, p)
        KERNEL.focus(p, step, 0)
        k11_pipelined.warp_regions(p, step, 0)


@pytest.mark.parametrize(
    "raw,param,fragment",
    [
        ({"stages": "1"}, "stages", "stages must be at least 2"),
        ({"stages": "5"}, "stages", "stages must be at most 4"),
        ({"device": "t4"}, "device", "cp.async needs 8.0 or later"),
        ({"BK": "64", "stages": "4"}, "stages", "bytes of shared memory per block"),
        ({"BK": "32", "stages": "4", "device": "rtxa6000"}, "stages", "allows 101,376 (dynamic, opt-in)"),
        ({"WNITER": "3"}, "WNITER", "must be a whole number"),
        ({"K": "6"}, "K", "K=6 is not a multiple of 4"),
    ],
)
def test_invalid_values_name_the_parameter_and_the_rule(raw, param, fragment):
    base = {k: str(v) for k, v in list(PipelinedParams.PRESETS.values())[1].items()}
    with pytest.raises(ParamError) as caught:
        PipelinedParams.parse({**base, **raw})
    assert caught.value.param == param
    assert fragment in caught.value.message, caught.value.message


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "pysim", *args], capture_output=True, text=True, timeout=120)


def test_cli_count_and_bad_stages():
    values = CASES[2]
    flags = [item for key, value in values.items() for item in (f"--{key}", str(value))]
    out = run_cli("count", "--kernel", "pipelined", *flags, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["c_matches"] is True
    assert {k: data[k] for k in Counters().as_dict()} == bruteforce.pipelined(**values)
    bad = run_cli("count", "--kernel", "pipelined", "--stages", "7")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "stages" in bad.stderr
    t4 = run_cli("trace", "--kernel", "pipelined", "--device", "t4")
    assert t4.returncode == 2 and "sm_80" in t4.stderr
