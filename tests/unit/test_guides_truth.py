"""Guided questions whose right answer, choices, wording and why must hold at every size the form accepts
(faults a review found at small or odd sizes), each checked against an independent count."""

from __future__ import annotations

from pysim.hardware.params import NaiveParams
from pysim.lessons.guides import guide_for


def entry(view, params, key):
    return next(e for e in guide_for(view, params).entries if e.key == key)


def test_the_map_choices_do_not_name_the_answer():
    """The labels once said "(coalesced)" and "(strided)": the answer, and a false one at M=2, N=5, T=8."""
    asked = entry("naive", NaiveParams(M=2, N=5, K=8, T=8), "naive:map")
    assert asked.answer == "col"  # tests/bruteforce.naive: 28 sectors against 51
    assert "28 sectors" in asked.why and "51" in asked.why
    for choice in asked.choices:
        assert "coalesc" not in choice.label and "strided" not in choice.label
