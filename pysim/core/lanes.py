"""One warp instruction, lane by lane: the sectors a global access touches, the banks a shared one asks.

The counters sum these over every instruction (`sectors.warp_sectors`,
`banks.extra_cycles`); this module opens one instruction up for the views:
which address each of the 32 lanes asks for, which 32-byte sector or which bank
it falls in, and what that costs (bytes fetched versus used, conflict degree).
Views draw these records; they never compute an address, a sector or a bank.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from . import banks
from .constants import NUM_BANKS, SECTOR_BYTES, WARP_SIZE, WORD_BYTES, WORDS_PER_SECTOR
from .trace import Access
from .words import count


@dataclass(frozen=True)
class Lane:
    """One thread of the warp: what it asks for (None fields when it makes no access)."""

    lane: int  # 0..WARP_SIZE-1 within the warp
    thread: int  # linear thread id in the block
    cell: tuple[int, int] | None  # (row, col) in the array of its first word
    word: int | None  # element index of its first word in the array, padding included
    byte: int | None  # byte address of its first word from the array's (128-byte aligned) base
    width: int = 1  # consecutive words it moves (a float4 moves 4)
    element_words: int = 1  # 32-bit words per element: 2 in a bank picture of an 8-byte array (`warp_banks`)

    @property
    def active(self) -> bool:
        return self.word is not None

    @property
    def words(self) -> tuple[int, ...]:
        """Every word it touches (none when idle)."""
        return () if self.word is None else tuple(range(self.word, self.word + self.width))

    @property
    def sector(self) -> int | None:
        """The sector of its first word (a misaligned vector may reach into the next: see `sectors`)."""
        return None if self.word is None else self.word // WORDS_PER_SECTOR

    @property
    def sectors(self) -> tuple[int, ...]:
        return tuple(sorted({word // WORDS_PER_SECTOR for word in self.words}))

    @property
    def bank(self) -> int | None:
        return None if self.word is None else self.word % NUM_BANKS


@dataclass(frozen=True)
class SectorSlot:
    """One 4-byte word of a touched sector, and the lanes that asked for it (none: fetched, unused)."""

    word: int
    lanes: tuple[int, ...]


@dataclass(frozen=True)
class SectorUse:
    """One touched 32-byte sector: its index, first byte, and its WORDS_PER_SECTOR words."""

    sector: int
    first_byte: int
    slots: tuple[SectorSlot, ...]


@dataclass(frozen=True)
class WarpSectors:
    """A warp-wide global access: the sectors it touches and the bytes fetched versus used."""

    array: str
    op: str
    warp: int
    lanes: tuple[Lane, ...]
    sectors: tuple[SectorUse, ...]

    @property
    def active(self) -> int:
        return sum(lane.active for lane in self.lanes)

    @property
    def words_used(self) -> int:
        """Distinct words asked for (a word several lanes share is fetched and used once)."""
        return len({word for lane in self.lanes for word in lane.words})

    @property
    def bytes_fetched(self) -> int:
        """Whole sectors moved (fetched by a load, written by a store)."""
        return len(self.sectors) * SECTOR_BYTES

    @property
    def bytes_used(self) -> int:
        return self.words_used * WORD_BYTES

    @property
    def efficiency(self) -> float:
        """Bytes used ÷ bytes fetched (0 when the warp makes no access)."""
        return self.bytes_used / self.bytes_fetched if self.sectors else 0.0

    def summary(self) -> str:
        """'B[k][col]: 32 lanes, 4 sectors, 128 bytes fetched, 128 used (100%)'."""
        if not self.sectors:
            return f"{self.array}: no lane of this warp {self.op}s (every thread is outside C)"
        moved = "fetched" if self.op == "load" else "written"
        if self.op == "load" and self.words_used == 1 and self.active > 1:
            # Every lane wants the same word: one sector serves them all, the fewest a load can take, so the
            # share of bytes used says nothing bad here.
            return (
                f"{self.array} load: {self.active} lanes ask for one word, a broadcast from "
                f"{count(len(self.sectors), 'sector')} ({self.bytes_fetched:,} bytes fetched): the ideal case"
            )
        return (
            f"{self.array} {self.op}: {count(self.active, 'lane')}, {count(len(self.sectors), 'sector')}, "
            f"{self.bytes_fetched:,} bytes {moved}, {self.bytes_used:,} used ({self.efficiency:.1%})"
        )


@dataclass(frozen=True)
class WarpBanks:
    """A warp-wide shared access: the words each of the NUM_BANKS banks serves, and the conflict degree."""

    array: str
    op: str
    warp: int
    lanes: tuple[Lane, ...]
    report: banks.BankReport

    @property
    def degree(self) -> int:
        return self.report.degree

    @property
    def extra_cycles(self) -> int:
        return self.report.extra_cycles

    @property
    def busiest_bank(self) -> int:
        """The bank serving the most distinct words (the lowest-numbered on a tie)."""
        words = self.report.words_per_bank
        return max(range(len(words)), key=lambda bank: len(words[bank]))

    @property
    def wavefronts(self) -> int:
        return self.report.wavefronts

    def lanes_of(self, word: int) -> tuple[int, ...]:
        return tuple(lane.lane for lane in self.lanes if word in lane.words)

    def cell_of(self, word: int) -> tuple[int, int]:
        """The (row, col) of `word`, found from a lane that touches it."""
        lane = next(lane for lane in self.lanes if word in lane.words)
        assert lane.cell is not None and lane.word is not None  # a lane with words is active
        return lane.cell[0], lane.cell[1] + (word - lane.word) // lane.element_words

    def summary(self) -> str:
        """'tile load: 32 lanes, 32 banks used, degree 32 (31 extra cycles)'; a wide access adds its wavefronts."""
        if not self.report.threads:
            return f"{self.array}: no lane of this warp {self.op}s"
        text = (
            f"{self.array} {self.op}: {count(self.report.threads, 'lane')}, {count(self.report.banks_used, 'bank')} "
            f"used, conflict degree {self.degree} ({count(self.extra_cycles, 'extra cycle')})"
        )
        phases = len(self.report.phase_degrees)
        if phases > 1:
            text += f", {self.wavefronts} wavefronts over {phases} phases of {WARP_SIZE // phases} lanes"
        return text


def warp_of(thread: int) -> int:
    """The warp holding linear thread id `thread` (warps are WARP_SIZE consecutive ids)."""
    return thread // WARP_SIZE


def lanes(access: Access, warp: int, instruction: int = 0) -> tuple[Lane, ...]:
    """Every lane of `warp` in one instruction of `access` (a last, short warp has fewer lanes)."""
    threads = access.rows.shape[1]
    first = warp * WARP_SIZE
    if not 0 <= first < threads:
        raise ValueError(f"warp {warp} is outside the block's {-(-threads // WARP_SIZE)} warps")
    rows, cols = access.rows[instruction], access.cols[instruction]
    found = []
    for thread in range(first, min(first + WARP_SIZE, threads)):
        row, col = int(rows[thread]), int(cols[thread])
        if access.active[instruction, thread]:
            word = row * access.stride + col
            found.append(Lane(thread - first, thread, (row, col), word, word * WORD_BYTES, access.width))
        else:
            found.append(Lane(thread - first, thread, None, None, None, access.width))
    return tuple(found)


def warp_sectors(access: Access, warp: int, instruction: int = 0) -> WarpSectors:
    """The sectors one warp's global access touches, each with its words and the lanes that use them."""
    found = lanes(access, warp, instruction)
    # Each word's lanes, gathered in one pass over the lanes: asking every lane about every word of every
    # sector was 8,192 questions a step for a warp whose 32 lanes touch 32 sectors (issue 44).
    askers: dict[int, list[int]] = {}
    for lane in found:
        for word in lane.words:
            askers.setdefault(word, []).append(lane.lane)
    uses = []
    for sector in sorted({word // WORDS_PER_SECTOR for word in askers}):
        first_word = sector * WORDS_PER_SECTOR
        slots = tuple(
            SectorSlot(word, tuple(askers.get(word, ()))) for word in range(first_word, first_word + WORDS_PER_SECTOR)
        )
        uses.append(SectorUse(sector, first_word * WORD_BYTES, slots))
    return WarpSectors(access.array, access.op, warp, found, tuple(uses))


def warp_banks(access: Access, warp: int, instruction: int = 0) -> WarpBanks:
    """The bank analysis of one warp's shared access (pysim.core.banks), with its lanes."""
    found = lanes(access, warp, instruction)
    scale = access.element_words
    if scale > 1:  # an 8-byte element is two 32-bit words, each in its bank (pysim.core.trace.Access)
        found = tuple(
            replace(lane, word=lane.word * scale, byte=lane.byte * scale, width=lane.width * scale, element_words=scale)
            if lane.word is not None and lane.byte is not None
            else lane
            for lane in found
        )
    words = np.array([lane.word if lane.word is not None else -1 for lane in found], dtype=np.int64)
    return WarpBanks(access.array, access.op, warp, found, banks.analyse(words, access.width * scale))
