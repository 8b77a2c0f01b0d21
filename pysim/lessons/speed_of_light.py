"""How fast, and why: each rung's speed-of-light bars (the share of every unit's peak its
estimate uses, the limiter marked), one computed sentence per step up the ladder, and the
estimate a stepping view's device panel shows. All from pysim.speed's model; labelled estimates."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from ..hardware.devices import device
from ..hardware.params import Params
from ..speed import BANK_RULE, LATENCY, TENSOR, SpeedReport, format_seconds
from ..speed.model import L1TEX, L1TEX_PARTS, Machine
from ..speed.profiles import BUILDERS
from .ladder import (
    GLOBAL_WAVEFRONTS,
    LIMITER_MARK,
    PER_FMA,
    SIBOEHM_NUMBER,
    UNIT_NAMES,
    Rung,
    format_flops,
    limiter_name,
    profile_for,
    report_for,
    speed,
)

# The chart's bars: one per unit the model charges (model.charged), each with the report's units it sums.
# Shared-memory and global wavefronts are two entries of a report but one unit, so they are one bar.
BARS = {
    "fp32": ("fp32",),
    "issue": ("issue",),
    L1TEX: L1TEX_PARTS,
    "l2": ("l2",),
    "dram": ("dram",),
    TENSOR: (TENSOR,),  # a tensor-core kernel's only (model.unit_times charges the pipe where it is used)
    LATENCY: (LATENCY,),
}
L1TEX_NOTE = (
    "Shared-memory and global wavefronts share one bar: on Volta and later both queue for one L1TEX data path "
    '(Nsight Compute reports one "L1/TEX Cache Throughput"), so the model charges their sum as one unit.'
)


@dataclass(frozen=True)
class Bar:
    """One unit's share of the estimate: how much of that unit's peak the run uses."""

    unit: str  # a key of BARS
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
    limiter: str  # the key of the bar marked: the report's limiter
    description: str


def speed_of_light(rung: Rung) -> SpeedOfLight | None:
    """Each unit's busy time as a share of the rung's estimate (None when the rung cannot run or launch)."""
    report = speed(rung)
    if report is None:
        return None
    bars = []
    for unit, parts in BARS.items():
        if not all(part in report.units for part in parts):
            continue
        share = sum(report.units[part].share for part in parts)
        top = report.limiter == unit
        name = UNIT_NAMES[unit]
        bars.append(Bar(unit, f"{name} {LIMITER_MARK}" if top else name, share, f"{share:.0%}", top))
    # The latency bar is the round trips' time over the estimate: a chain of waits has no peak rate to share.
    listed = "; ".join(
        f"{UNIT_NAMES[b.unit]} {b.text}" + (" of the estimate" if b.unit == LATENCY else "") for b in bars
    )
    description = (
        f"{rung.label}: share of each unit's peak the estimate uses: {listed}. "
        f"Limiter: {limiter_name(report)}; next: {UNIT_NAMES[report.next_limiter]}."
    )
    marked = next(b.unit for b in bars if b.limiter)
    return SpeedOfLight(rung.key, f"{rung.label}: speed of light", tuple(bars), marked, description)


@dataclass(frozen=True)
class Step:
    """Why the next rung of the ladder is faster (or is not), from the two speed reports."""

    low: str  # rung keys
    high: str
    text: str


PAST_SIBOEHM = {
    "pipelined": 11,
    "mma": 12,
    "wgmma": 13,
}  # TileLab's rungs after his ladder, numbered on from his kernel 10


def _short(rung: Rung) -> str:
    number = SIBOEHM_NUMBER.get(rung.key, PAST_SIBOEHM.get(rung.key))
    return f"kernel {number}" if number is not None else "your register tiling"


# What each unit spends its time on, in plain words: the first sentence of a step, before the counts.
PLAIN = {
    "fp32": "doing multiply-adds on the FP32 units",
    "issue": "issuing instructions",
    L1TEX: "moving shared-memory accesses and global loads and stores through L1TEX, the one data path they share",
    "l2": "moving data through L2",
    "dram": "moving data to and from DRAM",
    TENSOR: "doing multiply-adds on the tensor cores",
    LATENCY: "waiting for global memory to answer",
}


def _factors(unit: str, a: Rung, ra: SpeedReport, b: Rung, rb: SpeedReport) -> list[tuple[str, float, float, str]]:
    """The counts whose product is `unit`'s busy time in the model, each as (name, before, after, format): per FMA
    and FMAs on the busiest SM for a throughput unit, waves of blocks, round trips and cycles each for latency."""
    pa, pb = profile_for(a.kernel, a.params), profile_for(b.kernel, b.params)
    assert a.params is not None  # a rung with a speed report has parameters
    machine = Machine.of(device(a.params.device))
    on_sm = [ceil(prof.blocks / machine.sms) for prof in (pa, pb)]
    if unit in PER_FMA:
        return [
            *((what, count(pa) / pa.fma, count(pb) / pb.fma, ".3g") for what, count in PER_FMA[unit]),
            ("FMAs on the busiest SM", pa.fma * on_sm[0] / pa.blocks, pb.fma * on_sm[1] / pb.blocks, ",.0f"),
        ]
    if unit == LATENCY:
        waves = [ceil(n / r.occupancy.blocks_per_sm) for n, r in zip(on_sm, (ra, rb))]
        cycles = [
            r.units[LATENCY].seconds * machine.clock_hz / (w * prof.rounds)
            for r, w, prof in zip((ra, rb), waves, (pa, pb))
        ]
        return [
            ("waves of resident blocks on the busiest SM", waves[0], waves[1], ",.0f"),
            ("dependent global-memory round trips per block", pa.rounds, pb.rounds, ",.0f"),
            ("cycles per round trip (latency and the work between)", cycles[0], cycles[1], ",.0f"),
        ]
    return []


def _why(a: Rung, ra: SpeedReport, b: Rung, rb: SpeedReport, faster: bool) -> str:
    """The unit whose time fell most (rose most, when not faster) in a plain sentence, then the counts behind
    its time that moved the same way (only those: a count that moved against it cannot be why)."""
    sign = 1 if faster else -1
    moved = {u: sign * (ra.unit(u).seconds - rb.unit(u).seconds) for u in UNIT_NAMES}
    unit = max(moved, key=moved.__getitem__)
    if moved[unit] <= 0:
        return "Every unit is as busy as before."
    ta, tb = format_seconds(ra.unit(unit).seconds), format_seconds(rb.unit(unit).seconds)
    plain = f"The biggest {'saving' if faster else 'added cost'} is time spent {PLAIN[unit]}: {ta} → {tb}."
    counts = []
    for name, x, y, form in _factors(unit, a, ra, b, rb):
        before, after = float(format(x, form).replace(",", "")), float(format(y, form).replace(",", ""))
        if sign * (before - after) > 0:  # moved the way that explains the step, visibly at this precision
            counts.append(f"{name} {'fall' if after < before else 'rise'} from {x:{form}} to {y:{form}}")
    shares = [f"{r.l1_bank_share:.0%} of {_short(x)}'s" for x, r in ((a, ra), (b, rb)) if r.l1_bank_share > 0]
    if shares and any(count.startswith(GLOBAL_WAVEFRONTS) for count in counts):  # a count the rule sets is named
        counts.append(f"{' and '.join(shares)} L1 wavefronts are {BANK_RULE.split(': ')[1]} (modelled, unverified)")
    if not counts:
        return plain
    listed = "; ".join(counts)
    return f"{plain} {listed[0].upper()}{listed[1:]}."


def why_faster(rungs: tuple[Rung, ...]) -> tuple[Step, ...]:
    """One sentence per pair of rungs the speed model can estimate, each with the next one it can (a rung it
    cannot, such as the tensor-core rung on a card without a TF32 figure, is stepped over)."""
    priced = [(rung, report) for rung in rungs if (report := speed(rung)) is not None]
    steps = []
    for (a, ra), (b, rb) in zip(priced, priced[1:]):
        faster = rb.estimate_s < ra.estimate_s
        if ra.limiter == rb.limiter:
            moves = f"The limiter stays {limiter_name(ra if ra.limiter_unverified else rb)}"
        else:
            moves = f"The limiter moves from {limiter_name(ra)} to {limiter_name(rb)}"
        verdict = f"{ra.estimate_s / rb.estimate_s:.2g}× faster" if faster else "not faster"
        text = (
            f"{_short(a)} → {_short(b)} ({verdict}: {format_seconds(ra.estimate_s)} → "
            f"{format_seconds(rb.estimate_s)}, estimated). {_why(a, ra, b, rb, faster)} {moves}."
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
        f"{format_seconds(report.estimate_s)}, {format_flops(report.gflops * 1e9)}; limiter: {limiter_name(report)} "
        f"(never below one global round trip, {format_seconds(report.bounds.latency_s)}).",
        repr(report.estimate_s),
    )
