"""The naive kernel's guide: one thread per element of C, and which map of threads coalesces."""

from __future__ import annotations

from ...core.constants import WORDS_PER_SECTOR
from ...core.lanes import WarpSectors
from ...core.words import count, plural
from ...hardware.params import NAIVE_MAPS, NaiveParams
from .. import formulas
from . import common
from .common import Entry, Run, moment
from .model import Choice, Skipped, Task

# coalescing() lies beyond the kernel contract: it is reached through the registry's module (run.kernel.module),
# never by the module's file name, which may change.


def coalescing_choice(run: Run) -> Entry:
    """Which map's loads touch fewer sectors in all over the whole run (both counted by the closed forms)."""
    key = "naive:map"
    module = run.kernel.module
    total = {name: module.coalescing(run.params, name).sectors for name in NAIVE_MAPS}
    if total["col"] == total["row"]:
        return Skipped(key, "both maps' loads touch as many sectors in all at these sizes: neither coalesces better")
    best = min(total, key=lambda name: total[name])
    choices = tuple(Choice(name, label) for name, label in NAIVE_MAPS.items())
    question = (
        "Which map of threads onto C makes the whole run's loads touch fewer 32-byte sectors in all (summed over "
        "every warp's load instructions)?"
    )
    why = (
        f"the col map's loads touch {total['col']:,} sectors in all and the row map's {total['row']:,}: a warp is "
        "32 consecutive threadIdx.x values, which col lays along a row of C (neighbouring words of B, one word of A "
        "per row) and row down a column (one word of B per column, words of A K apart)"
    )
    return moment(run, key, 0, 1, "choice", question, best, why, choices=choices, hidden=("global_sectors",))


def thread_loads(run: Run) -> Entry:
    """Global loads of one thread inside C: its row of A and its column of B."""
    loads = formulas.naive_loads(1, 1, run.params.K)
    question = "How many global loads will one thread inside C make from start to end?"
    why = "each thread walks its own row of A and column of B straight from global memory, sharing nothing"
    return moment(run, "naive:thread-loads", 0, run.params.K, "number", question, loads, why, hidden=("global_loads",))


def idle_threads(run: Run) -> Entry:
    """Threads of the last block that return at once: the block's threads less the elements it stores."""
    key = "naive:idle"
    number = len(run.trace.blocks) - 1
    bx, by = run.trace.blocks[number]
    idle = run.kernel.threads(run.params) - run.kernel.block_counters(run.params, bx, by).global_stores
    if not idle:
        return Skipped(key, f"every thread of block ({bx},{by}) owns an element of C: M and N are multiples of T")
    if number == 0:  # the thread monitor lists the returned threads from the block's first step: none before it
        return Skipped(key, "only block (0,0) launches, and the page shows its returned threads from its first step")
    question = f"How many threads of block ({bx},{by}) will return at once without loading anything?"
    why = "a thread whose row or column lies outside C has no element to compute, and a launch is whole blocks"
    first = run.block_steps(number)[0]
    return moment(run, key, first - 1, first, "number", question, idle, why, hidden=("global_stores",))


def warp_words(p: NaiveParams, array: str, found: WarpSectors) -> str:
    """Why warp 0's load of A[row][k] or B[k][col] touches the sectors it does under the map on screen: its lanes
    ask for one word per row (A) or column (B) of C they lie on, and those words are K apart (A) or neighbours."""
    line = "row" if array == "A" else "column"
    words = len({slot.word for sector in found.sectors for slot in sector.slots if slot.lanes})
    head = (
        f"with map={p.map}, threadIdx.x % T picks the {'column' if p.map == 'col' else 'row'} of C, and warp 0's "
        f"{count(found.active, 'lane')} inside C {plural(found.active, 'lies', 'lie')} on {count(words, line)} of C"
    )
    if words == 1:
        return head + (f": one word of {array} serves them all (a broadcast)" if found.active > 1 else ", one word")
    if array == "A":
        return f"{head}, each asking for its own word A[row][k]; a row of A is K = {p.K} words long, so they lie {p.K} apart"
    return (
        f"{head}, each asking for its own word B[k][col]; neighbouring columns are neighbouring words of row k, "
        f"{WORDS_PER_SECTOR} to a 32-byte sector"
    )


def entries(run: Run) -> list[Entry]:
    reuse = "the same value of A is loaded again by every thread of its row, since nothing keeps it between threads"
    return [
        coalescing_choice(run),
        thread_loads(run),
        common.warp_sectors(run, "naive:sectors-a", "A", lambda found: warp_words(run.params, "A", found)),
        common.cells_of(
            run, "naive:cells-b", "B", "global", "a thread reads B down its own column, one k at a time", start=2
        ),
        common.warp_sectors(run, "naive:sectors-b", "B", lambda found: warp_words(run.params, "B", found)),
        common.block_loads(run, "naive:block-loads", reuse),
        common.edge_block_loads(
            run, "naive:edge-loads", "a thread outside C returns before its loop, so it loads nothing"
        ),
        idle_threads(run),
    ]


def task(run: Run) -> Task | Skipped:
    other = next(name for name in NAIVE_MAPS if name != run.params.map)
    why = "the sectors of a warp's load depend on which index of C its consecutive threadIdx.x values walk"
    ask = common.whole_run("global_sectors", "32-byte sectors (summed over the warps' load instructions)", why)
    return common.change_task(run, "naive:task", [{"map": other}], ask)
