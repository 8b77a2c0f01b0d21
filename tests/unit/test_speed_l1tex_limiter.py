"""The limiter is one of the units the model charges, L1TEX as one (issue 42 item 7, left open in round three).

Shared-memory and global wavefronts queue for one L1TEX data path, the estimate charges their sum and the chart
draws one bar; the limiter, the speed-of-light text, a stepping view's panel and "why faster" name that unit too,
never one of its parts ranked apart. On landed main (8f575ad) the smem kernel with 8×8 tiles at N=1024 on the
h100 named L2 its limiter while its L1TEX bar was the longest (shared wavefronts 20 %, global 80 % of it)."""

from __future__ import annotations

import pytest

from pysim.hardware.devices import DEVICES
from pysim.hardware.params import SmemParams
from pysim.lessons.ladder import UNIT_NAMES, LadderParams, limiter_name, siboehm_ladder, speed
from pysim.lessons.speed_of_light import BARS, estimate_note, speed_of_light, why_faster
from pysim.speed import estimate
from pysim.speed.model import L1TEX, charged

CHARGED = {"fp32", "issue", L1TEX, "l2", "dram", "latency"}  # an FP32 kernel's units
TENSOR = "tensor"  # a unit only tensor-core kernels are charged for (model.unit_times)


def smem(n: int, tile: int, device: str):
    return SmemParams(M=n, N=n, K=n, T=tile, device=device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", (256, 1000, 1024, 2048))
@pytest.mark.parametrize("tile", (8, 16, 32))
def test_the_limiter_is_the_busiest_charged_unit(device, n, tile):
    report = estimate("smem", smem(n, tile, device), device)
    busy = charged({name: unit.seconds for name, unit in report.units.items()})
    assert set(busy) == CHARGED and set(UNIT_NAMES) == set(BARS) == CHARGED | {TENSOR}
    assert report.limiter == max(busy, key=busy.__getitem__)
    assert report.next_limiter == sorted(busy, key=busy.__getitem__)[-2]


def test_small_tiles_on_the_h100_are_l1tex_bound_not_l2_bound():
    """The case main got wrong: neither part alone outlasts L2, their sum does."""
    report = estimate("smem", smem(1024, 8, "h100"), "h100")
    shared, l1, l2 = (report.units[name].seconds for name in ("shared", "l1", "l2"))
    assert max(shared, l1) < l2 < shared + l1
    assert report.limiter == L1TEX and report.next_limiter == "l2"
    text, _ = estimate_note("smem", smem(1024, 8, "h100"))
    assert f"limiter: {limiter_name(report)} " in text and limiter_name(report).startswith("L1TEX (shared + global")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", (64, 1025, 4096))
def test_the_marked_bar_is_the_longest_and_the_text_names_it(device, n):
    for rung in siboehm_ladder(LadderParams(N=n, device=device)):
        sol = speed_of_light(rung)
        if sol is None:
            continue
        report = speed(rung)
        marked = [bar for bar in sol.bars if bar.limiter]
        assert [bar.unit for bar in marked] == [report.limiter] == [sol.limiter], rung.key
        assert marked[0].share == max(bar.share for bar in sol.bars), rung.key
        assert f"Limiter: {limiter_name(report)};" in sol.description
        assert limiter_name(report).startswith(UNIT_NAMES[report.limiter].removesuffix(")"))
        assert f"next: {UNIT_NAMES[report.next_limiter]}." in sol.description


@pytest.mark.parametrize("device", DEVICES)
def test_why_faster_names_only_charged_units(device):
    """Never "shared wavefronts" or "global wavefronts" as a limiter of its own; the unit whose time fell most is
    a charged one (tests/unit/test_ladder_why.py reads its time back from the sentence)."""
    parts = ("L1TEX (shared wavefronts)", "L1TEX (global wavefronts)", "reading and writing shared memory:")
    for n in (1024, 4096):
        for step in why_faster(siboehm_ladder(LadderParams(N=n, device=device))):
            assert not any(part in step.text for part in parts), step.text
