"""#/transpose in CPython: the bank picture per warp and pad, the live pad, the address's T. (Was
tests/browser/test_transpose.py; the shared stepping checks are in test_stepping.py; the browser keeps one
counter check.)"""

import pytest

from pysim.core.trace import Trace
from pysim.kernels import KERNELS, k03_tilelab_transpose


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


def marked(page, testid: str, cls: str) -> list[tuple[int, int]]:
    cells = page.all(f".cell.{cls}", page.testid(testid))
    return sorted((int(cell.getAttribute("data-r")), int(cell.getAttribute("data-c"))) for cell in cells)


def test_the_block_tiles_and_the_padding_stay_marked_across_blocks(page):
    """Every step of a four-block run: A's and C's cells of the block's tile (in-tile) and the shared tile's
    padding (pad-cell), exactly. The view holds them as the grids' base classes, set when the block changes
    (issue 44), so a block left behind must lose them."""
    kernel = KERNELS["transpose"]
    params = kernel.PARAMS.parse({"n": "16", "T": "8", "pad": "1"})
    trace = Trace(kernel, params)
    page.go("#/transpose?n=16&T=8&pad=1&step=0&guide=0")
    for index in range(len(trace)):
        regions = kernel.regions(params, trace[index])
        assert [marked(page, f"grid-{name}", "in-tile") for name in ("A", "C")] == [regions["A"], regions["C"]]
        assert marked(page, "grid-tile", "pad-cell") == k03_tilelab_transpose.padding_cells(params)
        if index < len(trace) - 1:
            page.click("step")
