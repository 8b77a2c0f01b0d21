"""Guided questions whose right answer, choices, wording and why must hold at every size the form accepts
(faults a review found at small or odd sizes), each checked against an independent count."""

from __future__ import annotations

import re

import pytest
import test_guides as base

import bruteforce
from pysim.core.trace import Trace
from pysim.hardware.params import NaiveParams, SmemParams, TransposeParams
from pysim.hardware.pipelined_params import PipelinedParams
from pysim.kernels import KERNELS
from pysim.lessons.guides import Skipped, guide_for
from pysim.lessons.narration.naive import describe


def pairs(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"\((\d+),(\d+)\)", text)]


def entry(view, params, key):
    return next(e for e in guide_for(view, params).entries if e.key == key)


def test_the_map_choices_do_not_name_the_answer():
    """The labels once said "(coalesced)" and "(strided)": the answer, and a false one at M=2, N=5, T=8."""
    asked = entry("naive", NaiveParams(M=2, N=5, K=8, T=8), "naive:map")
    assert asked.answer == "col"  # tests/bruteforce.naive: 28 sectors against 51
    assert "28 sectors" in asked.why and "51" in asked.why
    for choice in asked.choices:
        assert "coalesc" not in choice.label and "strided" not in choice.label


@pytest.mark.parametrize("T", [2, 3, 4, 8])
def test_the_map_question_follows_the_brute_sectors_at_small_sizes(T):
    """Small sizes, where a warp is emptier: 212 of 377 asked cases once disagreed with the run's sectors."""
    for M in (1, 2, 3, 5, 8):
        for N in (1, 2, 5, 7):
            p = NaiveParams(M=M, N=N, K=3, T=T)
            total = {name: bruteforce.naive(M, N, 3, T, name)["global_sectors"] for name in ("col", "row")}
            found = entry("naive", p, "naive:map")
            if total["col"] == total["row"]:
                assert isinstance(found, Skipped), p
            else:
                assert found.answer == min(total, key=total.__getitem__), p


def test_idle_threads_are_asked_before_the_monitor_lists_them():
    """At #/naive?M=5&N=6&K=3&T=4 the question was open at block (1,1)'s first step, whose thread monitor
    already listed its 14 returned threads."""
    p = NaiveParams(M=5, N=6, K=3, T=4)
    asked = entry("naive", p, "naive:idle")
    trace = Trace(KERNELS["naive"], p)
    block = pairs(asked.question)[0]
    listed = [describe(trace[asked.step], p, t) for t in range(p.T * p.T) if trace[asked.step].block == block]
    assert not any("returned" in line for line in listed)
    shown = [describe(trace[asked.reveal], p, t) for t in range(p.T * p.T)]
    assert trace[asked.reveal].block == block and sum("returned" in line for line in shown) == asked.answer == 14
    alone = entry("naive", NaiveParams(M=3, N=2, K=4, T=4), "naive:idle")  # one block: no step before it
    assert isinstance(alone, Skipped) and "only block (0,0)" in alone.reason


def test_a_withheld_question_gives_a_true_reason():
    """K=9 is no multiple of T=2: the edge block was said to be full because 'the sizes divide evenly'."""
    edge = entry("tiling", SmemParams(M=4, N=4, K=9, T=2), "tiling:edge-loads")
    assert isinstance(edge, Skipped) and "divide" not in edge.reason and "as many global loads" in edge.reason
    idle = entry("naive", NaiveParams(M=4, N=4, K=3, T=2), "naive:idle")
    assert isinstance(idle, Skipped) and "M and N are multiples of T" in idle.reason


@pytest.mark.parametrize(("view", "params"), base.CASES)
def test_the_warp_choice_is_offered_only_where_a_block_has_other_warps(view, params):
    """With 4 threads "the 32 threads of its warp" was false, and at 32 or fewer it meant the block's moment."""
    for asked in guide_for(view, params).moments:
        if asked.key.endswith(":barrier"):
            threads = KERNELS[base.ROUTES[view]].threads(params)
            offered = {c.value for c in asked.choices}
            assert ("warp" in offered) == (threads > 32), (view, threads)
            assert not any("32 threads" in c.label for c in asked.choices)


WHEN = {"at the next step": 1, "at the step after next": 2}


@pytest.mark.parametrize(("view", "params"), base.CASES)
def test_a_question_says_when_its_step_comes(view, params):
    """The register preset asked about regN at step 3 'at the next step', and the read came at step 5."""
    for asked in guide_for(view, params).moments:
        said = [gap for words, gap in WHEN.items() if words in asked.question.lower()]
        later = re.search(r"(\d+) steps from now", asked.question)
        if said or later:
            assert asked.reveal - asked.step == (said[0] if said else int(later[1])), asked.key


def test_the_padding_why_gives_the_degree_the_brute_count_finds_at_every_tile_and_pad():
    """'a column spreads over all banks only when that shift shares no factor with 32' was false where warp 0
    reads two columns or more (TILE=30 pad 0→1: stride 31 and still a conflict; TILE=16 pad 1→2: stride 18, none)."""
    asked = 0
    for tile in range(1, 33):
        for pad in range(4):
            found = entry("transpose", TransposeParams(n=tile, TILE=tile, pad=pad), "transpose:pad")
            if isinstance(found, Skipped):
                continue
            stride = tile + pad + 1
            words = [(t % tile) * stride + t // tile for t in range(min(32, tile * tile))]  # tile[tx][ty]
            degree = base.worst_phase(words, 1)
            assert f"no bank gets more than {degree} of them" in found.why and f"= {stride} words" in found.why
            assert found.answer == ("yes" if degree == 1 else "no")
            asked += 1
    assert asked > 50


def stage_rows(trace, step: int, BK: int) -> set[int]:
    """The stages (rows of Bs // BK) the step's accesses of Bs touch."""
    return {int(r) // BK for a in trace[step].accesses if a.array == "Bs" for r in a.rows[a.active].ravel()}


STAGED = [
    PipelinedParams(M=16, N=64, K=K, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32, stages=stages)
    for stages in range(2, 5)
    for K in range(16, 8 * (stages + 3), 8)
]


@pytest.mark.parametrize("params", STAGED)
def test_the_landing_stage_why_names_the_round_the_trace_freed_it_in(params):
    """'the buffer computed S−1 round(s) before': tile 3 at S=3 goes out right after round 0's closing barrier,
    into the stage round 0 computed from, one round before. Replayed from the rows of Bs the steps touch."""
    asked = entry("pipelined", params, "pipelined:stage")
    trace = Trace(KERNELS["pipelined"], params)
    copy = asked.reveal if stage_rows(trace, asked.reveal, params.BK) else asked.reveal + 1
    (stage,) = stage_rows(trace, copy, params.BK)
    assert asked.answer == str(stage)
    read = [
        trace[i].tile
        for i in range(asked.reveal)
        if trace[i].phase == "compute" and stage in stage_rows(trace, i, params.BK)
    ]
    said = re.search(r"round (\d+) computed", asked.why)
    assert (int(said[1]) if said else None) == (read[-1] if read else None), asked.why
    assert not read or trace[asked.reveal - 1].barrier  # its closing barrier has just passed
