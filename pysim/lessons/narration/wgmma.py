"""What the CLI's trace (and later #/wgmma) says about the steps of the Hopper kernel (pysim/kernels/k13_wgmma.py):
the producer's TMA copies and barrier waits, the consumers' waits, wgmmas and releases, and the stores."""

from __future__ import annotations

from ...core.trace import Step
from ...core.words import count
from ...hardware.wgmma_params import WARPGROUP, WgmmaParams
from ...kernels import k13_wgmma as kernel
from . import tiled

# Every thread but the copying one at a copy step, and the producer warpgroup's other 127 threads throughout.
IDLE = "has nothing to do: one producer thread issues every copy"


def _stage(step: Step, p: WgmmaParams) -> int:
    """The stage buffer a step's tile goes round to (stage 0 for the steps outside the tile loop)."""
    return step.tile % p.stages if step.tile is not None else 0


def _role(p: WgmmaParams, thread: int) -> str:
    tid, group = kernel.thread_xy(p, thread)
    if group:
        return "consumer"
    return "producer" if tid == 0 else "idle producer"


def describe(step: Step, p: WgmmaParams, thread: int) -> str:
    """What one thread does in this step, in words."""
    role = _role(p, thread)
    number = _stage(step, p)
    stage = f"stage {number}"
    if step.lines == kernel.INIT:
        return f"sets up {count(2 * p.stages, 'mbarrier')}" if thread == 0 else "skips the barriers' set-up"
    if step.barrier:
        return "waits at the barrier"
    producing = step.lines in (kernel.WAIT_EMPTY, kernel.EXPECT, kernel.TMA_A, kernel.TMA_B)
    if producing and role != "producer":
        return IDLE
    if not producing and role != "consumer" and step.lines != kernel.SETUP:
        return _producer_elsewhere(step, p, role)
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


def _producer_elsewhere(step: Step, p: WgmmaParams, role: str) -> str:
    """A producer thread at a consumer step: the copying thread runs ahead to its next refill, if it has one."""
    if role == "idle producer":
        return IDLE
    if step.tile is not None and step.tile + p.stages < p.tiles:
        return (
            f"takes no part here: it waits for the consumers to release stage {_stage(step, p)}, "
            f"then copies tile {step.tile + p.stages + 1} of {p.tiles} into it"
        )
    return "has finished: it has issued its last copy"


def position(step: Step, p: WgmmaParams) -> str:
    """'Block (0,1), tile 2 of 4 (stage 1), k=8': where the step is (#/wgmma's focus line)."""
    return tiled.stage_position(step, p.tiles, p.stages, p.BK, "k")


def narrate(step: Step, p: WgmmaParams, thread: int) -> str:
    tid, group = kernel.thread_xy(p, thread)
    where = f"tile {step.tile + 1} of {p.tiles}" if step.tile is not None else step.phase
    return (
        f"{where}: thread {thread} (thread {tid} of warpgroup {group}, {_role(p, thread)}) {describe(step, p, thread)}."
    )


def phase_detail(step: Step, p: WgmmaParams) -> str:
    """What the whole block is doing in this step."""
    stage = _stage(step, p)
    if step.phase == "load" and step.accesses:
        return (
            f"TMA: one instruction copies a {len(step.accesses[1].rows):,}-float box of "
            f"{step.accesses[0].array} into shared memory, 128-byte swizzled, and counts its bytes on full[{stage}]."
        )
    if step.lines == kernel.WGMMA:
        who = (
            f"the consumer warpgroup ({WARPGROUP} threads)"
            if p.consumers == 1
            else f"each of the {p.consumers} consumer warpgroups ({WARPGROUP} threads each)"
        )
        return (
            f"wgmma: {who} issues "
            f"{count(p.MITER, f'm64n{p.BN}k8')}, A and B read from shared memory through their descriptors."
        )
    return BLOCK_SENTENCES[step.lines].format(stage=stage, bytes=f"{p.stage_bytes:,}")


# The block's part in each other statement of the listing ({stage}: the step's stage).
BLOCK_SENTENCES = {
    kernel.SETUP: "Setup: every thread works out its warpgroup, its place in it and the number of tiles.",
    kernel.INIT: "Setup: thread 0 initialises each stage's two mbarriers: full (its bytes have landed) and empty "
    "(every consumer is done with it).",
    kernel.SYNC_INIT: "__syncthreads: no thread touches a barrier before it is initialised (the kernel's only "
    "block-wide barrier).",
    kernel.WAIT_EMPTY: "mbarrier: the producer waits until every consumer warpgroup has released stage {stage}, "
    "which it is about to refill.",
    kernel.EXPECT: "expect_tx: the producer tells full[{stage}] to expect {bytes} bytes; it completes when the "
    "stage's copies have brought them all.",
    kernel.WAIT_FULL: "mbarrier: the consumers wait until this tile's bytes have landed in stage {stage}.",
    kernel.WGMMA_WAIT: "commit and wait: each consumer warpgroup waits until its wgmmas, which run asynchronously, "
    "have finished reading stage {stage}.",
    kernel.RELEASE: "release: thread 0 of each consumer warpgroup arrives on empty[{stage}], so the producer may "
    "refill the stage.",
    kernel.STORE: "Store: each consumer thread writes its accumulators to C as float2 pairs; the producer has "
    "finished.",
}
