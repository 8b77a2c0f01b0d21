"""What a run produced: `RunResult` (C, counters, diagnostics) and its `IntervalRecord`s to step through.

result.counters          # SPEC §2 counters (pysim.core.counters.Counters)
result.c_matches         # C, as the threads stored it, equals NumPy's A @ B
result.diagnostics       # races, out-of-bounds, barrier divergence, step budget, errors
result.intervals[i]      # one barrier interval of one block (see IntervalRecord)
result.intervals[i].thread_steps(thread)   # that thread's statements and accesses, in order
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..core.constants import WORD_BYTES
from ..core.counters import Counters
from ..core.trace import Access, Step
from .columns import C_ARRAY, FIRST_ALLOCATION, ROW_COLUMNS, Row
from .counting import Counted, Lockstep, Metrics
from .diagnostics import Diagnostic
from .instructions import WarpInstruction, warp_instructions
from .intrinsics import DTYPE_BYTES
from .launch import Launch
from .program import Allocation, Program
from .replay import AccessRecord, Decoder, ThreadStep
from .spills import spilled


@dataclass(frozen=True, eq=False)
class IntervalRecord:
    """One barrier interval of one block: from a barrier (or the start) to the next (or the end).

    `step` is a pysim.core.trace.Step whose accesses are the interval's warp
    instructions (one Access per source subscript, one row per occurrence), so
    the sector and bank panels read it as they read the built-in kernels'
    steps; it is built when first asked for. `barrier_lines` are the lines of
    the cuda.syncthreads() the threads wait at when the interval ends (empty
    when they finished).
    """

    index: int
    block: tuple[int, ...]
    number: int
    barrier_lines: tuple[int, ...]
    threads: tuple[int, ...]  # linear ids (tx + ty·blockDim.x) that ran in this interval
    finished: tuple[int, ...]  # threads that ended in this interval
    _streams: dict[int, list[int]] = field(repr=False)  # the statements each thread executed
    _decoder: Decoder = field(repr=False)
    _counted: Counted = field(repr=False)

    @property
    def delta(self) -> Counters:
        return self._counted.delta

    @property
    def counters(self) -> Counters:
        """Cumulative after this interval."""
        return self._counted.counters

    @cached_property
    def _built(self) -> tuple[Step, Lockstep]:
        return self._decoder.step(self._counted)

    @property
    def step(self) -> Step:
        return self._built[0]

    @property
    def accesses(self) -> tuple[Access, ...]:
        return self.step.accesses

    def rows(self) -> np.ndarray:
        """Its global and shared accesses in execution order, `Row`'s columns (pysim.play.table.Chunk.interval_rows)."""
        return self._counted.rows()

    def thread_steps(self, thread: int | tuple[int, ...]) -> tuple[ThreadStep, ...]:
        """What `thread` (linear id or (tx, ty)) did in this interval, statement by statement."""
        linear = self._decoder.linear(thread)
        return self._decoder.steps(self._streams.get(linear, []), self._counted.thread_records(linear), self._built[1])

    def lines(self) -> tuple[int, ...]:
        """Every source line some thread executed in this interval, in order of first execution."""
        seen: dict[int, None] = {}
        statements = self._decoder.program.statements
        for stream in self._streams.values():
            for item in stream:
                seen.setdefault(statements[item].line, None)
        return tuple(seen)

    def records(self) -> list[tuple[tuple[int, ...], AccessRecord]]:
        """Every access of every thread in this interval, thread by thread: ((tx, ty), record)."""
        found: list[tuple[tuple[int, ...], AccessRecord]] = []
        for thread in self.threads:
            xy = self._decoder.xy(thread)
            for step in self.thread_steps(thread):
                found.extend((xy, record) for record in step.accesses)
        return found


def _fill(target: np.ndarray, stores: np.ndarray) -> None:
    """Write store rows (`Row`'s columns) into `target`, in order: the last store to a word is the one it keeps."""
    words = stores[:, Row.WORD].astype(np.int64)
    flat = target.reshape(-1)
    inside = (words >= 0) & (words < flat.size)
    flat[words[inside]] = stores[inside, Row.VALUE]


@dataclass(frozen=True, eq=False)
class RunResult:
    """Everything a run produced: C, counters, diagnostics and (kept) the intervals to step through."""

    program: Program
    M: int
    N: int
    K: int
    launch: Launch
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray  # what the threads stored (C starts as zeros, as in the SPEC §5 contract)
    expected: np.ndarray  # NumPy's answer (A @ B unless a puzzle says otherwise)
    counters: Counters
    metrics: Metrics
    diagnostics: tuple[Diagnostic, ...]
    intervals: tuple[IntervalRecord, ...]  # empty when run with keep=False
    loaded: tuple[np.ndarray, np.ndarray]  # which elements of A and of B some thread loaded (masks)
    completed: bool  # every thread of every block ran to its end
    steps: int  # statements executed plus accesses recorded, all threads

    @cached_property
    def mismatches(self) -> int:
        """Elements of C that differ from NumPy's answer (NaN counts as different)."""
        return int(np.count_nonzero(~(self.C == self.expected)))

    @property
    def c_matches(self) -> bool:
        return self.mismatches == 0

    @cached_property
    def max_error(self) -> float:
        difference = np.abs(self.C.astype(np.float64) - self.expected.astype(np.float64))
        return float(np.nanmax(np.where(np.isnan(difference), np.inf, difference))) if difference.size else 0.0

    def first_mismatch(self) -> tuple[int, int] | None:
        found = np.argwhere(~(self.C == self.expected))
        return (int(found[0][0]), int(found[0][1])) if len(found) else None

    def mismatched_cells(self) -> list[tuple[int, int]]:
        """Every (row, col) where C differs from NumPy's answer."""
        return [(int(r), int(c)) for r, c in np.argwhere(~(self.C == self.expected))]

    def role_of(self, array: str) -> str:
        """ "A", "B" or "C" for the kernel's names of its three parameters; any other array keeps its name."""
        return dict(zip(self.program.params, ("A", "B", "C"))).get(array, array)

    @property
    def shared_allocations(self) -> tuple[Allocation, ...]:
        return tuple(a for a in self.program.allocations if a.space == "shared")

    def next_block_interval(self, index: int) -> int:
        """The first interval of the next block after interval `index` (the last interval when none)."""
        block = self.intervals[index].block
        for later in range(index + 1, len(self.intervals)):
            if self.intervals[later].block != block:
                return later
        return len(self.intervals) - 1

    def _stores(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The stores of intervals first..last in execution order (`Row`'s columns), and the interval of each."""
        parts = [interval.rows() for interval in self.intervals[first : last + 1]]
        if not parts:
            return np.zeros((0, ROW_COLUMNS)), np.zeros(0, dtype=np.int64)
        rows = np.concatenate(parts)
        of = np.repeat(np.arange(first, first + len(parts)), [len(part) for part in parts])
        keep = self._store_sites[rows[:, Row.SITE].astype(np.int64)]
        return rows[keep], of[keep]

    @cached_property
    def _store_sites(self) -> np.ndarray:
        """Per site of the program: a store."""
        return np.array([site.op == "store" for site in self.program.sites] or [False])

    def memory_after(self, index: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The shared arrays of interval `index`'s block (as matrices, Allocation.grid_shape) and C, as the
        recorded stores left them after that interval; NaN where nothing was stored."""
        block = self.intervals[index].block
        first = index  # a block's intervals run one after another
        while first > 0 and self.intervals[first - 1].block == block:
            first -= 1
        c = np.full(self.C.shape, np.nan, dtype=np.float32)
        stores, of = self._stores(0, index)
        _fill(c, stores[stores[:, Row.ARRAY] == C_ARRAY])
        stores = stores[of >= first]
        shared = {}
        for number, allocation in enumerate(self.program.allocations):
            if allocation.space == "shared":
                # 8-byte values keep every digit (the page marks them float64 or int64)
                wide = DTYPE_BYTES[allocation.dtype] > WORD_BYTES
                grid = np.full(allocation.grid_shape, np.nan, dtype=np.float64 if wide else np.float32)
                _fill(grid, stores[stores[:, Row.ARRAY] == FIRST_ALLOCATION + number])
                shared[allocation.name] = grid
        return shared, c

    def storer_of(self, row: int, col: int) -> tuple[int, int] | None:
        """(interval, linear thread) of the first recorded store to C[row, col]; None when none stored it."""
        stores, of = self._stores(0, len(self.intervals) - 1)
        hits = np.flatnonzero((stores[:, Row.ARRAY] == C_ARRAY) & (stores[:, Row.WORD] == row * self.C.shape[1] + col))
        return (int(of[hits[0]]), int(stores[hits[0], Row.THREAD])) if len(hits) else None

    def warp_instructions(self, index: int) -> Iterator[WarpInstruction]:
        """The warp instructions of interval `index` (see pysim.play.instructions)."""
        return warp_instructions(self.program, self.intervals[index].step)

    def diagnostics_of(self, kind: str) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.kind == kind)

    def as_dict(self) -> dict:
        """The CLI's JSON (SPEC §5): the §2 counters, c_matches, diagnostics, and context."""
        mismatch = self.first_mismatch()
        return {
            "M": self.M,
            "N": self.N,
            "K": self.K,
            "grid": list(self.launch.grid),
            "block": list(self.launch.block),
            **self.counters.as_dict(),
            "c_matches": self.c_matches,
            "mismatches": self.mismatches,
            "max_error": None if self.max_error == float("inf") else self.max_error,
            "first_mismatch": list(mismatch) if mismatch else None,
            "completed": self.completed,
            "steps": self.steps,
            "metrics": self.metrics.__dict__,
            # local arrays past the registers (pysim.play.spills): their accesses are metrics' local loads/stores
            "spills": [{"array": a.name, "words": a.words, "line": a.line} for a in spilled(self.program)],
            "diagnostics": [d.as_dict() for d in self.diagnostics],
        }
