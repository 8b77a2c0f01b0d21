"""The transpose kernel's guide (#/transpose): a column read of a shared tile, and padding."""

from __future__ import annotations

from math import ceil

from ...core import lanes
from ...core.constants import WARP_SIZE
from . import common
from .common import Entry, Run, access_of, accessing, moment
from .model import Choice, Skipped, Task

YES_NO = (Choice("yes", "yes"), Choice("no", "no"))
MAX_PAD = 4  # the pad menu's largest choice (TransposeParams)


def write_degree(run: Run) -> Entry:
    """Warp 0's conflict degree storing its row of the tile (lanes.warp_banks of the recorded store)."""
    index = run.find(accessing("tile", "shared", "store"))
    assert index is not None  # every block stores its tile
    degree = lanes.warp_banks(access_of(run.trace[index], "tile", "shared", "store"), 0).degree
    question = (
        "At the next step warp 0 writes its elements into the shared tile, along a row. What conflict degree will it "
        "see: the most different words any one bank must serve?"
    )
    why = "neighbouring words of a row lie in neighbouring banks, so a row write spreads over the banks"
    hidden = ("bank_extra_cycles",)
    return moment(run, "transpose:write-bank", index - 1, index, "number", question, degree, why, hidden=hidden)


def padding_choice(run: Run) -> Entry:
    """Whether one more word of padding leaves a full block's warp 0 column read with degree 1 (pad_choices)."""
    key = "transpose:pad"
    p = run.params
    if p.pad >= MAX_PAD:
        return Skipped(key, f"pad={p.pad} is the largest the page offers")
    now, more = run.kernel.module.pad_choices(p, range(p.pad, p.pad + 2))
    if now.read_degree <= 1:
        return Skipped(key, f"with pad={p.pad} a full tile's column read has no conflict to remove")
    question = (
        f"Will padding each row of the tile by {more.pad} word(s) instead of {p.pad} remove warp 0's conflict when "
        "it reads a column of a full tile?"
    )
    answer = "yes" if more.read_degree == 1 else "no"
    # Warp 0 of a full block reads tile[threadIdx.x][threadIdx.y]: column ty, TILE lanes a column (pad_choices).
    lanes = min(p.TILE * p.TILE, WARP_SIZE)
    columns = ceil(lanes / p.TILE)
    read = "column 0" if columns == 1 else f"columns 0…{columns - 1}, the next column one word on"
    why = (
        f"with pad={more.pad} a tile row is TILE + pad = {more.stride} words, so warp 0's {lanes} lanes read "
        f"{read}, words {more.stride} apart down a column; a word's bank is the word mod 32, and no bank gets "
        f"more than {more.read_degree} of them"
    )
    index = run.find(accessing("tile", "shared", "load"))
    assert index is not None
    hidden = ("bank_extra_cycles",)
    return moment(run, key, index - 1, index, "choice", question, answer, why, choices=YES_NO, hidden=hidden)


def entries(run: Run) -> list[Entry]:
    return [
        common.cells_of(
            run,
            "transpose:cells-a",
            "A",
            "global",
            "a thread copies the element of A at its own (threadIdx.y, threadIdx.x) place in the block's tile",
        ),
        common.warp_sectors(
            run,
            "transpose:sectors-a",
            "A",
            "a warp reads along a row of A, so its words are neighbours and share sectors",
        ),
        write_degree(run),
        common.barrier_wait(
            run,
            "transpose:barrier",
            "tile",
            "a thread reads an element another thread wrote, so no thread may read until every thread has written",
        ),
        common.bank_degree(
            run,
            "transpose:bank",
            "a warp reads down a column, and words one row apart are TILE + pad words apart, which lands TILE + pad banks further on",
        ),
        padding_choice(run),
        common.cells_of(
            run,
            "transpose:cells-c",
            "C",
            "global",
            "the thread writes the element it did not read: the tile crosses the diagonal, row for column",
            op="store",
        ),
        common.block_loads(
            run, "transpose:block-loads", "every element of A inside the block's tile is loaded exactly once"
        ),
        common.edge_block_loads(
            run, "transpose:edge-loads", "the guarded load skips every element outside A, so an edge block loads less"
        ),
    ]


def task(run: Run) -> Task | Skipped:
    why = "padding shifts each row's first bank, which decides whether a column's words share banks"
    pad = 1 if run.params.pad == 0 else 0

    def ask(changed: Run, key: str, change: str) -> Entry:
        found = common.bank_degree(changed, key, why)
        if isinstance(found, Skipped):
            return found
        question = f"After you {change}, what conflict degree will warp 0 see when it reads its column of the tile?"
        return moment(
            changed, key, found.step, found.reveal, "number", question, found.answer, why, hidden=("bank_extra_cycles",)
        )

    return common.change_task(run, "transpose:task", [{"pad": pad}], ask)
