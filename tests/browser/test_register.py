"""#/register in Chromium: counters, the sliding scalar pair, prev/next, URL, errors, verify."""

import pytest

from browser.conftest import go, url_has, value, view
from bruteforce import register
from pysim.core.trace import Trace
from pysim.hardware.params import RegisterParams
from pysim.kernels import KERNELS

COUNTERS = (
    "global_loads",
    "shared_loads",
    "register_reads",
    "fma",
    "shared_stores",
    "barriers",
    "global_sectors",
    "bank_extra_cycles",
)


def section(app):
    return view(app, "register")


def click(app, testid):
    section(app).locator(f"[data-testid={testid}]").click()


@pytest.mark.parametrize(
    "sizes",
    [
        dict(M=8, N=8, K=8, BM=4, BN=4, BK=4, TM=2, TN=2),
        dict(M=9, N=7, K=5, BM=4, BN=4, BK=3, TM=2, TN=1),
        dict(M=20, N=12, K=9, BM=8, BN=16, BK=4, TM=2, TN=4),
    ],
)
def test_run_to_end_counters_equal_brute_force(app, sizes):
    go(app, "#/register?" + "&".join(f"{k}={v}" for k, v in sizes.items()))
    click(app, "run-to-end")
    expected = register(*sizes.values())
    for name in COUNTERS:
        assert value(app, "register", f"counter-{name}") == expected[name], name
    assert section(app).locator("[data-testid=verify]").get_attribute("data-value") == "ok"


def test_scalar_pair_slides_across_the_vectors(app):
    p = RegisterParams()
    trace = Trace(KERNELS["register"], p)
    fmas = [s for s in trace if s.block == (1, 0) and s.tile == 1 and s.k == 2 and s.pair is not None]
    assert [s.pair for s in fmas] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for step in fmas:
        i, j = step.pair
        go(app, f"#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&thread=1,1&step={step.index}")
        bright_as = section(app).locator("[data-testid=grid-As] .cell.followed")
        bright_bs = section(app).locator("[data-testid=grid-Bs] .cell.followed")
        # thread (1,1) owns rows 2..3 of As and columns 2..3 of Bs; dotIdx = 2.
        assert (bright_as.get_attribute("data-r"), bright_as.get_attribute("data-c")) == (str(2 + i), "2")
        assert (bright_bs.get_attribute("data-r"), bright_bs.get_attribute("data-c")) == ("2", str(2 + j))
        assert section(app).locator("[data-testid=grid-As] .cell.reg-line").count() == 2
        assert section(app).locator("[data-testid=grid-Bs] .cell.reg-line").count() == 2


def test_prev_and_next(app):
    go(app, "#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&step=10")
    before = section(app).locator("[data-testid=monitor] tbody").inner_text()
    click(app, "step")
    assert url_has(app.page, "step=11")
    click(app, "prev")
    assert url_has(app.page, "step=10")
    assert section(app).locator("[data-testid=monitor] tbody").inner_text() == before


def test_url_round_trip(app, visit):
    go(app, "#/register?M=9&N=7&K=5&BM=4&BN=4&BK=3&TM=2&TN=1&thread=1,0&step=40")
    narration = section(app).locator("[data-testid=narration]").inner_text()
    visit.page.goto(app.page.url)
    visit.page.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=60_000)
    assert view(visit, "register").locator("[data-testid=narration]").inner_text() == narration
    assert visit.page.url == app.page.url


@pytest.mark.parametrize(
    "fields,message",
    [
        (dict(BM="8", TM="3"), "BM=8 is not divisible by TM=3"),
        (dict(BM="64", BN="64", TM="1", TN="1"), "4,096 threads per block"),
        (dict(BM="128", BN="128", BK="64", TM="8", TN="8"), "bytes of shared memory"),
    ],
)
def test_invalid_combinations_explain_themselves(app, fields, message):
    go(app, "#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&step=3")
    url = app.page.url
    for name, text in fields.items():
        section(app).locator(f"[data-testid=input-{name}]").fill(text)
    click(app, "apply")
    assert message in section(app).locator("[data-testid=input-error]").inner_text()
    assert app.page.url == url


def test_intensity_and_compare_use_current_parameters(app):
    go(app, "#/register?M=32&N=32&K=32&BM=16&BN=16&BK=4&TM=4&TN=4")
    assert "TM + TN = 4 + 4 = 8" in section(app).locator("[data-testid=intensity-current]").inner_text()
    table = section(app).locator("[data-testid=compare-table]")
    naive_loads = table.locator("tr").nth(1).locator("td").first.get_attribute("data-value")
    assert int(naive_loads) == 2 * 32 * 32 * 32
    register_loads = table.locator("tr").nth(3).locator("td").first.get_attribute("data-value")
    assert int(register_loads) == 32 * 32 * 2 + 32 * 32 * 2
