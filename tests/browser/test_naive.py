"""#/naive in Chromium: counters against brute force for both maps, sectors per request, deep links, keyboard."""

import pytest

from browser.conftest import go, url_has, value, view
from bruteforce import naive, naive_requests
from pysim.core.trace import Trace
from pysim.hardware.params import NaiveParams
from pysim.kernels import KERNELS

COUNTERS = ("global_loads", "global_sectors", "global_stores", "fma")


def section(app):
    return view(app, "naive")


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
        s.locator("[data-testid=sectors-A]").get_attribute("data-sectors"),
    )


@pytest.mark.parametrize("M,N,K,T", [(4, 4, 8, 2), (5, 7, 3, 2), (32, 32, 8, 32), (20, 12, 3, 8)])
@pytest.mark.parametrize("map_", ["col", "row"])
def test_run_to_end_counters_equal_brute_force(app, M, N, K, T, map_):
    go(app, f"#/naive?M={M}&N={N}&K={K}&T={T}&map={map_}")
    click(app, "run-to-end")
    expected = naive(M, N, K, T, map_)
    for name in COUNTERS:
        assert value(app, "naive", f"counter-{name}") == expected[name], name
    section(app).locator("[data-testid=verify][data-value=ok]").wait_for(timeout=10_000)


def test_row_map_touches_more_sectors_per_request_than_col(app):
    """The coalescing lesson, with the numbers checked against brute force (SPEC §5 `map`)."""
    M, N, K, T = 32, 32, 8, 32
    go(app, f"#/naive?M={M}&N={N}&K={K}&T={T}&map=col")
    s = section(app)
    shown = {}
    for map_ in ("col", "row"):
        sectors = int(s.locator(f"[data-testid={map_}-sectors] [data-slot]").get_attribute("data-value"))
        requests = int(s.locator(f"[data-testid={map_}-requests] [data-slot]").get_attribute("data-value"))
        assert sectors == naive(M, N, K, T, map_)["global_sectors"]
        assert requests == naive_requests(M, N, K, T, map_)
        shown[map_] = sectors / requests
        assert s.locator(f"[data-testid={map_}-per-request]").inner_text() == f"{shown[map_]:.3g}"
    assert shown == {"col": 2.5, "row": 16.5}
    assert shown["row"] > shown["col"]


def test_one_instruction_lane_by_lane(app):
    """At a k step, warp 0 of a 32×32 block: col map 1 sector of A (broadcast) and 4 of B; row map 32 and 1."""
    expected = {"col": {"A": (1, 32, 4), "B": (4, 128, 128)}, "row": {"A": (32, 1024, 128), "B": (1, 32, 4)}}
    for map_, arrays in expected.items():
        go(app, f"#/naive?M=32&N=32&K=8&T=32&map={map_}&step=3")
        for array, (sectors, fetched, used) in arrays.items():
            summary = section(app).locator(f"[data-testid=sectors-{array}]")
            assert summary.get_attribute("data-sectors") == str(sectors), (map_, array)
            assert summary.get_attribute("data-fetched") == str(fetched)
            assert summary.get_attribute("data-used") == str(used)
        drawn = section(app).locator("[data-testid=sectors] figure:not([hidden]) svg .slot-unused[display=inline]")
        assert drawn.count() == sum(sectors for sectors, _, _ in arrays.values())  # one box per sector


def test_map_switch_is_live_and_keeps_the_step(app):
    go(app, "#/naive?M=32&N=32&K=8&T=32&map=col&step=3")
    col = value(app, "naive", "counter-global_sectors")
    section(app).locator("[data-testid=input-map]").select_option("row")
    assert url_has(app.page, "map=row", "step=3")
    row = value(app, "naive", "counter-global_sectors")
    assert row > col
    trace = Trace(KERNELS["naive"], NaiveParams(M=32, N=32, K=8, T=32, map="row"))
    assert row == trace[3].counters.global_sectors


def test_listing_shows_the_map(app):
    go(app, "#/naive?M=8&N=8&K=4&T=4&map=row&step=0")
    code = section(app).locator(".code").inner_text()
    assert "int row = blockIdx.y * 4 + threadIdx.x;" in code
    assert "int col = blockIdx.x * 4 + threadIdx.y;" in code


def test_hash_restores_state_in_a_fresh_page(app, visit):
    go(app, "#/naive?M=16&N=16&K=8&T=8&map=row&thread=3,2&step=6")
    shown = state(app)
    url = app.page.url
    assert "thread=3,2" in url and "step=6" in url and "map=row" in url
    visit.page.goto(url)
    visit.page.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=60_000)
    visit.page.wait_for_timeout(300)
    assert state(visit) == shown
    assert visit.page.url == url


def test_clicking_c_follows_its_thread_under_the_row_map(app):
    go(app, "#/naive?M=8&N=8&K=4&T=4&map=row&step=0")
    section(app).locator("[data-testid=grid-C] .cell[data-r='5'][data-c='2']").click()
    # map=row: threadIdx.x walks rows, so C[5][2] in block (0, 1) is thread (5 % 4, 2 % 4) = (1, 2).
    assert url_has(app.page, "thread=1,2")
    assert "Block (0, 1)" in section(app).locator("[data-testid=focus]").inner_text()


def test_keyboard_controls(app):
    go(app, "#/naive?M=4&N=4&K=8&T=2&step=0")
    app.page.locator("#view-naive h1").click()
    app.page.keyboard.press("ArrowRight")
    app.page.keyboard.press("ArrowRight")
    assert url_has(app.page, "step=2")
    app.page.keyboard.press("ArrowLeft")
    assert url_has(app.page, "step=1")
    app.page.keyboard.press("n")
    assert url_has(app.page, "step=10")  # K + 2 steps per block
    app.page.keyboard.press("End")
    assert url_has(app.page, "step=39")
    app.page.keyboard.press("Home")
    assert url_has(app.page, "step=0")


def test_invalid_input_names_the_parameter_and_keeps_state(app):
    go(app, "#/naive?M=6&N=6&K=4&T=3&step=4")
    before = state(app)
    section(app).locator("[data-testid=input-T]").fill("33")
    click(app, "apply")
    error = section(app).locator("[data-testid=input-error]")
    assert "T=33 needs 1,089 threads per block" in error.inner_text()
    assert state(app) == before


def test_embed_hides_header_and_footer(app):
    go(app, "#/naive?M=4&N=4&K=8&T=2&embed=1")
    assert not app.page.locator(".site-header").is_visible()
    assert url_has(app.page, "embed=1")
    go(app, "#/naive?M=4&N=4&K=8&T=2")
    assert app.page.locator(".site-header").is_visible()


def test_device_picker_shows_every_preset_by_name(app):
    go(app, "#/naive")
    names = section(app).locator("[data-testid=input-device] option").all_inner_texts()
    assert "NVIDIA T4" in names and "NVIDIA GeForce RTX 4090" in names and "NVIDIA RTX A6000" in names
    assert len(names) == 6
