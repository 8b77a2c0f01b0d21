"""A chunk of a run's accesses as one NumPy table, counted in bulk.

The analysis (`pysim.play.analysis`) turns the runtime's flat records of every access
into rows, one per global or shared access, and counts a few hundred intervals at
once: a warp instruction is a group of rows with the same interval, site, array,
iteration vector (the lockstep rule, see the analysis) and warp, so sectors, bank
degrees and requests are group counts over the whole chunk in a handful of NumPy
calls, where counting interval by interval cost a few small NumPy calls per
instruction (most of a run's time, and much more in Pyodide). The counts are
those of `pysim.core.trace.count_step` applied to each interval's Step, which
`Chunk.step` still builds, lazily, for the one interval a reader looks at
(`tests/test_play_table.py` checks both agree).

Columns of a row: the interval's position in the chunk, the thread (linear id),
its ordinal (statements the thread executed in the interval before the access:
program order, for races), the iteration vector (a number, see `Chunk.vectors`),
the site, the array number, the word, and the value read or written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.constants import NUM_BANKS, WARP_SIZE, WORDS_PER_SECTOR
from ..core.trace import Access
from ..core.warps import INACTIVE

POSITION, THREAD, ORDINAL, VECTOR, SITE, ARRAY, WORD, VALUE = range(8)
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
KEY_LIMIT = 1 << 62  # `groups`' combined key stays below it: its int64 arithmetic cannot overflow


def groups(*columns: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """Number the distinct tuples of `columns` (equal-length integer arrays): (each row's group, how many
    groups, the first row of each group in row order). One stable sort: of one combined key where the columns'
    ranges allow it (`_combined`: in Pyodide, a lexsort of a warp instruction's four columns took nine times as
    long as sorting their combined key), else a lexsort of the columns. Group numbers are NumPy's index type
    (`np.bincount` refuses int64 where that is 32 bits: Pyodide's wasm32)."""
    if not len(columns[0]):
        return np.zeros(0, dtype=np.intp), 0, np.zeros(0, dtype=np.intp)
    change = np.zeros(len(columns[0]), dtype=bool)
    change[0] = True
    key = _combined(columns)
    if key is None:
        order = np.lexsort(columns[::-1])
        for column in columns:
            ordered = column[order]
            change[1:] |= ordered[1:] != ordered[:-1]
    else:
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        change[1:] = ordered[1:] != ordered[:-1]
    number = np.cumsum(change) - 1
    ids = np.empty(len(order), dtype=np.intp)
    ids[order] = number
    return ids, int(number[-1]) + 1, order[change]


def _combined(columns: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """One int64 key that orders the rows as the columns do, first column most significant (each column less
    its least value, times the ranges of the columns after it), or None when the product of the columns'
    ranges passes KEY_LIMIT (an out-of-bounds load's word can be near 2**63)."""
    key: np.ndarray | None = None
    span = 1
    for column in columns:
        low = int(column.min())
        extent = int(column.max()) - low + 1
        span *= extent
        if span > KEY_LIMIT:
            return None
        shifted = column.astype(np.int64) - low
        key = shifted if key is None else key * extent + shifted
    return key


def distinct_per_group(group: np.ndarray, count: int, values: np.ndarray) -> np.ndarray:
    """How many distinct `values` each of `count` groups holds."""
    _, _, first = groups(group, values)
    return np.bincount(group[first], minlength=count)


@dataclass(frozen=True)
class Layout:
    """What the counting needs to know of the program's sites and arrays, as lookup arrays."""

    store: np.ndarray  # per site: a store
    shared: np.ndarray  # per array: in shared memory (else global; register arrays have no rows)
    arrays: int


@dataclass(frozen=True)
class Instructions:
    """The chunk's warp instructions: each row's instruction, and per instruction its interval, whether it
    is a global load, a global store or shared, and its sectors (global) or bank-conflict degree (shared)."""

    of_row: np.ndarray
    position: np.ndarray
    global_load: np.ndarray
    global_store: np.ndarray
    shared: np.ndarray
    sectors: np.ndarray
    degree: np.ndarray


@dataclass(frozen=True)
class Chunk:
    """Rows of consecutive intervals; `starts[i]:starts[i + 1]` are interval i's, in execution order."""

    rows: np.ndarray  # (rows, 8) float64, columns as the module docstring lists them
    starts: np.ndarray  # (intervals + 1,)
    vectors: list[tuple[int, ...]]  # iteration vectors by number (shared by every chunk of a run)
    # Columns converted once (until `counted`): the counting, the races and the loaded masks read the same few.
    _converted: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def intervals(self) -> int:
        return len(self.starts) - 1

    def column(self, number: int) -> np.ndarray:
        """A column of small whole numbers (not WORD) in NumPy's index type, which bincount needs."""
        found = self._converted.get(number)
        if found is None:
            found = self._converted[number] = self.rows[:, number].astype(np.intp)
        return found

    def words(self) -> np.ndarray:
        """The word column: an out-of-bounds load's address can pass 2**31."""
        found = self._converted.get(WORD)
        if found is None:
            found = self._converted[WORD] = self.rows[:, WORD].astype(np.int64)
        return found

    def counted(self) -> None:
        """Forget the converted columns once the chunk is counted: a run keeps its chunks for stepping, which
        reads rows only, and the columns would add 28 to 48 bytes a row (wasm32, 64-bit) to the rows' 64."""
        self._converted.clear()

    def instructions(self, layout: Layout) -> Instructions:
        """Group the rows into warp instructions (the lanes of one warp that execute one site in the same
        iteration of every loop around it, in one interval) and measure each."""
        position, thread, site, array = (self.column(c) for c in (POSITION, THREAD, SITE, ARRAY))
        word = self.words()
        of_row, count, first = groups(position, site * layout.arrays + array, self.column(VECTOR), thread // WARP_SIZE)
        shared = layout.shared[array[first]]
        store = layout.store[site[first]]
        sectors = distinct_per_group(of_row, count, word // WORDS_PER_SECTOR)
        return Instructions(
            of_row,
            position[first],
            ~shared & ~store,
            ~shared & store,
            shared,
            sectors,
            self._degrees(of_row, count, word),
        )

    @staticmethod
    def _degrees(of_row: np.ndarray, count: int, word: np.ndarray) -> np.ndarray:
        """Largest number of distinct words one bank is asked for, per instruction (SPEC §2: a 32-bit access,
        one phase; meaningful for shared instructions only)."""
        _, _, first = groups(of_row, word)  # each distinct (instruction, word) once
        instruction, bank = of_row[first], word[first] % NUM_BANKS
        per_bank, banks, bank_first = groups(instruction, bank)
        sizes = np.bincount(per_bank, minlength=banks)
        degree = np.zeros(count, dtype=np.int64)
        np.maximum.at(degree, instruction[bank_first], sizes)
        return degree

    def counts(self, layout: Layout, found: Instructions) -> dict[str, np.ndarray]:
        """Each of ACCESS_COUNTERS per interval of the chunk (what count_step gives for its Step)."""
        n = self.intervals
        position, array, site = self.column(POSITION), self.column(ARRAY), self.column(SITE)
        shared, store = layout.shared[array], layout.store[site]

        def per_interval(mask: np.ndarray, weights: np.ndarray | None = None, at: np.ndarray = position) -> np.ndarray:
            return np.bincount(at[mask], None if weights is None else weights[mask], minlength=n).astype(np.int64)

        extra = np.maximum(found.degree - 1, 0)
        return {
            "global_loads": per_interval(~shared & ~store),
            "global_stores": per_interval(~shared & store),
            "shared_loads": per_interval(shared & ~store),
            "shared_stores": per_interval(shared & store),
            "global_sectors": per_interval(found.global_load, found.sectors, found.position),
            "bank_extra_cycles": per_interval(found.shared, extra, found.position),
            "shared_wavefronts": per_interval(found.shared, found.degree, found.position),
        }

    def loaded(self, layout: Layout, array: int, size: int) -> np.ndarray:
        """Words of global array `array` (of `size` words) some thread of the chunk loaded: an out-of-bounds
        load is recorded at the address it asked for, which may lie past the end."""
        number, site, word = self.column(ARRAY), self.column(SITE), self.words()
        words = word[(number == array) & ~layout.store[site]]
        return np.unique(words[(words >= 0) & (words < size)])

    def interval_rows(self, position: int) -> np.ndarray:
        """Interval `position`'s rows without the position column: (thread, ordinal, vector, site, array,
        word, value)."""
        return self.rows[self.starts[position] : self.starts[position + 1], 1:]


def warp_accesses(
    rows: np.ndarray,
    vectors: list[tuple[int, ...]],
    describe: list[tuple[str, str, int, str]],
    arrays: int,
    threads: int,
) -> tuple[tuple[Access, ...], dict[tuple[int, int], int]]:
    """One interval's rows (`Chunk.interval_rows`) as one Access per (site, array), one row per iteration
    vector at which some thread executed the site (in loop order), in order of first execution; and the row
    of each (site·arrays + array, iteration vector's number). `describe[site·arrays + array]` is (array name,
    space, row length, op)."""
    if not len(rows):
        return (), {}
    thread = rows[:, 0].astype(np.int64)
    vector = rows[:, 2].astype(np.int64)
    key = rows[:, 3].astype(np.int64) * arrays + rows[:, 4].astype(np.int64)
    word = rows[:, 5].astype(np.int64)
    value = rows[:, 6].astype(np.float32)
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
        name, space, stride, op = describe[int(key[start])]
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
        )
        found.append((int(order[start:end].min()), access))
    return tuple(access for _, access in sorted(found, key=lambda pair: pair[0])), instruction_rows
