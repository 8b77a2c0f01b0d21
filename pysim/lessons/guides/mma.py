"""The TF32 tensor-core guide (#/mma): the pipeline's copies and stages (as #/pipelined asks them), the fragments a lane
loads, the mma.sync a block issues per k-step, and the block's loads. Answers from the trace and the
kernel's closed forms."""

from __future__ import annotations

from ...core.words import count
from ...kernels import k12_mma as kernel
from . import common
from .common import Entry, Run, moment
from .model import Task
from .pipelined import async_bytes, in_flight, landing_stage


def fragment_values(run: Run) -> Entry:
    """How many values of A one lane loads for one k-step: four per mma row of its warp (a0..a3)."""
    p = run.params
    index = run.find(lambda step: step.lines == kernel.FRAG_A)
    assert index is not None
    question = (
        "In the next step each lane loads its A fragments for one k-step. How many values of As will lane 0 load?"
    )
    why = (
        f"a 16×8 tile of A spread over 32 lanes is 4 values a lane (a0..a3, PTX ISA 9.7.14.5.7), and the warp's "
        f"tile has {count(p.MITER, 'row')} of mma tiles"
    )
    return moment(run, "mma:fragment-values", index - 1, index, "number", question, 4 * p.MITER, why)


def mmas_per_kstep(run: Run) -> Entry:
    """The mma.sync instructions the block's warps issue at the first k-step."""
    p = run.params
    index = run.find(lambda step: step.lines == kernel.MMA)
    assert index is not None
    question = "The fragments are in registers. How many mma.sync.m16n8k8 will the whole block issue in the next step?"
    warps = "the block's one warp" if p.warps == 1 else f"each of the {p.warps} warps"
    why = (
        f"{warps} issues one per 16×8 piece of its {p.WM}×{p.WN} tile "
        f"({p.MITER}×{p.NITER}), {'three each in 3xTF32' if p.split == 3 else 'one each in TF32'}"
    )
    answer = p.warps * p.MITER * p.NITER * p.split
    return moment(run, "mma:mmas", index - 1, index, "number", question, answer, why, hidden=("mma_instructions",))


def entries(run: Run) -> list[Entry]:
    return [
        async_bytes(run),
        landing_stage(run),
        in_flight(run),
        fragment_values(run),
        mmas_per_kstep(run),
        common.block_loads(
            run,
            "mma:block-loads",
            "tensor cores change who multiplies, not what is copied: BM rows of A and BN columns of B per tile",
        ),
    ]


def task(run: Run) -> Task | Entry:
    """3xTF32 instead of TF32 (or back): the whole run's mma.sync instructions."""
    why = "3xTF32 splits each value into a big and a small TF32 part and issues three mmas where TF32 issues one"
    ask = common.whole_run("mma_instructions", "mma.sync instructions", why)
    return common.change_task(run, "mma:task", [{"split": 4 - run.params.split}], ask)
