"""A chunk of a run's accesses as one NumPy table, counted in bulk.

The analysis (`pysim.play.counting`) turns the runtime's flat records of every access
into rows, one per global or shared access, and counts a few hundred intervals at
once: a warp instruction is a group of rows with the same interval, site, array,
iteration vector (the lockstep rule, see the analysis) and warp, so sectors, bank
degrees and requests are group counts over the whole chunk in a handful of NumPy
calls, where counting interval by interval cost a few small NumPy calls per
instruction (most of a run's time, and much more in Pyodide). The counts are
those of `pysim.core.trace.count_step` applied to each interval's Step, which
`Chunk.step` still builds, lazily, for the one interval a reader looks at
(`tests/unit/test_play_table.py` checks both against a count in plain Python).
Sectors and bank degrees are counted by `pysim.core.bulk`, as every count of
them in pysim is.

A row's columns are `pysim.play.columns.Row`'s: the interval's position in the
chunk, the thread (linear id), its ordinal (statements the thread executed in the
interval before the access: program order, for races), the iteration vector (a
number, see `Chunk.vectors`), the site, the array number, the word, and the value
read or written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.bulk import bank_degrees, groups, sectors_per_group
from ..core.constants import WARP_SIZE
from ..core.trace import Access
from ..core.warps import INACTIVE
from .columns import Row

# Counters of SPEC §2 that come from accesses, per interval of a chunk (`Chunk.counts`).
ACCESS_COUNTERS = (
    "global_loads",
    "global_stores",
    "shared_loads",
    "shared_stores",
    "global_sectors",
    "bank_extra_cycles",
    "shared_wavefronts",
)


@dataclass(frozen=True)
class Layout:
    """What the counting needs to know of the program's sites and arrays, as lookup arrays."""

    store: np.ndarray  # per site: a store
    atomic: np.ndarray  # per site: part of a cuda.atomic.* (its load and its store are one instruction)
    shared: np.ndarray  # per array: in shared memory (else global; register arrays have no rows)
    arrays: int
    wide: np.ndarray  # per array: 8-byte elements in shared memory (an LDS.64 per lane: half-warp phases)


@dataclass(frozen=True)
class Instructions:
    """The chunk's warp instructions: each row's instruction, and per instruction its interval, whether it
    is a global load, a global store or shared, and its sectors (global) or bank-conflict degree (shared),
    its active lanes, whether it is an atomic's store, and how many of its lanes ask for its busiest word."""

    of_row: np.ndarray
    position: np.ndarray
    global_load: np.ndarray
    global_store: np.ndarray
    shared: np.ndarray
    sectors: np.ndarray
    degree: np.ndarray  # the worst phase's (one phase for 32-bit elements, two half-warps for 8-byte ones)
    wavefronts: np.ndarray  # its phases' degrees summed
    extra: np.ndarray  # its phases' degrees less one, summed: the cycles conflicts cost
    lanes: np.ndarray
    atomic_store: np.ndarray
    serial: np.ndarray  # most lanes on one word: the passes an atomic takes (same-address atomics serialise)


@dataclass(frozen=True)
class Chunk:
    """Rows of consecutive intervals; `starts[i]:starts[i + 1]` are interval i's, in execution order."""

    rows: np.ndarray  # (rows, len(Row)) float64, `Row`'s columns
    starts: np.ndarray  # (intervals + 1,)
    vectors: list[tuple[int, ...]]  # iteration vectors by number (shared by every chunk of a run)
    # Columns converted once (until `counted`): the counting, the races and the loaded masks read the same few.
    _converted: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def intervals(self) -> int:
        return len(self.starts) - 1

    def column(self, number: Row) -> np.ndarray:
        """A column of small whole numbers (not WORD) in NumPy's index type, which bincount needs."""
        found = self._converted.get(number)
        if found is None:
            found = self._converted[number] = self.rows[:, number].astype(np.intp)
        return found

    def words(self) -> np.ndarray:
        """The word column: an out-of-bounds load's address can pass 2**31."""
        found = self._converted.get(Row.WORD)
        if found is None:
            found = self._converted[Row.WORD] = self.rows[:, Row.WORD].astype(np.int64)
        return found

    def counted(self) -> None:
        """Forget the converted columns once the chunk is counted: a run keeps its chunks for stepping, which
        reads rows only, and the columns would add 28 to 48 bytes a row (wasm32, 64-bit) to the rows' 64."""
        self._converted.clear()

    def instructions(self, layout: Layout) -> Instructions:
        """Group the rows into warp instructions (the lanes of one warp that execute one site in the same
        iteration of every loop around it, in one interval) and measure each."""
        position, thread, site, array = (self.column(c) for c in (Row.POSITION, Row.THREAD, Row.SITE, Row.ARRAY))
        word = self.words()
        of_row, count, first = groups(
            position, site * layout.arrays + array, self.column(Row.VECTOR), thread // WARP_SIZE
        )
        shared = layout.shared[array[first]]
        store = layout.store[site[first]]
        sectors = sectors_per_group(of_row, count, word)
        atomic_store = layout.atomic[site[first]] & store
        degree = bank_degrees(of_row, count, word)  # SPEC §2: a 32-bit access, one phase (shared rows only)
        wavefronts, extra = degree.copy(), np.maximum(degree - 1, 0)
        wide = layout.wide[array]
        if wide.any():  # rare: an 8-byte element is two words, and each half-warp is one phase (pysim.core.banks)
            half = self.column(Row.THREAD)[wide] % WARP_SIZE >= WARP_SIZE // 2
            phase, doubled = np.tile(of_row[wide] * 2 + half, 2), 2 * word[wide]
            phases = bank_degrees(phase, 2 * count, np.concatenate([doubled, doubled + 1])).reshape(count, 2)
            mine = layout.wide[array[first]]
            degree[mine], wavefronts[mine] = phases[mine].max(axis=1), phases[mine].sum(axis=1)
            extra[mine] = np.maximum(phases[mine] - 1, 0).sum(axis=1)
        serial = np.zeros(count, dtype=np.int64)
        if atomic_store.any():  # rare: most kernels have no atomic, and then this costs nothing
            mine = atomic_store[of_row]
            same_word, _, word_first = groups(of_row[mine], word[mine])
            np.maximum.at(serial, of_row[mine][word_first], np.bincount(same_word))
        return Instructions(
            of_row,
            position[first],
            ~shared & ~store,
            ~shared & store,
            shared,
            sectors,
            degree,
            wavefronts,
            extra,
            np.bincount(of_row, minlength=count),
            atomic_store,
            serial,
        )

    def counts(self, layout: Layout, found: Instructions) -> dict[str, np.ndarray]:
        """Each of ACCESS_COUNTERS per interval of the chunk (what count_step gives for its Step)."""
        n = self.intervals
        position, array, site = self.column(Row.POSITION), self.column(Row.ARRAY), self.column(Row.SITE)
        shared, store = layout.shared[array], layout.store[site]

        def per_interval(mask: np.ndarray, weights: np.ndarray | None = None, at: np.ndarray = position) -> np.ndarray:
            return np.bincount(at[mask], None if weights is None else weights[mask], minlength=n).astype(np.int64)

        return {
            "global_loads": per_interval(~shared & ~store),
            "global_stores": per_interval(~shared & store),
            "shared_loads": per_interval(shared & ~store),
            "shared_stores": per_interval(shared & store),
            "global_sectors": per_interval(found.global_load, found.sectors, found.position),
            "bank_extra_cycles": per_interval(found.shared, found.extra, found.position),
            "shared_wavefronts": per_interval(found.shared, found.wavefronts, found.position),
        }

    def loaded(self, layout: Layout, array: int, size: int) -> np.ndarray:
        """Words of global array `array` (of `size` words) some thread of the chunk loaded: an out-of-bounds
        load is recorded at the address it asked for, which may lie past the end."""
        number, site, word = self.column(Row.ARRAY), self.column(Row.SITE), self.words()
        words = word[(number == array) & ~layout.store[site]]
        return np.unique(words[(words >= 0) & (words < size)])

    def interval_rows(self, position: int) -> np.ndarray:
        """Interval `position`'s rows."""
        return self.rows[self.starts[position] : self.starts[position + 1]]


def warp_accesses(
    rows: np.ndarray,
    vectors: list[tuple[int, ...]],
    describe: list[tuple[str, str, int, str, int]],
    arrays: int,
    threads: int,
) -> tuple[tuple[Access, ...], dict[tuple[int, int], int]]:
    """One interval's rows (`Chunk.interval_rows`) as one Access per (site, array), one row per iteration
    vector at which some thread executed the site (in loop order), in order of first execution; and the row
    of each (site·arrays + array, iteration vector's number). `describe[site·arrays + array]` is (array name,
    space, row length, op, 32-bit words per element)."""
    if not len(rows):
        return (), {}
    thread = rows[:, Row.THREAD].astype(np.int64)
    vector = rows[:, Row.VECTOR].astype(np.int64)
    key = rows[:, Row.SITE].astype(np.int64) * arrays + rows[:, Row.ARRAY].astype(np.int64)
    word = rows[:, Row.WORD].astype(np.int64)
    value = rows[:, Row.VALUE].astype(np.float32)
    used_vectors = np.unique(vector)
    ranked = sorted(range(len(used_vectors)), key=lambda i: vectors[used_vectors[i]])
    rank_of = np.empty(len(used_vectors), dtype=np.int64)
    rank_of[ranked] = np.arange(len(used_vectors))
    rank = rank_of[np.searchsorted(used_vectors, vector)]
    order = np.argsort(key, kind="stable")
    key, thread, rank, word, value = key[order], thread[order], rank[order], word[order], value[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = np.r_[starts[1:], len(key)]
    found = []
    instruction_rows: dict[tuple[int, int], int] = {}
    for start, end in zip(starts, ends):
        name, space, stride, op, element_words = describe[int(key[start])]
        # The lanes that execute a site in the same iteration of every enclosing loop issue it together.
        used, r = np.unique(rank[start:end], return_inverse=True)
        for row, used_rank in enumerate(used):
            instruction_rows[int(key[start]), int(used_vectors[ranked[used_rank]])] = row
        words = np.full((len(used), threads), INACTIVE, dtype=np.int64)
        values = np.zeros(words.shape, dtype=np.float32)
        words[r, thread[start:end]] = word[start:end]
        values[r, thread[start:end]] = value[start:end]
        active = words != INACTIVE
        access = Access(
            name,
            space,
            op,
            np.where(active, words // stride, INACTIVE),
            np.where(active, words % stride, INACTIVE),
            stride,
            values,
            element_words=element_words,
        )
        found.append((int(order[start:end].min()), access))
    return tuple(access for _, access in sorted(found, key=lambda pair: pair[0])), instruction_rows
