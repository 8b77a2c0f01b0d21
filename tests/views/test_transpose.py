"""#/transpose in CPython: the bank picture per warp and pad, the live pad, the address's T. (Was
tests/browser/test_transpose.py; the shared stepping checks are in test_stepping.py; the browser keeps one
counter check.)"""

import pytest


@pytest.mark.parametrize("pad,degree,banks", [(0, 32, 1), (1, 1, 32), (2, 2, 16)])
def test_column_read_degree_per_pad(page, pad, degree, banks):
    page.go(f"#/transpose?n=32&T=32&pad={pad}&step=3")  # the column read of block (0, 0)
    summary = page.testid("banks")
    assert summary.getAttribute("data-degree") == str(degree)
    assert summary.getAttribute("data-extra") == str(degree - 1)
    assert summary.getAttribute("data-banks") == str(banks)
    conflicts = page.all('svg .bank-conflict[display="inline"]', page.testid("warp"))
    assert len(conflicts) == (32 if degree > 1 else 0)
    # Global stores stay coalesced: 4 sectors for 32 words, all of them used.
    stores = page.testid("sectors")
    assert stores.getAttribute("data-sectors") == "4" and stores.getAttribute("data-used") == "128"


def test_row_write_has_no_conflict(page):
    page.go("#/transpose?n=32&T=32&pad=0&step=1")
    assert page.attribute("banks", "data-degree") == "1"


def test_pad_1_has_no_conflict_and_says_so(page):
    """(That the pad applies at once and keeps the step: test_stepping.py's test_a_live_control_keeps_the_step.)"""
    page.go("#/transpose?n=64&T=32&pad=0&step=7").select("input-pad", "1")
    assert page.attribute("banks", "data-degree") == "1"
    assert page.attribute("pad-1", "aria-current") == "true"


def test_the_address_names_the_tile_T(page):
    page.go("#/transpose?n=8&T=4&pad=1")
    assert {key: page.params()[key] for key in ("n", "T", "pad")} == {"n": "8", "T": "4", "pad": "1"}
    assert page.testid("input-T").value == "4"
    assert "TILE" not in page.address
