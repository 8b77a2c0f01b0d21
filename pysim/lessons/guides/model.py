"""The data of a guide: moments (a question, its exact answer and why), skips, and the "change it" task.

A moment belongs to a stepping view's trace: `step` is the step the picture stops at while the
question is open (the view shows that step), `reveal` the step it then plays to, where what was
asked happens. Answers are computed by pysim for the sizes on screen; this module holds no numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KINDS = ("number", "choice", "cells")  # SPEC §7 guide-question data-kind
GridCell = tuple[str, int, int]  # (data-array, row, col) of a grid cell the student clicks
Answer = int | str | frozenset[GridCell]


@dataclass(frozen=True)
class Choice:
    """One guide-choice button: `value` is its data-value, `label` its text."""

    value: str
    label: str


@dataclass(frozen=True)
class Moment:
    """One question of a guide, asked before the picture shows its answer.

    `answer`: a whole number (kind "number"), the `value` of one of `choices` ("choice"), or the
    frozenset of (array, row, col) grid cells to click ("cells"). `why` is the one-sentence reason
    shown in guide-why once answered. `hidden` names the counters (data-testid) that must stay hidden
    while the question is open, so the answer is never on screen before it is given. `thread` is the
    linear id of the thread the question names (the view follows it while asking), None if it names none.
    """

    key: str
    step: int
    reveal: int
    kind: str
    question: str
    answer: Answer
    why: str
    hidden: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = ()
    thread: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"moment {self.key}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if not 0 <= self.step <= self.reveal:
            raise ValueError(f"moment {self.key}: step {self.step} must lie in 0..reveal ({self.reveal})")
        if self.kind == "choice" and self.answer not in {c.value for c in self.choices}:
            raise ValueError(f"moment {self.key}: answer {self.answer!r} is not among its choices")
        if self.kind == "cells" and not (isinstance(self.answer, frozenset) and self.answer):
            raise ValueError(f"moment {self.key}: a cells answer is a non-empty set of grid cells")
        if self.kind == "number" and not (isinstance(self.answer, int) and self.answer >= 0):
            raise ValueError(f"moment {self.key}: a number answer is a whole number")

    @property
    def answer_text(self) -> str:
        """The answer as guide-result and the teacher page write it."""
        if isinstance(self.answer, frozenset):
            return ", ".join(f"{array}[{row}][{col}]" for array, row, col in sorted(self.answer))
        if isinstance(self.answer, int):
            return f"{self.answer:,}"
        return next(c.label for c in self.choices if c.value == self.answer)


@dataclass(frozen=True)
class Skipped:
    """A moment that does not exist at these sizes: never asked, its reason shown as one line."""

    key: str
    reason: str


@dataclass(frozen=True)
class Task:
    """The closing "change it" task: change the parameters as `instruction` says, predict, check.

    `moment` belongs to the trace at the changed sizes (`change` applied to the guide's parameters)."""

    instruction: str
    change: Mapping[str, Any]
    moment: Moment


@dataclass(frozen=True)
class Guide:
    """One view's guide for one set of sizes: its entries in step order, then the task."""

    view: str  # the route without its slash: "tiling", "naive", ..., "hierarchy"
    params: Any
    entries: tuple[Moment | Skipped, ...]
    task: Task | Skipped

    @property
    def moments(self) -> tuple[Moment, ...]:
        return tuple(e for e in self.entries if isinstance(e, Moment))

    @property
    def skipped(self) -> tuple[Skipped, ...]:
        return tuple(e for e in self.entries if isinstance(e, Skipped))
