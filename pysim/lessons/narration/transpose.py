"""What the page says about the steps of the transpose kernel (pysim/kernels/k03_tilelab_transpose.py): the
sentences of the live region, the thread monitor and the phase line, from each step's record."""

from __future__ import annotations

from ...core.banks import bank_of
from ...core.trace import Step
from ...core.warps import INACTIVE
from ...hardware.params import TransposeParams
from ...kernels import k03_tilelab_transpose as kernel


def describe(step: Step, p: TransposeParams, thread: int) -> str:
    tx, ty = kernel.thread_xy(p, thread)
    if step.phase == "setup":
        return f"computes x={step.block[0] * p.TILE + tx}, y={step.block[1] * p.TILE + ty}"
    if step.phase == "barrier":
        return "waits at __syncthreads()"
    if step.phase == "load":
        if not step.accesses[0].active[0, thread]:  # the guard: outside A, 0 goes into the tile
            return f"writes 0 to tile[{ty}][{tx}] (edge: outside A)"
        return f"copies A[{step.block[1] * p.TILE + ty}][{step.block[0] * p.TILE + tx}] into tile[{ty}][{tx}]"
    words = step.accesses[0]
    if words.rows[0, thread] == INACTIVE:
        return "stores nothing (outside C)"
    return f"reads tile[{tx}][{ty}] (bank {bank_of(tx * (p.TILE + p.pad) + ty)}) and stores it to C"


def narrate(step: Step, p: TransposeParams, thread: int) -> str:
    tx, ty = kernel.thread_xy(p, thread)
    return f"Block ({step.block[0]},{step.block[1]}): thread ({tx},{ty}) {describe(step, p, thread)}."
