"""What the CLI's trace and #/mma say about the steps of the TF32 kernel (pysim/kernels/k12_mma.py):
the pipeline's copies, commits and waits, the fragment loads each lane makes, and the warps' mmas."""

from __future__ import annotations

from ...core.trace import Step
from ...core.words import count, each_of
from ...hardware.mma_params import MmaParams
from ...kernels import k12_mma as kernel
from . import tiled


def describe(step: Step, p: MmaParams, thread: int) -> str:
    """What one thread does in this step, in words."""
    stage = f"stage {step.tile % p.stages}" if step.tile is not None else ""
    if step.phase == "load":
        cells = step.accesses[0].cells(thread)
        return f"issues cp.async of {count(len(cells), 'float')} of {step.accesses[0].array} into {stage}"
    if step.phase == "commit":
        return "closes its copies of this round into a group" if step.tile is not None else "commits an empty group"
    if step.phase == "wait":
        ahead = p.stages - 1
        return f"waits until at most {count(ahead, 'group')} of its copies {'is' if ahead == 1 else 'are'} in flight"
    if step.phase == "compute" and step.accesses:
        access = step.accesses[0]
        return f"loads {count(len(access.cells(thread)), 'fragment value')} from {access.array} ({stage})"
    if step.phase == "compute":
        return f"takes part in its warp's {count(p.MITER * p.NITER * p.split, 'mma.sync.m16n8k8')}"
    if step.phase == "store":
        return f"stores {count(len(kernel.owned_cells(p, step.block, thread)), 'value')} of C"
    return "waits at the barrier" if step.barrier else "computes its indices"


def position(step: Step, p: MmaParams) -> str:
    """'Block (0,1), tile 2 of 4 (stage 1), kk=8': where the step is (#/mma's focus line)."""
    return tiled.stage_position(step, p.tiles, p.stages, p.BK, "kk")


def narrate(step: Step, p: MmaParams, thread: int) -> str:
    lane, warp = kernel.thread_xy(p, thread)
    return f"{position(step, p)}: thread {thread} (lane {lane} of warp {warp}) {describe(step, p, thread)}."


def phase_detail(step: Step, p: MmaParams) -> str:
    """What the whole block is doing in this step."""
    if step.lines == kernel.MMA:
        return (
            f"MMA: {each_of(p.warps, 'warp')} issues {p.MITER}×{p.NITER} mma.sync.m16n8k8 "
            f"({'3xTF32: three per tile' if p.split == 3 else 'TF32'}), 1,024 multiply-adds each."
        )
    if step.phase == "compute":
        return "Fragments: each lane reads the values of A or B the PTX ISA's fragment layout gives it."
    if step.phase == "load":
        return f"Async copy: tile {step.tile} of {step.accesses[0].array} sets off, 16 bytes a lane; no one waits."
    return f"{step.phase.capitalize()}: as in pipelined warptiling."
