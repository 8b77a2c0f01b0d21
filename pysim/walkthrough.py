"""Every number of the memory-hierarchy walkthrough (seed 002), for a chosen N, T and device."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import ceil

from . import banks, formulas
from .devices import Device, device
from .params import HierarchyParams

SWEEP_MAX_T = 96  # past both walls of every preset (threads at 33, static shared memory at 79)
BANK_TILE = 32  # one warp, one lane per bank


@dataclass(frozen=True)
class Walkthrough:
    params: HierarchyParams

    @property
    def N(self) -> int:
        return self.params.N

    @property
    def T(self) -> int:
        return self.params.T

    @property
    def device(self) -> Device:
        return device(self.params.device)

    @property
    def per_thread_loads(self) -> int:
        """Step 1: one naive thread reads a row of A and a column of B."""
        return 2 * self.N

    @property
    def threads(self) -> int:
        return self.N * self.N

    @property
    def naive_total(self) -> int:
        return formulas.naive_loads(self.N, self.N, self.N)

    @property
    def tiles_per_row(self) -> int:
        return ceil(self.N / self.T)

    @property
    def divides(self) -> bool:
        return self.N % self.T == 0

    @property
    def ideal_tiled(self) -> float:
        return formulas.ideal_tiled_loads(self.N, self.N, self.N, self.T)

    @property
    def exact_tiled(self) -> int:
        return formulas.tiled_loads(self.N, self.N, self.N, self.T)

    @property
    def speedup(self) -> float:
        return self.naive_total / self.exact_tiled

    @property
    def edge_excess(self) -> float:
        """Loads the partial edge tiles add over the ideal count."""
        return self.exact_tiled - self.ideal_tiled

    @property
    def barriers_per_block(self) -> int:
        return 2 * self.tiles_per_row

    @cached_property
    def sweep(self) -> list[formulas.SweepPoint]:
        return formulas.sweep(self.N, self.device, range(1, SWEEP_MAX_T + 1))

    @property
    def wall(self) -> str | None:
        """Why the chosen T cannot run on the device, if it cannot."""
        return formulas.sweep(self.N, self.device, range(self.T, self.T + 1))[0].wall

    @property
    def largest_tile(self) -> int:
        return formulas.largest_tile(self.device)


def bank_picture(pad: int, access: str, index: int = 0) -> banks.BankReport:
    """Step 6: one warp reading a BANK_TILE × (BANK_TILE + pad) tile by row, column or broadcast."""
    return banks.analyse(banks.tile_warp_words(BANK_TILE, pad, access, index))


@dataclass(frozen=True)
class Question:
    key: str
    prompt: str
    answer: int
    explanation: str


def quiz(walk: Walkthrough) -> list[Question]:
    """Reveal-check questions; pysim computes every answer."""
    small = Walkthrough(HierarchyParams(N=512, T=8, device=walk.params.device))
    column = bank_picture(0, "column")
    padded = bank_picture(1, "column")
    return [
        Question(
            "naive",
            f"How many global loads does the naive kernel make for N = {walk.N:,}?",
            walk.naive_total,
            f"2N³ = 2 × {walk.N:,}³ = {walk.naive_total:,}: N² threads, each loading 2N values.",
        ),
        Question(
            "tiled",
            "How many global loads does the tiled kernel make for N = 512, T = 8?",
            small.exact_tiled,
            f"2N²·⌈N/T⌉ = 2 × 512² × 64 = {small.exact_tiled:,}; T divides N, so this is exactly 2N³/T.",
        ),
        Question(
            "bank",
            f"A warp reads one column of a {BANK_TILE}×{BANK_TILE} float tile. How many words does the busiest bank serve?",
            column.degree,
            f"Row i starts at word 32·i, so every element of a column sits in the same bank: a {column.degree}-way conflict.",
        ),
        Question(
            "padded",
            f"And with the tile padded to {BANK_TILE}×{BANK_TILE + 1}?",
            padded.degree,
            "Each row now starts one bank further on, so the column spreads over all 32 banks: degree 1, no conflict.",
        ),
        Question(
            "largest",
            f"What is the largest square tile T a block can use on the {walk.device.name}?",
            walk.largest_tile,
            f"T×T threads must fit in {walk.device.thread_limit:,} threads per block, so T ≤ {walk.largest_tile}; "
            f"its two tiles (8·T² = {8 * walk.largest_tile**2:,} bytes) fit in shared memory.",
        ),
    ]


def check(question: Question, text: str) -> tuple[bool, str]:
    """Mark an answer typed by the reader; separators and spaces are allowed."""
    cleaned = text.strip().replace(",", "").replace("_", "").replace(" ", "")
    if not cleaned.isdigit() or not cleaned.isascii():
        return False, "Type a whole number (thousands separators are fine)."
    if int(cleaned) == question.answer:
        return True, f"Right. {question.explanation}"
    return False, f"Not quite: the answer is {question.answer:,}. {question.explanation}"
