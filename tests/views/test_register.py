"""#/register in CPython: the sliding scalar pair, intensity and the comparison table. (Was
tests/browser/test_register.py; prev/next, the address and the errors are in test_stepping.py; the
browser keeps one counter check.)"""

from pysim.core.trace import Trace
from pysim.hardware.params import RegisterParams
from pysim.kernels import KERNELS


def test_scalar_pair_slides_across_the_vectors(page):
    trace = Trace(KERNELS["register"], RegisterParams())
    fmas = [s for s in trace if s.block == (1, 0) and s.tile == 1 and s.k == 2 and s.pair is not None]
    assert [s.pair for s in fmas] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for step in fmas:
        i, j = step.pair
        page.go(f"#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&thread=1,1&step={step.index}")
        bright_as = page.find(".cell.followed", page.testid("grid-As"))
        bright_bs = page.find(".cell.followed", page.testid("grid-Bs"))
        # thread (1,1) owns rows 2..3 of As and columns 2..3 of Bs; dotIdx = 2.
        assert (bright_as.getAttribute("data-r"), bright_as.getAttribute("data-c")) == (str(2 + i), "2")
        assert (bright_bs.getAttribute("data-r"), bright_bs.getAttribute("data-c")) == ("2", str(2 + j))
        assert len(page.all(".cell.followed", page.testid("grid-As"))) == 1
        assert len(page.all(".cell.reg-line", page.testid("grid-As"))) == 2
        assert len(page.all(".cell.reg-line", page.testid("grid-Bs"))) == 2


def test_intensity_and_compare_use_current_parameters(page):
    page.go("#/register?M=32&N=32&K=32&BM=16&BN=16&BK=4&TM=4&TN=4")
    assert "TM + TN = 4 + 4 = 8" in page.inner_text("intensity-current")
    rows = page.all("tr", page.testid("compare-table"))
    assert int(str(page.find("td", rows[1]).getAttribute("data-value"))) == 2 * 32 * 32 * 32  # naive loads
    assert int(str(page.find("td", rows[3]).getAttribute("data-value"))) == 32 * 32 * 2 + 32 * 32 * 2


def test_the_bank_paragraph_says_its_widths_are_the_models_where_nvcc_places_bs_off_16_bytes(page):
    """pysim.core.placement: As of 3×1 floats puts Bs 12 bytes in, and nvcc reads it with 32-bit loads where the
    model merges an LDS.64 (tests/unit/test_placement.py holds that to nvcc)."""
    page.go("#/register?M=7&N=8&K=8&BM=3&BN=4&BK=1&TM=1&TN=2")
    said = page.inner_text("register-banks")
    assert "which may differ here: As takes 12 bytes, so nvcc places Bs right after it, off an 8-byte boundary" in said
    page.go("#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2")
    assert "may differ here" not in page.inner_text("register-banks")
