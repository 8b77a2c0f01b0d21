"""#/transpose in Chromium: counters against brute force, the bank picture per warp, pad live, deep links."""

import pytest

from browser.conftest import go, url_has, value, view
from bruteforce import transpose

COUNTERS = (
    "global_loads",
    "global_stores",
    "shared_stores",
    "shared_loads",
    "barriers",
    "global_sectors",
    "bank_extra_cycles",
)


def section(app):
    return view(app, "transpose")


def click(app, testid):
    section(app).locator(f"[data-testid={testid}]").click()


def state(app):
    s = section(app)
    counters = {name: s.locator(f"[data-testid=counter-{name}]").get_attribute("data-value") for name in COUNTERS}
    return (
        counters,
        s.locator("[data-testid=focus]").inner_text(),
        s.locator("[data-testid=narration]").inner_text(),
        s.locator(".position").inner_text(),
    )


@pytest.mark.parametrize("n,T,pad", [(64, 32, 0), (64, 32, 1), (37, 32, 2), (5, 4, 0), (33, 16, 1)])
def test_run_to_end_counters_equal_brute_force(app, n, T, pad):
    go(app, f"#/transpose?n={n}&T={T}&pad={pad}")
    click(app, "run-to-end")
    expected = transpose(n, T, pad)
    for name in COUNTERS:
        assert value(app, "transpose", f"counter-{name}") == expected[name], name
    section(app).locator("[data-testid=verify][data-value=ok]").wait_for(timeout=10_000)


@pytest.mark.parametrize("pad,degree,banks", [(0, 32, 1), (1, 1, 32), (2, 2, 16)])
def test_column_read_degree_per_pad(app, pad, degree, banks):
    go(app, f"#/transpose?n=32&T=32&pad={pad}&step=3")  # the column read of block (0, 0)
    summary = section(app).locator("[data-testid=banks]")
    assert summary.get_attribute("data-degree") == str(degree)
    assert summary.get_attribute("data-extra") == str(degree - 1)
    assert summary.get_attribute("data-banks") == str(banks)
    assert section(app).locator("[data-testid=warp] svg .bank-conflict[display=inline]").count() == (
        32 if degree > 1 else 0
    )
    # Global stores stay coalesced: 4 sectors for 32 words, all of them used.
    stores = section(app).locator("[data-testid=sectors]")
    assert stores.get_attribute("data-sectors") == "4" and stores.get_attribute("data-used") == "128"


def test_row_write_has_no_conflict(app):
    go(app, "#/transpose?n=32&T=32&pad=0&step=1")
    assert section(app).locator("[data-testid=banks]").get_attribute("data-degree") == "1"


def test_pad_toggles_live_and_keeps_the_step(app):
    go(app, "#/transpose?n=64&T=32&pad=0&step=7")
    before = value(app, "transpose", "counter-bank_extra_cycles")
    section(app).locator("[data-testid=input-pad]").select_option("1")
    assert url_has(app.page, "pad=1", "step=7")
    after = value(app, "transpose", "counter-bank_extra_cycles")
    assert before == 2 * 31 * 32 and after == 0  # two column reads of 32 warps, 31 extra cycles each
    assert section(app).locator("[data-testid=banks]").get_attribute("data-degree") == "1"
    assert section(app).locator("[data-testid=pad-1]").get_attribute("aria-current") == "true"


def test_the_address_names_the_tile_T(app):
    go(app, "#/transpose?n=8&T=4&pad=1")
    assert url_has(app.page, "n=8", "T=4", "pad=1")
    assert section(app).locator("[data-testid=input-T]").input_value() == "4"
    assert "TILE" not in app.page.url


def test_hash_restores_state_in_a_fresh_page(app, visit):
    go(app, "#/transpose?n=40&T=16&pad=2&thread=5,3&step=10")
    shown = state(app)
    url = app.page.url
    visit.page.goto(url)
    visit.page.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=60_000)
    visit.page.wait_for_timeout(300)
    assert state(visit) == shown
    assert visit.page.url == url


def test_keyboard_controls(app):
    go(app, "#/transpose?n=8&T=4&pad=0&step=0")
    app.page.locator("#view-transpose h1").click()
    app.page.keyboard.press("ArrowRight")
    assert url_has(app.page, "step=1")
    app.page.keyboard.press("n")
    assert url_has(app.page, "step=4")
    app.page.keyboard.press("End")
    assert url_has(app.page, "step=15")
    app.page.keyboard.press("Home")
    assert url_has(app.page, "step=0")
