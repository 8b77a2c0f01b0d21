"""The naive view's explanation ("Why the order of threads matters"): fill the slots of
site/partials/view-naive.html with pysim's counts for the sizes on screen, both maps.

`slot_values` and `shown` are pure (tested in CPython against the template's defaults and by
tests/views/test_sentences_round2.py); `show` writes text and attributes only.
"""

from __future__ import annotations

from pysim.hardware.params import NaiveParams
from pysim.lessons import explain

from ..core import slots


def slot_values(p: NaiveParams) -> dict[str, object]:
    """Every slot of the template: ints are exact counts (slots.fill adds separators), str is text."""
    maps = explain.naive_maps(p)
    values: dict[str, object] = {"M": p.M, "N": p.N, "K": p.K, "T": p.T}
    for m in maps:
        values |= {
            f"{m.map}_sectors": m.run.sectors,
            f"{m.map}_requests": m.run.requests,
            f"{m.map}_per_request": m.run.per_request_text,
            f"{m.map}_lanes": m.a.lanes,
        }
        for array, load in (("a", m.a), ("b", m.b)):
            values |= {
                f"{m.map}_{array}_words": load.words,
                f"{m.map}_{array}_sectors": load.sectors,
                f"{m.map}_{array}_used": load.bytes_used,
                f"{m.map}_{array}_fetched": load.bytes_fetched,
            }
    fewer, more = sorted(maps, key=lambda m: m.run.sectors)
    values |= {
        "fewer_map": fewer.map,
        "fewer_sectors": fewer.run.sectors,
        "more_map": more.map,
        "more_sectors": more.run.sectors,
        "sector_ratio": f"{more.run.sectors / fewer.run.sectors:.3g}",
        "same_sectors": fewer.run.sectors,
    }
    return values


def shown(p: NaiveParams) -> dict[str, bool]:
    """Which alternative sentences (`data-show="name"`) are visible for these sizes."""
    col, row = explain.naive_maps(p)
    found = {"maps-differ": col.run.sectors != row.run.sectors, "maps-same": col.run.sectors == row.run.sectors}
    for m in (col, row):
        for array, load in (("a", m.a), ("b", m.b)):
            found |= {f"{m.map}-{array}-broadcast": load.broadcast, f"{m.map}-{array}-own": load.sector_per_word}
    return found


def show(root, params: NaiveParams) -> None:
    """Fill the explanation under `root` (the view's <section id="view-naive">) for `params`."""
    slots.fill(root, slot_values(params))
    for name, visible in shown(params).items():
        slots.show(root, f'[data-show="{name}"]', visible)
