"""#/register in Chromium: the counters on screen once. The rest: tests/views/test_register.py and test_stepping.py."""

from browser.conftest import go, value, view
from bruteforce import register

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


def test_run_to_end_counters_equal_brute_force(app):
    """Once in the browser; at other sizes, tests/views/test_stepping.py."""
    sizes = dict(M=8, N=8, K=8, BM=4, BN=4, BK=4, TM=2, TN=2)
    go(app, "#/register?" + "&".join(f"{k}={v}" for k, v in sizes.items()))
    click(app, "run-to-end")
    expected = register(*sizes.values())
    for name in COUNTERS:
        assert value(app, "register", f"counter-{name}") == expected[name], name
    assert section(app).locator("[data-testid=verify]").get_attribute("data-value") == "ok"
