"""What the CLI's trace (and later #/wgmma) says about the steps of the Hopper kernel (pysim/kernels/k13_wgmma.py):
the producer's TMA copies and barrier waits, the consumers' waits, wgmmas and releases, and the stores."""

from __future__ import annotations

from ...core.trace import Step
from ...core.words import count
from ...hardware.wgmma_params import WARPGROUP, WgmmaParams
from ...kernels import k13_wgmma as kernel
from . import tiled


def _role(p: WgmmaParams, thread: int) -> str:
    tid, group = kernel.thread_xy(p, thread)
    if group:
        return "consumer"
    return "producer" if tid == 0 else "idle producer"


def describe(step: Step, p: WgmmaParams, thread: int) -> str:
    """What one thread does in this step, in words."""
    role = _role(p, thread)
    number = step.tile % p.stages if step.tile is not None else 0
    stage = f"stage {number}"
    if step.lines == kernel.INIT:
        return f"sets up {count(2 * p.stages, 'mbarrier')}" if thread == 0 else "skips the barriers' set-up"
    if step.barrier:
        return "waits at the barrier"
    producing = step.lines in (kernel.WAIT_EMPTY, kernel.EXPECT, kernel.TMA_A, kernel.TMA_B)
    if producing and role != "producer":
        return "has nothing to do: one producer thread issues every copy"
    if not producing and role != "consumer" and step.lines != kernel.SETUP:
        return "has finished: the producer warpgroup only copies"
    if step.lines == kernel.WAIT_EMPTY:
        return f"waits until the consumers have released {stage}"
    if step.lines == kernel.EXPECT:
        return f"tells full[{number}] to expect {p.stage_bytes:,} bytes"
    if step.phase == "load":
        store = step.accesses[1]
        return f"issues one TMA copy of {count(store.elements, 'float')} of {step.accesses[0].array} into {stage}"
    if step.lines == kernel.WAIT_FULL:
        return f"waits until the bytes of {stage} have landed"
    if step.lines == kernel.WGMMA:
        return f"takes part in its warpgroup's {count(p.MITER, f'wgmma m64n{p.BN}k8')}"
    if step.lines == kernel.WGMMA_WAIT:
        return "waits until its warpgroup's wgmmas are done"
    if step.lines == kernel.RELEASE:
        tid, _ = kernel.thread_xy(p, thread)
        return f"releases {stage} for its warpgroup" if tid == 0 else f"is done reading {stage}"
    if step.phase == "store":
        return f"stores {count(len(kernel.owned_cells(p, step.block, thread)), 'value')} of C"
    return "computes its indices"


def position(step: Step, p: WgmmaParams) -> str:
    """'Block (0,1), tile 2 of 4 (stage 1), k=8': where the step is (#/wgmma's focus line)."""
    return tiled.stage_position(step, p.tiles, p.stages, p.BK, "k")


def narrate(step: Step, p: WgmmaParams, thread: int) -> str:
    tid, group = kernel.thread_xy(p, thread)
    where = f"tile {step.tile}" if step.tile is not None else step.phase
    return (
        f"{where}: thread {thread} (thread {tid} of warpgroup {group}, {_role(p, thread)}) {describe(step, p, thread)}."
    )


def phase_detail(step: Step, p: WgmmaParams) -> str:
    """What the whole block is doing in this step."""
    if step.phase == "load" and step.accesses:
        return (
            f"TMA: one instruction copies a {len(step.accesses[1].rows)}-float box of {step.accesses[0].array} into "
            "shared memory, 128-byte swizzled, and counts its bytes on the stage's full barrier."
        )
    if step.lines == kernel.WGMMA:
        return (
            f"wgmma: each of the {count(p.consumers, 'consumer warpgroup')} ({WARPGROUP} threads) issues "
            f"{count(p.MITER, f'm64n{p.BN}k8')}, A and B read from shared memory through their descriptors."
        )
    if step.phase == "wait":
        return "mbarrier: threads wait for a phase of a stage's barrier to complete (no __syncthreads)."
    return f"{step.phase.capitalize()}: the producer copies, the consumers compute."
