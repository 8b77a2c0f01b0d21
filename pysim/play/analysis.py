"""Turn what the threads recorded into warp instructions, counters and diagnostics.

**Warp instructions (lockstep).** A warp executes one common instruction at a
time; where its threads diverge on a data-dependent branch, it runs each path
taken with the threads off that path disabled (CUDA C++ Programming Guide, "SIMT
Architecture", https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#simt-architecture).
So the lanes that issue one load or store together are those that reach the same
*site* (one subscript of the source, as a load or a store) in the same iteration
of every loop around it: its active mask in that iteration. Every loop iteration
records its iteration statement (pysim.play.rewrite), so `Loops` follows each
thread's iterations from its stream; each site becomes one
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

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..core import banks, sectors
from ..core.counters import Counters
from ..core.trace import Access, Step, count_step
from ..core.warps import INACTIVE, by_warp
from .program import Program
from .runtime import Interval, Launch, OutOfBounds, Stop

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


def thread_xy(launch: Launch, thread: int) -> tuple[int, int]:
    return thread % launch.block[0], thread // launch.block[0]


# Which iteration of each loop around a statement a thread is in, outermost first (0 = the first).
Iteration = tuple[int, ...]
# A thread's open loops, outermost first: their iteration statements, and the iteration each is in.
LoopStack = tuple[tuple[int, ...], Iteration]


@dataclass(frozen=True)
class Loops:
    """Where each statement sits in the kernel's loops, to follow a thread's iterations from its stream.

    Every iteration of a loop records its iteration statement first (a `for`'s
    "next", a `while`'s test), so a thread's stream alone says which iteration
    of each enclosing loop a later statement ran in.
    """

    depth: tuple[int, ...]  # len(Statement.loops)
    head: tuple[bool, ...]  # the statement starts an iteration of the innermost loop it lists

    @classmethod
    def of(cls, program: Program) -> Loops:
        statements = program.statements
        return cls(
            tuple(len(s.loops) for s in statements),
            tuple(bool(s.loops) and s.loops[-1] == s.number for s in statements),
        )

    def advance(self, loops: list[int], counts: list[int], statement: int) -> None:
        """Update a thread's open loops (iteration statements, and the iteration of each) as it executes
        `statement`."""
        depth = self.depth[statement]
        if not self.head[statement]:
            del loops[depth:], counts[depth:]  # loops it left (break, or the loop ended) close
        elif len(loops) >= depth and loops[depth - 1] == statement:
            counts[depth - 1] += 1  # the next iteration
            del loops[depth:], counts[depth:]
        else:
            del loops[depth - 1 :], counts[depth - 1 :]  # the loop starts (a sibling at this depth has ended)
            loops.append(statement)
            counts.append(0)


@dataclass(frozen=True)
class Lockstep:
    """How one interval's accesses became warp instructions: enough to replay one thread's records."""

    starts: dict[int, LoopStack]  # each thread's open loops when the interval began
    rows: dict[tuple[int, Iteration], int]  # (site·arrays + array, iteration) -> row of that site's Access


@dataclass
class Analysis:
    """Accumulates counters, metrics and diagnostics interval by interval."""

    program: Program
    launch: Launch
    arrays: tuple[ArrayInfo, ...]
    counters: Counters = Counters()
    metrics: Metrics = Metrics()
    found: dict = field(default_factory=dict)  # (kind, line, other_line) -> Diagnostic
    shown: frozenset[tuple[int, int]] = frozenset()  # racy global words (array, word) C shows as a GPU could
    racy_words: set[tuple[int, int]] = field(default_factory=set)  # racy global words found in this run

    def __post_init__(self) -> None:
        program = self.program
        self._fma = [s.fma for s in program.statements]
        self._atomic = [s.kind == "atomic" for s in program.statements]
        self._register = [a.space == "register" for a in self.arrays]
        self._shared = np.array([a.space == "shared" for a in self.arrays])
        self._tracked = self._shared | written_globals(program, self.arrays)
        self._atomic_site = np.array([s.atomic for s in program.sites] or [False])
        self._global_log: list[np.ndarray] = []  # per interval: (key, block, thread, site, store) of global words
        self._register_read = [s.op == "load" and s.fma_operand for s in program.sites]
        self._store = np.array([s.op == "store" for s in program.sites] or [False])
        self._site_line = [s.line for s in program.sites]
        self._loops = Loops.of(program)
        self._stacks: dict[int, tuple[list[int], list[int]]] = {}  # each thread's open loops, across intervals
        self._waits: dict[int, tuple[int, Iteration]] = {}  # thread -> the barrier instance it waits at

    # --- one interval -----------------------------------------------------------------------------
    def interval(self, interval: Interval) -> tuple[Step, Counters, Lockstep]:
        """Count one barrier interval; returns its Step (accesses as warp instructions), the delta, and
        how its accesses map to the instructions' rows (for stepping through one thread).

        The interval in which the run stopped (step budget, Python error) is not
        counted: its threads stopped part-way, so its counts mean little, and
        after a runaway loop it holds most of the budget's steps.
        """
        if interval.number == 0:
            self._stacks = {}  # a new block: its threads start outside every loop
        if interval.stopped:
            return Step("interval", (0,)), Counters(), Lockstep({}, {})
        rows, (fma, register_reads, atomics), starts, vectors = self._rows(interval)
        accesses, instruction_rows = self._instructions(rows, vectors)
        barrier_lines = sorted({self.program.statements[s].line for s in interval.waiting.values()})
        step = Step(
            "interval",
            tuple(barrier_lines) or (0,),
            accesses=accesses,
            fma=fma,
            register_reads=register_reads,
            barrier=bool(interval.waiting),
        )
        delta = count_step(step) + Counters(atomics=atomics)  # a Step has no field for them
        self.counters = self.counters + delta
        self.metrics = self.metrics + self._metrics(accesses)
        if len(rows):
            self._races(interval, rows)
        self._divergence(interval)
        return step, delta, Lockstep(starts, instruction_rows)

    def _rows(
        self, interval: Interval
    ) -> tuple[np.ndarray, tuple[int, int, int], dict[int, LoopStack], list[Iteration]]:
        """(thread, ordinal, iteration, site, array, word, value) of every global/shared access, in order.

        `ordinal` counts the statements the thread executed in this interval before
        the access (program order, for races); `iteration` numbers (into the
        returned list of iteration vectors) which iteration of each enclosing loop
        the access happened in. Also returns the multiply-adds, register reads and
        atomics executed, each thread's loops as the interval began (to replay one
        thread), and records where each thread waits (`self._waits`, the barrier
        instances).
        """
        fma_flags, register, register_read = self._fma, self._register, self._register_read
        advance, depth, head = self._loops.advance, self._loops.depth, self._loops.head
        found = []
        fma = register_reads = atomics = 0
        atomic = self._atomic
        ids: dict[Iteration, int] = {}
        starts: dict[int, LoopStack] = {}
        self._waits = {}
        for thread, stream in interval.segments:
            loops, counts = self._stacks.setdefault(thread, ([], []))
            starts[thread] = (tuple(loops), tuple(counts))
            ordinal = 0
            vector = -1  # computed at the statement's first access, once per statement
            for item in stream:
                if item.__class__ is int:
                    ordinal += 1
                    if head[item] or len(loops) > depth[item]:  # else its loops are those of the last statement
                        advance(loops, counts, item)
                        vector = -1
                    fma += fma_flags[item]  # multiply-adds in the statement (`a*b + c*d` holds 2)
                    atomics += atomic[item]
                elif register[item[1]]:
                    if register_read[item[0]]:
                        register_reads += 1
                else:
                    if vector < 0:
                        vector = ids.setdefault(tuple(counts), len(ids))
                    found.append((thread, ordinal, vector, *item))
            if thread in interval.waiting:
                self._waits[thread] = (interval.waiting[thread], tuple(counts))
        rows = np.array(found, dtype=np.float64) if found else np.zeros((0, 7))
        return rows, (fma, register_reads, atomics), starts, list(ids)

    def _instructions(
        self, rows: np.ndarray, vectors: list[Iteration]
    ) -> tuple[tuple[Access, ...], dict[tuple[int, Iteration], int]]:
        """One Access per (site, array), one row per iteration vector at which some thread executed the site
        (in execution order), and the row of each (site·arrays + array, iteration vector)."""
        if not len(rows):
            return (), {}
        ordered = sorted(range(len(vectors)), key=vectors.__getitem__)
        rank_of = np.empty(len(vectors), dtype=np.int64)
        rank_of[ordered] = np.arange(len(vectors))
        thread = rows[:, 0].astype(np.int64)
        rank = rank_of[rows[:, 2].astype(np.int64)]
        key = rows[:, 3].astype(np.int64) * len(self.arrays) + rows[:, 4].astype(np.int64)
        word = rows[:, 5].astype(np.int64)
        value = rows[:, 6].astype(np.float32)
        order = np.argsort(key, kind="stable")
        key, thread, rank, word, value = key[order], thread[order], rank[order], word[order], value[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        ends = np.r_[starts[1:], len(key)]
        threads = self.launch.threads
        found = []
        instruction_rows: dict[tuple[int, Iteration], int] = {}
        for start, end in zip(starts, ends):
            info = self.arrays[int(key[start] % len(self.arrays))]
            site = self.program.sites[int(key[start] // len(self.arrays))]
            # The lanes that execute a site in the same iteration of every enclosing loop issue it together.
            used, r = np.unique(rank[start:end], return_inverse=True)
            t = thread[start:end]
            for row, used_rank in enumerate(used):
                instruction_rows[int(key[start]), vectors[ordered[used_rank]]] = row
            words = np.full((len(used), threads), INACTIVE, dtype=np.int64)
            values = np.zeros(words.shape, dtype=np.float32)
            words[r, t] = word[start:end]
            values[r, t] = value[start:end]
            active = words != INACTIVE
            stride = info.stride
            access = Access(
                info.name,
                info.space,
                site.op,
                np.where(active, words // stride, INACTIVE),
                np.where(active, words % stride, INACTIVE),
                stride,
                values,
            )
            found.append((int(order[start:end].min()), access))
        return tuple(access for _, access in sorted(found, key=lambda pair: pair[0])), instruction_rows

    def _metrics(self, accesses: tuple[Access, ...]) -> Metrics:
        total = Metrics()
        for access in accesses:
            words = access.words
            requests = int(np.count_nonzero((by_warp(words) != INACTIVE).any(axis=-1)))
            if access.space == "global":
                found = sectors.warp_sectors(words)
                most = int(found.max()) if found.size else 0
                if access.op == "load":
                    total = total + Metrics(global_load_requests=requests, max_sectors_per_load=most)
                else:
                    total = total + Metrics(
                        global_store_requests=requests,
                        global_store_sectors=int(found.sum()),
                        max_sectors_per_store=most,
                    )
            elif access.space == "shared":
                degree = banks.degrees(words)
                total = total + Metrics(
                    shared_requests=requests, max_bank_degree=int(degree.max()) if degree.size else 0
                )
        return total

    # --- diagnostics --------------------------------------------------------------------------------
    def add(self, diagnostic: Diagnostic, key: tuple) -> None:
        """Record a diagnostic, or count one more of the same kind at the same lines."""
        known = self.found.get(key)
        if known is None:
            self.found[key] = diagnostic
        else:
            self.found[key] = Diagnostic(**{**known.__dict__, "count": known.count + diagnostic.count})

    def _races(self, interval: Interval, rows: np.ndarray) -> None:
        """Hazards between threads of this interval, in shared memory and in the global arrays the kernel writes;
        keeps the global accesses for the races between blocks (`global_races`)."""
        tracked = self._tracked[rows[:, 4].astype(np.int64)] & ~self._atomic_site[rows[:, 3].astype(np.int64)]
        if not tracked.any():
            return
        rows = rows[tracked]
        store = self._store[rows[:, 3].astype(np.int64)]
        in_global = ~self._shared[rows[:, 4].astype(np.int64)]
        if in_global.any():
            self._keep_global(interval, rows[in_global], store[in_global])
        if not store.any():
            return  # reads only: no hazard
        thread = rows[:, 0].astype(np.int64)
        word = rows[:, 4].astype(np.int64) * WORD_KEY + rows[:, 5].astype(np.int64)
        cells, group = np.unique(word, return_inverse=True)
        big = self.launch.threads + 1
        write_min = np.full(len(cells), big)
        write_max = np.full(len(cells), -1)
        read_min = np.full(len(cells), big)
        read_max = np.full(len(cells), -1)
        np.minimum.at(write_min, group[store], thread[store])
        np.maximum.at(write_max, group[store], thread[store])
        np.minimum.at(read_min, group[~store], thread[~store])
        np.maximum.at(read_max, group[~store], thread[~store])
        written = write_max >= 0
        racy = written & (
            (write_min != write_max) | ((read_max >= 0) & ((read_min != write_min) | (read_max != write_min)))
        )
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

    def _keep_global(self, interval: Interval, rows: np.ndarray, store: np.ndarray) -> None:
        """Keep one access per (global word, load or store) of this interval, for `global_races`."""
        key = rows[:, 4].astype(np.int64) * WORD_KEY + rows[:, 5].astype(np.int64)
        _, first = np.unique(key * 2 + store, return_index=True)
        bx, by = interval.block
        block = by * self.launch.grid[0] + bx
        kept = np.stack(
            [key[first], np.full(len(first), block), rows[first, 0], rows[first, 3], store[first]], axis=1
        ).astype(np.int64)
        self._global_log.append(kept[np.argsort(first, kind="stable")])

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
        (`self._waits`): the same `cuda.syncthreads()` reached in different
        iterations is as much two barriers as two calls on different lines.
        """
        if not self._waits:
            return
        statements = self.program.statements
        instances: dict[tuple[int, Iteration], list[int]] = {}
        for linear, instance in self._waits.items():
            instances.setdefault(instance, []).append(linear)
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
