"""What the page says about the steps of the vectorized kernel (pysim/kernels/k06_vectorized.py)."""

from __future__ import annotations

import numpy as np

from ...core.instructions import widths_unsure
from ...core.trace import Step
from ...core.words import count, plural
from ...hardware.blocktile_params import VectorizedParams
from ...kernels import k06_vectorized as kernel
from . import tiled


def describe(step: Step, p: VectorizedParams, thread: int) -> str:
    """What one thread does in this step, in words."""
    tx, ty = kernel.thread_xy(p, thread)
    if step.phase == "setup":
        return f"owns rows {ty * p.TM}..{ty * p.TM + p.TM - 1}, columns {tx * p.TN}..{tx * p.TN + p.TN - 1} of the block tile"
    if step.phase == "barrier":
        return "waits at __syncthreads()"
    if step.phase == "load":
        return tiled.describe_load(step, thread)
    if step.lines == kernel.LOAD_M:
        return (
            f"regM = As[{step.k}][{ty * p.TM}..{ty * p.TM + p.TM - 1}] = {tiled.values(step.registers['regM'][thread])}"
        )
    if step.lines == kernel.LOAD_N:
        return (
            f"regN = Bs[{step.k}][{tx * p.TN}..{tx * p.TN + p.TN - 1}] = {tiled.values(step.registers['regN'][thread])}"
        )
    if step.phase == "compute":
        (i,) = step.inner
        row = step.registers["threadResults"][thread, i]
        return f"Res[{i},0..{p.TN - 1}] += regM[{i}]·regN → {tiled.values(row)}"
    stored = int(np.count_nonzero(step.accesses[0].active[:, thread]))
    return f"stores {count(stored, 'float4')} of its {count(p.TM * p.TN, 'result')} to C"


def position(step: Step, p: VectorizedParams) -> str:
    return tiled.position(step, p.BK, p.tiles, ("resIdxM",))


def narrate(step: Step, p: VectorizedParams, thread: int) -> str:
    tx, ty = kernel.thread_xy(p, thread)
    return f"{position(step, p)}: thread {thread} (threadCol={tx}, threadRow={ty}) {describe(step, p, thread)}."


def phase_detail(step: Step, p: VectorizedParams) -> str:
    """What the whole block is doing in this step."""
    if step.phase == "setup":
        return f"Setup: {count(p.threads, 'thread')} {plural(p.threads, 'takes', 'each take')} one {p.TM}×{p.TN} patch of the {p.BM}×{p.BN} block tile."
    if step.phase == "barrier":
        return tiled.barrier_detail(step, kernel.SYNC_LOADED)
    if step.phase == "load":
        return tiled.load_detail(step, p.threads)
    if step.lines in (kernel.LOAD_M, kernel.LOAD_N):
        access = step.accesses[0]
        length = p.TM if access.array == "As" else p.TN
        return (
            f"dotIdx={step.k}: each thread reads {count(length, 'consecutive value')} of row {step.k} of {access.array} "
            f"with {tiled.issued_loads(step, 0, widths_unsure(kernel, p))}."
        )
    if step.phase == "compute":
        (i,) = step.inner
        return f"Outer product, dotIdx={step.k}: every thread adds regM[{i}]·regN[0..{p.TN - 1}] to row {i} of its results."
    return tiled.store_detail(step)
