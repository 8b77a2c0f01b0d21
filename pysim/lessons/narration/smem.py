"""What the page says about the steps of the smem kernel (pysim/kernels/k03_smem_tiled.py): the
sentences of the live region, the thread monitor and the phase line, from each step's record."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.trace import Cell, Step
from ...core.warps import INACTIVE
from ...core.words import count, each_of, plural
from ...hardware.params import SmemParams
from ...kernels import k03_smem_tiled as kernel


def describe(step: Step, p: SmemParams, thread: int) -> str:
    """What one thread does in this step, in words (monitor table and narration)."""
    tx, ty = kernel.thread_xy(p, thread)
    if step.phase == "setup":
        return f"computes globalRow={step.block[1] * p.T + ty}, globalCol={step.block[0] * p.T + tx}"
    if step.phase == "barrier":
        return "waits at __syncthreads()"
    if step.phase == "load":
        source, tile = step.accesses
        assert tile.zero_fill is not None  # a guarded load's shared store records its zero fills
        if bool(tile.zero_fill[0, thread]):
            return f"writes 0 to {tile.array}[{ty}][{tx}] (edge: outside {source.array})"
        return f"loads {source.array}[{source.rows[0, thread]}][{source.cols[0, thread]}] into {tile.array}[{ty}][{tx}]"
    if step.phase == "compute":
        k = step.k
        a, b = step.shared["tileA"][ty, k], step.shared["tileB"][k, tx]
        return (
            f"partialSum += tileA[{ty}][{k}]·tileB[{k}][{tx}] = {a:g}·{b:g} → {step.registers['partialSum'][thread]:g}"
        )
    store = step.accesses[0]
    if store.rows[0, thread] == INACTIVE:
        return "stores nothing (outside C)"
    return f"stores C[{store.rows[0, thread]}][{store.cols[0, thread]}] = {step.registers['partialSum'][thread]:g}"


def narrate(step: Step, p: SmemParams, thread: int) -> str:
    """One sentence for the live region: where we are and what the followed thread does."""
    tx, ty = kernel.thread_xy(p, thread)
    where = f"Block ({step.block[0]},{step.block[1]})"
    if step.tile is not None:
        where += f", tile {step.tile + 1} of {p.tiles}"
        if step.k is not None:
            where += f", k={step.k}"
    return f"{where}: thread ({tx},{ty}) {describe(step, p, thread)}."


@dataclass(frozen=True)
class Term:
    """One product of the followed thread's dot product within the current tile."""

    k: int
    a: float
    b: float
    done: bool
    current: bool

    @property
    def product(self) -> float:
        return float(np.float32(self.a) * np.float32(self.b))


@dataclass(frozen=True)
class Lens:
    """The selected-thread lens: its tileA row, tileB column and dot-product timeline.

    `carried` is what partialSum brought into the current tile from earlier tiles,
    so carried + the done terms = partial_sum. `terms` is empty while the tile is
    still being loaded; `final` marks the store, where partial_sum is C's value.
    """

    row: np.ndarray
    column: np.ndarray
    terms: tuple[Term, ...]
    carried: float
    partial_sum: float
    target: Cell | None
    final: bool

    @property
    def done_sum(self) -> float:
        return float(sum(np.float32(term.product) for term in self.terms if term.done))


def lens(step: Step, p: SmemParams, thread: int) -> Lens:
    tx, ty = kernel.thread_xy(p, thread)
    tileA, tileB = step.shared["tileA"], step.shared["tileB"]
    loaded = step.phase in ("compute", "store") or step.lines in (kernel.SYNC_LOADED, kernel.SYNC_DONE)
    if step.phase == "compute":
        assert step.k is not None  # every compute step names its k
        last_done = step.k
    elif step.lines == kernel.SYNC_LOADED:
        last_done = -1
    else:
        last_done = p.T - 1
    terms = (
        tuple(Term(k, float(tileA[ty, k]), float(tileB[k, tx]), k <= last_done, k == step.k) for k in range(p.T))
        if loaded
        else ()
    )
    owned = kernel.focus(p, step, thread).owned
    return Lens(
        tileA[ty, :].copy(),
        tileB[:, tx].copy(),
        terms,
        float(step.registers["tileStartSum"][thread]),
        float(step.registers["partialSum"][thread]),
        owned[0] if owned else None,
        step.phase == "store",
    )


def phase_detail(step: Step, p: SmemParams) -> str:
    """What the whole block is doing in this step."""
    threads = p.T * p.T
    if step.phase == "setup":
        return f"Setup: {each_of(threads, 'thread')} computes which element of C it owns; partialSum starts at 0."
    if step.phase == "barrier":
        if step.lines == kernel.SYNC_LOADED:
            return "Barrier: no thread may read the tiles until every thread has written its element."
        return "Barrier: no thread may load the next tile while another still reads this one."
    if step.phase == "load":
        source, tile = step.accesses
        zeros = len(tile.zero_cells())
        loaded = int(np.count_nonzero(source.active))
        text = f"Cooperative load: {count(loaded, 'thread')} {plural(loaded, 'copies', 'each copy')} one element of {source.array} from global memory into {tile.array}"
        return text + (
            f"; {count(zeros, 'thread')} outside {source.array} {plural(zeros, 'writes', 'write')} 0 instead (edge tile)."
            if zeros
            else "."
        )
    if step.phase == "compute":
        return (
            f"Compute, k={step.k}: every thread reads tileA[ty][{step.k}] and tileB[{step.k}][tx] from shared memory "
            f"and adds their product to partialSum ({count(threads, 'FMA')})."
        )
    stored = int(np.count_nonzero(step.accesses[0].active))
    return f"Store: {count(stored, 'thread')} {plural(stored, 'writes', 'write')} partialSum to C; threads outside C write nothing."
