"""The walkthrough's numbers (pysim/lessons/walkthrough.py) against brute-force loops and closed forms,
and the chart tick helper (site/app/widgets/chartmath.py)."""

import re
from fractions import Fraction
from math import ceil, floor, log10
from pathlib import Path

import pytest

from app.widgets.chartmath import fit_x, nice_ceiling, nice_ticks, text_width, tick_label
from pysim.hardware.devices import DEVICES
from pysim.hardware.params import HierarchyParams
from pysim.lessons.walkthrough import QUIZ_N, QUIZ_T, Walkthrough, check, quiz
from timetext import durations

SIZES = [(1, 1), (1, 16), (8, 16), (16, 16), (12, 5), (13, 4), (20, 7), (17, 17), (5, 1), (24, 8)]


def walk(N, T, device="a100"):
    return Walkthrough(HierarchyParams(N=N, T=T, device=device))


def tiled_brute_force(N, T):
    """Loop over blocks, tile steps and threads of the smem kernel: count guarded global loads, and the
    most threads of one block that read one loaded A value (its reuse)."""
    loads, most_uses = 0, 0
    blocks = ceil(N / T)
    for by in range(blocks):
        for bx in range(blocks):
            for step in range(blocks):
                for ty in range(T):
                    for tx in range(T):
                        row, col = by * T + ty, bx * T + tx
                        loads += (row < N and step * T + tx < N) + (step * T + ty < N and col < N)
                # tileA[ty][k] is read by the threads tx of the block whose column is inside C
                most_uses = max(most_uses, sum(1 for tx in range(T) if bx * T + tx < N))
    return loads, most_uses


@pytest.mark.parametrize("N,T", SIZES)
def test_counts_match_a_brute_force_loop(N, T):
    w = walk(N, T)
    loads, uses = tiled_brute_force(N, T)
    assert w.exact_tiled == loads
    assert w.naive_total == 2 * N**3 == sum(2 * N for _ in range(N * N))
    assert w.reuse == uses == min(T, N)
    assert w.reduction == pytest.approx(w.naive_total / loads)


@pytest.mark.parametrize("N,T", [*SIZES, (1000, 16), (1024, 40), (16384, 256), (16384, 3), (16384, 1)])
def test_closed_forms(N, T):
    w = walk(N, T)
    r = N % T
    assert w.tiles_per_row == -(-N // T)
    assert w.exact_tiled == 2 * N * N * -(-N // T)
    assert w.ideal_tiled == pytest.approx(2 * N**3 / T)
    assert w.floor_loads == 2 * N * N <= w.exact_tiled  # nothing beats loading A and B once
    assert w.reduction == pytest.approx(N / -(-N // T))
    assert w.reduction <= min(T, N)
    assert w.full_blocks * T + w.edge_width == N
    # The excess over 2N³/T is the partial block column (row) reusing A's (B's) N² values only r times.
    excess = Fraction(w.exact_tiled) - Fraction(2 * N**3, T)
    assert excess == (0 if r == 0 else Fraction(2 * N * N * (T - r), T))
    assert w.edge_excess == pytest.approx(float(excess))
    assert w.divides == (r == 0)


def test_seed_examples():
    assert walk(1024, 16).naive_total == 2_147_483_648
    assert walk(1024, 16).exact_tiled == 134_217_728 and walk(1024, 16).reduction == 16
    edge = walk(1000, 16)
    assert (edge.exact_tiled, edge.ideal_tiled, edge.edge_excess) == (126_000_000, 125_000_000, 1_000_000)
    assert (edge.full_blocks, edge.edge_width) == (62, 8)
    assert f"{walk(1024, 40).reduction:.2f}" == "39.38"  # not "~15×"


def test_tile_wider_than_the_matrix_is_capped_at_the_2n2_floor():
    w = walk(8, 16)
    assert w.capped and not walk(16, 16).capped
    assert w.ideal_tiled == 64 < w.floor_loads == 128 == w.exact_tiled
    assert w.reuse == 8 and w.reduction == 8


def test_one_by_one():
    w = walk(1, 1)
    assert (w.naive_total, w.exact_tiled, w.floor_loads, w.reduction, w.reuse) == (2, 2, 2, 1, 1)


def test_device_quantities():
    a100, h100 = walk(1024, 16, "a100"), walk(1024, 16, "h100")
    assert a100.latency_ratio == pytest.approx(290 / 29)
    assert h100.latency_ratio == pytest.approx(478 / 29)
    for key in DEVICES:
        w = walk(1024, 16, key)
        assert w.latency_ratio == w.device.latency_global.value / w.device.latency_shared.value
    w = walk(1024, 33)
    assert w.block_threads == 1089 and w.shared_bytes == 2 * 33 * 33 * 4
    assert w.fit.over_threads and not w.fit.over_shared and "1,089 threads" in w.wall
    assert walk(1024, 80).fit.over_shared and walk(1024, 16).wall is None


def test_quiz_answers_and_marking():
    answers = {q.key: q for q in quiz(walk(1024, 16))}
    assert answers["naive"].answer == 2 * QUIZ_N**3  # the quiz's size, not the form's (see test_checkpoints)
    assert answers["tiled"].answer == 2 * QUIZ_N**2 * -(-QUIZ_N // QUIZ_T)
    assert (answers["bank"].answer, answers["padded"].answer) == (32, 1)
    assert answers["largest"].answer == 32  # 32×32 = 1024 threads, one per tile element
    assert check(answers["tiled"], " 33,554,432 ") == (True, "Right.")
    right, verdict = check(answers["bank"], "16")
    assert right is False and "32" not in verdict  # the answer waits for a second try (app.core.tries)
    assert check(answers["bank"], "<img src=x>")[0] is None
    assert check(answers["bank"], "٣٢")[0] is None
    for text in ("3,2", "3 2", "64/2"):  # separators only between groups of three; a fraction is no whole number
        assert check(answers["bank"], text)[0] is None, text


@pytest.mark.parametrize(
    "low,high,expected",
    [
        (0, 10, [0, 2, 4, 6, 8, 10]),
        (1, 96, [20, 40, 60, 80]),
        (0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1]),
        (0, 0.3, [0, 0.1, 0.2, 0.3]),
        (-7, 13, [-5, 0, 5, 10]),
        (3, 3, [3]),
        (10, 0, [0, 2, 4, 6, 8, 10]),
    ],
)
def test_nice_ticks_examples(low, high, expected):
    assert nice_ticks(low, high) == pytest.approx(expected)


@pytest.mark.parametrize("high", [0.0042, 1.76, 8.8, 20.5, 61.4, 93.09, 1000, 2_147_483_648])
def test_nice_ticks_are_round_and_inside(high):
    ticks = nice_ticks(0, high)
    step = ticks[1] - ticks[0]
    mantissa = step / 10 ** floor(log10(step))
    assert round(mantissa, 9) in (1, 2, 5)
    assert 3 <= len(ticks) <= 11 and ticks[0] == 0 and ticks[-1] <= high
    for tick in ticks:
        assert round(tick / step, 9) == round(tick / step)
    top = nice_ceiling(high)
    assert top >= high and round(top / step, 9) == round(top / step)


def test_tick_labels_and_text_fitting():
    assert [tick_label(v) for v in (0.0, 20.0, 2500.0, 0.2, 1e9)] == ["0", "20", "2,500", "0.2", "1,000,000,000"]
    assert text_width("≈ 290 cycles") > text_width("290")
    x = fit_x(500, "a long label here", 0, 520)
    assert x + text_width("a long label here") <= 520
    assert fit_x(5, "label", 10, 520, anchor="middle") - text_width("label") / 2 >= 10


@pytest.mark.parametrize("N,T", [(1024, 16), (1000, 16), (8, 16), (13, 4), (1, 1)])
def test_tiled_fma_and_bounds_agree_with_the_simulator(N, T):
    """The walkthrough's closed forms for the tiled kernel equal pysim's counts of k03 (where T fits a block)."""
    from pysim.hardware.params import SmemParams
    from pysim.kernels import KERNELS
    from pysim.speed import time_bound_for

    w = Walkthrough(HierarchyParams(N=N, T=T))
    counted = KERNELS["smem"].counters(SmemParams(M=N, N=N, K=N, T=T))
    assert w.tiled_fma == counted.fma and w.exact_tiled == counted.global_loads
    assert w.tiled_bound == time_bound_for(w.device, counted, N, N, N)


def test_h100_and_h200_share_the_bound_but_not_the_no_reuse_traffic_time():
    h100 = Walkthrough(HierarchyParams(N=1024, T=16, device="h100"))
    h200 = Walkthrough(HierarchyParams(N=1024, T=16, device="h200"))
    # The FP32 peak sets the bound on both, and they have the same FP32 peak; only bandwidth differs.
    assert h200.bound.seconds == h100.bound.seconds and h200.bound.bound_by == "compute"
    assert h200.naive_bound.no_reuse.memory_seconds < h100.naive_bound.no_reuse.memory_seconds


# --- steps 5 and 7: time, only as the bound or a labelled estimate, only for a tile that launches ----------


def test_a_tile_that_cannot_launch_gets_no_time_and_says_why():
    w = walk(100, 33)
    timing = w.timing
    assert not timing.timed and (timing.bound, timing.estimate) == ("", "")
    assert (timing.bound_s, timing.naive_s, timing.tiled_s) == (None, None, None)
    assert "T = 33" in timing.reason and "cannot launch" in timing.reason and "1,089 threads" in timing.reason
    assert {value for _, _, value in timing.attributes()} == {""}
    for text in (timing.reason, w.no_reuse_text):
        assert not durations(text) and "FLOP/s" not in text


def test_the_default_times_are_the_bound_and_the_speed_models_estimates():
    from pysim.lessons.ladder import report_for
    from pysim.speed import latency_floor

    w = walk(1024, 16)
    timing = w.timing
    assert timing.timed and timing.bound.startswith(
        "Bound on the NVIDIA A100 40GB (SXM4) at its rated 1,410 MHz boost clock: 110 µs, set by the FP32"
    )
    assert timing.bound_s == w.bound.seconds >= latency_floor(w.device)
    naive, tiled = (report_for(k, p) for k, p in zip(("naive", "smem"), w.kernel_params()))
    assert (timing.naive_s, timing.tiled_s) == (naive.estimate_s, tiled.estimate_s)
    assert min(timing.naive_s, timing.tiled_s) >= timing.bound_s
    assert timing.estimate.startswith("Estimate (speed model, not a measurement): the naive kernel about 766 µs")
    assert "16.00× fewer global loads" in timing.estimate and "bound" not in timing.estimate
    # The bound's sentences print only the bound itself.
    assert durations(timing.bound) == [pytest.approx(110e-6, rel=1e-3)]


def test_the_bound_is_never_beaten_by_siboehms_kernels_at_his_size():
    from pysim.lessons.ladder import measured_seconds
    from pysim.speed import measured

    w = walk(4096, 32, "rtxa6000")  # his kernels 2 (naive, coalesced) and 3 (shared-memory tiled), 32×32
    measured_s = [measured_seconds(measured(n).gflops) for n in (1, 2, 3, 0)]
    assert w.timing.bound_s <= min(measured_s)
    assert w.naive_bound.no_reuse.seconds > measured_s[1]  # why the no-reuse figure is no bound


def test_the_largest_grids_still_get_an_estimate_never_below_the_bound():
    w = walk(16384, 2)  # 67,108,864 blocks: the speed model counts waves by interval arithmetic
    assert w.timing.timed and w.timing.bound_s == w.bound.seconds
    assert w.timing.naive_s is not None and w.timing.naive_s >= w.timing.bound_s


def test_the_partials_time_defaults_are_what_pysim_fills_in():
    from html.parser import HTMLParser
    from pathlib import Path

    class Grab(HTMLParser):
        def __init__(self):
            super().__init__()
            self.slots, self.attributes, self.open = {}, {}, []

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if "data-testid" in a:
                self.attributes[a["data-testid"]] = a
            if tag in ("input", "br", "img", "hr"):  # void: no end tag follows
                return
            self.open.append(a.get("data-slot"))
            if a.get("data-slot"):
                self.slots.setdefault(a["data-slot"], "")

        def handle_endtag(self, tag):
            self.open.pop()

        def handle_data(self, data):
            if self.open and self.open[-1]:
                self.slots[self.open[-1]] += data

    page = Grab()
    page.feed((Path(__file__).parents[2] / "site/partials/hierarchy.html").read_text(encoding="utf-8"))
    w = walk(1024, 16)
    for slot, text in (
        ("bound-text", w.timing.bound),
        ("estimate-text", w.timing.estimate),
        ("no-reuse", w.no_reuse_text),
    ):
        assert " ".join(page.slots[slot].split()) == text, slot
    for testid, name, value in w.timing.attributes():
        assert page.attributes[testid][name] == value, (testid, name)


# --- issue 25: every sentence of the walkthrough true (items 7-10), read from the partial itself ----------------
PARTIAL = Path(__file__).parents[2] / "site/partials/hierarchy.html"
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5}


def section_text(testid: str) -> str:
    """The text of one walkthrough section as the partial ships it (tags dropped, spaces collapsed)."""
    html = PARTIAL.read_text(encoding="utf-8")
    start = html.index(f'data-testid="{testid}"')
    body = html[start : html.index("</section>", start)]
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


def test_step_0_says_latency_is_hidden_and_tiling_cuts_traffic():
    """Item 7: no 'a trip costs as much as N ticks of arithmetic', no 'N× closer'; the count of storage places
    is the count of the table's rows."""
    step0, step3 = section_text("walk-step-0"), section_text("walk-step-3")
    for text in (step0, step3):
        assert "ticks of arithmetic" not in text and "closer" not in text
    assert "other warps" in step0 and "hidden" in step0 and "traffic" in step0 and "Tiling cuts" in step0
    assert "bandwidth" in step3 and "warps would hide" in step3
    word = re.search(r"\b(\w+) (?:storage places|places a value can be kept)", step0).group(1)
    html = PARTIAL.read_text(encoding="utf-8")
    table = html[html.index('data-testid="ladder-table"') : html.index("</table>")]
    rows = table.count("<tr>") - 1  # the header row
    assert NUMBER_WORDS[word] == rows == 4


def test_the_latency_table_defaults_are_the_a100_figures_with_a_source_or_the_word_assumption():
    """Item 8: every latency the partial ships has a link whose page states it, or says it is a modelled assumption."""
    html = PARTIAL.read_text(encoding="utf-8")
    a100 = DEVICES["a100"]
    for field, short in (("register", "register"), ("shared", "shared"), ("l2", "l2"), ("global", "global")):
        figure = getattr(a100, f"latency_{field}")
        link = re.search(rf'<a data-source="latency_{field}"([^>]*)>([^<]*)</a>', html)
        attributes, label = link.groups()
        if not figure.source.startswith("https://"):  # a modelled assumption
            assert "href" not in attributes and label == "none: a modelled assumption", field
            assert "modelled assumption" in figure.alternative
        else:
            assert f'href="{figure.source}"' in attributes and label == "source", field
            assert f"{figure.value:g}" in figure.alternative  # the quoted statement gives the number
        alt = re.search(rf'data-slot="alt-{short}" data-default>([^<]*)<', html).group(1)
        assert alt == figure.alternative, field
        assert re.search(rf'data-slot="lat-{short}" data-default>{figure.value:g}<', html), field
    assert "400-800" not in html and "features-and-technical-specifications" not in html


def test_banks_are_banks_and_a_lane_is_a_threads_index():
    """Item 9: 'lane' appears only as a thread's index in its warp (tile[0][lane], tile[lane][0])."""
    html = PARTIAL.read_text(encoding="utf-8")
    uses = re.findall(r".{0,12}\blanes?\b.{0,4}", html)
    assert uses and all(re.search(r"tile\[(0|lane)\]\[(lane|0)\]", use) for use in uses), uses
    step6 = section_text("walk-step-6")
    assert "32 banks" in step6 and "32 bits per clock" in step6
    assert "32 banks" in section_text("summary")


def test_a_tile_that_cannot_launch_gets_no_traffic_either():
    """Item 10: N=100, T=33 cannot launch, so step 5 prints no time and no traffic for it; T=32 still does."""
    w = walk(100, 33)
    assert w.no_reuse_text == "" and "not a run" in w.timing.reason
    assert not re.search(r"\d\s[KMGT]?B\b", w.timing.reason)  # "40GB" in the card's name is not traffic
    fits = walk(100, 32)
    assert fits.timing.timed and "MB" in fits.no_reuse_text


def test_the_bound_sentence_does_not_claim_tiling_keeps_the_flops():
    """At N=100, T=32 the tiled kernel runs 128³ FMAs, the naive one 100³: the page must not say tiling changes
    neither; the bound is the one for 2N³ FLOPs, which holds for both."""
    w = walk(100, 32)
    assert w.tiled_fma == 128**3 != 100**3 == w.bound.fma
    assert "changes neither the FLOPs" not in section_text("walk-step-5")
