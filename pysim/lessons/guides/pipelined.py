"""The pipelined warptiling guide (#/pipelined): tiles copied ahead by cp.async into stages, waited for
only when they are about to be computed. Answers from the trace and the kernel's closed forms."""

from __future__ import annotations

from ...kernels import k11_pipelined as kernel
from . import common
from .common import Entry, Run, moment
from .model import Choice, Skipped
from .vectorized import longer_k


def landing_stage(run: Run) -> Entry:
    """Which stage a later tile's copies land in (kernel.stage_of), asked just before they are issued (#/mma's too)."""
    key = f"{run.kernel.NAME}:stage"
    p = run.params
    if p.tiles < 2:
        return Skipped(key, "the block computes one tile: it only ever fills stage 0")
    tile = min(p.stages, p.tiles - 1)
    index = run.find(lambda step: step.phase == "load" and step.tile == tile)
    assert index is not None
    question = f"Into which stage of As and Bs will the copies of tile {tile} land?"
    stage = kernel.stage_of(p, tile)
    # The last round (a round computes the tile of its number) that read this stage before the copies go out.
    computed = (run.trace[i] for i in run.block_steps(0) if i < index and run.trace[i].phase == "compute")
    freed = [step.tile for step in computed if kernel.step_stage(p, step) == stage]
    where = f"tile t goes to stage t mod {p.stages}, here {stage}: "
    if freed:
        why = where + (
            f"round {freed[-1]} computed tile {freed[-1]} from it, and its closing barrier has passed, so every thread "
            "is done reading it"
        )
    else:
        why = where + "no round has computed from it yet, so it is still free"
    choices = tuple(Choice(str(s), f"stage {s}") for s in range(p.stages))
    return moment(run, key, index - 1, index, "choice", question, str(stage), why, choices=choices)


def in_flight(run: Run) -> Entry:
    """How many later tiles are still travelling when round 0's wait_group returns (#/mma's pipeline too)."""
    p = run.params
    index = run.find(lambda step: step.phase == "wait")
    assert index is not None
    question = (
        "When cp.async.wait_group returns in the first round, how many later tiles' copies may still be in flight?"
    )
    why = (
        f"wait_group {p.stages - 1} lets up to {p.stages - 1} group(s) keep travelling, one per later tile "
        f"already issued (there are {p.tiles - 1} later tile(s) in all)"
    )
    return moment(
        run, f"{run.kernel.NAME}:in-flight", index - 1, index, "number", question, min(p.stages - 1, p.tiles - 1), why
    )


def async_bytes(run: Run) -> Entry:
    """The bytes cp.async writes into shared memory for block (0,0), from its closed form (#/mma's too)."""
    block = run.kernel.block_counters(run.params, *run.trace.blocks[0])
    steps = run.block_steps(0)
    question = "How many bytes will cp.async write into shared memory for block (0,0), zero-fills included?"
    why = "each tile step copies BM×BK floats of A and BK×BN of B, 4 bytes each, with no shared store from registers"
    return moment(
        run,
        f"{run.kernel.NAME}:async-bytes",
        steps[0],
        steps[-1],
        "number",
        question,
        block.async_copy_bytes,
        why,
        hidden=("async_copy_bytes",),
    )


def entries(run: Run) -> list[Entry]:
    return [
        async_bytes(run),
        common.cells_of(
            run,
            "pipelined:cells-a",
            "A",
            "global",
            "A is copied 4 bytes at a time, each float to its transposed place in As, in rounds of row offsets",
        ),
        common.warp_sectors(
            run,
            "pipelined:sectors-b",
            "B",
            "a warp's 16-byte copies of a row of B are side by side, so they fill whole sectors",
        ),
        landing_stage(run),
        in_flight(run),
        common.per_round(
            run, "pipelined:fma", "fma", "every value of regM meets every value of regN, as in warptiling"
        ),
        common.block_loads(
            run,
            "pipelined:block-loads",
            "the pipeline changes when the copies wait, not what they copy: BM rows of A and BN columns of B per tile",
        ),
    ]


task = longer_k  # one more tile: the same question as the vectorized kernel's, the same loads
