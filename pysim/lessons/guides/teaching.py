"""What the "For teachers" page (#/teach) says about each guided view: its learning goals, a suggested
20-minute activity, and the guide's questions with their exact answers for the sizes in the link.

One entry per guided view (the routes of `guides.ROUTES` and the walkthrough). The goals are the ideas a
guide's moments test, in words without numbers; every number the page shows (sizes, how many questions,
the answers, the task) comes from the guide pysim computes for those sizes. A link's parameters are read
as the view reads them (`parse`), so the answers are those of the page the link opens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...core.words import count, plural
from ...hardware.params import HierarchyParams, ParamError
from ...kernels import KERNELS
from . import ROUTES, WALKTHROUGH, guide_for
from .model import Guide, Moment, Skipped

# The guided views in the page's order (the site's navigation).
ORDER = (
    "hierarchy",
    "tiling",
    "register",
    "naive",
    "transpose",
    "blocktile1d",
    "vectorized",
    "warptile",
    "pipelined",
    "mma",
    "wgmma",
)
# Views that open at their first preset, not at the kernel's defaults (app/views/naive.py START and
# BlocktiledView.start: a link's missing sizes come from it). tests/views/test_teach.py checks the two agree.
OPENS_AT_FIRST_PRESET = frozenset({"naive", "blocktile1d", "vectorized", "warptile", "pipelined", "mma", "wgmma"})


@dataclass(frozen=True)
class Lesson:
    """A guided view as a teacher sees it: its name, what a student should take away, and what to discuss."""

    title: str
    goals: tuple[str, ...]
    discuss: str  # the closing discussion's question


LESSONS = {
    "hierarchy": Lesson(
        "Memory hierarchy",
        (
            "Count the global loads of the naive matrix multiply from its loops, per thread and in all.",
            "Explain why a T×T tile read from shared memory divides global traffic by T.",
            "Compare the exact tiled count with the ideal 2N³/T and say when they differ.",
            "Predict a bank conflict for a column read and how one word of padding removes it.",
        ),
        "Why does a larger tile stop helping once it no longer fits in shared memory?",
    ),
    "tiling": Lesson(
        "Shared-memory tiling",
        (
            "Say which element of A and B each thread copies into the shared tiles at a tile step.",
            "Explain why every thread waits at __syncthreads() before reading a tile.",
            "Count a block's global loads and the zeros an edge block writes instead of loading.",
            "Predict how the tile size T changes the whole run's global loads.",
        ),
        "What would go wrong if the barrier were removed, and which thread would see it first?",
    ),
    "register": Lesson(
        "Register tiling",
        (
            "Say which values of As and Bs a thread loads into regM and regN for one dotIdx.",
            "Count a thread's shared-memory reads and multiply-adds in one round: TM+TN reads for TM·TN FMAs.",
            "Explain why a larger register tile raises the multiply-adds per shared read.",
        ),
        "Why does a thread's patch of C grow the work per read faster than the reads themselves?",
    ),
    "naive": Lesson(
        "Coalescing",
        (
            "Say which index of C a warp's 32 threads walk under each map.",
            "Count the 32-byte sectors one load instruction of a warp touches.",
            "Explain why one map coalesces and the other touches a sector per thread.",
        ),
        "The two maps make the same number of loads: why is one of them slower on a real GPU?",
    ),
    "transpose": Lesson(
        "Bank conflicts",
        (
            "Find the bank each lane's word lies in when a warp reads a tile's row and its column.",
            "Compute a conflict degree: the most different words one bank must serve.",
            "Predict whether a given padding removes the conflict of a column read.",
        ),
        "Why does padding by one word work for a 32-wide tile, and which paddings would not?",
    ),
    "blocktile1d": Lesson(
        "1D blocktiling",
        (
            "Say which value of Bs a thread holds in tmpB and which values of As it pairs it with.",
            "Count a thread's shared reads and multiply-adds per round: TM+1 reads for TM FMAs.",
            "Predict how TM and BK change a block's global loads.",
        ),
        "What does keeping one value of Bs in a register save, and what does it cost in registers?",
    ),
    "vectorized": Lesson(
        "Vectorized loads",
        (
            "Say which four neighbouring floats a 128-bit load moves, and why As is stored transposed.",
            "Count the sectors a warp's vector load touches and the values a thread reads per round.",
            "Explain why the same bytes in fewer, wider instructions save issue slots.",
        ),
        "When can a kernel not use float4 loads, and what does it fall back to?",
    ),
    "warptile": Lesson(
        "Warptiling",
        (
            "Say which warp of a block computes a given element of C, and which lanes share a warp tile.",
            "Count a thread's shared reads and multiply-adds per round in its warp sub-tiles.",
            "Explain why a level of tiling per warp raises the FMAs per shared read.",
        ),
        "Which of the three tiling levels (block, warp, thread) saves which kind of traffic?",
    ),
    "pipelined": Lesson(
        "Pipelined copies (cp.async)",
        (
            "Say which tile each stage of As and Bs holds while the block computes on another.",
            "Explain how cp.async moves a tile from global to shared memory without passing through registers.",
            "Count the tiles in flight with S stages, and the bytes the asynchronous copies move.",
        ),
        "What does a block wait for at cp.async.wait_group, and why does a second stage hide that wait?",
    ),
    "mma": Lesson(
        "TF32 tensor cores (mma.sync)",
        (
            "Read from the PTX ISA's fragment layout which lane holds which element of the A, B and C tiles.",
            "Count the mma.sync instructions a block issues per k-step, and the FLOPs they execute.",
            "Compare the bank wavefronts of padded and XOR-swizzled shared rows for the copies and the fragments.",
            "Explain why 3xTF32 recovers float32's accuracy at three times the tensor-core instructions.",
        ),
        "Why does rounding the operands to TF32 cost accuracy, and what does splitting each value into two buy back?",
    ),
    "wgmma": Lesson(
        "Hopper: TMA + wgmma (warp specialization)",
        (
            "Count the bytes one stage's TMA copies write, zero fill included: what the mbarrier expects.",
            "Say which threads wait on which barrier: consumers on full[s], the producer on empty[s].",
            "Count the wgmma instructions per k-step from the consumer warpgroups and their m64 tiles.",
            "Read the 128-byte swizzle: chunk c of row r lands in chunk c XOR (r mod 8), so a core matrix meets all 32 banks.",
        ),
        "Why does one thread issuing whole-tile copies free the other warps, and what do the mbarriers replace?",
    ),
}
ACTIVITY_MINUTES = 20


def parse(view: str, raw: Mapping[str, str]):
    """The view's parameters from a link's values, as the view reads them; ParamError names a bad one."""
    if view == WALKTHROUGH:
        return HierarchyParams.parse({key: raw[key] for key in ("N", "T", "device") if key in raw})
    kernel = KERNELS[ROUTES[view]]
    start = next(iter(kernel.PARAMS.PRESETS.values())) if view in OPENS_AT_FIRST_PRESET else {}
    params = kernel.PARAMS.parse({**{key: str(value) for key, value in start.items()}, **raw})
    too_large = params.too_large_to_animate()
    if too_large:
        raise ParamError(
            too_large.param, f"{too_large.message}: the guide steps through every step, so it has no answers here"
        )
    return params


def lesson_guide(view: str, raw: Mapping[str, str]) -> Guide:
    """The guide of `view` for a link's values (ParamError if one is bad)."""
    return guide_for(view, parse(view, raw))


def response(moment: Moment) -> str:
    """The exact answer as a student gives it: the whole number typed, the choice's value, or the cells
    clicked, each as `array:row,col` (the grid cell's data-array and data-index), in order, space-separated."""
    if isinstance(moment.answer, frozenset):
        return " ".join(f"{array}:{row},{col}" for array, row, col in sorted(moment.answer))
    return str(moment.answer)


def activity(view: str, guide: Guide) -> tuple[tuple[int, str], ...]:
    """A suggested activity for this guide, as (minutes, what to do), ACTIVITY_MINUTES in all: predict, run,
    investigate, modify (PRIMM)."""
    asked, skipped = len(guide.moments), len(guide.skipped)
    task = "" if isinstance(guide.task, Skipped) else f' The "change it" task asks them to {guide.task.instruction}.'
    skips = (
        f" ({skipped} of the guide's moments {plural(skipped, 'does', 'do')} not exist at these sizes and "
        f"{plural(skipped, 'is', 'are')} skipped)"
        if skipped
        else ""
    )
    return (
        (3, "Show the view at these sizes without playing it; each student writes one prediction on the worksheet."),
        (
            8,
            f"In pairs, students open the guided link and answer its {count(asked, 'question')}{skips}, predicting on paper "
            "before they type or click, then reading the why.",
        ),
        (5, f"Investigate and modify.{task} Pairs write their prediction first, then check it on the page."),
        (4, f"Whole class: collect the questions most pairs got wrong, then discuss: {LESSONS[view].discuss}"),
    )
