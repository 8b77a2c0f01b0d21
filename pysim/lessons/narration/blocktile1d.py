"""What the page says about the steps of the blocktile1d kernel (pysim/kernels/k04_blocktile1d.py)."""

from __future__ import annotations

import numpy as np

from ...core.trace import Step
from ...core.words import count, plural
from ...hardware.blocktile_params import Blocktile1DParams
from ...kernels import k04_blocktile1d as kernel
from . import tiled


def describe(step: Step, p: Blocktile1DParams, thread: int) -> str:
    """What one thread does in this step, in words."""
    col, row = kernel.thread_xy(p, thread)
    if step.phase == "setup":
        return f"owns rows {row * p.TM}..{row * p.TM + p.TM - 1} of column {col} of the block tile"
    if step.phase == "barrier":
        return "waits at __syncthreads()"
    if step.phase == "load":
        return tiled.describe_load(step, thread)
    tmp = step.registers["tmpB"][thread]
    if step.lines == kernel.LOAD_TMP:
        return f"tmpB = Bs[{step.k}][{col}] = {tmp:g}"
    if step.phase == "compute":
        (i,) = step.inner
        a = step.shared["As"][row * p.TM + i, step.k]
        value = step.registers["threadResults"][thread, i]
        return f"threadResults[{i}] += As[{row * p.TM + i}][{step.k}]·tmpB = {a:g}·{tmp:g} → {value:g}"
    stored = int(np.count_nonzero(step.accesses[0].active[:, thread]))
    return f"stores {stored} of its {count(p.TM, 'result')} to C"


def position(step: Step, p: Blocktile1DParams) -> str:
    return tiled.position(step, p.BK, p.tiles, ("resIdx",))


def narrate(step: Step, p: Blocktile1DParams, thread: int) -> str:
    col, row = kernel.thread_xy(p, thread)
    return f"{position(step, p)}: thread {thread} (threadCol={col}, threadRow={row}) {describe(step, p, thread)}."


def phase_detail(step: Step, p: Blocktile1DParams) -> str:
    """What the whole block is doing in this step."""
    if step.phase == "setup":
        return f"Setup: {count(p.threads, 'thread')} {plural(p.threads, 'takes', 'each take')} {count(p.TM, 'row')} of one column of the {p.BM}×{p.BN} tile."
    if step.phase == "barrier":
        return tiled.barrier_detail(step, kernel.SYNC_LOADED)
    if step.phase == "load":
        return tiled.load_detail(step, p.threads)
    if step.lines == kernel.LOAD_TMP:
        return f"dotIdx={step.k}: each thread reads one value of row {step.k} of Bs into tmpB (1 shared read)."
    if step.phase == "compute":
        (i,) = step.inner
        return (
            f"dotIdx={step.k}, resIdx={i}: every thread reads one value of As and multiplies it by tmpB: "
            f"tmpB serves {p.TM} FMAs, so shared reads per FMA are (TM+1)/TM = {(p.TM + 1) / p.TM:.3g}."
        )
    return tiled.store_detail(step)
