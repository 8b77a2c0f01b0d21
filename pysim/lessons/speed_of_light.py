"""How fast, and why: each rung's speed-of-light bars (the share of every unit's peak its
estimate uses, the limiter marked), one computed sentence per step up the ladder, and the
estimate a stepping view's device panel shows. All from pysim.speed's model; labelled estimates."""

from __future__ import annotations

from dataclasses import dataclass

from ..hardware.devices import device
from ..hardware.params import Params
from ..speed import SpeedReport, format_seconds
from .ladder import (
    BUILDERS,
    LIMITER_MARK,
    PER_FMA,
    SIBOEHM_NUMBER,
    UNIT_NAMES,
    Rung,
    format_flops,
    profile_for,
    report_for,
    speed,
)


@dataclass(frozen=True)
class Bar:
    """One unit's share of the estimate: how much of that unit's peak the run uses."""

    unit: str  # a key of UNIT_NAMES
    label: str  # the unit's name, with LIMITER_MARK on the limiter
    share: float  # 0..1
    text: str  # '94%'
    limiter: bool


@dataclass(frozen=True)
class SpeedOfLight:
    """A rung's speed-of-light chart: one bar per unit, the limiter marked, and its text equivalent."""

    key: str
    title: str
    bars: tuple[Bar, ...]
    limiter: str
    description: str


def speed_of_light(rung: Rung) -> SpeedOfLight | None:
    """Each unit's busy time as a share of the rung's estimate (None when the rung cannot run or launch)."""
    report = speed(rung)
    if report is None:
        return None
    bars = []
    for unit, name in UNIT_NAMES.items():
        share = report.units[unit].share
        top = unit == report.limiter
        bars.append(Bar(unit, f"{name} {LIMITER_MARK}" if top else name, share, f"{share:.0%}", top))
    listed = "; ".join(f"{UNIT_NAMES[b.unit]} {b.text}" for b in bars)
    description = (
        f"{rung.label}: share of each unit's peak the estimate uses: {listed}. "
        f"Limiter: {UNIT_NAMES[report.limiter]}; next: {UNIT_NAMES[report.next_limiter]}."
    )
    return SpeedOfLight(rung.key, f"{rung.label}: speed of light", tuple(bars), report.limiter, description)


@dataclass(frozen=True)
class Step:
    """Why the next rung of the ladder is faster (or is not), from the two speed reports."""

    low: str  # rung keys
    high: str
    text: str


def _short(rung: Rung) -> str:
    number = SIBOEHM_NUMBER.get(rung.key)
    return f"kernel {number}" if number is not None else "your register tiling"


def _change(unit: str, a: Rung, ra: SpeedReport, b: Rung, rb: SpeedReport) -> str:
    """What changes in the unit that limited the slower rung."""
    if unit in PER_FMA:
        what, count = PER_FMA[unit]
        x = count(profile_for(a.kernel, a.params)) / profile_for(a.kernel, a.params).fma
        y = count(profile_for(b.kernel, b.params)) / profile_for(b.kernel, b.params).fma
        verb = "fall" if y < x else "rise" if y > x else "stay"
        return f"{what} {verb} from {x:.3g} to {y:.3g}" if verb != "stay" else f"{what} stay at {x:.3g}"
    if unit == "latency":
        na, nb = profile_for(a.kernel, a.params).rounds, profile_for(b.kernel, b.params).rounds
        wa, wb = ra.occupancy.warps_per_sm, rb.occupancy.warps_per_sm
        return (
            f"dependent global-memory round trips per warp go from {na:,} to {nb:,}, "
            f"with {wa} then {wb} resident warps per SM to hide them"
        )
    ta, tb = ra.units[unit].seconds, rb.units[unit].seconds
    return f"{UNIT_NAMES[unit]} is busy {format_seconds(ta)} then {format_seconds(tb)}"


def why_faster(rungs: tuple[Rung, ...]) -> tuple[Step, ...]:
    """One sentence per adjacent pair of rungs the speed model can estimate."""
    steps = []
    for a, b in zip(rungs, rungs[1:]):
        ra, rb = speed(a), speed(b)
        if ra is None or rb is None:
            continue
        change = _change(ra.limiter, a, ra, b, rb)
        if ra.limiter == rb.limiter:
            moves = f"the limiter stays {UNIT_NAMES[ra.limiter]}"
        else:
            moves = f"the limiter moves from {UNIT_NAMES[ra.limiter]} to {UNIT_NAMES[rb.limiter]}"
        if rb.estimate_s < ra.estimate_s:
            verdict = f"{ra.estimate_s / rb.estimate_s:.2g}× faster"
        else:
            verdict = "not faster"
        text = (
            f"{_short(a)} → {_short(b)} ({verdict}: {format_seconds(ra.estimate_s)} → "
            f"{format_seconds(rb.estimate_s)}, estimated): {change}; {moves}."
        )
        steps.append(Step(a.key, b.key, text))
    return tuple(steps)


def estimate_note(kernel: str, params: Params) -> tuple[str, str]:
    """A stepping view's device panel: the model's estimate and limiter for the run on screen, and its exact
    seconds; ('', '') for a kernel the speed model has no profile of (transpose, say)."""
    if kernel not in BUILDERS:
        return "", ""
    report = report_for(kernel, params)
    if isinstance(report, str):
        return f"Estimate (model): this run cannot launch as siboehm writes it: {report}", ""
    return (
        f"Estimate (model, not a measurement) on the {device(params.device).name}: "
        f"{format_seconds(report.estimate_s)}, {format_flops(report.gflops * 1e9)}; limiter: {UNIT_NAMES[report.limiter]} "
        f"(never below one global round trip, {format_seconds(report.bounds.latency_s)}).",
        repr(report.estimate_s),
    )
