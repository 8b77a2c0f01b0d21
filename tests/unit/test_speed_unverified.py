"""The bank rule for global loads is labelled where a sentence rests on it (issue 42, item 1).

pysim/speed/wavefronts.py prices a global request's L1 data stage by shared memory's bank rule; no source
found shows that rule for global loads, and it alone makes the naive kernel with threadIdx.x along C's rows
3-4x faster at N = 1025 or 4097 than at 1024 or 4096. So every place that states the L1 limiter or the L1
wavefronts it sets says "modelled, unverified": the CLI's text, the ladder's estimate cells and its "why
faster" sentences, a stepping view's device panel and the walkthrough's estimate. Each check fails on the
text before the label (landed main, 7148dd7)."""

from __future__ import annotations

import contextlib
import io

import pytest

from pysim import cli
from pysim.hardware.devices import DEVICES
from pysim.hardware.params import HierarchyParams, NaiveParams
from pysim.lessons.ladder import GLOBAL_WAVEFRONTS, LadderParams, cells, siboehm_ladder, speed
from pysim.lessons.speed_of_light import estimate_note, why_faster
from pysim.lessons.walkthrough import Walkthrough
from pysim.speed import estimate

LABEL = "modelled, unverified"


def cli_text(n: int, device: str = "a100") -> str:
    argv = ["speed", "--kernel", "naive", "--map", "row", "--tile", "32", "--device", device]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main([*argv, "--M", str(n), "--N", str(n), "--K", str(n)]) == 0
    return out.getvalue()


@pytest.mark.parametrize("device", sorted(DEVICES))
def test_the_cli_labels_the_cliff_where_the_bank_rule_sets_the_limiter(device):
    even, odd = cli_text(1024, device), cli_text(1025, device)
    report = estimate("naive", NaiveParams(M=1024, N=1024, K=1024, T=32, map="row", device=device), device)
    assert report.limiter == "l1tex" and report.l1_bank_share > 0.5  # the rule sets the even size's time
    assert report.limiter_unverified  # most of the limiter's (L1TEX's) time is wavefronts the rule adds
    assert LABEL in even.split("limiter")[1].splitlines()[0]
    assert LABEL not in odd  # lanes K + 1 words apart: every bank once, no rule to lean on


def test_kernel_2s_l1_wavefronts_owe_nothing_to_the_bank_rule():
    report = estimate("naive", NaiveParams(M=1024, N=1024, K=1024, T=32, map="col", device="a100"), "a100")
    assert report.l1_bank_share == 0 and not report.limiter_unverified


@pytest.mark.parametrize("device", sorted(DEVICES))
@pytest.mark.parametrize("n", (1024, 4096, 4097))
def test_the_ladder_labels_every_figure_the_rule_sets(device, n):
    rungs = siboehm_ladder(LadderParams(N=n, device=device))
    for rung in rungs:
        report = speed(rung)
        if report is not None:
            assert (LABEL in cells(rung)["estimate"].text) == report.limiter_unverified, rung.key
    for step in why_faster(rungs):
        a, b = (speed(r) for r in rungs if r.key in (step.low, step.high))
        assert a is not None and b is not None
        named = GLOBAL_WAVEFRONTS.lower() in step.text.lower()  # a count the bank rule sets, named as a reason
        resting = (named and a.l1_bank_share + b.l1_bank_share > 0) or a.limiter_unverified or b.limiter_unverified
        assert (LABEL in step.text) == resting, step.text


def test_kernel_1_to_2_at_4096_says_how_much_of_kernel_1_is_the_rule():
    rungs = siboehm_ladder(LadderParams(N=4096, device="a100"))
    first = why_faster(rungs)[0]
    assert (first.low, first.high) == ("naive-row", "naive-col")
    assert "73% of kernel 1's L1 wavefronts are shared memory's bank rule applied to global loads" in first.text


def test_a_stepping_views_panel_and_the_walkthrough_label_it():
    text, _ = estimate_note("naive", NaiveParams(M=1024, N=1024, K=1024, T=32, map="row", device="a100"))
    assert LABEL in text
    walk = Walkthrough(HierarchyParams(N=1024, T=16, device="a100"))  # the page's default
    assert LABEL in walk.timing.estimate
