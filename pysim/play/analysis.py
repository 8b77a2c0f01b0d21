"""Turn what the threads recorded into warp instructions, counters and diagnostics.

**Warp instructions (the SIMT view of converged code).** A thread's accesses
carry the *site* (one subscript of the source, as a load or a store) they come
from. Within a barrier interval, the n-th time a thread executes a site is that
site's n-th instruction: the threads of a warp that executed the site for the
n-th time issue it together. For converged code (every thread walks the same
loops) this is exactly how the GPU groups them; where threads diverge, it is
the natural reading of "the same instruction". Each site becomes one
`pysim.core.trace.Access` with one row per occurrence, and `pysim.core.trace.count_step`
counts it: the same code that counts the built-in kernels, so sectors (32-byte
segments per warp load) and bank conflicts follow SPEC §2 unchanged.

**Races** (as compute-sanitizer's racecheck): within one barrier interval of a
block, a shared-memory word written by one thread and read or written by
another. The program order of the two accesses (statements executed before
each, in its own thread) names the hazard: read-after-write (the read happens
too early: reported at the read's line), write-after-read (a write overwrites
a value another thread still reads: reported at the write's line),
write-after-write (at the later write).

**Barrier divergence**: at the end of an interval, some threads of the block
wait at a barrier while others finished, or they wait at different barriers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core import banks, sectors
from ..core.counters import Counters
from ..core.trace import Access, Step, count_step
from ..core.warps import INACTIVE, by_warp
from .program import Program
from .runtime import Interval, Launch, OutOfBounds, Stop

RACES_PER_INTERVAL = 16  # racy words examined closely per interval (all are counted)


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


def thread_xy(launch: Launch, thread: int) -> tuple[int, int]:
    return thread % launch.block[0], thread // launch.block[0]


@dataclass
class Analysis:
    """Accumulates counters, metrics and diagnostics interval by interval."""

    program: Program
    launch: Launch
    arrays: tuple[ArrayInfo, ...]
    counters: Counters = Counters()
    metrics: Metrics = Metrics()
    found: dict = field(default_factory=dict)  # (kind, line, other_line) -> Diagnostic

    def __post_init__(self) -> None:
        program = self.program
        self._fma = [s.fma for s in program.statements]
        self._register = [a.space == "register" for a in self.arrays]
        self._shared = np.array([a.space == "shared" for a in self.arrays])
        self._register_read = [s.op == "load" and s.fma_operand for s in program.sites]
        self._store = np.array([s.op == "store" for s in program.sites] or [False])
        self._site_line = [s.line for s in program.sites]

    # --- one interval -----------------------------------------------------------------------------
    def interval(self, interval: Interval) -> tuple[Step, Counters]:
        """Count one barrier interval; returns its Step (accesses as warp instructions) and the delta.

        The interval in which the run stopped (step budget, Python error) is not
        counted: its threads stopped part-way, so its counts mean little, and
        after a runaway loop it holds most of the budget's steps.
        """
        if interval.stopped:
            return Step("interval", (0,)), Counters()
        rows, fma, register_reads = self._rows(interval)
        accesses = self._instructions(rows)
        barrier_lines = sorted({self.program.statements[s].line for s in interval.waiting.values()})
        step = Step(
            "interval",
            tuple(barrier_lines) or (0,),
            accesses=accesses,
            fma=fma,
            register_reads=register_reads,
            barrier=bool(interval.waiting),
        )
        delta = count_step(step)
        self.counters = self.counters + delta
        self.metrics = self.metrics + self._metrics(accesses)
        if len(rows):
            self._races(interval, rows)
        self._divergence(interval)
        return step, delta

    def _rows(self, interval: Interval) -> tuple[np.ndarray, int, int]:
        """(thread, ordinal, occurrence, site, array, word, value) of every global/shared access, in order.

        `ordinal` counts the statements the thread executed in this interval before
        the access (program order, for races); `occurrence` is how many times the
        thread had already executed the access's statement in this interval, so
        a load skipped by one thread (the false arm of `x if ok else 0.0`) still
        leaves the others' n-th execution in the n-th instruction.
        """
        fma_flags, register, register_read = self._fma, self._register, self._register_read
        found = []
        fma = register_reads = 0
        for thread, stream in interval.segments:
            ordinal = occurrence = 0
            seen: dict[int, int] = {}
            for item in stream:
                if item.__class__ is int:
                    ordinal += 1
                    occurrence = seen.get(item, 0)
                    seen[item] = occurrence + 1
                    if fma_flags[item]:
                        fma += 1
                elif register[item[1]]:
                    if register_read[item[0]]:
                        register_reads += 1
                else:
                    found.append((thread, ordinal, occurrence, *item))
        rows = np.array(found, dtype=np.float64) if found else np.zeros((0, 7))
        return rows, fma, register_reads

    def _instructions(self, rows: np.ndarray) -> tuple[Access, ...]:
        """One Access per (site, array): row n holds every thread's n-th execution of the site's statement."""
        if not len(rows):
            return ()
        thread = rows[:, 0].astype(np.int64)
        rank = rows[:, 2].astype(np.int64)
        key = rows[:, 3].astype(np.int64) * len(self.arrays) + rows[:, 4].astype(np.int64)
        word = rows[:, 5].astype(np.int64)
        value = rows[:, 6].astype(np.float32)
        order = np.argsort(key, kind="stable")
        key, thread, rank, word, value = key[order], thread[order], rank[order], word[order], value[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        ends = np.r_[starts[1:], len(key)]
        threads = self.launch.threads
        found = []
        for start, end in zip(starts, ends):
            info = self.arrays[int(key[start] % len(self.arrays))]
            site = self.program.sites[int(key[start] // len(self.arrays))]
            r, t = rank[start:end], thread[start:end]
            words = np.full((int(r.max()) + 1, threads), INACTIVE, dtype=np.int64)
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
        return tuple(access for _, access in sorted(found, key=lambda pair: pair[0]))

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
        number = rows[:, 4].astype(np.int64)
        shared = self._shared[number]
        if not shared.any():
            return
        rows = rows[shared]
        site = rows[:, 3].astype(np.int64)
        if not self._store[site].any():
            return  # reads only: no hazard
        thread = rows[:, 0].astype(np.int64)
        word = rows[:, 4].astype(np.int64) * (1 << 32) + rows[:, 5].astype(np.int64)
        store = self._store[site]
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
        racy_cells = np.flatnonzero(racy)
        if not len(racy_cells):
            return
        by_group = np.argsort(group, kind="stable")
        bounds = np.searchsorted(group[by_group], np.arange(len(cells) + 1))
        # Examine the first racy word of every array, then more up to the limit; count the rest.
        arrays = cells[racy_cells] >> 32
        first_of_array = racy_cells[np.r_[True, arrays[1:] != arrays[:-1]]]
        rest = np.setdiff1d(racy_cells, first_of_array)
        examined = np.r_[first_of_array, rest[: max(RACES_PER_INTERVAL - len(first_of_array), 0)]]
        for cell in examined:
            members = by_group[bounds[cell] : bounds[cell + 1]]
            self._race(interval, rows[members], store[members])
        if len(racy_cells) > len(examined):
            self.add_counts_only(len(racy_cells) - len(examined))

    def add_counts_only(self, extra: int) -> None:
        """Count racy words beyond those examined, on the last race reported."""
        races = [key for key in self.found if key[0] == "race"]
        if races:
            known = self.found[races[-1]]
            self.found[races[-1]] = Diagnostic(**{**known.__dict__, "count": known.count + extra})

    def _race(self, interval: Interval, rows: np.ndarray, store: np.ndarray) -> None:
        """Describe one racy word: its first write and an access to it by another thread."""
        write = rows[np.flatnonzero(store)[0]]
        writer = int(write[0])
        others = rows[rows[:, 0] != writer]
        reads = others[~store[rows[:, 0] != writer]]
        other = reads[0] if len(reads) else others[0]
        info = self.arrays[int(write[4])]
        cell = divmod(int(write[5]), info.stride) if len(info.shape) == 2 else (int(write[5]),)
        where = f"{info.name}[{', '.join(map(str, cell))}]"
        write_line, other_line = self._site_line[int(write[3])], self._site_line[int(other[3])]
        w_xy, o_xy = thread_xy(self.launch, writer), thread_xy(self.launch, int(other[0]))
        block = interval.block
        if len(reads):
            if other[1] > write[1]:
                hazard, line, thread, second, second_thread = "read-after-write", other_line, o_xy, write_line, w_xy
                text = (
                    f"race (read-after-write) on shared {where} in block {block}: thread {o_xy} reads it at line "
                    f"{other_line}, which thread {w_xy} writes at line {write_line} in the same barrier interval; "
                    f"the read may see the old value: put cuda.syncthreads() between the write and the read"
                )
            else:
                hazard, line, thread, second, second_thread = "write-after-read", write_line, w_xy, other_line, o_xy
                text = (
                    f"race (write-after-read) on shared {where} in block {block}: thread {w_xy} overwrites it at line "
                    f"{write_line} while thread {o_xy} may still read it at line {other_line} in the same barrier "
                    f"interval: put cuda.syncthreads() after the last read, before the next write"
                )
        else:
            hazard, line, thread, second, second_thread = "write-after-write", other_line, o_xy, write_line, w_xy
            text = (
                f"race (write-after-write) on shared {where} in block {block}: threads {w_xy} (line {write_line}) "
                f"and {o_xy} (line {other_line}) both write it in the same barrier interval; which value stays is undefined"
            )
        self.add(
            Diagnostic("race", line, thread, block, text, 1, second, second_thread), ("race", hazard, line, second)
        )

    def _divergence(self, interval: Interval) -> None:
        waiting = interval.waiting
        if not waiting:
            return
        statements = self.program.statements
        barriers: dict[int, list[int]] = {}
        for linear, barrier in waiting.items():
            barriers.setdefault(barrier, []).append(linear)
        block = interval.block
        if interval.finished:
            barrier, threads = max(barriers.items(), key=lambda item: len(item[1]))
            line = statements[barrier].line
            xy = thread_xy(self.launch, interval.finished[0])
            text = (
                f"barrier divergence in block {block}: thread {xy} finished without reaching cuda.syncthreads() "
                f"at line {line}, where {len(threads)} thread(s) of the block wait; {len(interval.finished)} thread(s) "
                "finished early. Every thread of a block must reach the same barriers (no barrier inside a "
                "thread-dependent `if`, no early return before one); on a GPU this hangs or misbehaves"
            )
            self.add(Diagnostic("barrier_divergence", line, xy, block, text), ("barrier_divergence", line))
        if len(barriers) > 1:
            ordered = sorted(barriers.items(), key=lambda item: -len(item[1]))
            (main, _), (other, threads) = ordered[0], ordered[1]
            line, other_line = statements[other].line, statements[main].line
            xy = thread_xy(self.launch, threads[0])
            counts = ", ".join(f"line {statements[b].line}: {len(t)}" for b, t in ordered)
            text = (
                f"barrier divergence in block {block}: threads wait at different cuda.syncthreads() calls "
                f"({counts} threads); thread {xy} waits at line {line} while most wait at line {other_line}. "
                "A barrier must be reached by every thread of the block at the same point"
            )
            self.add(
                Diagnostic("barrier_divergence", line, xy, block, text, other_line=other_line),
                ("barrier_divergence", line, other_line),
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
