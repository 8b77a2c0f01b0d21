"""The 1D blocktiling kernel's guide (#/blocktile1d): one value of Bs in tmpB serves TM FMAs."""

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
            "blocktile1d:cells-a",
            "A",
            "global",
            "each thread copies exactly one element of As, at row threadIdx.x / BK and column threadIdx.x % BK",
            tile=tile,
        ),
        common.warp_sectors(
            run,
            "blocktile1d:sectors-b",
            "B",
            "consecutive threads copy consecutive words of a Bs row, so a warp's words share sectors",
        ),
        common.barrier_wait(
            run,
            "blocktile1d:barrier",
            "As",
            "no thread may read As or Bs until every thread of the block has copied its element",
        ),
        common.cells_of(
            run,
            "blocktile1d:tmpb",
            "Bs",
            "shared",
            "a thread's column of C needs row dotIdx of Bs at that one column",
            into="tmpB",
        ),
        common.bank_degree(
            run,
            "blocktile1d:bank",
            "lanes that read the same word share it as a broadcast, and different words conflict only in the same bank",
        ),
        common.cells_of(
            run,
            "blocktile1d:as",
            "As",
            "shared",
            "each of a thread's TM results needs its own row of As, read from shared memory at every FMA",
        ),
        common.per_round(
            run,
            "blocktile1d:reads",
            "shared_loads",
            "tmpB is read once and reused, but every FMA still reads its As value from shared memory",
        ),
        common.per_round(
            run,
            "blocktile1d:fma",
            "fma",
            "a thread owns TM results of one column, one multiply-add each per dotIdx",
        ),
        common.block_loads(
            run, "blocktile1d:block-loads", "a block copies its BM rows of A and BN columns of B once per bkIdx step"
        ),
        common.zero_fills(
            run,
            "blocktile1d:zeros",
            "a tile element outside A or B is written as 0, since every thread must reach the barrier",
        ),
    ]


def task(run: Run) -> Task | Skipped:
    p = run.params
    why = "per dotIdx a thread reads 1 + TM values for TM FMAs, so a larger TM reads less per FMA"
    ask = common.whole_run("shared_loads", "shared-memory reads", why)
    candidates = [{"TM": tm, "BK": p.BM // tm} for tm in (p.TM * 2, p.TM // 2) if tm and p.BM % tm == 0]
    return common.change_task(run, "blocktile1d:task", candidates, ask)
