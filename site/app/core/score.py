"""The score a course package reports: which questions count and what was answered.

Pure Python, no browser imports, so it is unit-tested in CPython. The views record an
answer through a `ScoreBook`; the book hands it to the page's `window.tilelabScore`
(site/scorm/score.js), which talks SCORM 1.2 to the LMS, relays to a link package, or,
outside a course, does nothing. The questions that count are fixed, whatever the sizes on
screen: the walkthrough's reveal-check (`quiz`), each stepping view's checkpoints (`checkpoints`,
one per kind, from pysim.lessons.checkpoints) and the playground's puzzles (`puzzles`). A course
package counts the kinds its teacher chose (`python build.py --scorm --scorm-counts`, default
quiz and checkpoints): the build writes `counted_keys(...)` into the package, and score.js counts
only those. The first answer to a question counts; later ones are practice. A puzzle is recorded
only when solved: attempts are how it is learnt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pysim.hardware.params import HierarchyParams
from pysim.kernels import KERNELS
from pysim.lessons import checkpoints
from pysim.lessons.walkthrough import Walkthrough, quiz

from .urlstate import STEPPING_VIEWS

WALKTHROUGH = "hierarchy"
PLAYGROUND = "puzzle"
STEPPING_KERNELS = tuple(view.kernel for view in STEPPING_VIEWS)  # the stepping views' kernels, in page order
MAX_TEXT = 24  # characters of an answer kept (cmi.suspend_data holds at most 4,096 in SCORM 1.2)


@dataclass(frozen=True)
class Answer:
    correct: bool
    text: str


COUNT_KINDS = ("quiz", "checkpoints", "puzzles")  # what a package may count, in page order
DEFAULT_COUNTS = ("quiz", "checkpoints")


@cache
def keys_by_kind() -> dict[str, tuple[str, ...]]:
    """The questions of each kind, in page order."""
    # Here, not at the top: the puzzles come with the playground's whole simulator (pysim.play), which a
    # page needs only on the playground or once it restores answers, not at every start.
    from pysim.play.puzzles import PUZZLES

    return {
        "quiz": tuple(f"{WALKTHROUGH}:{q.key}" for q in quiz(Walkthrough(HierarchyParams()))),
        "checkpoints": tuple(key for name in STEPPING_KERNELS for key in checkpoints.keys(KERNELS[name])),
        "puzzles": tuple(puzzle_key(puzzle.key) for puzzle in PUZZLES),
    }


@cache
def scored_keys() -> tuple[str, ...]:
    """Every question a course package may count, in page order."""
    return tuple(key for kind in COUNT_KINDS for key in keys_by_kind()[kind])


def parse_counts(text: str) -> tuple[str, ...]:
    """`quiz,checkpoints,puzzles` (any order, any subset but none) -> the kinds in page order."""
    chosen = {part.strip() for part in text.split(",") if part.strip()}
    unknown = sorted(chosen - set(COUNT_KINDS))
    if unknown or not chosen:
        raise ValueError(f"give one or more of {','.join(COUNT_KINDS)} (got {text!r})")
    return tuple(kind for kind in COUNT_KINDS if kind in chosen)


def counted_keys(counts: tuple[str, ...] = DEFAULT_COUNTS) -> tuple[str, ...]:
    """The questions a package built with these kinds counts, in page order."""
    return tuple(key for kind in COUNT_KINDS if kind in counts for key in keys_by_kind()[kind])


def walkthrough_key(question: str) -> str:
    return f"{WALKTHROUGH}:{question}"


def puzzle_key(puzzle: str) -> str:
    return f"{PLAYGROUND}:{puzzle}"


def quiz_on(params: Mapping[str, str], page_flag: str | None) -> bool:
    """Checkpoints are asked in course packages (<html data-quiz="on">) and with quiz=1 in the address."""
    return params.get("quiz") == "1" or page_flag == "on"


def parse_answers(text: str | None) -> dict[str, Answer]:
    """Answers as score.js keeps them, JSON {key: [1|0, text]}; anything malformed is dropped."""
    try:
        raw = json.loads(text or "{}")
    except ValueError:
        return {}
    if not isinstance(raw, dict):
        return {}
    found = {}
    for key, value in raw.items():
        if key in scored_keys() and isinstance(value, list) and len(value) == 2 and value[0] in (0, 1):
            found[key] = Answer(bool(value[0]), str(value[1])[:MAX_TEXT])
    return found


@dataclass(frozen=True)
class Interaction:
    """One guided answer as a course package records it: SCORM 1.2 `cmi.interactions.n` (SPEC §7).

    `id` is "<view>:<moment key>", `kind` one of numeric|choice|performance (a cells answer is a
    performance), `result` correct|wrong. Every answer is an interaction, counted or not.
    """

    id: str
    kind: str
    response: str
    result: str
    latency_s: float


class ScoreBook:
    """What was answered, here and (through the backend) in earlier sessions; the first answer counts."""

    def __init__(self, backend: Any = None) -> None:
        self.backend = backend  # window.tilelabScore, or None (tests, or a page without it)
        self.session: dict[str, Answer] = {}

    def answers(self) -> dict[str, Answer]:
        earlier = parse_answers(str(self.backend.restored())) if self.backend is not None else {}
        return {**earlier, **self.session}

    def recorded(self, key: str) -> Answer | None:
        return self.answers().get(key)

    def record(self, key: str, correct: bool, text: str) -> bool:
        """Count this answer unless the question already has one; True when it was counted."""
        if key not in scored_keys() or self.recorded(key) is not None:
            return False
        answer = Answer(correct, text.strip()[:MAX_TEXT])
        self.session[key] = answer
        if self.backend is not None:
            self.backend.answer(key, answer.correct, len(scored_keys()), answer.text)
        return True

    def interaction(self, item: Interaction) -> None:
        """Hand one guided answer to the course package (score.js writes cmi.interactions.n)."""
        if self.backend is not None:
            self.backend.interaction(item.id, item.kind, item.response[:MAX_TEXT], item.result, item.latency_s)
