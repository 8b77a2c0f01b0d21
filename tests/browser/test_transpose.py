"""#/transpose in Chromium: the counters on screen once. The rest: tests/views/test_transpose.py and test_stepping.py."""

from browser.conftest import go, value, view
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


def test_run_to_end_counters_equal_brute_force(app):
    """Once in the browser; at other sizes and pads, tests/views/test_stepping.py."""
    n, T, pad = 64, 32, 0
    go(app, f"#/transpose?n={n}&T={T}&pad={pad}")
    click(app, "run-to-end")
    expected = transpose(n, T, pad)
    for name in COUNTERS:
        assert value(app, "transpose", f"counter-{name}") == expected[name], name
    section(app).locator("[data-testid=verify][data-value=ok]").wait_for(timeout=10_000)
