"""Issue 40 item 2: the per-warp-instruction counters count the shared instructions nvcc issues.

Three sources agree: nvcc (tools/sass) says which scalar reads it merges into LDS.64/LDS.128; tests/bruteforce.py
merges a thread's reads by the rule's text in plain loops (`issued_reads`) and counts the merged requests'
wavefronts lane by lane (test_counters.py and test_ladder_kernels.py hold pysim's counters to that count); and
here the brute force's merged reads equal nvcc's LDS classes, and the blocktiled views' wavefronts per FMA (from
the trace's closed forms) equal the speed model's at siboehm's runner presets.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

import bruteforce
from pysim.core import instructions
from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from pysim.lessons.blocktiled import costs
from pysim.speed import profile
from tools.sass import render, report, toolchain

RUNNER = "siboehm's A6000 runner"
# Kernel 5 has no runner preset in its form; the ladder's kernel 5 is siboehm's runner shape.
REGISTER_RUNNER = dict(M=128, N=128, K=128, BM=128, BN=128, BK=8, TM=8, TN=8)


def _runner_cases() -> list:
    found = [pytest.param("register", REGISTER_RUNNER, id="register-runner")]
    for name in ("blocktile1d", "vectorized", "warptile"):
        for label, values in KERNELS[name].PARAMS.PRESETS.items():
            if label.startswith(RUNNER):
                found.append(pytest.param(name, values, id=f"{name}-runner"))
    return found


@pytest.mark.parametrize("name, values", _runner_cases())
def test_the_blocktiled_views_wavefronts_per_fma_equal_the_speed_models(name: str, values: dict) -> None:
    p = KERNELS[name].PARAMS(**values)
    prof = profile(name, p)
    assert costs(name, p, name).wavefronts_per_fma == Fraction(prof.shared_wavefronts, prof.fma)


# (kernel, its listing's sizes, the brute force's per-thread reads of one iteration): presets and the sizes
# around the `kept-loop` bound and the alignments (T odd, even, a multiple of 4; TM, TN of 1, 2, 4, 8).
MERGE_CASES = (
    [("smem", dict(M=64, N=64, K=64, T=T), lambda v: bruteforce.smem_reads(v["T"])) for T in (2, 3, 6, 8, 32)]
    + [
        (
            "blocktile1d",
            dict(BM=bm, BN=bm, BK=bm // tm, TM=tm),
            lambda v: bruteforce.tile_reads(v["BN"], v["BK"], v["TM"], 1, v["BM"] * v["BN"] // v["TM"]),
        )
        for bm, tm in ((64, 8), (8, 4), (64, 32), (16, 2), (12, 4))
    ]
    + [
        (
            "register",
            dict(BM=bm, BN=bn, BK=bk, TM=tm, TN=tn),
            lambda v: bruteforce.tile_reads(
                v["BN"], v["BK"], v["TM"], v["TN"], (v["BM"] // v["TM"]) * (v["BN"] // v["TN"])
            ),
        )
        for bm, bn, bk, tm, tn in (
            (4, 4, 4, 2, 2),
            (16, 16, 4, 4, 4),
            (128, 128, 8, 8, 8),
            (64, 16, 2, 4, 8),
            (8, 8, 4, 1, 2),
        )
    ]
)


@pytest.mark.parametrize("name, values, reads", MERGE_CASES, ids=lambda x: str(x) if isinstance(x, str) else "")
def test_the_brute_forces_merged_reads_are_nvccs(name: str, values: dict, reads) -> None:
    """The brute force's LDS per thread and iteration, by width, equal nvcc's (sm_80; the SASS tests hold
    pysim's model on all five architectures)."""
    try:
        toolchain.tool("nvcc"), toolchain.tool("nvdisasm")
    except toolchain.MissingToolchainError as error:
        pytest.fail(str(error))
    found = report.report(*render.kernel_params(name, values), "sm_80")["per_iteration"]
    widths = Counter(width for _, issued in reads(values) for _, width in issued)
    expected = {f"LDS{ {1: '', 2: '.64', 4: '.128'}[w] }": n for w, n in widths.items()}
    assert {k: v for k, v in found.items() if k.startswith("LDS")} == expected, (name, values)


@pytest.mark.parametrize("name", ["smem", "register", "blocktile1d", "wgmma"])
def test_a_trace_reads_the_same_plan_from_its_own_block_0_as_issue_plan_generates(name: str) -> None:
    """Trace reads the issue plan from block (0, 0)'s steps when it builds that block first (no second
    generation of tile 0), else from `issue_plan`: both give every step the same issues and counters."""
    kernel = KERNELS[name]
    params = kernel.PARAMS.parse({k: str(v) for k, v in next(iter(kernel.PARAMS.PRESETS.values())).items()})
    instructions.issue_plan.cache_clear()
    own, generated = Trace(kernel, params), Trace(kernel, params)
    last = generated.first_step(len(generated.blocks) - 1)
    generated[last]  # another block first: the plan comes from issue_plan
    assert own[0] is not None and own._plan == instructions.issue_plan(kernel, params) == generated._plan
    assert own._plan  # each preset merges some reads: the comparison is not of two empty plans
    for index in range(generated.steps_per_block):
        assert (own[index].issues, own[index].delta) == (generated[index].issues, generated[index].delta)
