"""What the playground's page asks its worker (site/playworker.js) for: one frozen dataclass per request.

The page builds them (site/app/views/playground/), `pysim.play.session` encodes and decodes them as JSON
text with their kind under KIND_KEY, and the worker forwards that text untouched: the kinds are named
here and nowhere else (tests/unit/test_play_session.py checks the worker's script names none).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunRequest:
    """Run a file's kernel at M×N×K (compared with the puzzle's answer when `puzzle` names one)."""

    source: str
    M: int
    N: int
    K: int
    puzzle: str | None = None


@dataclass(frozen=True)
class GradeRequest:
    """Grade a file for a puzzle: its kernel at every size the puzzle checks."""

    source: str
    puzzle: str


@dataclass(frozen=True)
class IntervalRequest:
    """Interval `index` of the last run, following linear thread `thread`."""

    index: int
    thread: int


@dataclass(frozen=True)
class PictureRequest:
    """The lanes of listed warp instruction `row` of interval `index`."""

    index: int
    row: int


@dataclass(frozen=True)
class StorerRequest:
    """Who first stored C[row, col] in the last run."""

    row: int
    col: int


Request = RunRequest | GradeRequest | IntervalRequest | PictureRequest | StorerRequest
# Every request by its kind, the "op" its JSON carries: the only place the kinds are named.
REQUESTS: dict[str, type[Request]] = {
    "run": RunRequest,
    "grade": GradeRequest,
    "interval": IntervalRequest,
    "picture": PictureRequest,
    "storer": StorerRequest,
}
KIND_OF = {cls: kind for kind, cls in REQUESTS.items()}
KIND_KEY = "op"
STOPPABLE = (RunRequest, GradeRequest)  # what Stop ends (questions about a finished run take milliseconds)


def kind_of(request: Request) -> str:
    """The kind `request` travels as ("run", "grade", ...)."""
    return KIND_OF[type(request)]
