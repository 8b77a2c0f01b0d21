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

**Races** (as compute-sanitizer's racecheck): within one barrier interval of a
block, a shared-memory word, or a word of a global array the kernel writes,
written by one thread and read or written by another. The program order of the
two accesses (statements executed before each, in its own thread) names the
hazard: read-after-write (the read happens too early: reported at the read's
line), write-after-read (a write overwrites a value another thread still reads:
reported at the write's line), write-after-write (at the later write), and a
lost update where two threads each read the word and write it back (`X[i] += v`
without an atomic). Global words also race between blocks, whatever the
intervals: nothing orders two blocks. Sites of cuda.atomic.* never race.

**Barrier divergence**: at the end of an interval, some threads of the block
wait at a barrier while others finished, or they wait at different barrier
instances (another `cuda.syncthreads()`, or the same one in another iteration).
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from functools import cached_property, partial
from itertools import chain, repeat
from operator import itemgetter

import numpy as np

from ..core.counters import Counters
from .program import Program
from .runtime import RECORD, Interval, Launch, OutOfBounds, Stop, Vectors
from .table import (
    ARRAY,
    ORDINAL,
    POSITION,
    SITE,
    THREAD,
    VALUE,
    VECTOR,
    WORD,
    Chunk,
    Instructions,
    Layout,
    groups,
)

COUNTER_FIELDS = tuple(f.name for f in fields(Counters))  # Counters' fields in order (one row of `flush`'s table)
FMA_TALLY = (1 << 32) - 1  # the multiply-adds' part of a tally (`walk`)
RACES_PER_INTERVAL = 16  # racy words examined closely per interval, and between blocks (all are counted)
WORD_KEY = 1 << 32  # array number · WORD_KEY + word: one key per element of every array
# How a run's C shows the racy global words it repeated the launch for (pysim.play.memory; `run`).
SHOWN_INTERLEAVING = (
    "The C shown is one outcome a GPU can produce: every thread racing on the word read it before any of the "
    "others stored it (as if they all ran at once), and the store that runs last in TileLab's order (block by "
    "block, thread by thread) is the one left."
)

# What each kind of barrier divergence does on a GPU. Since compute capability 7.0 a barrier waits only for the
# threads that have not exited (CUDA C++ Programming Guide, "Independent Thread Scheduling" under compute
# capability 7.x: bar.sync "will not succeed until reached by all non-exited threads in the block"; PTX ISA,
# `exit`: exiting threads holding up a barrier release it), so an early return does not hang. Threads at
# different barriers break the rule of the guide's "Synchronization Functions": __syncthreads() in conditional
# code only if the condition is the same for the whole block, "otherwise the code execution is likely to hang or
# produce unintended side effects".
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#independent-thread-scheduling-7-x
# https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#control-flow-instructions-exit
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#synchronization-functions
EXITED_THREADS = (
    "On a GPU of compute capability 7.0 or later this does not hang: a barrier waits only for the threads that "
    "have not exited, so the others go on without them. The bug is the work those threads skip: the tile "
    "elements they would have loaded into shared memory are never stored, and the threads that wait read "
    "whatever was there. Keep every thread of the block in the loop (guard its loads and stores instead of "
    "returning)"
)
DIFFERENT_BARRIERS = (
    "Threads of one block waiting at different barriers is what deadlocks or misbehaves on a GPU: CUDA allows "
    "cuda.syncthreads() under a condition only when the condition is the same for the whole block, otherwise "
    "the kernel is likely to hang or to let threads past each other's barrier. Here TileLab lets them all pass"
)


@dataclass(frozen=True)
class Diagnostic:
    """One problem, naming the line, a thread (tx, ty) and its block (bx, by) that show it.

    `count` says how often the same problem (same kind and lines) occurred in the
    run; `other_line` / `other_thread` name the second party of a race.
    """

    kind: str  # race | out_of_bounds | barrier_divergence | step_budget | error
    line: int
    thread: tuple[int, int]
    block: tuple[int, int]
    message: str
    count: int = 1
    other_line: int | None = None
    other_thread: tuple[int, int] | None = None

    def as_dict(self) -> dict:
        found = {
            "kind": self.kind,
            "line": self.line,
            "thread": list(self.thread),
            "block": list(self.block),
            "message": self.message,
            "count": self.count,
        }
        if self.other_line is not None:
            found["other_line"] = self.other_line
        if self.other_thread is not None:
            found["other_thread"] = list(self.other_thread)
        return found


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

    def __add__(self, other: Metrics) -> Metrics:
        return Metrics(
            self.global_load_requests + other.global_load_requests,
            max(self.max_sectors_per_load, other.max_sectors_per_load),
            self.global_store_requests + other.global_store_requests,
            self.global_store_sectors + other.global_store_sectors,
            max(self.max_sectors_per_store, other.max_sectors_per_store),
            self.shared_requests + other.shared_requests,
            max(self.max_bank_degree, other.max_bank_degree),
        )


@dataclass(frozen=True)
class ArrayInfo:
    """What the analysis needs to know about array number n."""

    name: str
    space: str  # global | shared | register
    shape: tuple[int, ...]

    @property
    def stride(self) -> int:
        """Row length in words; for a 1-D array its length (so row 0, col = index)."""
        return self.shape[-1]


def array_table(program: Program, A: np.ndarray, B: np.ndarray, C: np.ndarray) -> tuple[ArrayInfo, ...]:
    globals_ = tuple(ArrayInfo(name, "global", tuple(m.shape)) for name, m in zip(program.params, (A, B, C)))
    return globals_ + tuple(ArrayInfo(a.name, a.space, a.shape) for a in program.allocations)


def written_globals(program: Program, arrays: tuple[ArrayInfo, ...]) -> np.ndarray:
    """Which arrays are global arrays the kernel may write: those its stores name, or all three when a store
    names a variable that may hold one (`X = C` and then `X[i] = v`)."""
    names = {s.array for s in program.sites if s.op == "store"}
    local = {a.name for a in program.allocations}
    aliased = bool(names - local - set(program.params))
    return np.array([a.space == "global" and (aliased or a.name in names) for a in arrays])


def _racy(group: np.ndarray, cells: int, thread: np.ndarray, store: np.ndarray, threads: int) -> np.ndarray:
    """Which of `cells` words (`group`: each access's word) race: written by one thread and read or written
    by another."""
    big = threads + 1
    write_min = np.full(cells, big)
    write_max = np.full(cells, -1)
    read_min = np.full(cells, big)
    read_max = np.full(cells, -1)
    np.minimum.at(write_min, group[store], thread[store])
    np.maximum.at(write_max, group[store], thread[store])
    np.minimum.at(read_min, group[~store], thread[~store])
    np.maximum.at(read_max, group[~store], thread[~store])
    written = write_max >= 0
    return written & (
        (write_min != write_max) | ((read_max >= 0) & ((read_min != write_min) | (read_max != write_min)))
    )


def _metrics(found: Instructions) -> Metrics:
    """The per-request figures of a chunk's warp instructions."""
    load, store, shared = found.global_load, found.global_store, found.shared
    return Metrics(
        global_load_requests=int(load.sum()),
        max_sectors_per_load=int(found.sectors[load].max(initial=0)),
        global_store_requests=int(store.sum()),
        global_store_sectors=int(found.sectors[store].sum()),
        max_sectors_per_store=int(found.sectors[store].max(initial=0)),
        shared_requests=int(shared.sum()),
        max_bank_degree=int(found.degree[shared].max(initial=0)),
    )


def thread_xy(launch: Launch, thread: int) -> tuple[int, int]:
    return thread % launch.block[0], thread // launch.block[0]


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
    # Every access of the interval, local arrays' too, in Chunk.interval_rows's columns, when first asked for: the
    # interval a runaway loop stopped in holds most of the budget's accesses, and only a reader stepping it needs them.
    _records: Callable[[], np.ndarray]

    def rows(self) -> np.ndarray:
        """Its rows as `Chunk.interval_rows` gives them (none for an uncounted interval)."""
        return self.chunk.interval_rows(self.position) if self.chunk is not None else np.zeros((0, 7))

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
        return self.records[self.records[:, 0] == thread]


def _table(found: list[int], values: list[float], intervals: list[Interval]) -> np.ndarray:
    """The accesses of consecutive `intervals` in pysim.play.table's columns, from the runtime's records (site,
    array, word, ordinal, vector), their values, and who made them (Interval.records)."""
    records = _int64(found).reshape(-1, RECORD)
    owners = [interval.records for interval in intervals]
    position = np.repeat(np.arange(len(owners)), [len(made) for made in owners])
    thread, sizes = _int64(list(chain.from_iterable(chain.from_iterable(owners)))).astype(np.intp).reshape(-1, 2).T
    rows = np.empty((len(records), 8), order="F")  # column by column: each column is written and read whole
    rows[:, POSITION] = np.repeat(position, sizes)
    rows[:, THREAD] = np.repeat(thread, sizes)
    rows[:, ORDINAL], rows[:, VECTOR] = records[:, 3], records[:, 4]
    rows[:, SITE : WORD + 1] = records[:, :3]
    rows[:, VALUE] = np.frombuffer(array("d", values), dtype=np.float64)
    return rows


def _int64(numbers: list[int]) -> np.ndarray:
    """Whole numbers within int64 as an array. struct packs a list three times faster than array('q') converts
    it in Pyodide (which parses each item with PyArg_Parse), and NumPy converts it slower still; the runtime
    records no word past 2**63."""
    return np.frombuffer(struct.pack(f"{len(numbers)}q", *numbers), dtype=np.int64)


def _between(rows: np.ndarray, start: int, end: int) -> np.ndarray:
    return rows[start:end]


def _interval_records(found: list[int], values: list[float], interval: Interval) -> np.ndarray:
    """One interval's accesses as Counted.records gives them (the table less its position column)."""
    return _table(found, values, [interval])[:, 1:]


@dataclass
class Analysis:
    """Accumulates counters, metrics and diagnostics: `walk` reads each interval as it ends, `flush` counts
    the walked ones in bulk (pysim.play.table) and returns them."""

    program: Program
    launch: Launch
    arrays: tuple[ArrayInfo, ...]
    vectors: Vectors  # the run's iteration vectors by number (the runtime numbers them)
    records: list[int]  # Runtime.records: the accesses not yet counted, emptied by `flush`
    values: list[float]  # Runtime.values: their values
    counters: Counters = Counters()
    metrics: Metrics = Metrics()
    found: dict = field(default_factory=dict)  # (kind, line, other_line) -> Diagnostic
    shown: frozenset[tuple[int, int]] = frozenset()  # racy global words (array, word) C shows as a GPU could
    racy_words: set[tuple[int, int]] = field(default_factory=set)  # racy global words found in this run

    def __post_init__(self) -> None:
        program = self.program
        self._shared = np.array([a.space == "shared" for a in self.arrays])
        self._tracked = self._shared | written_globals(program, self.arrays)
        self._atomic_site = np.array([s.atomic for s in program.sites] or [False])
        self._global_log: list[np.ndarray] = []  # per chunk: (key, block, thread, site, store) of global words
        self._store = np.array([s.op == "store" for s in program.sites] or [False])
        self._layout = Layout(self._store, self._shared, len(self.arrays))
        self._site_line = [s.line for s in program.sites]
        self._register = np.array([a.space == "register" for a in self.arrays])
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
        self._loaded = {n: np.zeros(self.arrays[n].shape, dtype=bool) for n in (0, 1)}

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
        self._divergence(interval)

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
        every_starts = np.searchsorted(every[:, POSITION], bounds).tolist()
        position, site, number = (every[:, c].astype(np.intp) for c in (POSITION, SITE, ARRAY))
        register = self._register[number]
        rows = every[~register]  # local arrays live in registers: no warp instruction of memory
        stopped = np.array([interval.stopped for interval in pending])
        chunk = Chunk(rows, np.searchsorted(rows[:, POSITION], bounds), self.vectors.by_number())
        instructions = chunk.instructions(self._layout)
        columns = chunk.counts(self._layout, instructions)
        columns["register_reads"] = np.bincount(position[register & self._fma_load[site]], minlength=n)
        columns["fma"], columns["atomics"] = np.array(tallies, dtype=np.int64).reshape(-1, 2).T
        columns["barriers"] = np.array([bool(interval.waiting) for interval in pending], dtype=np.int64)
        delta = np.stack([columns[name] for name in COUNTER_FIELDS], axis=1).astype(np.int64)
        delta[stopped] = 0
        total = np.cumsum(delta, axis=0) + np.array([getattr(self.counters, name) for name in COUNTER_FIELDS])
        self.metrics = self.metrics + _metrics(instructions)
        self._races(chunk, pending)
        for array_number, mask in self._loaded.items():
            mask.ravel()[chunk.loaded(self._layout, array_number, mask.size)] = True
        chunk.counted()
        counted = []
        columns_of = every[:, 1:]
        for at, (interval, change, after) in enumerate(zip(pending, delta.tolist(), total.tolist())):
            lines = self.barrier_lines(interval) or (0,)
            if interval.stopped:  # its `change` is all zeros (`delta[stopped] = 0`)
                counted.append(Counted(change, after, None, at, lines, stopped_records))
            else:
                records = partial(_between, columns_of, every_starts[at], every_starts[at + 1])
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

    # --- diagnostics --------------------------------------------------------------------------------
    def add(self, diagnostic: Diagnostic, key: tuple) -> None:
        """Record a diagnostic, or count one more of the same kind at the same lines."""
        known = self.found.get(key)
        if known is None:
            self.found[key] = diagnostic
        else:
            self.found[key] = Diagnostic(**{**known.__dict__, "count": known.count + diagnostic.count})

    def _races(self, chunk: Chunk, pending: list[Interval]) -> None:
        """Hazards between threads of one interval, in shared memory and in the global arrays the kernel
        writes, for every interval of the chunk; keeps the global accesses for the races between blocks
        (`global_races`). The chunk's words are checked at once; intervals with a racy word are then
        described one by one (`_hazards`)."""
        array, site = chunk.column(ARRAY), chunk.column(SITE)
        tracked = np.flatnonzero(self._tracked[array] & ~self._atomic_site[site])
        if not len(tracked):
            return
        array, site = array[tracked], site[tracked]
        position, thread, word = chunk.column(POSITION)[tracked], chunk.column(THREAD)[tracked], chunk.words()[tracked]
        store = self._store[site]
        in_global = ~self._shared[array]
        if in_global.any():
            blocks = np.array([p.block[1] * self.launch.grid[0] + p.block[0] for p in pending])
            key = array.astype(np.int64) * WORD_KEY + word
            self._keep_global(
                position[in_global], key[in_global], thread[in_global], site[in_global], store[in_global], blocks
            )
        cell, cells, first = groups(position, array, word)
        racy = _racy(cell, cells, thread, store, self.launch.threads)
        for racy_position in np.unique(position[first][racy]).tolist():
            self._hazards(pending[racy_position], chunk.interval_rows(racy_position))

    def _hazards(self, interval: Interval, rows: np.ndarray) -> None:
        """Describe the racy words of one interval (`Chunk.interval_rows`)."""
        tracked = self._tracked[rows[:, 4].astype(np.int64)] & ~self._atomic_site[rows[:, 3].astype(np.int64)]
        rows = rows[tracked]
        store = self._store[rows[:, 3].astype(np.int64)]
        thread = rows[:, 0].astype(np.int64)
        word = rows[:, 4].astype(np.int64) * WORD_KEY + rows[:, 5].astype(np.int64)
        cells, group = np.unique(word, return_inverse=True)
        racy = _racy(group, len(cells), thread, store, self.launch.threads)
        for members in self._racy_members(cells, group, np.flatnonzero(racy)):
            self._race(interval, rows[members], store[members])

    def _racy_members(self, cells: np.ndarray, group: np.ndarray, racy_cells: np.ndarray) -> Iterator[np.ndarray]:
        """For each racy word to describe, the indices of its accesses (`group`: each access's word in `cells`);
        remembers the racy global words."""
        if not len(racy_cells):
            return
        self._note_global(cells[racy_cells])
        by_group = np.argsort(group, kind="stable")
        bounds = np.searchsorted(group[by_group], np.arange(len(cells) + 1))
        for cell in self._examined(cells, racy_cells):
            yield by_group[bounds[cell] : bounds[cell + 1]]

    def _examined(self, cells: np.ndarray, racy_cells: np.ndarray) -> np.ndarray:
        """The racy words to describe: the first of every array, then more up to the limit; the rest only count."""
        arrays = cells[racy_cells] // WORD_KEY
        first_of_array = racy_cells[np.r_[True, arrays[1:] != arrays[:-1]]]
        rest = np.setdiff1d(racy_cells, first_of_array)
        examined = np.r_[first_of_array, rest[: max(RACES_PER_INTERVAL - len(first_of_array), 0)]]
        if len(racy_cells) > len(examined):
            self.add_counts_only(len(racy_cells) - len(examined))
        return examined

    def _note_global(self, keys: np.ndarray) -> None:
        """Remember racy global words (array number, word): the run shows C as a GPU could leave them."""
        for key in keys[~self._shared[keys // WORD_KEY]].tolist():
            self.racy_words.add(divmod(key, WORD_KEY))

    def add_counts_only(self, extra: int) -> None:
        """Count racy words beyond those examined, on the last race reported."""
        races = [key for key in self.found if key[0] == "race"]
        if races:
            known = self.found[races[-1]]
            self.found[races[-1]] = Diagnostic(**{**known.__dict__, "count": known.count + extra})

    def _word(self, number: int, word: int) -> tuple[ArrayInfo, str]:
        info = self.arrays[number]
        cell = divmod(word, info.stride) if len(info.shape) == 2 else (word,)
        return info, f"{info.name}[{', '.join(map(str, cell))}]"

    def _shown(self, number: int, word: int) -> str:
        """How the run's C shows a racy global word (pysim.play.memory), when it does."""
        return f" {SHOWN_INTERLEAVING}" if (number, word) in self.shown else ""

    def _race(self, interval: Interval, rows: np.ndarray, store: np.ndarray) -> None:
        """Describe one racy word of one interval: its first write and an access to it by another thread."""
        write = rows[np.flatnonzero(store)[0]]
        writer = int(write[0])
        number, word = int(write[4]), int(write[5])
        info, where = self._word(number, word)
        space, shown = info.space, self._shown(number, word)
        thread = rows[:, 0].astype(np.int64)
        both = np.intersect1d(thread[store], thread[~store])  # threads that read the word and write it back
        block = interval.block
        if len(both) >= 2:
            first, second = (rows[(thread == t) & store][0] for t in both[:2])
            line, second_line = self._site_line[int(second[3])], self._site_line[int(first[3])]
            xy, other_xy = thread_xy(self.launch, int(both[1])), thread_xy(self.launch, int(both[0]))
            hazard = "lost update"
            text = (
                f"race (lost update) on {space} {where} in block {block}: threads {other_xy} (line {second_line}) "
                f"and {xy} (line {line}) both read it and write it back in the same barrier interval without an "
                f"atomic; on a GPU both can read the old value, and one update is lost: use cuda.atomic.add"
                f"({info.name}, index, value).{shown}"
            )
            self.add(
                Diagnostic("race", line, xy, block, text, 1, second_line, other_xy), ("race", hazard, line, second_line)
            )
            return
        others = rows[thread != writer]
        reads = others[~store[thread != writer]]
        other = reads[0] if len(reads) else others[0]
        write_line, other_line = self._site_line[int(write[3])], self._site_line[int(other[3])]
        w_xy, o_xy = thread_xy(self.launch, writer), thread_xy(self.launch, int(other[0]))
        if len(reads):
            if other[1] > write[1]:
                hazard, line, xy, second, second_xy = "read-after-write", other_line, o_xy, write_line, w_xy
                text = (
                    f"race (read-after-write) on {space} {where} in block {block}: thread {o_xy} reads it at line "
                    f"{other_line}, which thread {w_xy} writes at line {write_line} in the same barrier interval; "
                    f"the read may see the old value: put cuda.syncthreads() between the write and the read"
                )
            else:
                hazard, line, xy, second, second_xy = "write-after-read", write_line, w_xy, other_line, o_xy
                text = (
                    f"race (write-after-read) on {space} {where} in block {block}: thread {w_xy} overwrites it at "
                    f"line {write_line} while thread {o_xy} may still read it at line {other_line} in the same "
                    f"barrier interval: put cuda.syncthreads() after the last read, before the next write"
                )
        else:
            hazard, line, xy, second, second_xy = "write-after-write", other_line, o_xy, write_line, w_xy
            text = (
                f"race (write-after-write) on {space} {where} in block {block}: threads {w_xy} (line {write_line}) "
                f"and {o_xy} (line {other_line}) both write it in the same barrier interval; which value stays is "
                "undefined"
            )
        self.add(
            Diagnostic("race", line, xy, block, text + shown, 1, second, second_xy), ("race", hazard, line, second)
        )

    def _keep_global(
        self,
        position: np.ndarray,
        key: np.ndarray,
        thread: np.ndarray,
        site: np.ndarray,
        store: np.ndarray,
        blocks: np.ndarray,
    ) -> None:
        """Keep one access per (interval, global word, load or store), the first, in the order they ran, for
        `global_races`; `blocks` is each interval's linear block number."""
        _, _, first = groups(position, key, store.astype(np.int64))
        first = np.sort(first)
        kept = np.stack([key[first], blocks[position[first]], thread[first], site[first], store[first]], axis=1)
        self._global_log.append(kept.astype(np.int64))

    def global_races(self) -> None:
        """Races between blocks: a global word one block writes and another reads or writes. Call after the run.

        Nothing orders two blocks of one launch (they run in any order, or at
        once), so any such pair races, whatever the barriers.
        """
        if not self._global_log:
            return
        log = np.concatenate(self._global_log)  # (key, block, thread, site, store), in the order they ran
        self._global_log = []
        cells, group = np.unique(log[:, 0], return_inverse=True)
        written = np.zeros(len(cells), dtype=bool)
        np.logical_or.at(written, group, log[:, 4] == 1)
        pairs = np.unique(group * self.launch.blocks + log[:, 1])
        # intp: bincount refuses int64 where NumPy's index type is 32 bits (Pyodide's wasm32).
        blocks = np.bincount((pairs // self.launch.blocks).astype(np.intp), minlength=len(cells))
        for members in self._racy_members(cells, group, np.flatnonzero(written & (blocks >= 2))):
            self._block_race(log[members])

    def _block_race(self, rows: np.ndarray) -> None:
        """Describe one global word that two blocks race on: its first writer and an access from another block."""
        store = rows[:, 4] == 1
        write = rows[np.flatnonzero(store)[0]]
        others = rows[rows[:, 1] != write[1]]
        other = others[np.argmax(others[:, 4])] if others[:, 4].any() else others[0]  # another writer, if any
        number, word = divmod(int(write[0]), WORD_KEY)
        info, where = self._word(number, word)

        def party(row: np.ndarray) -> tuple[tuple[int, int], tuple[int, int], int]:
            block = (int(row[1]) % self.launch.grid[0], int(row[1]) // self.launch.grid[0])
            return thread_xy(self.launch, int(row[2])), block, self._site_line[int(row[3])]

        (w_xy, w_block, w_line), (o_xy, o_block, o_line) = party(write), party(other)

        def read_and_write(block: int) -> bool:
            return len({int(op) for op in rows[rows[:, 1] == block, 4]}) == 2

        unordered = "blocks run in any order, or at the same time, and cuda.syncthreads() orders one block only"
        if read_and_write(write[1]) and read_and_write(other[1]):
            hazard = "lost update"
            text = (
                f"race (lost update) on global {where}: thread {w_xy} of block {w_block} (line {w_line}) and thread "
                f"{o_xy} of block {o_block} (line {o_line}) both read it and write it back without an atomic; "
                f"{unordered}, so both can read the old value and one update is lost: use cuda.atomic.add"
                f"({info.name}, index, value)."
            )
        elif other[4]:
            hazard = "write-after-write"
            text = (
                f"race (write-after-write) on global {where}: thread {w_xy} of block {w_block} (line {w_line}) and "
                f"thread {o_xy} of block {o_block} (line {o_line}) both write it; {unordered}, so which value stays "
                "is undefined."
            )
        else:
            hazard = "read-write"
            text = (
                f"race (read-write) on global {where}: thread {o_xy} of block {o_block} reads it at line {o_line}, "
                f"which thread {w_xy} of block {w_block} writes at line {w_line}; {unordered}, so the read may see "
                "the value from before or after the write."
            )
        text += self._shown(number, word)
        self.add(
            Diagnostic("race", o_line, o_xy, o_block, text, 1, w_line, w_xy),
            ("race", "blocks " + hazard, o_line, w_line),
        )

    def _divergence(self, interval: Interval) -> None:
        """Threads that exited while others wait, and threads waiting at different barrier instances.

        An instance is a barrier statement in one iteration of each loop around it
        (`Interval.instances`): the same `cuda.syncthreads()` reached in different
        iterations is as much two barriers as two calls on different lines.
        """
        waiting = interval.waiting
        if not waiting:
            return
        if not interval.finished and len(set(waiting.values())) == 1 and len(set(interval.instances.values())) == 1:
            return  # every thread waits at one barrier instance: the usual case, decided without a Python loop
        statements = self.program.statements
        numbered: dict[tuple[int, int], list[int]] = {}
        for linear, barrier in interval.waiting.items():
            numbered.setdefault((barrier, interval.instances[linear]), []).append(linear)
        vectors = self.vectors.by_number() if len(numbered) > 1 else ()  # the message names iterations only then
        instances = {
            (barrier, vectors[number] if vectors else ()): threads for (barrier, number), threads in numbered.items()
        }
        ordered = sorted(instances.items(), key=lambda item: -len(item[1]))
        block = interval.block
        if interval.finished:
            (barrier, _), threads = ordered[0]
            line = statements[barrier].line
            xy = thread_xy(self.launch, interval.finished[0])
            text = (
                f"barrier divergence in block {block}: thread {xy} finished without reaching cuda.syncthreads() "
                f"at line {line}, where {len(threads)} thread(s) of the block wait; {len(interval.finished)} thread(s) "
                f"finished early. {EXITED_THREADS}"
            )
            self.add(Diagnostic("barrier_divergence", line, xy, block, text), ("barrier_divergence", line))
        if len(ordered) > 1:
            ((main, main_iteration), _), ((other, other_iteration), threads) = ordered[0], ordered[1]
            line, other_line = statements[other].line, statements[main].line
            xy = thread_xy(self.launch, threads[0])
            if other == main:
                loops = statements[main].loops
                level = next(i for i, (a, b) in enumerate(zip(main_iteration, other_iteration)) if a != b)
                where = (
                    f"the same cuda.syncthreads() at line {line} in different iterations of the loop at line "
                    f"{statements[loops[level]].line}: thread {xy} in its iteration {other_iteration[level]}, most "
                    f"threads in iteration {main_iteration[level]}"
                )
            else:
                counts = ", ".join(f"line {statements[b].line}: {len(t)}" for (b, _), t in ordered)
                where = (
                    f"different cuda.syncthreads() calls ({counts} threads); thread {xy} waits at line {line} while "
                    f"most wait at line {other_line}"
                )
            text = f"barrier divergence in block {block}: threads wait at {where}. {DIFFERENT_BARRIERS}"
            self.add(
                Diagnostic("barrier_divergence", line, xy, block, text, other_line=other_line),
                ("barrier_divergence", line, other_line, other == main),
            )

    def out_of_bounds(self, found: list[OutOfBounds]) -> None:
        for site, thread, block, name, index, shape in found:
            info = self.program.sites[site]
            xy = thread_xy(self.launch, thread)
            shown = ", ".join(str(i) for i in index)
            action = "the load was skipped and returned 0" if info.op == "load" else "the store was skipped"
            text = (
                f"out of bounds: thread {xy} of block {block} {'reads' if info.op == 'load' else 'writes'} "
                f"{name}[{shown}] at line {info.line}, but {name} has shape {shape}; {action}"
            )
            self.add(Diagnostic("out_of_bounds", info.line, xy, block, text), ("out_of_bounds", info.line))

    def stop(self, stop: Stop) -> None:
        xy = thread_xy(self.launch, stop.thread)
        if stop.kind == "step_budget":
            text = (
                f"step budget: {stop.message} (thread {xy} of block {stop.block} was at line {stop.line}); "
                "a loop that never ends, or a size too large for the playground"
            )
        else:
            text = f"{stop.message} (thread {xy} of block {stop.block}, line {stop.line}); the run stopped here"
        self.add(Diagnostic(stop.kind, stop.line, xy, stop.block, text), (stop.kind, stop.line))

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        order = {"error": 0, "step_budget": 1, "barrier_divergence": 2, "race": 3, "out_of_bounds": 4}
        return tuple(sorted(self.found.values(), key=lambda d: (order.get(d.kind, 9), d.line)))
