"""What the pages and the CLI claim of a bound, held to what it assumes (issue 42, item 4).

The FP32 part is the vendor's peak at the rated boost clock, and a card can run faster than that (a stock RTX
4090 at 2,730 MHz, rated 2,520: pysim.hardware.devices.RTX4090_STOCK_CLOCK), so "no run is faster" holds
only at that clock, and the text says so. The round trip rests on an assumed latency on every preset, so where
it sets the floor the text calls it an estimate. The ladder's roof is a ceiling only at the compulsory
intensity, not at the cache model's, where its points sit. Each check fails on the text of landed main
(7148dd7)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from pysim import cli
from pysim.hardware.devices import DEVICES
from pysim.speed import LATENCY, time_bound
from pysim.speed.bounds import CAVEAT, format_flops

ROOT = Path(__file__).resolve().parents[2]
UNCONDITIONAL = ("no run is faster", "true lower bound", "true ceiling", "still holds", "no run can be faster")
SIZES = (1, 8, 64, 1025, 4096)


def bound_at(key: str, n: int):
    return time_bound(DEVICES[key], fma=n**3, global_loads=2 * n**3, global_stores=n * n, M=n, N=n, K=n)


@pytest.mark.parametrize("key", sorted(DEVICES))
@pytest.mark.parametrize("n", SIZES)
def test_a_bound_says_at_which_clock_it_holds_and_a_latency_floor_that_it_is_an_estimate(key, n):
    bound = bound_at(key, n)
    text = bound.describe()
    assert not any(claim in text.lower() for claim in UNCONDITIONAL), text
    if bound.bound_by == LATENCY:
        assert DEVICES[key].latency_global.assumed  # the reason it is no bound
        assert text.startswith(f"Floor on the {DEVICES[key].name}, an estimate") and "not a bound" in text
    else:
        mhz = f"{DEVICES[key].speed.boost_clock_mhz.value:,g} MHz"
        assert f"at its rated {mhz} boost clock" in text and "no run at that clock is faster" in text


def test_the_caveat_and_the_fp32_note_name_a_card_that_runs_above_its_rated_clock():
    rtx4090 = DEVICES["rtx4090"]
    assert rtx4090.speed.boost_clock_mhz.value < 2730  # the measured stock clock the bound would not survive
    for text in (CAVEAT, rtx4090.fp32_note()):
        assert "2,730 MHz" in text and not any(claim in text for claim in UNCONDITIONAL)


@pytest.mark.parametrize(
    "n,head,holds",
    [
        (4096, "lower bound", "no run at the rated 1,410 MHz boost clock is faster"),
        (8, "floor (estimate)", "at an assumed latency, not a bound"),  # the round trip sets it: no "lower bound"
    ],
)
def test_the_cli_says_what_its_lower_bound_assumes(n, head, holds):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["speed", "--kernel", "smem", "--M", str(n), "--N", str(n), "--K", str(n)]) == 0
    line = next(line for line in out.getvalue().splitlines() if "latency" in line and "fp32" in line)
    assert line.strip().startswith(head) and holds in line and "no run is faster" not in line
    assert ("lower bound" in line) == (head == "lower bound")


def test_the_ladder_page_claims_no_unconditional_bound_and_no_roof_above_the_compulsory_intensity():
    page = " ".join((ROOT / "site/partials/view-ladder.html").read_text(encoding="utf-8").split())
    assert not any(claim in page.lower() for claim in UNCONDITIONAL)
    assert "holds at the card's rated boost clock" in page
    assert "a ceiling at the rated clock only at a kernel's compulsory intensity" in page
    panel = (ROOT / "site/app/widgets/device_panel.py").read_text(encoding="utf-8")
    assert "no run is faster" not in panel.lower()  # its heading and caveat are TimeBound's (tests/views/test_mma.py)


def test_flop_rates_print_in_three_digits_and_a_unit_never_an_exponent():
    """A roofline's axis above a tensor roof reaches 10**15 FLOP/s: it read "1e+03 TFLOP/s" and left its picture."""
    assert [format_flops(v) for v in (1e15, 999.9e12, 156e12, 389.44e9, 2.5e6)] == [
        "1 PFLOP/s",
        "1 PFLOP/s",
        "156 TFLOP/s",
        "389 GFLOP/s",
        "2.5 MFLOP/s",
    ]


def test_a_tensor_bound_claims_no_fp32_clock():
    """NVIDIA's H100 TF32 figure implies a clock below the 1,980 MHz FP32 boost (devices.py): a bound the tensor
    roof sets holds at the figure's own clock, and the line must not say it holds at 1,980 MHz."""
    out = io.StringIO()
    args = ["--M", "4096", "--N", "4096", "--K", "4096", "--BM", "128", "--BN", "256", "--stages", "4"]
    with contextlib.redirect_stdout(out):
        assert cli.main(["speed", "--kernel", "wgmma", "--device", "h100", *args, "--consumers", "2"]) == 0
    line = next(line for line in out.getvalue().splitlines() if "tensor" in line and "fp32" in line)
    assert line.strip().startswith("lower bound") and "1,980 MHz" not in line and "TF32 figure" in line, line


@pytest.mark.parametrize("kernel", ["smem", "mma"])
def test_the_latency_unit_has_no_peak_its_share_is_of_the_estimate(kernel):
    """A chain of round trips has no peak rate: the CLI and the ladder's speed-of-light text give the latency unit's
    share as a share of the estimate, the throughput units' as a share of their peak."""
    from pysim.lessons.ladder import LadderParams, siboehm_ladder
    from pysim.lessons.speed_of_light import speed_of_light

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["speed", "--kernel", kernel, "--M", "4096", "--N", "4096", "--K", "4096"]) == 0
    units = [line.split() for line in out.getvalue().splitlines() if line.startswith("    ")]
    assert {row[0]: " ".join(row[4:]) for row in units} == {
        row[0]: "of the estimate" if row[0] == LATENCY else "of its peak" for row in units
    }
    rung = next(r for r in siboehm_ladder(LadderParams(N=4096)) if r.kernel == kernel)
    found = speed_of_light(rung)
    assert found is not None and found.description.count("of the estimate") == 1
    assert "latency " + next(b.text for b in found.bars if b.unit == LATENCY) + " of the estimate" in found.description
