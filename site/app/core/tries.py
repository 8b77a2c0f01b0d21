"""Two tries per question, the answer only when asked: what the quiz and the checkpoints say.

Pure Python, no browser imports, so it is unit-tested in CPython. The walkthrough's
reveal-check (app.views.hierarchy) and the stepping views' checkpoints (app.widgets.checkpoint)
both mark a typed number with pysim, then ask `after_try` what to show: a wrong first try keeps
the answer hidden and offers a second try or "Show the answer"; a right try or a second wrong
one shows it. Only the first try counts for a course's score (app.core.score.ScoreBook keeps
the first answer); the reply says so when a later try is right.
"""

from __future__ import annotations

from dataclasses import dataclass

TRIES_BEFORE_REVEAL = 2  # the "a second try": a second wrong try shows the answer


@dataclass(frozen=True)
class Reply:
    """What the page shows after a marked try."""

    verdict: str
    reveal: bool  # show the answer and the reasoning
    offer: bool  # offer the "Show the answer" button (the answer is still hidden)


def after_try(right: bool, tries: int, answer_text: str) -> Reply:
    """The reply to the `tries`-th numeric try at a question (1 for the first; a right try ends them)."""
    if right:
        # A right later try follows a wrong first one, and the first is what the score keeps.
        counted = "" if tries == 1 else " Your first answer is the one that counts for the score."
        return Reply("Right." + counted, True, False)
    if tries < TRIES_BEFORE_REVEAL:
        return Reply("Not quite. Try once more, or press Show the answer.", False, True)
    return Reply(f"Not quite: the answer is {answer_text}.", True, False)


def feedback_class(right: bool | None) -> str:
    """The feedback line's classes: marked right, marked wrong, or neither (a hint, the answer on request)."""
    return {True: "feedback right", False: "feedback wrong", None: "feedback"}[right]


def shown(answer_text: str) -> Reply:
    """The reply when the reader presses Show the answer."""
    return Reply(f"The answer is {answer_text}.", True, False)
