"""Sentences the blocktiled kernels (blocktile1d, vectorized, warptile) share: where the block is in its
loops, its barriers and its copies into shared memory; and where a multi-stage kernel's step is (mma, wgmma).
Not a kernel key: no kernel is registered under this name."""

from __future__ import annotations

import numpy as np

from ...core.instructions import WIDTHS_CAVEAT
from ...core.trace import Access, Step
from ...core.warps import INACTIVE
from ...core.words import count, plural


def position(step: Step, BK: int, tiles: int, inner_names: tuple[str, ...]) -> str:
    """'Block (0,1), bkIdx 8 (slice 2 of 4), dotIdx=3, resIdx=2'."""
    where = f"Block ({step.block[0]},{step.block[1]})"
    if step.tile is not None:
        where += f", bkIdx {step.tile * BK} (slice {step.tile + 1} of {tiles})"
    if step.k is not None:
        where += f", dotIdx={step.k}"
    where += "".join(f", {name}={value}" for name, value in zip(inner_names, step.inner))
    return where


def stage_position(step: Step, tiles: int, stages: int, BK: int, k_name: str) -> str:
    """'Block (0,1), tile 2 of 4 (stage 1), kk=8': where a multi-stage kernel's step is (#/mma, #/wgmma)."""
    parts = [f"Block ({step.block[0]},{step.block[1]})"]
    if step.tile is not None:
        parts.append(f"tile {step.tile + 1} of {tiles} (stage {step.tile % stages})")
    if step.k is not None:
        parts.append(f"{k_name}={step.k % BK}")
    return ", ".join(parts)


def values(row: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:g}" for v in np.ravel(row)) + "]"


def _vector(access: Access) -> str:
    return f" as float4s ({access.width} floats per load)" if access.width > 1 else ""


def describe_load(step: Step, thread: int) -> str:
    """What one thread copies into shared memory in a load step."""
    source, tile = step.accesses
    loads = [
        f"{source.array}[{r}][{c}{'..' + str(c + source.width - 1) if source.width > 1 else ''}]"
        for r, c in zip(source.rows[:, thread], source.cols[:, thread])
        if r != INACTIVE
    ]
    zeros = len([c for c in tile.zero_cells() if c in tile.cells(thread)])
    text = f"copies {', '.join(loads)} into {tile.array}" if loads else f"copies nothing into {tile.array}"
    return text + (f" and writes {count(zeros, 'zero')} (edge)" if zeros else "")


BITS = {1: "32-bit", 2: "64-bit", 4: "128-bit"}


def issued_loads(step: Step, number: int, unsure: bool) -> str:
    """The shared loads a thread issues for the step's access `number`, as nvcc issues them in pysim's model
    (`step.issues`: merged rows as one wider load, rows served by another step's load left out), e.g. '1 64-bit
    load' or '2 128-bit loads'; `unsure` adds that where the loop is long these are the model's widths."""
    access = step.accesses[number]
    rows = step.issues.get(number) or [(access.width, 0)] * access.rows.shape[0]
    widths = [width for width, _ in rows if width]
    parts = [count(widths.count(width), f"{BITS[width]} load") for width in (4, 2, 1) if width in widths]
    said = " and ".join(parts) or "no new load (an earlier step's load brought these values)"
    return said + (WIDTHS_CAVEAT if unsure else "")


def load_detail(step: Step, threads: int) -> str:
    """What the block does in a load step."""
    source, tile = step.accesses
    zeros = len(tile.zero_cells())
    text = (
        f"Load: {count(threads, 'thread')} {plural(threads, 'copies', 'copy')} {count(source.elements, 'element')} of {source.array} into {tile.array}"
        f"{_vector(source)}, {count(source.rows.shape[0], 'load instruction')} per thread"
    )
    if tile.array == "As" and tile.rows.shape[0] > source.rows.shape[0]:
        text += "; As is stored transposed (As[k][m]), one store per float"
    return text + (
        f"; {count(zeros, 'cell')} outside {source.array} {plural(zeros, 'gets', 'get')} 0 (edge)." if zeros else "."
    )


def barrier_detail(step: Step, sync_loaded: tuple[int, ...]) -> str:
    if step.lines == sync_loaded:
        return "Barrier: As and Bs must be complete before any thread reads them."
    return "Barrier: no thread may overwrite As/Bs while another still reads them."


def store_detail(step: Step) -> str:
    store = step.accesses[0]
    return (
        f"Store: the threads write {count(store.elements, 'result')} from registers to C{_vector(store)} "
        f"(elements outside C are skipped)."
    )
