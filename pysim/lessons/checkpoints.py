"""Prediction checkpoints: questions a stepping view asks before the student steps on.

Every answer is computed here, by pysim, for the sizes on screen: a block's global loads
from the kernel's closed-form counters, a warp's bank-conflict degree from the words the
next step's shared-memory read really touches, FMAs per shared read from the counters.
The prompts and explanations are templates filled with those numbers. No browser imports.

A checkpoint's `key` names the kind of question for one kernel ("smem:block-loads"), not
the sizes: the score counts each key once, whatever sizes the student asked it at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..core import banks
from ..core.constants import WARP_SIZE
from ..core.instructions import Issue, instruction_class
from ..core.placement import widths_reason
from ..core.warps import INACTIVE

BLOCK_LOADS, BANK_DEGREE, FMA_PER_READ = "block-loads", "bank-degree", "fma-per-read"
# A fraction's answer is accepted as a decimal to two places (0.67 for 2/3); whole answers and fractions typed
# as fractions must be exact.
DECIMAL_TOLERANCE = Fraction(1, 200)
# A whole part is plain digits or groups of three after the first, split by one kind of separator ("1,024",
# "1 024", "1_024"): "10,24" is refused, not read as 1024.
WHOLE = r"[0-9]{1,12}|[0-9]{1,3}(?:,[0-9]{3}){1,3}|[0-9]{1,3}(?: [0-9]{3}){1,3}|[0-9]{1,3}(?:_[0-9]{3}){1,3}"
ANSWER = re.compile(rf"^({WHOLE})(?:\s*/\s*([0-9]{{1,12}})|\.([0-9]{{1,6}}))?$")


@dataclass(frozen=True)
class Checkpoint:
    """One prediction: asked when the view shows step `step` (before it runs on)."""

    key: str
    step: int
    prompt: str
    answer: Fraction
    explanation: str

    @property
    def answer_text(self) -> str:
        return format_number(self.answer)


def format_number(value: Fraction, digits: int = 2) -> str:
    """An exact answer as the page writes it: 12, 1/2, 2/3 (≈ 0.67); `digits` decimals at most."""
    if value.denominator == 1:
        return f"{value.numerator:,}"
    text = f"{value.numerator}/{value.denominator}"
    decimal = f"{float(value):.{digits}f}".rstrip("0").rstrip(".")
    return text if Fraction(decimal) == value else f"{text} (≈ {decimal})"


# Kernels whose checkpoints are asked (quiz=1, course packages) as practice only: they count toward
# no course score, so adding their routes left a course's scored questions as they were. Drop a
# kernel from here to score its checkpoints (the course then has more questions to complete).
PRACTICE_ONLY = ("blocktile1d", "vectorized", "warptile", "pipelined", "mma", "wgmma")


def kinds(kernel: Any) -> tuple[str, ...]:
    """The checkpoint kinds a kernel has, whatever its sizes, for the course score: every kernel
    loads from global memory; a bank question needs shared-memory reads; FMAs per read needs both.
    None for a PRACTICE_ONLY kernel (its checkpoints are still asked, see `asked_kinds`)."""
    return () if kernel.NAME in PRACTICE_ONLY else asked_kinds(kernel)


def asked_kinds(kernel: Any) -> tuple[str, ...]:
    """The checkpoint kinds a stepping view asks for this kernel, scored or not."""
    totals = kernel.counters(kernel.PARAMS())
    found = [BLOCK_LOADS]
    if totals.shared_loads:
        found.append(BANK_DEGREE)
        if totals.fma:
            found.append(FMA_PER_READ)
    return tuple(found)


def keys(kernel: Any) -> tuple[str, ...]:
    return tuple(f"{kernel.NAME}:{kind}" for kind in kinds(kernel))


def _first(trace: Any, start: int, stop: int, test) -> int | None:
    return next((i for i in range(start, stop) if test(trace[i])), None)


def block_loads(kernel: Any, params: Any, trace: Any) -> Checkpoint:
    """At the setup step of the second block (the first when there is one): its global loads."""
    number = 1 if len(trace.blocks) > 1 else 0
    bx, by = trace.blocks[number]
    counters = kernel.block_counters(params, bx, by)
    loads = counters.global_loads
    first = kernel.block_counters(params, *trace.blocks[0]).global_loads
    if number:
        same = "the same as" if loads == first else ("fewer than" if loads < first else "more than")
        why = (
            f"Block ({bx},{by}) makes {loads:,} global loads, {same} block (0,0)'s {first:,}: every element it "
            "loads from global memory counts once, and a block at an edge loads only what lies inside the "
            "matrices."
        )
    else:
        why = f"Block ({bx},{by}) makes {loads:,} global loads: every element it loads from global memory counts once."
    return Checkpoint(
        f"{kernel.NAME}:{BLOCK_LOADS}",
        trace.first_step(number),
        f"Predict: how many global loads will block ({bx},{by}) make from start to end?",
        Fraction(loads),
        why,
    )


def bank_degree(kernel: Any, params: Any, trace: Any) -> Checkpoint | None:
    """At the first step of block 0 that reads shared memory: warp 0's worst conflict degree there."""
    index = _first(
        trace, 0, trace.steps_per_block, lambda s: any(a.space == "shared" and a.op == "load" for a in s.accesses)
    )
    if index is None:
        return None
    step = trace[index]
    reads = [(n, a) for n, a in enumerate(step.accesses) if a.space == "shared" and a.op == "load"]
    # The instructions nvcc issues (step.issues: a thread's merged reads as one LDS.64/LDS.128, at the step
    # of the first); phase_degrees(): (instructions, warps, phases), warp 0 is threads 0..31. A wide access
    # is served in phases: its degree is the worst phase's.
    if widths_reason(kernel, params):
        return None  # `kept-loop-base`, `placement`: the reads' widths, and so their degree, are nvcc's choice here
    per_read = [(degree, width, a) for n, a in reads for degree, width in _issued_degrees(a, step.issues.get(n))]
    degree, width, worst = max(per_read, key=lambda found: found[0])
    names = " and ".join(a.array for _, a in reads)
    lanes = min(WARP_SIZE, kernel.threads(params))
    if degree <= 1:
        meaning = "no conflict: every bank serves at most one word, so " + (
            "each phase takes one pass" if width > 1 else "the read takes one pass"
        )
    else:
        meaning = f"a {degree}-way conflict: one bank serves {degree} different words, one after another"
    return Checkpoint(
        f"{kernel.NAME}:{BANK_DEGREE}",
        index,
        f"Predict: this step reads {names} from shared memory. What conflict degree will warp 0 see "
        "(the most different words any one of the 32 banks must serve)?",
        Fraction(degree),
        f"Degree {degree} (in {worst.array}): {meaning}. Warp 0's {lanes} threads ask for words whose bank is "
        "the word index mod 32; threads asking for the same word share it (a broadcast)."
        + (
            f" Each lane reads {width} words at once (nvcc issues {instruction_class('LDS', width)}), so the warp "
            "is served in phases of fewer lanes: the degree is the worst phase's."
            if width > 1
            else ""
        ),
    )


def _issued_degrees(access: Any, issues: list[Issue] | None) -> list[tuple[int, int]]:
    """(warp 0's degree, width) of each instruction issued for `access` (its rows as written without `issues`)."""
    rows = issues or [(access.width, 0)] * len(access.words)
    found = []
    for words, (width, shift) in zip(access.words, rows, strict=True):
        if width:
            moved = np.where(words != INACTIVE, words + shift, INACTIVE)
            found.append((int(banks.phase_degrees(moved, width)[0].max()), width))
    return found


def fma_per_read(kernel: Any, params: Any, trace: Any) -> Checkpoint | None:
    """At block 0's first barrier: how many FMAs each thread does per shared-memory read."""
    counters = kernel.block_counters(params, *trace.blocks[0])
    if not counters.shared_loads or not counters.fma:
        return None
    index = _first(trace, 0, trace.steps_per_block, lambda s: s.barrier)
    if index is None:
        return None
    ratio = Fraction(counters.fma, counters.shared_loads)
    return Checkpoint(
        f"{kernel.NAME}:{FMA_PER_READ}",
        index,
        "Predict: once the tiles are loaded, how many FMAs will each thread do per value it reads from "
        "shared memory? (A fraction such as 1/2 is fine.)",
        ratio,
        f"{format_number(ratio)}: the block does {counters.fma:,} FMAs for {counters.shared_loads:,} "
        "shared-memory reads, and every thread does the same share of both.",
    )


def checkpoints(kernel: Any, params: Any, trace: Any) -> list[Checkpoint]:
    """Every checkpoint of this run, in step order (one per kind)."""
    found = [
        block_loads(kernel, params, trace),
        bank_degree(kernel, params, trace),
        fma_per_read(kernel, params, trace),
    ]
    return sorted((c for c in found if c is not None), key=lambda c: c.step)


def parse_answer(text: str) -> Fraction | None:
    """A typed answer: a whole number (thousands separators allowed), a fraction a/b or a decimal; None if
    neither."""
    cleaned = text.strip()
    match = ANSWER.match(cleaned) if cleaned.isascii() else None
    if match is None:
        return None
    whole, denominator, decimals = match.groups()
    whole = re.sub("[, _]", "", whole)
    if denominator is not None:
        return Fraction(int(whole), int(denominator)) if int(denominator) else None
    if decimals is not None:
        return Fraction(f"{whole}.{decimals}")
    return Fraction(int(whole))


def whole_number(text: str) -> int | None:
    """A typed whole number: digits with thousands separators, or a decimal with nothing after the point
    ("1024.0"); None for anything else, a fraction included ("2048/2" is not typed as a whole number)."""
    value = parse_answer(text)
    if value is None or value.denominator != 1 or "/" in text:
        return None
    return int(value)


def check(checkpoint: Checkpoint, text: str) -> tuple[bool | None, str]:
    """Mark a prediction: (right, short verdict); right is None when the text is not a number. The verdict
    never gives the answer: the page offers a second try first (app.core.tries)."""
    value = parse_answer(text)
    if value is None:
        return None, "Type a number: a whole number, a fraction such as 1/2, or a decimal."
    exact = value == checkpoint.answer
    # Only a fraction's answer is rounded when typed as a decimal: a whole answer must be typed exactly.
    rounded = checkpoint.answer.denominator != 1 and "." in text
    close = rounded and abs(value - checkpoint.answer) <= DECIMAL_TOLERANCE
    if exact or close:
        return True, "Right."
    return False, "Not quite."
