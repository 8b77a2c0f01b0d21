"""#/naive in Chromium: the counters on screen once, and the embed's header and footer (style sheets). The rest:
tests/views/test_naive.py and test_stepping.py."""

from browser.conftest import go, url_has, value, view
from bruteforce import naive

COUNTERS = ("global_loads", "global_sectors", "global_stores", "fma")


def section(app):
    return view(app, "naive")


def click(app, testid):
    section(app).locator(f"[data-testid={testid}]").click()


def test_run_to_end_counters_equal_brute_force(app):
    """Once in the browser; at other sizes and both maps, tests/views/test_stepping.py."""
    M, N, K, T, map_ = 4, 4, 8, 2, "col"
    go(app, f"#/naive?M={M}&N={N}&K={K}&T={T}&map={map_}")
    click(app, "run-to-end")
    expected = naive(M, N, K, T, map_)
    for name in COUNTERS:
        assert value(app, "naive", f"counter-{name}") == expected[name], name
    section(app).locator("[data-testid=verify][data-value=ok]").wait_for(timeout=10_000)


def test_embed_hides_header_and_footer(app):
    go(app, "#/naive?M=4&N=4&K=8&T=2&embed=1")
    assert not app.page.locator(".site-header").is_visible()
    assert url_has(app.page, "embed=1")
    go(app, "#/naive?M=4&N=4&K=8&T=2")
    assert app.page.locator(".site-header").is_visible()
