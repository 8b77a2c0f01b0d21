"""Races, as compute-sanitizer's racecheck finds them, from the table of a chunk of intervals.

Within one barrier interval of a block, a shared-memory word, or a word of a global array the kernel
writes, written by one thread and read or written by another, unless a `cuda.syncwarp()` both lanes take
part in orders the two accesses (`pysim.play.warp_order`). The program order of the two accesses
(statements executed before each, in its own thread) names the hazard: read-after-write (the read
happens too early: reported at the read's line), write-after-read (a write overwrites a value another
thread still reads: reported at the write's line), write-after-write (at the later write), and a lost
update where two threads each read the word and write it back (`X[i] += v` without an atomic). Global
words also race between blocks, whatever the intervals: nothing orders two blocks. Sites of
cuda.atomic.* never race.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..core.bulk import groups
from .columns import ArrayInfo, Logged, Row
from .diagnostics import Diagnostic, Diagnostics
from .intrinsics import WARP_SIZE
from .launch import Launch, block_number, block_xy, thread_xy
from .program import Program
from .scheduler import Interval
from .table import Chunk
from .warp_order import racing_rows, unordered_pair

RACES_PER_INTERVAL = 16  # racy words described per array and set of sites touching them; the rest counted there


def _mixed(code: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each (site · 2 + store) code (splitmix64's finaliser): a word's signature is the sum over
    the codes touching it, so words touched by the same sites share it and two sets collide about 1 in 2^64."""
    z = code.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


WORD_KEY = 1 << 32  # array number · WORD_KEY + word: one key per element of every array
# How a run's C shows the racy global words it repeated the launch for (pysim.play.memory; `run`).
SHOWN_INTERLEAVING = (
    "The C shown is one outcome a GPU can produce: every thread racing on the word read it before any of the "
    "others stored it (as if they all ran at once), and the store that runs last in TileLab's order (block by "
    "block, thread by thread) is the one left."
)


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


@dataclass
class Races:
    """Finds the races of each counted chunk (`chunk`) and, after the run, between blocks (`global_races`)."""

    launch: Launch
    arrays: tuple[ArrayInfo, ...]
    diagnostics: Diagnostics
    shared: np.ndarray  # per array: in shared memory
    store: np.ndarray  # per site: a store
    tracked: np.ndarray  # per array: shared, or a global array the kernel writes
    atomic_site: np.ndarray  # per site: part of a cuda.atomic.*
    site_line: list[int]
    shown: frozenset[tuple[int, int]] = frozenset()  # racy global words (array, word) C shows as a GPU could
    racy_words: set[tuple[int, int]] = field(default_factory=set)  # racy global words found in this run
    _global_log: list[np.ndarray] = field(default_factory=list)  # per chunk: rows of `Logged` columns

    def chunk(self, chunk: Chunk, pending: list[Interval]) -> None:
        """Hazards between threads of one interval, in shared memory and in the global arrays the kernel
        writes, for every interval of the chunk; keeps the global accesses for the races between blocks
        (`global_races`). The chunk's words are checked at once; intervals with a racy word are then
        described one by one (`_hazards`)."""
        array, site = chunk.column(Row.ARRAY), chunk.column(Row.SITE)
        tracked = np.flatnonzero(self.tracked[array] & ~self.atomic_site[site])
        if not len(tracked):
            return
        array, site = array[tracked], site[tracked]
        position, thread = chunk.column(Row.POSITION)[tracked], chunk.column(Row.THREAD)[tracked]
        word = chunk.words()[tracked]
        store = self.store[site]
        in_global = ~self.shared[array]
        if in_global.any():
            blocks = np.array([block_number(self.launch, p.block) for p in pending])
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
        tracked = (
            self.tracked[rows[:, Row.ARRAY].astype(np.int64)] & ~self.atomic_site[rows[:, Row.SITE].astype(np.int64)]
        )
        rows = rows[tracked]
        store = self.store[rows[:, Row.SITE].astype(np.int64)]
        thread = rows[:, Row.THREAD].astype(np.int64)
        word = rows[:, Row.ARRAY].astype(np.int64) * WORD_KEY + rows[:, Row.WORD].astype(np.int64)
        cells, group = np.unique(word, return_inverse=True)
        racy = _racy(group, len(cells), thread, store, self.launch.threads)
        code = rows[:, Row.SITE].astype(np.int64) * 2 + store
        pairs: dict[int, tuple[int, int]] = {}  # racy word -> its first pair no syncwarp orders (indices in group)
        if interval.warp_syncs:
            for cell in np.flatnonzero(racy).tolist():
                members = np.flatnonzero(group == cell)
                pair = unordered_pair(rows[members], store[members], interval.warp_syncs)
                racy[cell] = pair is not None
                if pair is not None:
                    pairs[cell] = pair
        for members, weight in self._racy_members(cells, group, code, np.flatnonzero(racy)):
            cell = int(group[members[0]])
            if cell in pairs:  # describe two threads no syncwarp orders, not the first two of the interval
                members = members[racing_rows(rows[members], store[members], pairs[cell])]
            self._race(interval, rows[members], store[members], weight)

    def _racy_members(
        self, cells: np.ndarray, group: np.ndarray, code: np.ndarray, racy_cells: np.ndarray
    ) -> Iterator[tuple[np.ndarray, int]]:
        """For each racy word to describe, the indices of its accesses (`group`: each access's word in `cells`;
        `code`: its site · 2 + store) and how many racy words its description counts for; remembers the racy
        global words.

        Every racy word is counted: words of one array touched by the same sites race at the same lines, so up
        to RACES_PER_INTERVAL of each such set are described and the last one also counts the rest of its set.
        A second pair of racing lines is a second set, so it is always named."""
        if not len(racy_cells):
            return
        self._note_global(cells[racy_cells])
        by_group = np.argsort(group, kind="stable")
        bounds = np.searchsorted(group[by_group], np.arange(len(cells) + 1))
        codes = 2 * len(self.site_line)
        pairs = np.unique(group * codes + code)  # each (word, site, load or store) once
        signature = np.zeros(len(cells), dtype=np.uint64)
        np.add.at(signature, pairs // codes, _mixed(pairs % codes))
        kind = np.stack([cells[racy_cells] // WORD_KEY, signature[racy_cells].view(np.int64)], axis=1)
        _, set_of, size = np.unique(kind, axis=0, return_inverse=True, return_counts=True)
        set_of = set_of.reshape(-1)
        seen = np.zeros(len(size), dtype=np.int64)
        for cell, number in zip(racy_cells.tolist(), set_of.tolist(), strict=True):
            if seen[number] == RACES_PER_INTERVAL:
                continue
            seen[number] += 1
            last = seen[number] == min(size[number], RACES_PER_INTERVAL)
            weight = 1 + (int(size[number]) - RACES_PER_INTERVAL if last and size[number] > RACES_PER_INTERVAL else 0)
            yield by_group[bounds[cell] : bounds[cell + 1]], weight

    def _note_global(self, keys: np.ndarray) -> None:
        """Remember racy global words (array number, word): the run shows C as a GPU could leave them."""
        for key in keys[~self.shared[keys // WORD_KEY]].tolist():
            self.racy_words.add(divmod(key, WORD_KEY))

    def _word(self, number: int, word: int) -> tuple[ArrayInfo, str]:
        info = self.arrays[number]
        cell = info.index(word)
        return info, f"{info.name}[{', '.join(map(str, cell))}]"

    def _shown(self, number: int, word: int) -> str:
        """How the run's C shows a racy global word (pysim.play.memory), when it does."""
        return f" {SHOWN_INTERLEAVING}" if (number, word) in self.shown else ""

    def _race(self, interval: Interval, rows: np.ndarray, store: np.ndarray, weight: int) -> None:
        """Describe one racy word of one interval: its first write and an access to it by another thread;
        `weight`: the racy words this description counts for."""
        write = rows[np.flatnonzero(store)[0]]
        writer = int(write[Row.THREAD])
        number, word = int(write[Row.ARRAY]), int(write[Row.WORD])
        info, where = self._word(number, word)
        space, shown = info.space, self._shown(number, word)
        thread = rows[:, Row.THREAD].astype(np.int64)
        both = np.intersect1d(thread[store], thread[~store])  # threads that read the word and write it back
        block = interval.block
        if len(both) >= 2:
            first, second = (rows[(thread == t) & store][0] for t in both[:2])
            line, second_line = self.site_line[int(second[Row.SITE])], self.site_line[int(first[Row.SITE])]
            xy, other_xy = thread_xy(self.launch, int(both[1])), thread_xy(self.launch, int(both[0]))
            hazard = "lost update"
            text = (
                f"race (lost update) on {space} {where} in block {block}: threads {other_xy} (line {second_line}) "
                f"and {xy} (line {line}) both read it and write it back in the same barrier interval without an "
                f"atomic; on a GPU both can read the old value, and one update is lost: use cuda.atomic.add"
                f"({info.name}, index, value).{shown}"
            )
            self.diagnostics.add(
                Diagnostic("race", line, xy, block, text, weight, second_line, other_xy),
                ("race", hazard, line, second_line),
            )
            return
        others = rows[thread != writer]
        reads = others[~store[thread != writer]]
        other = reads[0] if len(reads) else others[0]
        write_line, other_line = self.site_line[int(write[Row.SITE])], self.site_line[int(other[Row.SITE])]
        w_xy, o_xy = thread_xy(self.launch, writer), thread_xy(self.launch, int(other[Row.THREAD]))
        if len(reads):
            if other[Row.ORDINAL] > write[Row.ORDINAL]:
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
        if hazard != "write-after-write" and writer // WARP_SIZE == int(other[Row.THREAD]) // WARP_SIZE:
            text += " (or cuda.syncwarp(): both threads are lanes of one warp)"
        self.diagnostics.add(
            Diagnostic("race", line, xy, block, text + shown, weight, second, second_xy), ("race", hazard, line, second)
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
        kept = np.empty((len(first), len(Logged)), dtype=np.int64)
        kept[:, Logged.KEY], kept[:, Logged.BLOCK] = key[first], blocks[position[first]]
        kept[:, Logged.THREAD], kept[:, Logged.SITE], kept[:, Logged.STORE] = thread[first], site[first], store[first]
        self._global_log.append(kept)

    def global_races(self) -> None:
        """Races between blocks: a global word one block writes and another reads or writes. Call after the run.

        Nothing orders two blocks of one launch (they run in any order, or at
        once), so any such pair races, whatever the barriers.
        """
        if not self._global_log:
            return
        log = np.concatenate(self._global_log)  # in the order they ran
        self._global_log = []
        cells, group = np.unique(log[:, Logged.KEY], return_inverse=True)
        written = np.zeros(len(cells), dtype=bool)
        np.logical_or.at(written, group, log[:, Logged.STORE] == 1)
        pairs = np.unique(group * self.launch.blocks + log[:, Logged.BLOCK])
        # intp: bincount refuses int64 where NumPy's index type is 32 bits (Pyodide's wasm32).
        blocks = np.bincount((pairs // self.launch.blocks).astype(np.intp), minlength=len(cells))
        code = log[:, Logged.SITE] * 2 + log[:, Logged.STORE]
        for members, weight in self._racy_members(cells, group, code, np.flatnonzero(written & (blocks >= 2))):
            self._block_race(log[members], weight)

    def _block_race(self, rows: np.ndarray, weight: int) -> None:
        """Describe one global word that two blocks race on: its first writer and an access from another block;
        `weight`: the racy words this description counts for."""
        store = rows[:, Logged.STORE] == 1
        write = rows[np.flatnonzero(store)[0]]
        others = rows[rows[:, Logged.BLOCK] != write[Logged.BLOCK]]
        writes = others[:, Logged.STORE]
        other = others[np.argmax(writes)] if writes.any() else others[0]  # another writer, if any
        number, word = divmod(int(write[Logged.KEY]), WORD_KEY)
        info, where = self._word(number, word)

        def party(row: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...], int]:
            linear = int(row[Logged.BLOCK])
            block = block_xy(self.launch, linear)
            return thread_xy(self.launch, int(row[Logged.THREAD])), block, self.site_line[int(row[Logged.SITE])]

        (w_xy, w_block, w_line), (o_xy, o_block, o_line) = party(write), party(other)

        def read_and_write(block: int) -> bool:
            return len({int(op) for op in rows[rows[:, Logged.BLOCK] == block, Logged.STORE]}) == 2

        unordered = "blocks run in any order, or at the same time, and cuda.syncthreads() orders one block only"
        if read_and_write(write[Logged.BLOCK]) and read_and_write(other[Logged.BLOCK]):
            hazard = "lost update"
            text = (
                f"race (lost update) on global {where}: thread {w_xy} of block {w_block} (line {w_line}) and thread "
                f"{o_xy} of block {o_block} (line {o_line}) both read it and write it back without an atomic; "
                f"{unordered}, so both can read the old value and one update is lost: use cuda.atomic.add"
                f"({info.name}, index, value)."
            )
        elif other[Logged.STORE]:
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
        self.diagnostics.add(
            Diagnostic("race", o_line, o_xy, o_block, text, weight, w_line, w_xy),
            ("race", "blocks " + hazard, o_line, w_line),
        )
