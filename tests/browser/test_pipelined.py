"""#/pipelined in Chromium: a deep link with guide=0 opens at its step, runs to the end with the counters
on screen equal to tests/bruteforce.py and C verified, the pipeline's timeline drawn, and axe-core finds no
serious violation, in light and dark mode. (The timeline's cells, the stages and the explanation: tests/views/test_pipelined.py.)"""

import bruteforce
from browser.conftest import go, url_has, value, view
from browser.test_blocktiled import AXE, ON_SCREEN, SERIOUS

SIZES = dict(M=18, N=52, K=28, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32, stages=3)
LINK = "#/pipelined?" + "&".join(f"{k}={v}" for k, v in SIZES.items())


def test_deep_link_run_to_end_verified_timeline_and_axe(app):
    go(app, f"{LINK}&step=20&guide=0")
    section = view(app, "pipelined")
    assert url_has(app.page, "step=20", "stages=3")
    cells = section.locator("[data-testid=pipeline-timeline] tbody td")
    assert cells.count() == 3 * (1 + 4)  # 3 stages × (the prologue and 4 rounds)
    assert section.locator("[data-testid=pipeline-timeline] td.pipe-now").count() == 3
    app.page.evaluate(AXE.read_text())
    assert app.page.evaluate(SERIOUS) == []
    app.page.emulate_media(color_scheme="dark")  # the timeline's states on dark mode's panel (were 1.02:1)
    try:
        assert app.page.evaluate(SERIOUS) == []
    finally:
        app.page.emulate_media(color_scheme="light")
    section.locator("[data-testid=run-to-end]").click()
    expected = bruteforce.pipelined(*SIZES.values())
    for counter in (*ON_SCREEN, "async_copy_bytes"):
        assert value(app, "pipelined", f"counter-{counter}") == expected[counter], counter
    verify = section.locator("[data-testid=verify]")
    app.page.wait_for_function("el => el.dataset.value !== 'pending'", arg=verify.element_handle(), timeout=20_000)
    assert verify.get_attribute("data-value") == "ok"
