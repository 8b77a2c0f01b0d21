"""The walkthrough's slot values: pysim's Walkthrough turned into the text of the prose's number slots, and which
alternative sentences (`data-when`) apply."""

from __future__ import annotations

from pysim.core import words as wording
from pysim.hardware.params import HierarchyParams
from pysim.lessons.next_level import next_level
from pysim.lessons.walkthrough import Walkthrough, bank_picture, quiz_example
from pysim.speed import SpeedReport, format_flops

STEPS = 8
ASSUMED_TEXT = "none: a modelled assumption"  # the Source cell of a latency no published statement gives
WIDTH = 560  # every picture's viewBox width (the partial reserves the same boxes)
LEVELS = (
    ("Registers", "latency_register", "register"),
    ("Shared memory", "latency_shared", "shared"),
    ("L2 cache", "latency_l2", "l2"),
    ("Global memory", "latency_global", "global"),
)


# --- pure helpers: numbers to slot text --------------------------------------
def count(value: float) -> int | str:
    """A load count that may be fractional (2N³/T): an int when whole, else two decimals."""
    return int(value) if value == int(value) else f"{value:,.2f}"


def slot_values(w: Walkthrough) -> dict[str, object]:
    d = w.device
    example = quiz_example(w.params)
    values: dict[str, object] = {
        "N": w.N,
        "T": w.T,
        "threads": w.threads,
        "threads-text": wording.count(w.threads, "thread"),
        "per-thread-loads": w.per_thread_loads,
        "naive-total": w.naive_total,
        "tiles-per-row": w.tiles_per_row,
        "slice-loads": w.slice_loads,
        "slice-values": wording.count(w.slice_loads, "value"),
        "tiled-total": w.exact_tiled,
        "ideal": count(w.ideal_tiled),
        "full-blocks": w.full_blocks,
        "edge-width": w.edge_width,
        "edge-times": wording.count(w.edge_width, "time"),
        "edge-excess": count(w.edge_excess),
        "floor-loads": w.floor_loads,
        "reuse": w.reuse,
        "reuse-threads": wording.count(w.reuse, "thread"),
        "reuse-times": wording.count(w.reuse, "time"),
        "reuse-cells": wording.count(w.reuse, "output cell"),
        "reuse-uses": wording.count(w.reuse, "use"),
        "reduction": f"{w.reduction:.2f}",
        "bound-text": w.timing.bound,
        "estimate-text": w.timing.estimate,
        "no-time": w.timing.reason,
        "no-reuse": w.no_reuse_text,
        "device-name": d.name,
        "latency-ratio": f"{w.latency_ratio:.0f}",
        "l2-size": f"{d.l2_size.value:g} MB",
        "block-threads": w.block_threads,
        "block-threads-text": wording.count(w.block_threads, "thread"),
        "shared-bytes": w.shared_bytes,
        "thread-limit": d.thread_limit,
        "shared-limit": d.shared_limit_bytes,
        "largest-tile": w.largest_tile,
        "largest-bytes": Walkthrough(HierarchyParams(N=w.N, T=w.largest_tile, device=d.key)).shared_bytes,
        "t1-barriers": Walkthrough(HierarchyParams(N=w.N, T=1, device=d.key)).barriers_per_block,
        "bank-before": bank_picture(0, "column").degree,
        "bank-after": bank_picture(1, "column").degree,
        "quiz-N": example.N,
        "quiz-T": example.T,
        "quiz-naive": example.naive_total,
        "quiz-tiles": example.tiles_per_row,
        "quiz-tiled": example.exact_tiled,
    }
    for _, field, short in LEVELS:
        figure = getattr(d, field)
        values[f"lat-{short}"] = f"{figure.value:g}"
        values[f"alt-{short}"] = figure.alternative or "—"
    return values | next_values(w)


def next_values(w: Walkthrough) -> dict[str, object]:
    """The summary's last paragraph: where the reuse argument leads (registers, then tensor-core fragments)."""
    found = next_level(w.N, w.device.key)

    def rate(report: SpeedReport | str) -> str:
        return format_flops(report.gflops * 1e9) if isinstance(report, SpeedReport) else ""

    return {
        "next-register-reads": f"{float(found.register_reads):.3g}",
        "next-instructions-fewer": found.instructions_fewer,
        "next-fragment-reads": "" if found.fragment_reads is None else f"{float(found.fragment_reads):.3g}",
        "next-fewer": "" if found.fewer is None else f"{float(found.fewer):.3g}",
        "next-why-not": found.tensor if found.fragment_reads is None and isinstance(found.tensor, str) else "",
        "next-tf32-peak": found.tf32_peak(),
        "next-tensor-estimate": rate(found.tensor),
        "next-register-estimate": rate(found.register),
        "next-no-estimate": found.tensor if found.fragment_reads is not None and isinstance(found.tensor, str) else "",
    }


def latency_sources(w: Walkthrough) -> list[tuple[str, str | None, str]]:
    """(field, link or None, link text) for the ladder table's Source column: a modelled assumption has no link."""
    rows = []
    for _, field, _ in LEVELS:
        figure = getattr(w.device, field)
        rows.append((field, None, ASSUMED_TEXT) if figure.assumed else (field, figure.source, "source"))
    return rows


def cases(w: Walkthrough) -> dict[str, bool]:
    """Which alternative sentences (data-when) apply."""
    chosen = w.fit
    return {
        "divides": w.divides and not w.capped,
        "edge": not w.divides and not w.capped,
        "capped": w.capped,
        "timed": w.timing.timed,
        "traffic": bool(w.no_reuse_text),
        "untimed": not w.timing.timed,
        "fits": chosen.wall is None,
        "wall": chosen.wall is not None,
        "over-threads": chosen.over_threads,
        "over-shared": chosen.over_shared,
        **next_cases(w),
    }


def next_cases(w: Walkthrough) -> dict[str, bool]:
    """The tensor-core estimates only where the page prints times at all (not for a tile that cannot launch)."""
    found = next_level(w.N, w.device.key)
    runs, timed = found.fragment_reads is not None, w.timing.timed
    return {
        "fragments": runs,
        "no-fragments": not runs,
        "tensor-priced": timed and found.priced,
        "tensor-unpriced": timed and runs and not found.priced,
    }
