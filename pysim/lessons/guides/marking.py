"""Marking a guided answer: right or wrong, or refused in place (nothing recorded, nothing advances).

A number must be a whole number; a choice one of the moment's values; a cell answer at least one
grid cell. Refusals say what to give instead and never give the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..checkpoints import whole_number
from .model import GridCell, Moment

REFUSALS = {
    "number": "Type a whole number (thousands separators are fine).",
    "choice": "Choose one of the answers.",
    "cells": "Click at least one cell, then confirm.",
}


@dataclass(frozen=True)
class Mark:
    """The verdict on one answer: `right` is None when the answer is refused (see `refusal`). For a cells
    answer, `hit`, `missed` and `extra` say which cells the picture marks as predicted and right, as
    happened but not predicted, and as predicted but not touched."""

    right: bool | None
    refusal: str = ""
    hit: frozenset[GridCell] = frozenset()
    missed: frozenset[GridCell] = frozenset()
    extra: frozenset[GridCell] = frozenset()


def mark(moment: Moment, response: str | frozenset[GridCell]) -> Mark:
    """Mark `response`: typed text (number), a choice's data-value (choice), or the clicked cells (cells)."""
    refused = Mark(None, REFUSALS[moment.kind])
    if moment.kind == "cells":
        if not isinstance(response, frozenset) or not response:
            return refused
        assert isinstance(moment.answer, frozenset)
        hit = response & moment.answer
        return Mark(response == moment.answer, "", hit, moment.answer - response, response - moment.answer)
    if not isinstance(response, str):
        return refused
    if moment.kind == "choice":
        if response not in {choice.value for choice in moment.choices}:
            return refused
        return Mark(response == moment.answer)
    value = whole_number(response)
    if value is None:
        return refused
    return Mark(value == moment.answer)
