"""The kernel playground: run a student's Numba-CUDA kernel (SPEC §5) on pysim.

    from pysim.play import run
    result = run(source, M=32, N=32, K=32)
    result.counters          # SPEC §2 counters (pysim.core.counters.Counters)
    result.c_matches         # C, as the threads stored it, equals NumPy's A @ B
    result.diagnostics       # races, out-of-bounds, barrier divergence, step budget, errors
    result.intervals[i]      # one barrier interval of one block (see IntervalRecord)
    result.intervals[i].thread_steps(thread)   # that thread's statements and accesses, in order

Pipeline: `program` checks the file against the subset and rewrites the kernel
into a generator; `runtime` schedules every thread of a block, barrier interval
by barrier interval, recording every access with its iteration vector; `analysis`
gathers the records of a few hundred intervals into one table and `table` counts
its warp instructions in bulk, as `pysim.core.trace.count_step` counts the Step each
interval shows (built only when a reader looks at it). `puzzles` holds the graded
exercises.

`run` raises `ProgramError` (with a line) only when the file cannot run at all:
not in the subset, a syntax error, a launch that asks for too many threads. A
kernel that runs but misbehaves gives a result with diagnostics, never an
exception.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter

import numpy as np

from ..core.counters import Counters
from ..core.matrices import operands
from ..core.trace import Access, Step
from .analysis import (
    Analysis,
    ArrayInfo,
    Counted,
    Diagnostic,
    Lockstep,
    Metrics,
    array_table,
    thread_xy,
)
from .compiler import compile_program
from .instructions import WarpInstruction, warp_instructions
from .memory import StaleReads
from .program import Allocation, Program, ProgramError
from .runtime import Interval, Launch, Runtime, Stop, evaluate_launch, global_array, schedule
from .table import warp_accesses

# Steps (statements executed, loop iterations and memory accesses, all threads) before a run is stopped. A
# 32×32×32 tiled SGEMM takes 170,000 to 245,000 (by tile size), a 64×64×64 naive one about 1,090,000, the
# 1D-blocktiling puzzle's 70×66×13 edge case about 1,670,000; the default keeps a runaway loop to a couple of
# seconds of CPython. The CLI allows more (`--max-steps`).
DEFAULT_MAX_STEPS = 2_500_000
# Accesses the analysis walks before it counts them in bulk (pysim.play.table): large enough that NumPy's
# per-call cost is spread over many intervals, small enough that the table stays a few megabytes.
CHUNK_ROWS = 1 << 15

__all__ = [
    "DEFAULT_MAX_STEPS",
    "AccessRecord",
    "Diagnostic",
    "IntervalRecord",
    "Launch",
    "Metrics",
    "Program",
    "ProgramError",
    "RunResult",
    "ThreadStep",
    "WarpInstruction",
    "compile_program",
    "run",
]


@dataclass(frozen=True)
class AccessRecord:
    """One thread's access to one array element, as it happened."""

    space: str  # global | shared | register
    op: str  # load | store
    array: str
    index: tuple[int, ...]  # (row, col), or (i,) for a 1-D array
    value: float
    line: int
    site: int  # which subscript of the source (Program.sites)
    occurrence: int  # its warp instruction: the row of the interval's Access for this site (one per iteration)

    def as_dict(self, thread: tuple[int, int]) -> dict:
        """SPEC §5 trace access object."""
        return {
            "space": self.space,
            "op": self.op,
            "array": self.array,
            "index": list(self.index),
            "thread": list(thread),
            "value": self.value,
        }


@dataclass(frozen=True)
class ThreadStep:
    """One statement one thread executed, with the accesses it made."""

    statement: int
    line: int
    accesses: tuple[AccessRecord, ...]


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
    block: tuple[int, int]
    number: int
    barrier_lines: tuple[int, ...]
    threads: tuple[int, ...]  # linear ids (tx + ty·blockDim.x) that ran in this interval
    finished: tuple[int, ...]  # threads that ended in this interval
    _streams: dict[int, list[int]] = field(repr=False)  # the statements each thread executed
    _decoder: _Decoder = field(repr=False)
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
        """Its global and shared accesses in execution order (pysim.play.table.Chunk.interval_rows)."""
        return self._counted.rows()

    def thread_steps(self, thread: int | tuple[int, int]) -> tuple[ThreadStep, ...]:
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

    def records(self) -> list[tuple[tuple[int, int], AccessRecord]]:
        """Every access of every thread in this interval, thread by thread: ((tx, ty), record)."""
        found: list[tuple[tuple[int, int], AccessRecord]] = []
        for thread in self.threads:
            xy = self._decoder.xy(thread)
            for step in self.thread_steps(thread):
                found.extend((xy, record) for record in step.accesses)
        return found


@dataclass(frozen=True, eq=False)
class _Decoder:
    program: Program
    launch: Launch
    arrays: tuple[ArrayInfo, ...]

    @cached_property
    def _described(self) -> list[tuple[str, str, int, str]]:
        """(array name, space, row length, op) by site·arrays + array (pysim.play.table.warp_accesses)."""
        return [(a.name, a.space, a.stride, s.op) for s in self.program.sites for a in self.arrays]

    def step(self, counted: Counted) -> tuple[Step, Lockstep]:
        """A counted interval as a Step (its accesses as warp instructions), and how they map to its rows."""
        if counted.chunk is None:
            return Step("interval", (0,)), Lockstep({})
        accesses, rows = warp_accesses(
            counted.rows(), counted.chunk.vectors, self._described, len(self.arrays), self.launch.threads
        )
        delta = counted.delta
        step = Step(
            "interval",
            counted.barrier_lines,
            accesses=accesses,
            fma=delta.fma,
            register_reads=delta.register_reads,
            barrier=bool(delta.barriers),
        )
        return step, Lockstep(rows)

    def linear(self, thread: int | tuple[int, int]) -> int:
        if isinstance(thread, tuple):
            return thread[0] + thread[1] * self.launch.block[0]
        return thread

    def xy(self, thread: int) -> tuple[int, int]:
        return thread_xy(self.launch, thread)

    def steps(self, stream: list[int], made: np.ndarray, lockstep: Lockstep) -> tuple[ThreadStep, ...]:
        """One thread's statements in one interval with the accesses it `made` (Counted.thread_records), each
        access with its warp instruction (Lockstep.rows, from the iteration vector it recorded). An access
        belongs to the statement its ordinal counts to: the ordinal-th of the interval's stream."""
        statements = self.program.statements
        found: list[ThreadStep] = []
        records: list[AccessRecord] = []
        current: int | None = None
        accesses = iter(made[:, 1:].tolist())  # ordinal, vector, site, array, word, value
        pending = next(accesses, None)
        for ordinal, item in enumerate(stream, start=1):
            if statements[item].kind != "next":  # the top of a for loop's iteration: no statement of its own
                if current is not None:
                    found.append(ThreadStep(current, statements[current].line, tuple(records)))
                current, records = item, []
            while pending is not None and pending[0] == ordinal:
                records.append(self._record(pending, lockstep))
                pending = next(accesses, None)
        if current is not None:
            found.append(ThreadStep(current, statements[current].line, tuple(records)))
        return tuple(found)

    def _record(self, row: list[float], lockstep: Lockstep) -> AccessRecord:
        """One access from its record (ordinal, vector, site, array, word, value)."""
        _, vector, site, number, word, value = row
        info, op = self.arrays[int(number)], self.program.sites[int(site)]
        index = divmod(int(word), info.stride) if len(info.shape) == 2 else (int(word),)
        # Register accesses are not warp instructions the analysis groups: they have no row.
        instruction = lockstep.rows.get((int(site) * len(self.arrays) + int(number), int(vector)), 0)
        return AccessRecord(info.space, op.op, info.name, index, value, op.line, int(site), instruction)


def _fill(target: np.ndarray, stores: np.ndarray) -> None:
    """Write store rows (pysim.play.table's columns, less the position) into `target`, in order: the last
    store to a word is the one it keeps."""
    words = stores[:, 5].astype(np.int64)
    flat = target.reshape(-1)
    inside = (words >= 0) & (words < flat.size)
    flat[words[inside]] = stores[inside, 6]


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
        """The stores of intervals first..last in execution order (pysim.play.table's columns, less the
        position), and the interval of each."""
        parts = [interval.rows() for interval in self.intervals[first : last + 1]]
        if not parts:
            return np.zeros((0, 7)), np.zeros(0, dtype=np.int64)
        rows = np.concatenate(parts)
        of = np.repeat(np.arange(first, first + len(parts)), [len(part) for part in parts])
        keep = self._store_sites[rows[:, 3].astype(np.int64)]
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
        _fill(c, stores[stores[:, 4] == 2])
        stores = stores[of >= first]
        shared = {}
        for number, allocation in enumerate(self.program.allocations):
            if allocation.space == "shared":
                grid = np.full(allocation.grid_shape, np.nan, dtype=np.float32)
                _fill(grid, stores[stores[:, 4] == 3 + number])
                shared[allocation.name] = grid
        return shared, c

    def storer_of(self, row: int, col: int) -> tuple[int, int] | None:
        """(interval, linear thread) of the first recorded store to C[row, col]; None when none stored it."""
        stores, of = self._stores(0, len(self.intervals) - 1)
        hits = np.flatnonzero((stores[:, 4] == 2) & (stores[:, 5] == row * self.C.shape[1] + col))
        return (int(of[hits[0]]), int(stores[hits[0], 0])) if len(hits) else None

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
            "diagnostics": [d.as_dict() for d in self.diagnostics],
        }


def run(
    source: str | Program,
    M: int,
    N: int,
    K: int,
    *,
    seed: int = 0,
    A: np.ndarray | None = None,
    B: np.ndarray | None = None,
    expected: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    keep: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Run a playground file's kernel at M×N×K on TileLab's operands (pysim.core.matrices) and analyse it.

    `keep=False` drops the per-thread streams after counting (CLI, grading):
    the result then has no intervals, and memory stays small at large sizes.
    `progress(threads, steps)` hears after each interval: the threads that ended in it, the steps so far.
    Raises ProgramError only when the file cannot run.
    """
    program = source if isinstance(source, Program) else compile_program(source)
    for name, value in (("M", M), ("N", N), ("K", K)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ProgramError(0, f"{name} must be a whole number of at least 1 (got {value!r})")
    launch = evaluate_launch(program, M, N, K)
    default_A, default_B = operands(M, N, K, seed)
    A = default_A if A is None else np.asarray(A, dtype=np.float32)
    B = default_B if B is None else np.asarray(B, dtype=np.float32)
    C = np.zeros((M, N), dtype=np.float32)
    table = array_table(program, A, B, C)
    decoder = _Decoder(program, launch, table)

    def execute(shown: frozenset[tuple[int, int]]) -> _Execution:
        arrays = (
            global_array(program.params[0], 0, A),
            global_array(program.params[1], 1, B),
            global_array(program.params[2], 2, C),
        )
        runtime = Runtime(program, max_steps)
        analysis = Analysis(program, launch, table, runtime.vectors, runtime.records, runtime.values, shown=shown)
        for number, array in enumerate(arrays):
            racy = frozenset(word for n, word in shown if n == number)
            if racy:
                array.data = StaleReads(array.data, racy, runtime)
        kept: list[IntervalRecord] = []
        walked: list[Interval] = []  # intervals walked by the analysis, not yet counted

        def count() -> None:
            for interval, counted in zip(walked, analysis.flush()):
                kept.append(
                    IntervalRecord(
                        index=len(kept),
                        block=interval.block,
                        number=interval.number,
                        barrier_lines=analysis.barrier_lines(interval),
                        threads=tuple(map(itemgetter(0), interval.segments)),
                        finished=interval.finished,
                        _streams=dict(interval.segments),
                        _decoder=decoder,
                        _counted=counted,
                    )
                )
            walked.clear()

        def on_interval(interval: Interval) -> None:
            analysis.walk(interval)
            if progress is not None:  # the playground's worker shows it while the run goes on
                progress(len(interval.finished), runtime.executed)
            if not keep:
                if analysis.pending_rows >= CHUNK_ROWS:
                    analysis.flush()
                return
            walked.append(interval)
            if analysis.pending_rows >= CHUNK_ROWS:
                count()

        stop = schedule(program, launch, arrays, runtime, on_interval)
        if keep:
            count()
        else:
            analysis.flush()
        analysis.global_races()
        analysis.out_of_bounds(runtime.out_of_bounds)
        if stop is not None:
            analysis.stop(stop)
        return _Execution(analysis, runtime, stop, arrays[2].to_numpy(), tuple(kept))

    done = execute(frozenset())
    if done.analysis.racy_words and done.stop is None:
        # Threads ran one after another, so a racing update saw the other's store: run again with the racy
        # words read as concurrent threads can see them (pysim.play.memory), so C shows a GPU's outcome.
        done = execute(frozenset(done.analysis.racy_words))
    analysis = done.analysis
    reference = (expected or (lambda a, b: a @ b))(A, B)
    return RunResult(
        program=program,
        M=M,
        N=N,
        K=K,
        launch=launch,
        A=A,
        B=B,
        C=done.C,
        expected=np.asarray(reference, dtype=np.float32),
        counters=analysis.counters,
        metrics=analysis.metrics,
        diagnostics=analysis.diagnostics,
        intervals=done.intervals,
        loaded=(analysis.loaded(0), analysis.loaded(1)),
        completed=done.stop is None,
        steps=done.runtime.executed,
    )


@dataclass(frozen=True)
class _Execution:
    """One launch of the kernel: its analysis, runtime, why it stopped (None: it finished), C and intervals."""

    analysis: Analysis
    runtime: Runtime
    stop: Stop | None
    C: np.ndarray
    intervals: tuple[IntervalRecord, ...]
