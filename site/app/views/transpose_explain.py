"""The transpose view's explanation ("What padding does to the banks"): fill the slots of
site/partials/view-transpose.html with pysim's bank analysis for the n and T on screen.

`slot_values` and `shown` are pure (tested in CPython against the template's defaults and by
tests/views/test_sentences_round2.py); `show` writes text and attributes only.
"""

from __future__ import annotations

from pysim.hardware.params import TransposeParams
from pysim.lessons import explain

from ..core import slots


def slot_values(p: TransposeParams) -> dict[str, object]:
    """Every slot of the template: ints are exact counts (slots.fill adds separators), str is text."""
    n = explain.transpose(p)
    values: dict[str, object] = {
        "n": p.n,
        "T": p.TILE,
        "warp_rows": n.warp_words,
        "warp_tile_rows": n.warp_tile_rows,
        "best_pad": n.best.pad,
        "best_cycles": n.best.run_cycles,
        "max_pad": n.choices[-1].pad,
        "padded": n.padded.pad,
        "padded_cycles": n.padded.run_cycles,
        "padded_write": n.padded.write_degree,
    }
    for choice in n.choices:
        values |= {
            f"stride_{choice.pad}": choice.stride,
            f"write_{choice.pad}": choice.write_degree,
            f"read_{choice.pad}": choice.read_degree,
            f"cycles_{choice.pad}": choice.run_cycles,
        }
    return values


def shown(p: TransposeParams) -> dict[str, bool]:
    """Which alternative sentences (`data-show="name"`) are visible for these sizes."""
    n = explain.transpose(p)
    effects = {f"padded-{effect}": n.padding_effect == effect for effect in ("removes", "helps", "worse", "nothing")}
    return effects | {"write-conflict": n.padded.write_degree > 1}


def show(root, params: TransposeParams) -> None:
    """Fill the explanation under `root` (the view's <section id="view-transpose">) for `params`, and mark
    the table row of the pad on screen."""
    slots.fill(root, slot_values(params))
    for name, visible in shown(params).items():
        slots.show(root, f'[data-show="{name}"]', visible)
    rows = root.querySelectorAll('tr[data-testid^="pad-"]')
    for i in range(rows.length):
        row = rows.item(i)
        if row.getAttribute("data-testid") == f"pad-{params.pad}":
            row.setAttribute("aria-current", "true")
        else:
            row.removeAttribute("aria-current")
