"""Issue 25 in Chromium: the views call the pure explanation modules (tests/views/test_sentences_round2.py
reads their sentences in CPython), so here only that each page fills every slot and noun, at the
issue's sizes, and shows the alternative pysim chose."""

from __future__ import annotations

from browser.conftest import go, view


def test_naive_at_the_16_16_8_8_preset_names_no_broadcast(app):
    go(app, "#/naive?M=16&N=16&K=8&T=8&map=col")
    why = view(app, "naive").locator("[data-testid=why-coalescing]")
    text = why.inner_text()
    assert "A[row][k] ask for 4 distinct words in 4 sectors" in text and "is a broadcast" not in text
    assert "map=col touches 320 sectors, map=row 576" in why.locator("[data-testid=coalescing-verdict]").inner_text()
    assert why.locator("[data-slot][data-default]").count() == 0


def test_transpose_at_T8_says_pad_1_makes_it_worse(app):
    go(app, "#/transpose?n=16&T=8&pad=0")
    verdict = view(app, "transpose").locator("[data-testid=pad-verdict]")
    assert "pad = 1 makes it worse (8 → 16 cycles)" in verdict.inner_text()
    assert view(app, "transpose").locator("[data-testid=why-padding] [data-slot][data-default]").count() == 0
