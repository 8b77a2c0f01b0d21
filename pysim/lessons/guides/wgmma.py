"""The Hopper guide (#/wgmma): what one TMA copy brings (the bytes the mbarrier expects), how many wgmmas the
consumers issue per k-step, how many threads wait on a stage's full barrier, and the block's loads. Answers from
the trace and the parameters."""

from __future__ import annotations

from ...core.words import count
from ...kernels import k13_wgmma as kernel
from . import common
from .common import Entry, Run, moment
from .model import Choice, Task


def stage_bytes(run: Run) -> Entry:
    """The bytes the producer tells full[0] to expect: the stage's two TMA boxes, zero fill included."""
    p = run.params
    index = run.find(lambda step: step.lines == kernel.EXPECT)
    assert index is not None
    question = (
        "The producer thread is about to tell full[0] how many bytes will land in stage 0 (a box of A and one of "
        "Bt). How many bytes?"
    )
    why = (
        f"(BM + BN)·BK floats of 4 bytes: ({p.BM} + {p.BN})·{p.BK}·4, zero fill included where a box leaves the matrix"
    )
    return moment(
        run, "wgmma:stage-bytes", index - 1, index, "number", question, p.stage_bytes, why, hidden=("tma_bytes",)
    )


def wgmmas_per_kstep(run: Run) -> Entry:
    """The wgmma instructions of the first k-step: one per consumer warpgroup and m64 tile."""
    p = run.params
    index = run.find(lambda step: step.lines == kernel.WGMMA)
    assert index is not None
    question = (
        f"Tile t0 has landed. How many wgmma.m64n{p.BN}k8 will the block issue in the next step (one k-step of 8)?"
    )
    why = (
        f"{count(p.consumers, 'consumer warpgroup')} × {p.MITER} m64 tile(s) of its {p.rows_per_consumer} rows: "
        "a warpgroup's 128 threads issue each wgmma together"
    )
    answer = p.consumers * p.MITER
    return moment(run, "wgmma:wgmmas", index - 1, index, "number", question, answer, why, hidden=("mma_instructions",))


def full_waits(run: Run) -> Entry:
    """Threads that wait on full[stage] before the first tile's wgmmas: every consumer thread."""
    p = run.params
    index = run.find(lambda step: step.lines == kernel.WAIT_FULL)
    assert index is not None
    question = "How many threads will wait on full[0] for tile t0's bytes in the next step?"
    why = f"{count(p.consumers, 'consumer warpgroup')} of 128 threads each: all wait, the producer does not"
    answer = p.consumers * 128
    return moment(
        run, "wgmma:full-waits", index - 1, index, "number", question, answer, why, hidden=("mbarrier_waits",)
    )


def copy_issuer(run: Run) -> Entry:
    """Who issues the TMA copy of A's tile: one thread."""
    index = run.find(lambda step: step.lines == kernel.TMA_A)
    assert index is not None
    choices = (
        Choice("block", "every thread of the block, one element each (as cp.async)"),
        Choice("warp", "one warp of the producer warpgroup"),
        Choice("one", "one thread: thread 0 of the producer warpgroup"),
    )
    question = "Tile t0 of A is about to be copied into stage 0. Who issues the copy?"
    why = "cp.async.bulk.tensor is one instruction of one thread; the TMA unit moves the whole box"
    return moment(run, "wgmma:issuer", index - 1, index, "choice", question, "one", why, choices=choices)


def release_arrivals(run: Run) -> Entry:
    """Arrivals empty[stage] counts before the producer may refill the stage: one per consumer warpgroup."""
    p = run.params
    index = run.find(lambda step: step.lines == kernel.RELEASE)
    assert index is not None
    question = "The wgmmas of tile t0 are done. How many arrivals on empty[0] free stage 0 for the producer?"
    why = f"empty[s] is set up for {p.consumers} arrival(s): thread 0 of each consumer warpgroup arrives once"
    return moment(run, "wgmma:release", index - 1, index, "number", question, p.consumers, why)


def entries(run: Run) -> list[Entry]:
    return [
        stage_bytes(run),
        copy_issuer(run),
        release_arrivals(run),
        full_waits(run),
        wgmmas_per_kstep(run),
        common.block_loads(
            run, "wgmma:block-loads", "TMA changes who copies, not what: BM rows of A and BN rows of Bt per tile"
        ),
    ]


def task(run: Run) -> Task | Entry:
    """Twice the BN, or half of it rounded down to a wgmma N (a multiple of 8) where twice is past 256: the whole run's
    TMA bytes, zero fill included. (Half as it stood was no wgmma N from 136 to 248, and the guide lost its task.)"""
    why = "each tile's boxes are (BM + BN)·BK floats, whether or not they lie inside the matrix: TMA writes zeros there"
    ask = common.whole_run("tma_bytes", "TMA bytes (zero fill included)", why)
    BN = run.params.BN
    return common.change_task(run, "wgmma:task", [{"BN": 2 * BN}, {"BN": BN // 16 * 8}], ask)
