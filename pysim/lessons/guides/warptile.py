"""The warptiling kernel's guide (#/warptile): each warp owns a warp tile, computed in subtiles."""

from __future__ import annotations

from ...core.constants import WARP_SIZE
from . import common
from .common import Entry, Run, moment
from .model import Choice, Skipped
from .tiling import later_tile
from .vectorized import longer_k, read_width


def owner_warp(run: Run) -> Entry:
    """Which warp of block 0 computes the tile's last cell inside C (kernel.owner)."""
    key = "warptile:warp"
    p = run.params
    warps = run.kernel.threads(p) // WARP_SIZE
    if warps < 2:
        return Skipped(key, "one warp computes the whole block tile at these sizes: there is no warp to choose")
    row, col = min(p.BM, p.M) - 1, min(p.BN, p.N) - 1
    _, thread = run.kernel.owner(p, row, col)
    question = f"Which warp of block (0,0) will compute C[{row}][{col}]?"
    why = "the block tile is cut into WM×WN warp tiles, one per warp, numbered along a row of warp tiles first"
    choices = tuple(Choice(str(w), f"warp {w}") for w in range(warps))
    return moment(run, key, 0, 0, "choice", question, str(thread // WARP_SIZE), why, choices=choices)


def entries(run: Run) -> list[Entry]:
    tile = later_tile(run)
    return [
        owner_warp(run),
        common.cells_of(
            run,
            "warptile:cells-a",
            "A",
            "global",
            "the threads copy A one float4 each, looping over row offsets until the BM×BK slice is covered",
            tile=tile,
        ),
        common.warp_sectors(
            run,
            "warptile:sectors-b",
            "B",
            "a warp's float4 loads of a row of B are side by side, so its 16-byte pieces fill whole sectors",
        ),
        common.barrier_wait(
            run,
            "warptile:barrier",
            "As",
            "no thread may read As or Bs until every warp of the block has stored its share",
        ),
        common.cells_of(
            run,
            "warptile:regm",
            "As",
            "shared",
            "a lane's TM values sit at its own place in each of the WMITER subtiles along row dotIdx of As",
            into="regM",
        ),
        read_width(run, "warptile:width", "Bs", "regN"),
        common.bank_degree(
            run,
            "warptile:bank",
            "the lanes of a warp read one row of As or Bs, and words of one row fall in different banks unless they are 32 words apart",
        ),
        common.per_round(
            run,
            "warptile:reads",
            "shared_loads",
            "per dotIdx a lane reads WMITER·TM values into regM and WNITER·TN into regN",
        ),
        common.per_round(
            run,
            "warptile:fma",
            "fma",
            "every value of regM meets every value of regN across all WMITER×WNITER subtiles",
        ),
        common.block_loads(
            run,
            "warptile:block-loads",
            "a block copies its BM rows of A and BN columns of B once per bkIdx step, whatever the warps do",
        ),
    ]


task = longer_k  # the vectorized kernel's task: warptiling loads A and B the same way
