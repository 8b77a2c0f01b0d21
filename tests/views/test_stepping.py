"""What every stepping view shares (site/app/views/stepping.py, widgets/player.py), once per route of
site/app/core/urlstate.py's STEPPING_VIEWS: counters on screen against brute force, the address and
the step controls, keys, a deep link in a fresh page, errors that keep the state, presets and counts only.

Each check was a browser test per view (tests/browser/test_<view>.py); the browser keeps one
on-screen counter check per view."""

from __future__ import annotations

import bruteforce_mma
import bruteforce_wgmma
import pytest

import bruteforce
from app.core.urlstate import STEPPING_VIEWS
from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from views.page import Page

ROUTES = {spec.kernel: spec.path for spec in STEPPING_VIEWS}
# Sizes each view is run to its end at, with the brute force that counts them (tests/bruteforce.py):
# non-multiples, a tile larger than the matrix, one warp-wide row.
RUNS = {
    "smem": [dict(M=4, N=4, K=8, T=2), dict(M=6, N=6, K=9, T=3), dict(M=5, N=7, K=3, T=2), dict(M=9, N=4, K=11, T=4)],
    "naive": [
        dict(M=M, N=N, K=K, T=T, map=map_)
        for M, N, K, T in [(4, 4, 8, 2), (5, 7, 3, 2), (32, 32, 8, 32), (20, 12, 3, 8)]
        for map_ in ("col", "row")
    ],
    "register": [
        dict(M=8, N=8, K=8, BM=4, BN=4, BK=4, TM=2, TN=2),
        dict(M=9, N=7, K=5, BM=4, BN=4, BK=3, TM=2, TN=1),
        dict(M=20, N=12, K=9, BM=8, BN=16, BK=4, TM=2, TN=4),
    ],
    "transpose": [
        dict(n=n, T=T, pad=pad) for n, T, pad in [(64, 32, 0), (64, 32, 1), (37, 32, 2), (5, 4, 0), (33, 16, 1)]
    ],
    # K, N multiples of 4 for the float4 kernels; C small enough to be drawn cell by cell.
    "blocktile1d": [dict(M=9, N=7, K=5, BM=8, BN=8, BK=2, TM=4)],
    "vectorized": [dict(M=18, N=20, K=12, BM=16, BN=16, BK=4, TM=4, TN=4)],
    "warptile": [dict(M=18, N=52, K=12, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32)],
    "pipelined": [dict(M=18, N=52, K=28, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32, stages=3)],
    # Two warps with idle copy lanes and cut edges (padded rows, 3xTF32); the swizzle with conflicting B fragments.
    "mma": [
        dict(M=20, N=28, K=20, BM=32, BN=16, BK=8, WM=16, WN=16, stages=3, swizzle=0, split=3),
        dict(M=32, N=32, K=64, BM=32, BN=32, BK=32, WM=16, WN=16, stages=2, swizzle=1, split=1),
    ],
    # Cut edges (boxes partly outside A and Bt, zero fill), more tiles than stages; two consumer warpgroups.
    "wgmma": [
        dict(M=40, N=44, K=60, BM=64, BN=24, BK=32, stages=1, consumers=1),
        dict(M=60, N=16, K=64, BM=128, BN=16, BK=32, stages=3, consumers=2),
    ],
}
BRUTE_FORCE = {
    "smem": bruteforce.smem,
    "transpose": lambda n, T, pad: bruteforce.transpose(n, T, pad),
    "mma": bruteforce_mma.mma,
    "wgmma": bruteforce_wgmma.wgmma,
}
# Small sizes for the controls (the first run's, or the seed's).
SMALL = {kernel: sizes[0] for kernel, sizes in RUNS.items()} | {
    "smem": dict(M=4, N=4, K=8, T=2),
    "naive": dict(M=4, N=4, K=8, T=2, map="col"),
    "transpose": dict(n=8, T=4, pad=0),
}


def link(kernel: str, sizes: dict, **extra: object) -> str:
    return f"#{ROUTES[kernel]}?" + "&".join(f"{key}={value}" for key, value in {**sizes, **extra}.items())


def params(kernel: str, sizes: dict):
    return KERNELS[kernel].PARAMS.parse({key: str(value) for key, value in sizes.items()})


def counters(page: Page) -> dict[str, int]:
    return {
        str(element.getAttribute("data-testid")).removeprefix("counter-"): int(str(element.getAttribute("data-value")))
        for element in page.all('[data-testid^="counter-"]')
        if element.localName == "dd"
    }


def state(page: Page) -> tuple:
    """Everything a step shows that must round-trip: counters, focus, narration, position, the pictures and monitor."""
    return (
        counters(page),
        page.text("focus"),
        page.text("narration"),
        page.text(page.find(".position")),
        page.shown(page.find(".stage")),
        [page.shown(monitor) for monitor in page.all('[data-testid="monitor"]')],
    )


RUN_CASES = [(kernel, sizes) for kernel, runs in RUNS.items() for sizes in runs]


@pytest.mark.parametrize("kernel,sizes", RUN_CASES, ids=[f"{k}-{'-'.join(map(str, s.values()))}" for k, s in RUN_CASES])
def test_run_to_end_counters_on_screen_equal_brute_force(page, kernel, sizes):
    page.go(link(kernel, sizes)).click("run-to-end")
    count = BRUTE_FORCE[kernel] if kernel in BRUTE_FORCE else getattr(bruteforce, kernel)
    expected = count(*sizes.values())
    shown = counters(page)
    assert len(shown) >= 4
    for name, number in shown.items():
        assert number == expected[name], name
    assert page.attribute("verify", "data-value") == "ok"


@pytest.mark.parametrize("kernel", ROUTES)
def test_keys_step_the_view(page, kernel):
    trace = Trace(KERNELS[kernel], params(kernel, SMALL[kernel]))
    page.go(link(kernel, SMALL[kernel], step=0))
    presses = [("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("n", trace.next_block_step(1))]
    for key, expected in (*presses, ("End", len(trace) - 1), ("Home", 0), ("N", trace.steps_per_block)):
        page.press(key)
        assert page.params()["step"] == str(expected), key
    page.press(" ")
    assert page.attribute("play", "aria-pressed") == "true"
    page.press(" ")
    assert page.attribute("play", "aria-pressed") == "false"
    page.press("x")  # not a key of ours: nothing moves
    assert page.params()["step"] == str(trace.steps_per_block)


@pytest.mark.parametrize(
    "address,expected",
    [
        ("#/tiling?M=4&N=4&K=8&T=2&step=2", 26),  # 2 + 4 tiles × (2 + 4) steps per block
        ("#/naive?M=4&N=4&K=8&T=2&step=2", 10),  # K + 2 steps per block
        ("#/transpose?n=8&T=4&pad=0&step=1", 4),
    ],
)
def test_n_goes_to_the_next_block(page, address, expected):
    page.go(address).press("n")
    assert page.params()["step"] == str(expected)


@pytest.mark.parametrize("address,last", [("#/naive?M=4&N=4&K=8&T=2&step=0", 39), ("#/transpose?n=8&T=4&pad=0", 15)])
def test_end_goes_to_the_last_step(page, address, last):
    page.go(address).press("End")
    assert page.params()["step"] == str(last)


@pytest.mark.parametrize("kernel", ROUTES)
def test_prev_undoes_a_step(page, kernel):
    page.go(link(kernel, SMALL[kernel], step=5))
    before = state(page)
    page.click("step")
    assert page.params()["step"] == "6" and state(page) != before
    page.click("prev")
    assert page.params()["step"] == "5" and state(page) == before


@pytest.mark.parametrize("kernel", ROUTES)
def test_the_address_follows_every_step(page, kernel):
    trace = Trace(KERNELS[kernel], params(kernel, SMALL[kernel]))
    page.go(link(kernel, SMALL[kernel], step=0))
    page.click("step").click("step")
    assert page.params()["step"] == "2"
    page.click("next-block")
    assert page.params()["step"] == str(trace.steps_per_block)


DEEP_LINKS = {
    "smem": "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14",
    "naive": "#/naive?M=16&N=16&K=8&T=8&map=row&thread=3,2&step=6",
    "transpose": "#/transpose?n=40&T=16&pad=2&thread=5,3&step=10",
    "register": "#/register?M=9&N=7&K=5&BM=4&BN=4&BK=3&TM=2&TN=1&thread=1,0&step=40",
}


def deep_link(kernel: str) -> str:
    if kernel in DEEP_LINKS:
        return DEEP_LINKS[kernel]
    sizes = RUNS[kernel][0]
    return link(kernel, sizes, thread="1,0", step=Trace(KERNELS[kernel], params(kernel, sizes)).steps_per_block + 7)


@pytest.mark.parametrize("kernel", ROUTES)
def test_a_deep_link_reproduces_the_state_in_a_fresh_page(page, markup, kernel):
    """The state reached by moving around the app, and the same address opened first in a new page."""
    page.go(link(kernel, SMALL[kernel], step=3)).click("step")
    address = deep_link(kernel)
    page.go(address)
    assert page.address.startswith(address.partition("?")[0])
    for part in address.partition("?")[2].split("&"):
        assert part in page.address.split("?")[1].split("&"), part
    shown, reached = state(page), page.address
    page.close()
    fresh = Page(markup)
    try:
        fresh.go(reached)
        assert fresh.address == reached
        assert state(fresh) == shown
    finally:
        fresh.close()


@pytest.mark.parametrize("kernel", ROUTES)
def test_a_bare_link_keeps_the_readers_state(page, kernel):
    page.go(link(kernel, SMALL[kernel], step=9))
    kept = page.address
    page.go("#/").go(ROUTES[kernel] and f"#{ROUTES[kernel]}")
    assert page.address == kept


@pytest.mark.parametrize(
    "kernel,fields,message",
    [
        ("smem", dict(M="a"), "M must be a whole number"),
        ("smem", dict(K="0"), "K must be at least 1"),
        ("smem", dict(N="-4"), "N must be at least 1"),
        ("smem", dict(T="64"), "T=64 needs 4,096 threads per block"),
        ("smem", dict(M="<b>x</b>"), "M must be a whole number"),
        ("naive", dict(T="33"), "T=33 needs 1,089 threads per block"),
        ("register", dict(BM="8", TM="3"), "BM=8 is not divisible by TM=3"),
        ("register", dict(BM="64", BN="64", TM="1", TN="1"), "4,096 threads per block"),
        ("register", dict(BM="128", BN="128", BK="64", TM="8", TN="8"), "bytes of shared memory"),
        ("pipelined", dict(stages="5"), "stages must be at most 4"),
        ("pipelined", dict(stages="4", BK="128", device="rtxa6000"), "stages=4: 4 × (As[16][128]"),
        ("mma", dict(WN="12"), "WN=12 is not a multiple of 8, the n of mma.m16n8k8"),
        ("mma", dict(BK="12"), "BK=12 is not a multiple of 8, the k of mma.m16n8k8"),
        ("mma", dict(device="t4"), "mma.sync with .tf32 operands"),
        ("mma", dict(stages="4", BM="64", BN="64", BK="128", WM="32", WN="32"), "stages=4: 4 × (As[64][132]"),
        ("wgmma", dict(device="a100"), "wgmma.mma_async needs 9.0"),
        ("wgmma", dict(BK="64"), "BK=64: this kernel uses the 128-byte swizzle"),
        ("wgmma", dict(BN="12"), "BN=12 is not a wgmma N"),
        ("wgmma", dict(BM="96"), "BM=96 is not a multiple of 64·consumers = 64"),
    ],
)
def test_invalid_input_shows_an_error_and_keeps_the_state(page, kernel, fields, message):
    sizes = {"smem": dict(M=6, N=6, K=9, T=3), "naive": dict(M=6, N=6, K=4, T=3)}.get(kernel, SMALL[kernel])
    page.go(link(kernel, sizes, step=3))
    before, address = state(page), page.address
    for name, text in fields.items():
        page.fill(f"input-{name}", text)
    page.click("apply")
    error = page.testid("input-error")
    assert page.visible(error) and message in page.text(error)
    assert error.querySelector("b") is None  # the text stays text
    name = next(iter(fields)) if kernel != "register" else None
    if name is not None:
        assert page.attribute(f"input-{name}", "aria-invalid") == "true"
    assert state(page) == before and page.address == address


@pytest.mark.parametrize("kernel", ROUTES)
def test_every_preset_steps(page, kernel):
    """Each preset steps; one too large to animate (siboehm's 128³) shows the closed-form totals instead."""
    module = KERNELS[kernel]
    for raw in module.PARAMS.PRESETS.values():
        p = module.PARAMS(**raw)
        if p.too_large_to_animate():
            page.go(link(kernel, p.as_strings(), mode="counts"))
            assert page.visible("counts-note")
            assert counters(page) == {name: getattr(module.counters(p), name) for name in counters(page)}
            continue
        page.go(link(kernel, p.as_strings(), step=0)).click("step")
        assert page.params()["step"] == "1" and all(
            f"{key}={value}" in page.address for key, value in p.as_strings().items()
        )
        assert page.text("input-error") == ""
        assert page.value("counter-global_loads") == Trace(module, p)[1].counters.global_loads


@pytest.mark.parametrize("kernel", ["blocktile1d", "vectorized", "warptile", "pipelined", "mma", "wgmma"])
def test_a_bare_link_opens_at_the_teaching_preset(page, kernel):
    page.go(f"#{ROUTES[kernel]}")
    for key, number in next(iter(KERNELS[kernel].PARAMS.PRESETS.values())).items():
        assert page.params()[key] == str(number), key


def test_too_large_offers_counts_only(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2")
    for name in "MNK":
        page.fill(f"input-{name}", "1000")
    page.fill("input-T", "16").click("apply")
    assert "too large to animate" in page.text("input-error")
    page.click("counts-only")
    expected = KERNELS["smem"].counters(params("smem", dict(M=1000, N=1000, K=1000, T=16)))
    assert page.value("counter-global_loads") == expected.global_loads == 126_000_000
    assert page.params()["mode"] == "counts"


def test_a_first_visit_too_large_to_animate_shows_its_counts(page):
    """A link to sizes too large to animate, without mode=counts, opened first: the counts of those sizes. (It
    animated the defaults under an error that said "counts only", with the counts button hidden.)"""
    page.go("#/tiling?M=1000&N=1000&K=1000&T=16")
    expected = KERNELS["smem"].counters(params("smem", dict(M=1000, N=1000, K=1000, T=16)))
    assert page.value("counter-global_loads") == expected.global_loads == 126_000_000
    assert page.value("counter-fma") == expected.fma == 1008**3  # 63 tiles of 16 each way, padded
    assert "M=1000 is too large to animate" in page.text("counts-note")
    assert not page.visible("input-error")
    assert page.params()["M"] == "1000" and page.params()["mode"] == "counts"


# Routes whose prose names the sizes on screen ("For the sizes on screen: M = 1,000, ..."): the prose follows a
# size too large to animate too (the tiling, naive, register and transpose pages kept the sizes before it).
PROSE_NAMES_SIZES = ("smem", "naive", "register", "transpose", "blocktile1d", "vectorized", "warptile")


@pytest.mark.parametrize("kernel", PROSE_NAMES_SIZES)
@pytest.mark.parametrize("first_visit", [False, True], ids=["after-small", "first-visit"])
def test_the_prose_speaks_of_sizes_shown_as_counts_only(guided_page, kernel, first_visit):
    page = guided_page  # guided: the guide asks nothing in counts only, so the prose it withholds shows there
    small = SMALL[kernel]
    name = KERNELS[kernel].PARAMS.ANIMATED[0]
    if not first_visit:
        page.go(link(kernel, small))
        assert f"{name} = 1,000" not in page.inner_text()
    page.go(link(kernel, {**small, name: "1000"}, mode="counts"))
    assert page.visible("counts-note")
    prose = page.inner_text().replace(page.text("counts-note"), "")
    assert f"{name} = 1,000" in prose, kernel


@pytest.mark.parametrize(
    "address,cell,thread,block",
    [
        ("#/tiling?M=6&N=6&K=9&T=3&step=0", (4, 2), "2,1", "Block (0, 1)"),
        # map=row: threadIdx.x walks rows, so C[5][2] in block (0, 1) is thread (5 % 4, 2 % 4) = (1, 2).
        ("#/naive?M=8&N=8&K=4&T=4&map=row&step=0", (5, 2), "1,2", "Block (0, 1)"),
    ],
)
def test_clicking_c_follows_its_thread(page, address, cell, thread, block):
    page.go(address)
    row, col = cell
    page.click(page.find(f'[data-testid="grid-C"] .cell[data-r="{row}"][data-c="{col}"]'))
    assert page.params()["thread"] == thread
    assert block in page.text("focus")


@pytest.mark.parametrize(
    "address,control,value,counter,before,after",
    [
        # The naive kernel's map, at a k step of a 32×32 block: the strided map touches more sectors.
        ("#/naive?M=32&N=32&K=8&T=32&map=col&step=3", "input-map", "row", "global_sectors", 480, 3168),
        # The transpose's pad: two column reads of 32 warps, 31 extra cycles each, and none padded.
        ("#/transpose?n=64&T=32&pad=0&step=7", "input-pad", "1", "bank_extra_cycles", 2 * 31 * 32, 0),
    ],
)
def test_a_live_control_keeps_the_step(page, address, control, value, counter, before, after):
    """A field marked live (widgets/form.py) applies as soon as it changes, at the same step."""
    page.go(address)
    assert page.value(f"counter-{counter}") == before
    page.select(control, value)
    key = control.removeprefix("input-")
    assert page.params()[key] == value and page.params()["step"] == address.rpartition("step=")[2]
    assert page.value(f"counter-{counter}") == after
