"""What the page says about the steps of the register kernel (pysim/kernels/k05_register_tiled.py): the
sentences of the live region, the thread monitor and the phase line, from each step's record."""

from __future__ import annotations

import numpy as np

from ...core.trace import Step
from ...core.warps import INACTIVE
from ...core.words import count, plural
from ...hardware.params import RegisterParams
from ...kernels import k05_register_tiled as kernel


def describe(step: Step, p: RegisterParams, thread: int) -> str:
    """What one thread does in this step, in words."""
    tx, ty = kernel.thread_xy(p, thread)
    if step.phase == "setup":
        return f"owns rows {ty * p.TM}..{ty * p.TM + p.TM - 1}, columns {tx * p.TN}..{tx * p.TN + p.TN - 1} of the block tile"
    if step.phase == "barrier":
        return "waits at __syncthreads()"
    if step.phase == "load":
        source, tile = step.accesses
        assert tile.zero_fill is not None  # a guarded load's shared store records its zero fills
        loads = [
            f"{source.array}[{r}][{c}]" for r, c in zip(source.rows[:, thread], source.cols[:, thread]) if r != INACTIVE
        ]
        zeros = int(np.count_nonzero(tile.zero_fill[:, thread]))
        text = f"copies {', '.join(loads)} into {tile.array}" if loads else f"copies nothing into {tile.array}"
        return text + (f" and writes {count(zeros, 'zero')} (edge)" if zeros else "")
    if step.lines == kernel.LOAD_M:
        return f"regM = As[{ty * p.TM}..{ty * p.TM + p.TM - 1}][{step.k}] = {_values(step.registers['regM'][thread])}"
    if step.lines == kernel.LOAD_N:
        return f"regN = Bs[{step.k}][{tx * p.TN}..{tx * p.TN + p.TN - 1}] = {_values(step.registers['regN'][thread])}"
    if step.phase == "compute":
        assert step.pair is not None  # every compute step names its (i, j)
        i, j = step.pair
        value = step.registers["threadResults"][thread, i, j]
        return f"Res[{i},{j}] += regM[{i}]·regN[{j}] = {step.registers['regM'][thread, i]:g}·{step.registers['regN'][thread, j]:g} → {value:g}"
    stored = int(np.count_nonzero(step.accesses[0].active[:, thread]))
    return f"stores {stored} of its {count(p.TM * p.TN, 'result')} to C"


def _values(row: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:g}" for v in row) + "]"


def position(step: Step, p: RegisterParams) -> str:
    """Where the block is in its loops: block, bkIdx slice, dotIdx and the FMA pair."""
    where = f"Block ({step.block[0]},{step.block[1]})"
    if step.tile is not None:
        where += f", bkIdx {step.tile * p.BK} (slice {step.tile + 1} of {p.tiles})"
    if step.k is not None:
        where += f", dotIdx={step.k}"
    if step.pair is not None:
        where += f", FMA ({step.pair[0]},{step.pair[1]})"
    return where


def narrate(step: Step, p: RegisterParams, thread: int) -> str:
    tx, ty = kernel.thread_xy(p, thread)
    return f"{position(step, p)}: thread {thread} (tx={tx}, ty={ty}) {describe(step, p, thread)}."


def phase_detail(step: Step, p: RegisterParams) -> str:
    """What the whole block is doing in this step."""
    n = p.threads
    if step.phase == "setup":
        return f"Setup: {count(n, 'thread')} {plural(n, 'takes', 'each take')} one {p.TM}×{p.TN} patch of the {p.BM}×{p.BN} block tile; results start at 0."
    if step.phase == "barrier":
        if step.lines == kernel.SYNC_LOADED:
            return "Barrier: As and Bs must be complete before any thread reads them."
        return "Barrier: no thread may overwrite As/Bs while another still reads them."
    if step.phase == "load":
        source, tile = step.accesses
        loaded = int(np.count_nonzero(source.active))
        zeros = len(tile.zero_cells())
        passes = source.rows.shape[0]
        text = f"Cooperative load: {count(n, 'thread')} {plural(n, 'copies', 'copy')} {count(loaded, 'element')} of {source.array} into {tile.array} in {count(passes, 'pass', 'passes')}"
        return text + (
            f"; {count(zeros, 'cell')} outside {source.array} {plural(zeros, 'gets', 'get')} 0 (edge)."
            if zeros
            else "."
        )
    if step.lines == kernel.LOAD_M:
        return f"dotIdx={step.k}: each thread copies {count(p.TM, 'value')} of column {step.k} of As into regM ({count(p.TM, 'shared read')})."
    if step.lines == kernel.LOAD_N:
        return f"dotIdx={step.k}: each thread copies {count(p.TN, 'value')} of row {step.k} of Bs into regN ({count(p.TN, 'shared read')})."
    if step.phase == "compute":
        assert step.pair is not None  # every compute step names its (i, j)
        i, j = step.pair
        return f"Outer product, dotIdx={step.k}: every thread adds regM[{i}]·regN[{j}] to Res[{i},{j}], from registers only."
    stored = int(np.count_nonzero(step.accesses[0].active))
    return f"Store: the threads write {count(stored, 'result')} from registers to C (elements outside C are skipped)."
