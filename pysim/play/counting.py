"""Turn what the threads recorded into warp instructions, counters and diagnostics.

**Warp instructions (lockstep).** A warp executes one common instruction at a
time; where its threads diverge on a data-dependent branch, it runs each path
taken with the threads off that path disabled (CUDA C++ Programming Guide, "SIMT
Architecture", https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#simt-architecture).
So the lanes that issue one load or store together are those that reach the same
*site* (one subscript of the source, as a load or a store) in the same iteration
of every loop around it: its active mask in that iteration. Every loop iteration
numbers its iteration vector (pysim.play.rewrite), and every access carries it; each site becomes one
`pysim.core.trace.Access` with one row per iteration vector at which some thread
executed it, and `pysim.core.trace.count_step` counts it: the same code that counts
the built-in kernels, so sectors (32-byte segments per warp load) and bank
conflicts follow SPEC §2 unchanged. This is the converged schedule, in which a
warp reconverges after each branch; Volta's independent thread scheduling lets
the hardware depart from it, which TileLab does not model.

Races are found by `pysim.play.races`, barrier divergence by `pysim.play.divergence`.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cached_property, partial
from itertools import chain, repeat
from operator import itemgetter

import numpy as np

from ..core.counters import PAST_SIBOEHM, Counters
from .columns import A_ARRAY, B_ARRAY, FIRST_ALLOCATION, RECORD, ROW_COLUMNS, ArrayInfo, Recorded, Row
from .constants import constant_reads
from .diagnostics import Diagnostics
from .divergence import divergence
from .launch import Launch
from .program import Program
from .races import Races, written_globals
from .runtime import Vectors
from .scheduler import Interval
from .spills import spilled
from .table import Chunk, Instructions, Layout

COUNTER_FIELDS = tuple(f.name for f in fields(Counters))  # Counters' fields in order (one row of `flush`'s table)
FMA_TALLY = (1 << 32) - 1  # the multiply-adds' part of a tally (`walk`)


@dataclass(frozen=True)
class Metrics:
    """Per-request figures the puzzles' budgets use (SPEC §2 counts sectors of loads; stores here too)."""

    global_load_requests: int = 0  # warp-wide global load instructions with at least one active thread
    max_sectors_per_load: int = 0
    global_store_requests: int = 0
    global_store_sectors: int = 0
    max_sectors_per_store: int = 0
    shared_requests: int = 0
    max_bank_degree: int = 0
    # Warp instructions of memory (global, shared, an atomic counted once) and their active lanes summed:
    # lanes / (32 · requests) is the share of lanes doing work, what a kernel of lanes taking turns wastes.
    memory_requests: int = 0
    memory_lanes: int = 0
    atomic_requests: int = 0  # warp-wide cuda.atomic.* instructions
    # Passes the atomics took: per instruction the most lanes on one word, as the hardware serialises
    # same-address atomics (lanes on distinct words go in one pass).
    atomic_wavefronts: int = 0
    local_loads: int = 0  # accesses to spilled local arrays (pysim.play.spills), by every lane
    local_stores: int = 0
    # Reads of constant memory (pysim.play.constants): lanes, warp instructions, and the passes the constant
    # cache serves them in (one per distinct address of an instruction).
    constant_loads: int = 0
    constant_requests: int = 0
    constant_passes: int = 0

    def __add__(self, other: Metrics) -> Metrics:
        most = {"max_sectors_per_load", "max_sectors_per_store", "max_bank_degree"}
        return Metrics(
            **{
                f.name: (max if f.name in most else int.__add__)(getattr(self, f.name), getattr(other, f.name))
                for f in fields(self)
            }
        )


def _metrics(found: Instructions, local: tuple[int, int], constant: tuple[int, int, int]) -> Metrics:
    """The per-request figures of a chunk's warp instructions, its (local loads, local stores) and its constant
    reads (loads, requests, passes)."""
    load, store, shared = found.global_load, found.global_store, found.shared
    once = ~found.atomic_store  # an atomic's load and store are one instruction
    return Metrics(
        global_load_requests=int(load.sum()),
        max_sectors_per_load=int(found.sectors[load].max(initial=0)),
        global_store_requests=int(store.sum()),
        global_store_sectors=int(found.sectors[store].sum()),
        max_sectors_per_store=int(found.sectors[store].max(initial=0)),
        shared_requests=int(shared.sum()),
        max_bank_degree=int(found.degree[shared].max(initial=0)),
        memory_requests=int(once.sum()),
        memory_lanes=int(found.lanes[once].sum()),
        atomic_requests=int(found.atomic_store.sum()),
        atomic_wavefronts=int(found.serial.sum()),
        local_loads=local[0],
        local_stores=local[1],
        constant_loads=constant[0],
        constant_requests=constant[1],
        constant_passes=constant[2],
    )


@dataclass(frozen=True)
class Lockstep:
    """How one interval's accesses became warp instructions: enough to replay one thread's records."""

    rows: dict[tuple[int, int], int]  # (site·arrays + array, iteration vector's number) -> row of its Access


@dataclass(frozen=True, eq=False)
class Counted:
    """One interval as the analysis counted it; its Step is built from `chunk` only when asked for
    (a run has thousands of intervals and a reader looks at a few)."""

    change: list[int]  # its counts, in COUNTER_FIELDS order (Counters are built when asked for: most never are)
    after: list[int]  # cumulative after this interval, in the same order
    chunk: Chunk | None  # None for the interval a run stopped in (not counted)
    position: int
    barrier_lines: tuple[int, ...]
    # Every access of the interval, local arrays' too, in `Row`'s columns, when first asked for: the
    # interval a runaway loop stopped in holds most of the budget's accesses, and only a reader stepping it needs them.
    _records: Callable[[], np.ndarray]

    def rows(self) -> np.ndarray:
        """Its global and shared accesses as `Chunk.interval_rows` gives them (none for an uncounted interval)."""
        return self.chunk.interval_rows(self.position) if self.chunk is not None else np.zeros((0, ROW_COLUMNS))

    @cached_property
    def records(self) -> np.ndarray:
        return self._records()

    @cached_property
    def delta(self) -> Counters:
        return Counters(*self.change)

    @cached_property
    def counters(self) -> Counters:
        """Cumulative after this interval."""
        return Counters(*self.after)

    def thread_records(self, thread: int) -> np.ndarray:
        """Every access `thread` made in the interval, in the order it made them."""
        return self.records[self.records[:, Row.THREAD] == thread]


def _table(found: list[int], values: list[float], intervals: list[Interval]) -> np.ndarray:
    """The accesses of consecutive `intervals` as rows of `Row`'s columns, from the runtime's records
    (`Recorded`'s columns), their values, and who made them (Interval.records)."""
    records = _int64(found).reshape(-1, RECORD)
    owners = [interval.records for interval in intervals]
    position = np.repeat(np.arange(len(owners)), [len(made) for made in owners])
    thread, sizes = _int64(list(chain.from_iterable(chain.from_iterable(owners)))).astype(np.intp).reshape(-1, 2).T
    rows = np.empty((len(records), ROW_COLUMNS), order="F")  # column by column: each is written and read whole
    rows[:, Row.POSITION] = np.repeat(position, sizes)
    rows[:, Row.THREAD] = np.repeat(thread, sizes)
    for column in Recorded:
        rows[:, Row[column.name]] = records[:, column]
    rows[:, Row.VALUE] = np.frombuffer(array("d", values), dtype=np.float64)
    return rows


def _int64(numbers: list[int]) -> np.ndarray:
    """Whole numbers within int64 as an array. struct packs a list three times faster than array('q') converts
    it in Pyodide (which parses each item with PyArg_Parse), and NumPy converts it slower still; the runtime
    records no word past 2**63."""
    return np.frombuffer(struct.pack(f"{len(numbers)}q", *numbers), dtype=np.int64)


def _between(rows: np.ndarray, start: int, end: int) -> np.ndarray:
    return rows[start:end]


def _interval_records(found: list[int], values: list[float], interval: Interval) -> np.ndarray:
    """One interval's accesses as Counted.records gives them."""
    return _table(found, values, [interval])


@dataclass
class Analysis:
    """Accumulates counters, metrics and diagnostics: `walk` reads each interval as it ends, `flush` counts
    the walked ones in bulk (pysim.play.table) and returns them, and finds their races (`races`)."""

    program: Program
    launch: Launch
    arrays: tuple[ArrayInfo, ...]
    vectors: Vectors  # the run's iteration vectors by number (the runtime numbers them)
    records: list[int]  # Runtime.records: the accesses not yet counted, emptied by `flush`
    values: list[float]  # Runtime.values: their values
    counters: Counters = Counters()
    metrics: Metrics = Metrics()
    shown: frozenset[tuple[int, int]] = frozenset()  # racy global words (array, word) C shows as a GPU could

    def __post_init__(self) -> None:
        program = self.program
        shared = np.array([a.space == "shared" for a in self.arrays])
        store = np.array([s.op == "store" for s in program.sites] or [False])
        atomic_site = np.array([s.atomic for s in program.sites] or [False])
        wide = shared & np.array([a.element_words > 1 for a in self.arrays])
        self._layout = Layout(store, atomic_site, shared, len(self.arrays), wide)
        self.diagnostics = Diagnostics(program, self.launch)
        self.races = Races(
            self.launch,
            self.arrays,
            self.diagnostics,
            shared=shared,
            store=store,
            tracked=shared | written_globals(program, self.arrays),
            atomic_site=atomic_site,
            site_line=[s.line for s in program.sites],
            shown=self.shown,
        )
        self._register = np.array([a.space == "register" for a in self.arrays])
        self._constant = np.array([a.space == "constant" for a in self.arrays])
        local = {FIRST_ALLOCATION + a.number for a in spilled(program)}
        self._spilled = np.array([n in local for n in range(len(self.arrays))])
        # Per site: a load that is a factor of a multiply-add (a register read when the array is a local one).
        self._fma_load = np.array([s.op == "load" and s.fma_operand for s in program.sites] or [False])
        self._recorded = 0  # accesses of the pending intervals (in `records`)
        self._made = itemgetter(1)  # of an Interval.records entry: its accesses
        self._barrier_lines: dict[frozenset[int], tuple[int, ...]] = {}
        self._pending: list[Interval] = []
        self._tallies: list[tuple[int, int]] = []  # (multiply-adds, atomics) of each pending interval
        # The statements with multiply-adds or an atomic, each with its multiply-adds plus 2**32 if it is an
        # atomic: one sum tallies both. A kernel has few (most have none), so `walk` counts each in every stream.
        self._weighted = [
            (s.number, s.fma + ((s.kind == "atomic") << 32)) for s in program.statements if s.fma or s.kind == "atomic"
        ]
        self._loaded = {n: np.zeros(self.arrays[n].shape, dtype=bool) for n in (A_ARRAY, B_ARRAY)}

    @property
    def pending_rows(self) -> int:
        return self._recorded

    def loaded(self, number: int) -> np.ndarray:
        """Which elements of global array `number` (0: A, 1: B) some thread loaded, as a mask of its shape."""
        return self._loaded[number]

    # --- one interval -----------------------------------------------------------------------------
    def walk(self, interval: Interval) -> None:
        """Keep one barrier interval's global and shared accesses (counted at the next `flush`), and check its
        barriers.

        The interval in which the run stopped (step budget, Python error) is not
        counted: its threads stopped part-way, so its counts mean little, and
        after a runaway loop it holds most of the budget's steps.
        """
        self._pending.append(interval)
        self._recorded += sum(map(self._made, interval.records))
        if interval.stopped:
            self._tallies.append((0, 0))
            return
        tally = 0
        for number, weight in self._weighted:
            tally += weight * sum(map(list.count, map(itemgetter(1), interval.segments), repeat(number)))
        self._tallies.append((tally & FMA_TALLY, tally >> 32))
        divergence(interval, self.vectors, self.diagnostics)

    def flush(self) -> list[Counted]:
        """Count every interval walked since the last flush, in order; update the run's counters, metrics
        and race diagnostics."""
        pending, tallies = self._pending, self._tallies
        self._pending, self._tallies, self._recorded = [], [], 0
        if not pending:
            return []
        found, values, counted_intervals = self.records, self.values, pending
        if pending[-1].stopped:  # only a run's last interval stops (the runtime returns): its records, last, stay out
            last = pending[-1]
            cut = len(values) - sum(map(self._made, last.records))
            stopped_records = partial(_interval_records, found[RECORD * cut :], values[cut:], last)
            del found[RECORD * cut :], values[cut:]
            counted_intervals = pending[:-1]
        every = _table(found, values, counted_intervals)
        found.clear()
        values.clear()
        n = len(pending)
        bounds = np.arange(n + 1)
        every_starts = np.searchsorted(every[:, Row.POSITION], bounds).tolist()
        position, site, number = (every[:, c].astype(np.intp) for c in (Row.POSITION, Row.SITE, Row.ARRAY))
        register, constant = self._register[number], self._constant[number]
        # Local arrays live in registers: no warp instruction of memory; constant memory is counted apart.
        rows = every[~register & ~constant]
        stopped = np.array([interval.stopped for interval in pending])
        chunk = Chunk(rows, np.searchsorted(rows[:, Row.POSITION], bounds), self.vectors.by_number())
        instructions = chunk.instructions(self._layout)
        columns = chunk.counts(self._layout, instructions)
        columns["register_reads"] = np.bincount(position[register & self._fma_load[site]], minlength=n)
        columns["fma"], columns["atomics"] = np.array(tallies, dtype=np.int64).reshape(-1, 2).T
        columns["barriers"] = np.array([bool(interval.waiting) for interval in pending], dtype=np.int64)
        columns |= {name: np.zeros(n, dtype=np.int64) for name in PAST_SIBOEHM}  # the subset has none of these
        delta = np.stack([columns[name] for name in COUNTER_FIELDS], axis=1).astype(np.int64)
        delta[stopped] = 0
        total = np.cumsum(delta, axis=0) + np.array([getattr(self.counters, name) for name in COUNTER_FIELDS])
        spilled_store = self._layout.store[site[self._spilled[number]]]
        local = (int((~spilled_store).sum()), int(spilled_store.sum()))
        reads = constant_reads(every[constant], len(self.arrays))
        self.metrics = self.metrics + _metrics(instructions, local, reads)
        self.races.chunk(chunk, pending)
        for array_number, mask in self._loaded.items():
            mask.ravel()[chunk.loaded(self._layout, array_number, mask.size)] = True
        chunk.counted()
        counted = []
        for at, (interval, change, after) in enumerate(zip(pending, delta.tolist(), total.tolist())):
            lines = self.barrier_lines(interval) or (0,)
            if interval.stopped:  # its `change` is all zeros (`delta[stopped] = 0`)
                counted.append(Counted(change, after, None, at, lines, stopped_records))
            else:
                records = partial(_between, every, every_starts[at], every_starts[at + 1])
                counted.append(Counted(change, after, chunk, at, lines, records))
        self.counters = Counters(*total[-1].tolist())
        return counted

    def barrier_lines(self, interval: Interval) -> tuple[int, ...]:
        """The lines of the barriers `interval`'s threads wait at when it ends, in order (none when they
        finished); the same few sets recur in every block, so each is sorted once."""
        waiting = frozenset(interval.waiting.values())
        lines = self._barrier_lines.get(waiting)
        if lines is None:
            lines = self._barrier_lines[waiting] = tuple(sorted({self.program.statements[s].line for s in waiting}))
        return lines
