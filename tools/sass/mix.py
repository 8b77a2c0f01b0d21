"""The instruction mix of a kernel's main loop body, per iteration, read from its SASS.

The main loop is the listing's outermost `for` around the FMA statement (`main_loop_span`, shared with
pysim's model). In the SASS it is the backward branch whose body holds the most FFMA; nvcc may have
unrolled it u times (u = the body's barriers over the barriers one iteration has, or for a loop without
barriers its FFMA over one iteration's), so the body's counts are divided by u. The arithmetic that anchors
the reading is FFMA, or HMMA in a tensor-core kernel (one iteration has no FFMA there). A loop with constant
bounds may be unrolled completely (no backward branch): then the loop lines' instructions over the trip
count. Loops nested in the body (a cooperative copy starting at threadIdx.x) are counted apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .disasm import Instruction

COUNTED = ("FFMA", "HMMA", "LDS", "STS", "LDG", "STG", "LDGSTS", "DFMA", "DADD", "DMUL", "FMUL", "FADD")
GLOBAL_FAMILIES = (
    "LDG",
    "STG",
    "LDGSTS",
)  # named with .E, as the model names them: LDGSTS.E.BYPASS.128 -> LDGSTS.E.128
NEVER = "@!PT"  # the predicate that is never true: nvcc's padding (`@!PT LDS RZ, [RZ]` before an LDGSTS) never runs
WIDTHS = (".64", ".128")


def instruction_class(opcode: str) -> str | None:
    """The class an opcode counts in (LDS.U.128 -> LDS.128, LDG.E.128.CONSTANT -> LDG.E.128), or None."""
    family = opcode.split(".")[0]
    if family not in COUNTED:
        return None
    if family == "HMMA":  # the shape and types are the class: HMMA.1688.F32.TF32
        return opcode
    width = next((w for w in WIDTHS if f"{w}." in f"{opcode}."), "")
    if family in GLOBAL_FAMILIES:
        return f"{family}.E{width}"
    return family + width


@dataclass(frozen=True)
class Loop:
    start: int  # address of the first instruction of the body
    end: int  # address of the backward branch

    def holds(self, instruction: Instruction) -> bool:
        return self.start <= instruction.address <= self.end


def loops(instructions: Sequence[Instruction]) -> list[Loop]:
    return [Loop(i.target, i.address) for i in instructions if i.target is not None and i.target <= i.address]


def count(instructions: Sequence[Instruction]) -> Counter[str]:
    found: Counter[str] = Counter()
    for instruction in instructions:
        if instruction.text.startswith(NEVER):
            continue
        name = instruction_class(instruction.opcode)
        if name:
            found[name] += 1
    return found


@dataclass(frozen=True)
class LoopBody:
    """The main loop's instructions, how many iterations they stand for, and what is counted apart."""

    body: tuple[Instruction, ...]  # straight-line code of the main loop (nvcc's copies of it if unrolled)
    inner: tuple[Instruction, ...]  # a constant-bound loop nvcc kept inside it (the dotIdx loop)
    inner_weight: Fraction  # how many times the inner loop's body runs per run of the main body
    iterations: int  # iterations of the listing's loop one run of the main body stands for
    apart: tuple[Instruction, ...]  # loops starting at threadIdx.x: a trip count nvcc cannot know
    after: tuple[Instruction, ...]  # what follows the loop: the epilogue's stores


@dataclass(frozen=True)
class Iteration:
    """What one iteration of the listing's main loop has, by pysim's model (the anchors of the reading)."""

    span: tuple[int, int]  # the listing lines of the main loop
    barriers: int
    anchored: int  # one iteration's instructions of the anchor
    trips: int | None  # the trip count when the listing fixes it (nvcc may unroll the loop completely)
    runtime_lines: frozenset[int]
    anchor: str = "FFMA"  # the opcode family whose count anchors unrolling: FFMA, or HMMA (tensor cores)


def _anchored(instructions: Sequence[Instruction], one: Iteration) -> int:
    return sum(1 for i in instructions if i.opcode.startswith(one.anchor))


def _bars(instructions: Sequence[Instruction]) -> int:
    return sum(1 for i in instructions if i.opcode.startswith("BAR"))


def main_loop(instructions: Sequence[Instruction], one: Iteration) -> LoopBody:
    """The main loop: the backward branch whose body has the most barriers (the most anchors in a kernel
    without barriers); none when nvcc unrolled it completely (then the loop lines over the trip count)."""
    apart = tuple(i for i in instructions if i.line in one.runtime_lines)
    kept = [i for i in instructions if i.line not in one.runtime_lines]
    all_loops = loops(kept)

    def measure(found: Sequence[Instruction]) -> int:
        return _bars(found) if one.barriers else _anchored(found, one)

    candidates = [lp for lp in all_loops if measure([i for i in kept if lp.holds(i)])]
    if not candidates:
        inside = tuple(i for i in kept if one.span[0] <= i.line <= one.span[1])
        after = tuple(i for i in kept if i.line > one.span[1])
        return LoopBody(inside, (), Fraction(0), one.trips or 1, apart, after)
    loop = max(candidates, key=lambda lp: (measure([i for i in kept if lp.holds(i)]), lp.end - lp.start))
    nested = [lp for lp in all_loops if lp != loop and loop.start <= lp.start and lp.end <= loop.end]
    body = tuple(i for i in kept if loop.holds(i) and not any(lp.holds(i) for lp in nested))
    inner = tuple(i for i in kept if any(lp.holds(i) for lp in nested))
    unrolled = max(measure(body) // max(one.barriers or one.anchored, 1), 1)
    # The inner loop's trip count is not in the SASS: the anchor gives it (the iteration's FFMA, less the body's).
    in_inner = _anchored(inner, one)
    weight = Fraction(unrolled * one.anchored - _anchored(body, one), in_inner) if in_inner else Fraction(0)
    after = tuple(i for i in kept if i.address > loop.end and i.line > one.span[1])
    return LoopBody(body, inner, weight, unrolled, apart, after)


def per_iteration(body: LoopBody) -> dict[str, float]:
    """The counts of one iteration (a whole number unless nvcc peeled part of one)."""
    totals = {name: Fraction(n) for name, n in count(body.body).items()}
    for name, n in count(body.inner).items():
        totals[name] = totals.get(name, Fraction(0)) + n * body.inner_weight
    shown: dict[str, float] = {}
    for name, total in sorted(totals.items()):
        value = total / body.iterations
        if value:
            shown[name] = int(value) if value.denominator == 1 else float(value)
    return shown
