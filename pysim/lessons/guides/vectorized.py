"""The vectorized kernel's guide (#/vectorized): float4 global loads, As transposed, 128-bit shared reads."""

from __future__ import annotations

from ...core.instructions import widths_unsure
from ...core.lanes import WarpSectors
from ...core.words import count, plural
from . import common
from .common import Entry, Run, accessing, moment
from .model import Choice, Skipped, Task
from .tiling import later_tile

WIDTHS = (
    Choice("4", "128-bit loads (LDS.128), 4 values each"),
    Choice("2", "64-bit loads (LDS.64), 2 values each"),
    Choice("1", "32-bit loads (LDS), 1 value each"),
)


def read_width(run: Run, key: str, array: str, register: str) -> Entry:
    """Whether a thread's read of `array` into `register` moves 4 words per instruction: the width the step records."""
    index = run.find(accessing(array, "shared", "load"))
    if index is None:
        return Skipped(key, f"block (0,0) never reads {array}")
    if widths_unsure(run.kernel, run.params):  # `kept-loop-base`: nvcc's answer is not known in advance here
        return Skipped(key, common.WIDTHS_UNKNOWN)
    step = run.trace[index]
    number = next(n for n, a in enumerate(step.accesses) if (a.array, a.space, a.op) == (array, "shared", "load"))
    # As nvcc issues it in pysim's model: a float4 row, or scalar rows merged into LDS.64 (`merge`).
    width = max(w for w, _ in step.issues.get(number) or [(step.accesses[number].width, 0)])
    question = f"At the next step each thread fills {register} from {array}. Which instructions will it use?"
    why = (
        f"the values a thread puts in {register} lie side by side in {array}, and a 128-bit load needs a whole, "
        "16-byte aligned group of 4 (a 64-bit one, an 8-byte aligned pair)"
    )
    choices = tuple(c for c in WIDTHS)
    return moment(run, key, index - 1, index, "choice", question, str(width), why, choices=choices)


def float4_sectors(found: WarpSectors) -> str:
    """Why warp 0's float4 loads touch the sectors they do: two float4s share a sector only where they lie side
    by side in memory (the same row at BK ≥ 8, or neighbouring rows where a row of A is 4 floats long)."""
    held = [len({lane for slot in sector.slots for lane in slot.lanes}) for sector in found.sectors]
    parts = [
        f"{count(number, 'sector')} {plural(number, 'holds', 'hold')} {what}"
        for number, what in (
            (sum(n == 2 for n in held), "the float4s of two lanes"),
            (sum(n == 1 for n in held), "one lane's float4 alone"),
        )
        if number
    ]
    return (
        "a float4 is 16 bytes, half a 32-byte sector, so two lanes share a sector only where their float4s lie "
        "side by side in memory: here " + " and ".join(parts)
    )


def entries(run: Run) -> list[Entry]:
    tile = later_tile(run)
    return [
        common.cells_of(
            run,
            "vectorized:cells-a",
            "A",
            "global",
            "each thread loads one float4: 4 neighbouring words of a row of A in one instruction",
            tile=tile,
        ),
        common.warp_sectors(
            run,
            "vectorized:sectors-a",
            "A",
            float4_sectors,
        ),
        common.barrier_wait(
            run,
            "vectorized:barrier",
            "As",
            "no thread may read As or Bs until every thread of the block has stored its float4",
        ),
        common.cells_of(
            run,
            "vectorized:regm",
            "As",
            "shared",
            "As is stored transposed, so a thread's TM values for one dotIdx lie along row dotIdx of As",
            into="regM",
        ),
        read_width(run, "vectorized:width", "As", "regM"),
        common.cells_of(
            run,
            "vectorized:regn",
            "Bs",
            "shared",
            "a thread's TN columns of C need row dotIdx of Bs at its own TN columns",
            into="regN",
        ),
        common.bank_degree(
            run, "vectorized:bank", "a 128-bit read is served 8 lanes at a time, so its degree is the worst phase's"
        ),
        common.per_round(
            run,
            "vectorized:reads",
            "shared_loads",
            "each dotIdx a thread copies TM values into regM and TN into regN, however wide its loads",
        ),
        common.per_round(
            run,
            "vectorized:fma",
            "fma",
            "every value of regM meets every value of regN: the outer product",
        ),
        common.block_loads(
            run,
            "vectorized:block-loads",
            "a float4 load moves 4 values in one instruction, but each value still counts as one global load",
        ),
    ]


def longer_k(run: Run) -> Task | Skipped:
    """One more bkIdx step (K + BK; K + 4 keeps float4 alignment if that is invalid): the run's global loads."""
    p = run.params
    why = "each bkIdx step reloads the block's BM rows of A and BN columns of B for BK more values of k"
    ask = common.whole_run("global_loads", "global loads", why)
    return common.change_task(run, f"{run.kernel.NAME}:task", [{"K": p.K + p.BK}, {"K": p.K + 4}], ask)


task = longer_k
