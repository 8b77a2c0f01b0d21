"""#/tiling in CPython: the lens, edge tiles, the bank analysis, the math panel, Play, and the device panel
every stepping view shares. (Was tests/browser/test_tiling.py; what every stepping view shares is in
test_stepping.py; the browser keeps one counter check, the keyboard and the focus ring.)"""

import pytest

from pysim.core.trace import Trace
from pysim.hardware.devices import DEVICES
from pysim.hardware.params import SmemParams
from pysim.kernels import KERNELS
from pysim.lessons.ladder import measured_seconds
from pysim.speed import latency_floor, measured
from timetext import bound_times, durations


def numbers(page, testid: str) -> list[float]:
    return [float(page.text(item)) for item in page.all("li", page.testid(testid))]


def test_lens_shows_the_followed_threads_row_and_column(page):
    trace = Trace(KERNELS["smem"], SmemParams(M=6, N=6, K=9, T=3))
    index = trace.first_step(1) + 12  # block (1,0), tile 2, k=1
    page.go(f"#/tiling?M=6&N=6&K=9&T=3&thread=2,1&step={index}")
    assert trace[index].phase == "compute"
    # Independently: thread (2,1) of block (1,0) at tile 2 sees A[1][3..5] and B[3..5][5].
    assert numbers(page, "lens-row") == list(trace.A[1, 3:6])
    assert numbers(page, "lens-col") == list(trace.B[3:6, 5])
    assert page.text(page.find("li.current", page.testid("lens-timeline"))).startswith("k=1")


def test_zero_fill_is_drawn_for_edge_tiles(page):
    trace = Trace(KERNELS["smem"], SmemParams(M=5, N=5, K=5, T=2))
    index = next(s.index for s in trace if s.phase == "load" and s.tile == 2)
    page.go(f"#/tiling?M=5&N=5&K=5&T=2&step={index}")
    assert len(page.all(".cell.zero-fill", page.testid("grid-tileA"))) == 2


def test_bank_analysis_shows_broadcast_and_distinct_banks(page):
    page.go("#/tiling?M=32&N=32&K=32&T=8")
    a, b = page.testid("bank-tileA"), page.testid("bank-tileB")
    assert a.getAttribute("data-degree") == "1" and "broadcast" in page.text(a)
    assert b.getAttribute("data-degree") == "1" and "8 banks" in page.text(b)


@pytest.mark.parametrize(
    "T,read",
    [
        (8, "tileA[ty][0…3], one LDS.128 per thread"),
        (2, "tileA[ty][0…1], one LDS.64 per thread"),
        (3, "tileA[ty][0], one LDS per thread"),
    ],
)
def test_bank_line_names_the_instruction_nvcc_issues(page, T, read):
    """The tileA line describes the merged read the counters count (instructions.issued), not 32-bit words."""
    page.go(f"#/tiling?M=32&N=32&K=32&T={T}")
    a, b = page.testid("bank-tileA"), page.testid("bank-tileB")
    assert page.text(a).startswith(read + ":")
    assert page.text(b).startswith("tileB[0][tx], one LDS per thread:")
    if T == 8:  # warp 0 = rows 0…3, each lane 4 words: 16 words in 16 banks, each asked by 8 threads
        assert "16 distinct words in 16 banks" in page.text(a)


def test_math_panel_uses_the_current_numbers(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    text = page.inner_text("why-tiling")
    assert "256" in text and "128" in text
    page.go("#/tiling?M=5&N=6&K=9&T=3")
    text = page.inner_text("why-tiling")
    assert "198" in text and "18 more than ideal" in text


def test_play_advances_at_the_chosen_speed(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2&step=0")
    page.select("speed", "50")
    assert page.text(page.find(".player output")) == "50 ms"
    page.click("play")
    assert page.attribute("play", "aria-pressed") == "true"
    assert [delay for _, delay in page.clock.intervals.values()] == [50]  # a step every 50 ms
    page.tick(5)
    assert page.params()["step"] == "5"
    page.click("play")
    page.tick(5)
    assert page.params()["step"] == "5" and page.attribute("play", "aria-pressed") == "false"


# --- the device panel every stepping view shares: only the bound is called a bound ------------------------
def test_the_device_panel_at_the_smallest_size_prints_the_latency_floor(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    panel = page.find(".device-panel")
    floor = latency_floor(DEVICES["a100"])  # one global round trip: 290 cycles at 1,410 MHz
    printed = bound_times(page.inner_text(panel))
    assert all(t >= floor * (1 - 1e-3) for t in printed), "no sub-nanosecond time called a bound"
    # The round trip's latency is assumed, so its floor is shown as an estimate (issue 42 item 4).
    assert "Floor on the NVIDIA A100 40GB (SXM4), an estimate: 206 ns" in page.inner_text(panel)
    assert float(str(page.attribute(page.testid("time-bound", panel), "data-value"))) == floor
    estimate = page.testid("speed-estimate", panel)
    assert page.visible(estimate) and page.inner_text(estimate).startswith("Estimate (model, not a measurement)")
    assert float(str(estimate.getAttribute("data-value"))) >= floor
    assert min(durations(page.inner_text(estimate))) >= floor * (1 - 1e-3)


@pytest.mark.parametrize(
    "route,sizes,number",
    [
        ("tiling", "T=32", 3),  # siboehm's kernel 3: shared-memory tiled, 32×32
        ("naive", "T=32&map=col", 2),  # kernel 2: naive, coalesced
        ("naive", "T=32&map=row", 1),  # kernel 1: naive, strided
    ],
)
def test_no_bound_in_the_device_panel_is_beaten_by_siboehms_kernel(page, route, sizes, number):
    page.go(f"#/{route}?M=4096&N=4096&K=4096&{sizes}&device=rtxa6000&mode=counts")  # too large to animate
    measured_s = measured_seconds(measured(number).gflops)
    panel = page.find(".device-panel")
    text = page.inner_text(panel)
    assert "NVIDIA RTX A6000: published figures" in text
    printed = bound_times(text)
    assert printed and max(printed) <= measured_s
    bound = float(str(page.attribute(page.testid("time-bound", panel), "data-value")))
    estimate = float(str(page.attribute(page.testid("speed-estimate", panel), "data-value")))
    assert bound <= measured_s and estimate >= bound
    assert bound == pytest.approx(3.55e-3, rel=1e-3)  # 2·4096³ FLOPs at the A6000's 38.7 TFLOP/s
