"""Steps, accesses and the random-access trace the views walk.

A kernel module yields one Step per CUDA statement a block executes, with the
accesses it made and the values it left. The Trace numbers the steps, counts
each step's events from its recorded accesses, and adds the counts of earlier
blocks from per-block closed forms, so any step is reachable without replaying
the run. Only a few blocks' steps are kept in memory at a time.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any, Protocol

import numpy as np

from . import banks, sectors
from .counters import Counters
from .matrices import operands
from .warps import INACTIVE


@dataclass(frozen=True, eq=False)
class Access:
    """One statement's accesses to one array by every thread of the block.

    `rows` and `cols` are (instructions, threads): one row per warp-wide
    instruction the statement issues, INACTIVE where a thread makes no access.
    `stride` is the array's row length in words (padding included).
    """

    array: str
    space: str
    op: str
    rows: np.ndarray
    cols: np.ndarray
    stride: int
    zero_fill: np.ndarray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", np.atleast_2d(self.rows))
        object.__setattr__(self, "cols", np.atleast_2d(self.cols))
        if self.zero_fill is not None:
            object.__setattr__(self, "zero_fill", np.atleast_2d(self.zero_fill))

    @property
    def active(self) -> np.ndarray:
        return self.rows != INACTIVE

    @property
    def words(self) -> np.ndarray:
        """Element (word) index of each access in its array, INACTIVE where idle."""
        return np.where(self.active, self.rows * self.stride + self.cols, INACTIVE)

    def cells(self, thread: int | None = None) -> list[tuple[int, int]]:
        """Distinct (row, col) cells touched, by all threads or by one."""
        rows, cols, active = self.rows, self.cols, self.active
        if thread is not None:
            rows, cols, active = rows[:, thread], cols[:, thread], active[:, thread]
        return sorted({(int(r), int(c)) for r, c in zip(rows[active], cols[active])})

    def zero_cells(self) -> list[tuple[int, int]]:
        if self.zero_fill is None:
            return []
        mask = self.zero_fill & self.active
        return sorted({(int(r), int(c)) for r, c in zip(self.rows[mask], self.cols[mask])})


@dataclass(frozen=True, eq=False)
class Step:
    """What one CUDA statement did in one block; `counters` are cumulative after it."""

    phase: str  # setup | load | barrier | compute | store
    lines: tuple[int, int]  # first and last line of the kernel's CUDA source it executes
    accesses: tuple[Access, ...] = ()
    registers: dict[str, np.ndarray] = field(default_factory=dict)
    shared: dict[str, np.ndarray] = field(default_factory=dict)
    tile: int | None = None
    k: int | None = None
    pair: tuple[int, int] | None = None
    fma: int = 0
    register_reads: int = 0
    barrier: bool = False
    index: int = -1
    block: tuple[int, int] = (0, 0)
    block_number: int = 0
    delta: Counters = Counters()
    counters: Counters = Counters()

    def access(self, array: str) -> Access | None:
        return next((a for a in self.accesses if a.array == array), None)


def count_step(step: Step) -> Counters:
    """Count a step's events from what it recorded (SPEC §2)."""
    totals = {"fma": step.fma, "register_reads": step.register_reads, "barriers": int(step.barrier)}
    for access in step.accesses:
        n = int(np.count_nonzero(access.active))
        key = f"{access.space}_{access.op}s"
        totals[key] = totals.get(key, 0) + n
        if access.space == "global" and access.op == "load":
            totals["global_sectors"] = totals.get("global_sectors", 0) + int(sectors.warp_sectors(access.words).sum())
        if access.space == "shared":
            totals["bank_extra_cycles"] = totals.get("bank_extra_cycles", 0) + banks.extra_cycles(access.words)
    return Counters(**totals)


class Kernel(Protocol):
    """What a kernel module provides (see pysim/kernels/)."""

    NAME: str
    STATEMENT_LINES: frozenset[int]

    def source(self, params: Any) -> list[str]: ...
    def grid(self, params: Any) -> tuple[int, int]: ...
    def steps_per_block(self, params: Any) -> int: ...
    def block_steps(self, params: Any, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]: ...
    def block_counters(self, params: Any, bx: int, by: int) -> Counters: ...
    def run_c(self, params: Any, A: np.ndarray, B: np.ndarray) -> np.ndarray: ...
    def reference(self, A: np.ndarray, B: np.ndarray) -> np.ndarray: ...
    def c_region(self, params: Any, bx: int, by: int) -> tuple[slice, slice]: ...


class Trace:
    """Every step of one kernel run, reachable in any order."""

    def __init__(self, kernel: Kernel, params: Any, seed: int = 0, cached_blocks: int = 3) -> None:
        self.kernel = kernel
        self.params = params
        self.A, self.B = operands(params.M, params.N, params.K, seed)
        gx, gy = kernel.grid(params)
        self.blocks = [(bx, by) for by in range(gy) for bx in range(gx)]
        self.steps_per_block = kernel.steps_per_block(params)
        per_block = [kernel.block_counters(params, bx, by) for bx, by in self.blocks]
        self._before_block = [Counters(), *accumulate(per_block)]
        self._cached_blocks = cached_blocks
        self._cache: OrderedDict[int, _LazyBlock] = OrderedDict()
        self._c: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.blocks) * self.steps_per_block

    def __getitem__(self, index: int) -> Step:
        if not 0 <= index < len(self):
            raise IndexError(f"step {index} is outside 0..{len(self) - 1}")
        number, local = divmod(index, self.steps_per_block)
        return self._block(number).get(local)

    def __iter__(self) -> Iterator[Step]:
        for index in range(len(self)):
            yield self[index]

    @property
    def totals(self) -> Counters:
        return self._before_block[-1]

    def first_step(self, block_number: int) -> int:
        return block_number * self.steps_per_block

    def next_block_step(self, index: int) -> int:
        """First step of the block after the one holding `index` (or the last step)."""
        return min((index // self.steps_per_block + 1) * self.steps_per_block, len(self) - 1)

    def final_c(self) -> np.ndarray:
        if self._c is None:
            self._c = self.kernel.run_c(self.params, self.A, self.B)
        return self._c

    def verified(self) -> bool:
        """The simulated C equals NumPy's answer (A @ B; A.T for the transpose)."""
        return bool(np.array_equal(self.final_c(), self.kernel.reference(self.A, self.B)))

    def c_after(self, index: int) -> np.ndarray:
        """C as written by the end of step `index`; NaN where not yet stored."""
        c = np.full(self.final_c().shape, np.nan, dtype=np.float32)
        step = self[index]
        done = step.block_number + (1 if step.phase == "store" else 0)
        for bx, by in self.blocks[:done]:
            rows, cols = self.kernel.c_region(self.params, bx, by)
            c[rows, cols] = self.final_c()[rows, cols]
        return c

    def _block(self, number: int) -> _LazyBlock:
        if number in self._cache:
            self._cache.move_to_end(number)
            return self._cache[number]
        block = _LazyBlock(self._build_block(number))
        self._cache[number] = block
        if len(self._cache) > self._cached_blocks:
            self._cache.popitem(last=False)
        return block

    def _build_block(self, number: int) -> Iterator[Step]:
        bx, by = self.blocks[number]
        running = self._before_block[number]
        first = self.first_step(number)
        for offset, step in enumerate(self.kernel.block_steps(self.params, self.A, self.B, bx, by)):
            delta = count_step(step)
            running = running + delta
            yield replace(
                step, index=first + offset, block=(bx, by), block_number=number, delta=delta, counters=running
            )


class _LazyBlock:
    """A block's steps, generated only as far as someone has asked (stepping forward costs one step)."""

    def __init__(self, steps: Iterator[Step]) -> None:
        self._source = steps
        self._steps: list[Step] = []

    def get(self, local: int) -> Step:
        while len(self._steps) <= local:
            self._steps.append(next(self._source))
        return self._steps[local]
