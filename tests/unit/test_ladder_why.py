"""The ladder's "why faster" sentences name only quantities that moved the way that explains the step (issue 42,
item 3): read back from the sentence as the page shows it, checked against the speed model's own numbers, on
every device preset at the ladder's default N and two other sizes (one leaves part-filled tiles)."""

from __future__ import annotations

import re

import pytest

from pysim.hardware.devices import DEVICES
from pysim.lessons.ladder import PER_FMA, UNIT_NAMES, LadderParams, profile_for, siboehm_ladder, speed
from pysim.lessons.speed_of_light import why_faster
from pysim.speed import format_seconds

SIZES = (4096, 1000, 1025)
NUMBER = r"[\d,]+(?:\.\d+)?(?:e[-+]?\d+)?"
TIME = rf"{NUMBER} (?:s|ms|µs|ns)"
# "<quantity> falls from A to B", "... go from A to B", "... stay at A", "A → B" (a unit's busy time).
MOVES = re.compile(rf"([A-Za-z][\w\s().,-]*?) (fall|falls|rise|rises|go|goes) from ({NUMBER}) to ({NUMBER})")
STAYS = re.compile(rf"([A-Za-z][\w\s-]*?) stays? at ({NUMBER})")
TIMES = re.compile(rf"({TIME}) → ({TIME})")
NSIGHT = ("wavefront", "warp instructions", "FFMA")  # the profiler's words: not in the plain first sentence
SCALE = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}


def number(text: str) -> float:
    return float(text.replace(",", ""))


def seconds(text: str) -> float:
    value, unit = text.split()
    return number(value) * SCALE[unit]


def cases():
    for key in DEVICES:
        for n in SIZES:
            rungs = siboehm_ladder(LadderParams(N=n, device=key))
            by_key = {rung.key: rung for rung in rungs}
            for step in why_faster(rungs):
                yield pytest.param(by_key[step.low], by_key[step.high], step.text, id=f"{key}-{n}-{step.high}")


def busy_s(report, unit: str) -> float:
    return report.units[unit].seconds if unit in report.units else 0.0


@pytest.mark.parametrize("a,b,text", list(cases()))
def test_why_names_only_quantities_that_moved_the_way_of_the_step(a, b, text):
    ra, rb = speed(a), speed(b)
    faster = rb.estimate_s < ra.estimate_s
    assert ("× faster:" in text) == faster and ("not faster:" in text) == (not faster), text
    why = re.split(r"estimated\)[.:] ", text, maxsplit=1)[1]
    better = (lambda x, y: y < x) if faster else (lambda x, y: y > x)
    assert not STAYS.search(why), f"a quantity that did not move is no reason: {text}"
    moves = MOVES.findall(why)
    for name, _, x, y in moves:
        assert better(number(x), number(y)), f"{name.strip()} moved against the step: {text}"
    per_fma = {what.lower(): count for counts in PER_FMA.values() for what, count in counts}
    pa, pb = profile_for(a.kernel, a.params), profile_for(b.kernel, b.params)
    for name, _, x, y in moves:  # a count per FMA is the model's own
        count = per_fma.get(name.strip().lower())
        if count is not None:
            assert (x, y) == (f"{count(pa) / pa.fma:.3g}", f"{count(pb) / pb.fma:.3g}"), text
    times = TIMES.findall(why)
    assert times, f"the plain sentence names a unit's busy time: {text}"
    for x, y in times:
        assert better(seconds(x), seconds(y)), text
        units = [
            u for u in UNIT_NAMES if (format_seconds(ra.unit(u).seconds), format_seconds(rb.unit(u).seconds)) == (x, y)
        ]
        assert units, f"{x} → {y} is some unit's busy time in the model: {text}"
    first = why.split(". ", 1)[0]
    assert not any(word in first for word in NSIGHT), f"a plain sentence before the profiler's words: {text}"
