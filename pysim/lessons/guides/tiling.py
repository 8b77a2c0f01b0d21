"""The shared-memory tiling kernel's guide (#/tiling): copy a tile once, wait, reuse it T times."""

from __future__ import annotations

from . import common
from .common import Entry, Run
from .model import Skipped, Task


def later_tile(run: Run) -> int:
    """The tile step the load questions look at: the second (the first is the one the page opens on)."""
    return min(1, run.params.tiles - 1)


def entries(run: Run) -> list[Entry]:
    tile = later_tile(run)
    return [
        common.cells_of(
            run,
            "tiling:cells-a",
            "A",
            "global",
            "each thread copies the one element of A that lies at its own (ty, tx) place in the tile",
            tile=tile,
        ),
        common.warp_sectors(
            run,
            "tiling:sectors-a",
            "A",
            "the lanes of a warp copy neighbouring words of a tile row, and 8 neighbouring words share one sector",
        ),
        common.barrier_wait(
            run,
            "tiling:barrier",
            "tileA",
            "no thread may read the tile until every thread has written its element, and only __syncthreads() makes the whole block wait",
        ),
        common.bank_degree(
            run,
            "tiling:bank",
            "the lanes sharing a row read one word of tileA (a broadcast), and the words of a tileB row lie in different banks",
        ),
        common.per_round(
            run,
            "tiling:reads",
            "shared_loads",
            "each multiply-add takes one value of tileA and one of tileB",
        ),
        common.block_loads(
            run,
            "tiling:block-loads",
            "a block copies its row strip of A and column strip of B once, one element per thread per tile step",
        ),
        common.edge_block_loads(
            run, "tiling:edge-loads", "the guarded copy skips every element outside A or B, so an edge block loads less"
        ),
        common.zero_fills(
            run,
            "tiling:zeros",
            "every thread must run the whole loop to reach __syncthreads(), so a thread outside the matrices writes 0 instead of loading",
        ),
    ]


def task(run: Run) -> Task | Skipped:
    T = run.params.T
    why = "a value loaded once is reused by T threads, so a larger tile means fewer loads, while edge tiles load only what lies inside"
    ask = common.whole_run("global_loads", "global loads", why)
    return common.change_task(run, "tiling:task", [{"T": T * 2}, {"T": T + 1}, {"T": T - 1}], ask)
