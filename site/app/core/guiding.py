"""Where a student is in a guide, and where the picture may go: pure Python, no browser imports.

pysim.lessons.guides computes the moments (the step each is asked at, the step it is revealed at,
its answer); this module only keeps the state of one sitting: which moments are answered, which
were passed by a deep link, and which step the player may show next. The rule (SPEC §7, issue 38):
the picture never steps past an unanswered moment's step, and after an answer it stops at the
moment's reveal step on its way, so what was predicted is shown against what happened.
"""

from __future__ import annotations

from pysim.lessons.guides.model import Guide, Moment, Task

RESULTS = ("right", "wrong", "shown")  # guide-result's data-value
SCORM_KINDS = {"number": "numeric", "choice": "choice", "cells": "performance"}  # cmi.interactions.n.type


class Sitting:
    """One student's way through one guide (and, once its moments are done, its task)."""

    def __init__(self, guide: Guide, start: int = 0) -> None:
        self.guide = guide
        self.verdicts: dict[str, str] = {}  # each answered moment's last result, one of RESULTS
        self.revealed: set[str] = set()  # the picture has reached the moment's reveal step
        self.done: set[str] = set()  # guide-next pressed after it
        # A deep link to step N: the questions asked before N are passed, never asked (the link never moves back).
        self.passed = {m.key: f"passed: the link opened at step {start}" for m in guide.moments if m.step < start}
        self.current: Moment | None = None  # the moment on screen (asked, or answered until guide-next)
        self.shown_index = start
        self.in_task = False  # the task's sizes are on screen: its moment is the only one

    @property
    def moments(self) -> tuple[Moment, ...]:
        if self.in_task:
            assert isinstance(self.guide.task, Task)
            return (self.guide.task.moment,)
        return self.guide.moments

    def settled(self, moment: Moment) -> bool:
        """Answered right or shown: the picture may play on past its step."""
        return self.verdicts.get(moment.key, "wrong") != "wrong"

    def open(self, moment: Moment) -> bool:
        return not self.settled(moment) and moment.key not in self.passed

    def stop_at(self, index: int) -> int:
        """The step to show when the player asks for `index`: an open moment's step comes first (it is asked
        there and the picture goes no further), then a settled moment's reveal step on the way."""
        previous = self.shown_index
        if index <= previous:
            self.shown_index = index
            return index
        stops = [m.step for m in self.moments if self.open(m) and previous <= m.step < index]
        stops += [
            m.reveal
            for m in self.moments
            if self.settled(m) and m.key not in self.revealed and previous < m.reveal < index
        ]
        self.shown_index = min(stops, default=index)
        return self.shown_index

    def arrive(self, index: int) -> None:
        """The picture shows step `index`: moments revealed by now are marked so, and the moment on screen
        stays until guide-next, else the first open moment asked at this step comes up."""
        self.shown_index = index
        for m in self.moments:
            if self.settled(m) and m.reveal <= index:
                self.revealed.add(m.key)
        if self.current is not None and self.current.key not in self.done:
            return
        self.current = next((m for m in self.pending() if m.step == index and self.open(m)), None)

    def pending(self) -> list[Moment]:
        """Moments still to go through, in the order they are asked."""
        return [m for m in self.moments if m.key not in self.done and m.key not in self.passed]

    def asking(self) -> Moment | None:
        """The moment whose question is open now (its answer must not be on screen)."""
        current = self.current
        return current if current is not None and not self.settled(current) else None

    def answer(self, moment: Moment, result: str) -> bool:
        """Keep an answer's result; True when it is the moment's first marked answer (the one a course records)."""
        if result not in RESULTS:
            raise ValueError(f"result {result!r} is not one of {', '.join(RESULTS)}")
        first = moment.key not in self.verdicts
        if result == "shown" and self.settled(moment):
            return False
        self.verdicts[moment.key] = result
        return first and result != "shown"

    def next_step(self) -> int | None:
        """guide-next: the moment on screen is done; the step of the next one to ask, None when none is left."""
        if self.current is not None:
            self.done.add(self.current.key)
            self.current = None
        following = self.pending()
        return following[0].step if following else None

    def start_task(self) -> None:
        """The task's sizes are on screen: its one moment is asked from their step 0."""
        self.in_task = True
        self.current = None
        self.shown_index = 0
