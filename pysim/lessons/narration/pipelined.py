"""What the page says about the steps of pipelined warptiling (pysim/kernels/k11_pipelined.py): warptiling's
sentences (narration/warptile.py) for what it shares, and the copies, commits and waits of the pipeline."""

from __future__ import annotations

from ...core.trace import Step
from ...core.words import count
from ...hardware.pipelined_params import PipelinedParams
from ...kernels import k11_pipelined as kernel
from . import tiled, warptile


def _copy(step: Step, thread: int) -> str:
    """'issues cp.async of A[0][0..3] into As stage 1 (16 bytes each, not waited for)'."""
    text = tiled.describe_load(step, thread).replace("copies ", "issues cp.async of ", 1)
    return text + f" ({4 * step.accesses[0].width} bytes a copy; it does not wait for them)"


def describe(step: Step, p: PipelinedParams, thread: int) -> str:
    """What one thread does in this step, in words."""
    if step.phase == "load":
        return f"{_copy(step, thread)}, stage {kernel.step_stage(p, step)}"
    if step.phase == "commit":
        return "closes its copies of this round into a group" if step.tile is not None else "commits an empty group"
    if step.phase == "wait":
        return f"waits until at most {count(p.stages - 1, 'group')} of its copies are in flight"
    if step.phase == "compute" and step.accesses:  # warptiling's regM / regN loads, from this tile's stage
        return f"{warptile.describe(step, p, thread)}, stage {kernel.step_stage(p, step)}"
    return warptile.describe(step, p, thread)


def position(step: Step, p: PipelinedParams) -> str:
    return tiled.position(step, p.BK, p.tiles, ("wSubRowIdx", "wSubColIdx"))


def narrate(step: Step, p: PipelinedParams, thread: int) -> str:
    lane, warp = kernel.thread_xy(p, thread)
    return f"{position(step, p)}: thread {thread} (lane {lane} of warp {warp}) {describe(step, p, thread)}."


def phase_detail(step: Step, p: PipelinedParams) -> str:
    """What the whole block is doing in this step."""
    ahead = p.stages - 1
    if step.phase == "setup":
        return (
            warptile.phase_detail(step, p)
            + f" Shared memory holds {p.stages} stages of As and Bs ({p.shared_bytes:,} bytes)."
        )
    if step.phase == "load":
        source = step.accesses[0]
        return (
            f"Async copy: tile {step.tile} of {source.array} sets off into stage {kernel.step_stage(p, step)} "
            f"({count(source.elements * 4, 'byte')} by cp.async, global to shared with no register in between); "
            f"no thread waits for it now."
        )
    if step.phase == "commit":
        if step.tile is None:
            return "Commit: no tile is left to copy, so the group is empty (wait_group still counts it)."
        return "Commit: the copies issued so far this round become one group (cp.async.commit_group)."
    if step.phase == "wait":
        return (
            f"Wait: cp.async.wait_group {ahead} returns once at most {count(ahead, 'group')} "
            f"{'is' if ahead == 1 else 'are'} still in flight, so tile {step.tile} has landed in stage "
            f"{kernel.step_stage(p, step)}; the later tiles keep travelling while it is computed."
        )
    if step.phase == "barrier" and step.lines == kernel.SYNC_DONE:
        return "Barrier: the next round's copy overwrites this stage, so no thread may still be reading it."
    if step.phase == "barrier":
        return "Barrier: each thread waited for its own copies; the barrier makes everyone's visible to all."
    return warptile.phase_detail(step, p, kernel)
