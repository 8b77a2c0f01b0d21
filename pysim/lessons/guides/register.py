"""The 2D register tiling kernel's guide (#/register): TM values of As and TN of Bs feed TM·TN FMAs."""

from __future__ import annotations

from . import common
from .common import Entry, Run
from .model import Skipped, Task
from .tiling import later_tile


def entries(run: Run) -> list[Entry]:
    tile = later_tile(run)
    return [
        common.cells_of(
            run,
            "register:cells-a",
            "A",
            "global",
            "the threads copy the BM×BK slice of A together, one element per thread per pass, in row-major order",
            tile=tile,
        ),
        common.warp_sectors(
            run,
            "register:sectors-b",
            "B",
            "consecutive threads copy consecutive words of a Bs row, so a warp's words share sectors",
        ),
        common.barrier_wait(
            run,
            "register:barrier",
            "As",
            "no thread may read As until every thread has written its share, whichever warp it belongs to",
        ),
        common.cells_of(
            run,
            "register:regm",
            "As",
            "shared",
            "a thread's TM rows of C need column dotIdx of As at its own TM rows",
            into="regM",
        ),
        common.cells_of(
            run,
            "register:regn",
            "Bs",
            "shared",
            "a thread's TN columns of C need row dotIdx of Bs at its own TN columns",
            into="regN",
        ),
        common.bank_degree(
            run,
            "register:bank",
            "a bank's conflict counts the different words its lanes ask for, and lanes of one row of threads share their As word",
        ),
        common.per_round(
            run,
            "register:reads",
            "shared_loads",
            "each dotIdx a thread copies TM values into regM and TN into regN, and nothing more",
        ),
        common.per_round(
            run,
            "register:fma",
            "fma",
            "every value of regM meets every value of regN: the outer product of TM and TN values",
        ),
        common.block_loads(
            run,
            "register:block-loads",
            "a block copies its BM rows of A and BN columns of B once per bkIdx step, whatever TM and TN are",
        ),
        common.zero_fills(
            run, "register:zeros", "an element of a tile outside A or B is written as 0, so the FMAs on it add nothing"
        ),
    ]


def task(run: Run) -> Task | Skipped:
    p = run.params
    why = "per dotIdx a thread reads TM + TN values for TM·TN FMAs, so a larger patch needs fewer reads per FMA"
    ask = common.whole_run("shared_loads", "shared-memory reads", why)
    return common.change_task(
        run, "register:task", [{"TM": p.TM * 2}, {"TN": p.TN * 2}, {"TM": p.TM // 2}, {"TN": p.TN // 2}], ask
    )
