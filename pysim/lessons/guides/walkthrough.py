"""The memory-hierarchy walkthrough's guide (#/hierarchy): its steps 0–7 are the picture's steps.

Each question is asked while the page shows step `step` and answered by what step `reveal` prints;
`hidden` names the page's number slots (`data-slot` in site/partials/hierarchy.html) that show the
answer: the page keeps them, and every later step, hidden until it is given. Every answer comes from
pysim.lessons.walkthrough.
"""

from __future__ import annotations

from dataclasses import replace

from ..walkthrough import Walkthrough, bank_picture
from .model import Choice, Moment, Skipped, Task

Entry = Moment | Skipped
YES_NO = (Choice("yes", "yes"), Choice("no", "no"))
SIDES = (
    Choice("equal", "equal to the ideal"),
    Choice("above", "above the ideal"),
    Choice("below", "below the ideal"),
)
MAX_T = 256  # HierarchyParams' largest T


def tiled_total(walk: Walkthrough, key: str, change: str = "") -> Moment:
    sizes = f"After you {change}, how many" if change else f"For N = {walk.N:,} and T = {walk.T}, how many"
    question = f"{sizes} global loads will the tiled kernel make in all?"
    why = "each of the ⌈N/T⌉ block columns loads all of A once, and each block row all of B once"
    return Moment(key, 3, 4, "number", question, walk.exact_tiled, why, ("tiled-total", "reduction"))


def reduction(walk: Walkthrough) -> Entry:
    key = "hierarchy:reduction"
    whole, rest = divmod(walk.naive_total, walk.exact_tiled)
    if rest:
        return Skipped(key, f"naive ÷ tiled = {walk.reduction:.2f} is not a whole number at N = {walk.N}, T = {walk.T}")
    question = "How many times fewer global loads does the tiled kernel make than the naive one?"
    why = "every value a block copies in is used by up to T threads, but never by more than N"
    return Moment(key, 4, 5, "number", question, whole, why, ("reduction",))


def side(walk: Walkthrough) -> str:
    """Where the exact tiled count lies against the ideal 2N³/T."""
    if walk.exact_tiled == walk.ideal_tiled:
        return "equal"
    return "above" if walk.exact_tiled > walk.ideal_tiled else "below"


def entries(walk: Walkthrough) -> list[Entry]:
    N, T = walk.N, walk.T
    column, padded = bank_picture(0, "column"), bank_picture(1, "column")
    return [
        Moment(
            "hierarchy:per-thread",
            0,
            1,
            "number",
            f"In the naive kernel for {N:,}×{N:,} matrices, how many global loads does one thread make?",
            walk.per_thread_loads,
            "a thread reads a whole row of A and a whole column of B from global memory, and keeps none of it",
            ("per-thread-loads",),
        ),
        Moment(
            "hierarchy:naive-total",
            1,
            2,
            "number",
            "How many global loads does the whole naive run make?",
            walk.naive_total,
            "there is one thread per element of C, and no thread shares a load with another",
            ("naive-total",),
        ),
        Moment(
            "hierarchy:reuse",
            2,
            3,
            "number",
            f"With T×T tiles (T = {T}), how many threads of a block read each value the block copies into shared memory?",
            walk.reuse,
            "a row of an A tile feeds every thread of its block row, and a block is never wider than the matrix",
            ("reuse-threads", "reuse-times", "reuse"),
        ),
        Moment(
            "hierarchy:tiles",
            3,
            4,
            "number",
            "How many tile steps does each block take along k?",
            walk.tiles_per_row,
            "a block steps through K in tiles of T, and a last, partial tile still counts as a step",
            ("tiles-per-row",),
        ),
        tiled_total(walk, "hierarchy:tiled-total"),
        Moment(
            "hierarchy:ideal",
            3,
            4,
            "choice",
            "Compared with the ideal 2N³/T (every loaded value used T times), the exact tiled count is:",
            side(walk),
            "a partial edge block reloads a whole strip but uses it fewer than T times, and a block wider than N uses it only N times",
            ("tiled-total", "edge-excess"),
            SIDES,
        ),
        reduction(walk),
        Moment(
            "hierarchy:bank",
            5,
            6,
            "number",
            "A warp reads one column of a square float tile with one column per bank. What conflict degree will it see?",
            column.degree,
            "words one row apart are a whole row of banks apart, so every word of the column falls in the same bank",
            ("bank-degree", "bank-before"),
        ),
        Moment(
            "hierarchy:padding",
            5,
            6,
            "choice",
            "Padding each row of that tile by one word: will the column read still conflict?",
            "yes" if padded.degree > 1 else "no",
            "one extra word per row starts each row one bank further on, so the column spreads over every bank",
            ("bank-after",),
            YES_NO,
        ),
        Moment(
            "hierarchy:largest",
            6,
            7,
            "number",
            f"What is the largest T whose T×T block and two T×T tiles fit on the {walk.device.name}?",
            walk.largest_tile,
            "one thread per tile element caps T×T at the threads a block may hold, and the tiles must fit in shared memory",
            ("largest-tile",),
        ),
    ]


def task(walk: Walkthrough) -> Task | Skipped:
    T = walk.T * 2 if walk.T * 2 <= MAX_T else walk.T // 2
    instruction = f"set T={T}"
    changed = Walkthrough(replace(walk.params, T=T))
    return Task(instruction, {"T": T}, tiled_total(changed, "hierarchy:task", instruction))
