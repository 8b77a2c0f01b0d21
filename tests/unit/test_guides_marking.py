"""Marking guided answers: right, wrong, or refused in place (the issue's "Bad input")."""

from __future__ import annotations

from pysim.hardware.params import NaiveParams, SmemParams
from pysim.lessons.guides import guide_for
from pysim.lessons.guides.marking import mark
from pysim.lessons.guides.model import Moment


def moment(view, params, key):
    return next(m for m in guide_for(view, params).moments if m.key == key)


def test_a_number_must_be_whole():
    loads = moment("tiling", SmemParams(), "tiling:block-loads")
    assert mark(loads, f"{loads.answer:,}").right is True
    assert mark(loads, str(loads.answer + 1)).right is False
    for text in ("", "twelve", "1/2", "3.5", "-4"):
        found = mark(loads, text)
        assert found.right is None and "whole number" in found.refusal and str(loads.answer) not in found.refusal


def test_a_whole_number_takes_thousands_groups_only():
    """Separators go between groups of three; a fraction is not a whole number, even 2048/2."""
    loads = Moment("tiling:block-loads", 0, 1, "number", "How many?", 1024, "why")
    for text in ("1024", "1,024", "1 024", " 1024.0 "):
        assert mark(loads, text).right is True, text
    for text in ("10,24", "1,0,2,4", "1,02,4", "10 24", "2048/2", "1024/1", "1,024 000"):
        found = mark(loads, text)
        assert found.right is None and "whole number" in found.refusal, text


def test_a_choice_must_be_one_of_the_buttons():
    choice = moment("naive", NaiveParams(M=32, N=32, K=8, T=32), "naive:map")
    other = next(c.value for c in choice.choices if c.value != choice.answer)
    assert mark(choice, str(choice.answer)).right is True
    assert mark(choice, other).right is False
    assert mark(choice, "diagonal").right is None


def test_cells_need_a_selection_and_are_marked_cell_by_cell():
    cells = moment("register", None, "register:regm")
    assert isinstance(cells.answer, frozenset) and len(cells.answer) == 2
    assert mark(cells, frozenset()).right is None and mark(cells, frozenset()).refusal
    right = mark(cells, cells.answer)
    assert right.right is True and right.hit == cells.answer and not right.missed and not right.extra
    one, *_ = sorted(cells.answer)
    wrong_cell = ("As", 99, 99)
    partial = mark(cells, frozenset({one, wrong_cell}))
    assert partial.right is False
    assert partial.hit == {one} and partial.missed == cells.answer - {one} and partial.extra == {wrong_cell}
