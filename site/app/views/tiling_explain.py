"""The tiling view's explanations ("Why tiling works", "Why no padding?"): fill the slots of
site/partials/tiling-explain.html with pysim's numbers for the sizes on screen.

`slot_values` and `shown` are pure (tested in CPython against the template's defaults);
`show` is the only function that touches the page, and it writes text and attributes only.
"""

from __future__ import annotations

from pysim.hardware.params import SmemParams
from pysim.lessons import explain

from ..core import slots


def slot_values(p: SmemParams) -> dict[str, object]:
    """Every slot of the template: ints are exact counts (slots.fill adds separators), str is text."""
    n = explain.tiling(p)
    a, b = explain.tiling_banks(p)
    values: dict[str, object] = {
        "M": p.M,
        "N": p.N,
        "K": p.K,
        "T": p.T,
        "naive_threads": n.naive_threads,
        "loads_per_thread": n.loads_per_thread,
        "naive": n.naive.global_loads,
        "tiles": p.tiles,
        "cells_per_step": n.cells_per_step,
        "cells_per_block": n.cells_per_block,
        "blocks_x": n.blocks_x,
        "blocks_y": n.blocks_y,
        "blocks": n.blocks,
        "ideal": explain.decimal(n.ideal),
        "reuse_a": n.reuse_a,
        "reuse_b": n.reuse_b,
        "ideal_a": explain.decimal(n.ideal_a),
        "ideal_b": explain.decimal(n.ideal_b),
        "exact": n.tiled.global_loads,
        "tile_cells": n.tiled.shared_stores,
        "zero_filled": n.zero_filled,
        "excess": explain.decimal(n.excess),
        "partial_cols": n.partial_cols,
        "partial_rows": n.partial_rows,
        "a_values": n.a_values,
        "b_values": n.b_values,
        "excess_a": explain.decimal(n.excess_a),
        "excess_b": explain.decimal(n.excess_b),
        "floor": n.floor,
        "executed_fma": n.tiled.fma,
        "useful_fma": n.useful_fma,
        "padding_fma": n.padding_fma,
        "reduction": f"{n.reduction:.2f}",
        "warp_rows": explain.warp_rows(p.T, n.threads_per_block),
        "bank_cycles": n.tiled.bank_extra_cycles,
    }
    for prefix, line in (("a", a), ("b", b)):
        values |= {
            f"{prefix}_read": line.read,
            f"{prefix}_threads": line.report.threads,
            f"{prefix}_words": line.words,
            f"{prefix}_banks": line.report.banks_used,
            f"{prefix}_broadcast": line.report.broadcast_words,
            f"{prefix}_degree": line.report.degree,
            f"{prefix}_verdict": line.verdict,
        }
    return values


def shown(p: SmemParams) -> dict[str, bool]:
    """Which alternative sentences (`data-show="name"`) are visible for these sizes."""
    n = explain.tiling(p)
    a, b = explain.tiling_banks(p)
    return {
        "equal": n.excess == 0,
        "excess": n.excess != 0,
        "divides": n.divides,
        "covers": not n.divides,
        "k-edge": n.k_edge,
        "uncapped": not n.capped,
        "capped": n.capped,
        "partial-cols": n.excess_a != 0,
        "partial-rows": n.excess_b != 0,
        "no-padding": n.padding_fma == 0,
        "a-broadcast": a.report.broadcast_words > 0,
        "b-broadcast": b.report.broadcast_words > 0,
    }


def show(root, params: SmemParams) -> None:
    """Fill the explanations under `root` (the view's <section id="view-tiling">) for `params`."""
    slots.fill(root, slot_values(params))
    for name, visible in shown(params).items():
        slots.show(root, f'[data-show="{name}"]', visible)
    # The browser tests and screen readers read each bank line's degree from an attribute too.
    for line in explain.tiling_banks(params):
        root.querySelector(f'[data-testid="bank-{line.array}"]').setAttribute("data-degree", str(line.report.degree))
