"""What the page says about the steps of the naive kernel (pysim/kernels/k01_naive.py): the
sentences of the live region, the thread monitor and the phase line, from each step's record."""

from __future__ import annotations

from ...core.trace import Step
from ...hardware.params import NaiveParams
from ...kernels import k01_naive as kernel


def describe(step: Step, p: NaiveParams, thread: int) -> str:
    row, col = kernel.element(p, step.block, thread)
    if row >= p.M or col >= p.N:
        return "has returned (outside C)"
    if step.phase == "setup":
        return f"computes row={row}, col={col}"
    if step.phase == "compute":
        return f"sum += A[{row}][{step.k}]·B[{step.k}][{col}] → {step.registers['sum'][thread]:g}"
    return f"stores C[{row}][{col}] = {step.registers['sum'][thread]:g}"


def narrate(step: Step, p: NaiveParams, thread: int) -> str:
    tx, ty = kernel.thread_xy(p, thread)
    where = f"Block ({step.block[0]},{step.block[1]})" + (f", k={step.k}" if step.k is not None else "")
    return f"{where}: thread ({tx},{ty}) {describe(step, p, thread)}."
