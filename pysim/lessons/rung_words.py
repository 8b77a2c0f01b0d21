"""The words of a blocktiled page's comparison with the rung below (pysim.lessons.blocktiled): how a cost
changed, and which of the costs a rung is built to remove it removes at the sizes on screen."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ..core.words import plural
from .checkpoints import format_number

if TYPE_CHECKING:  # the rung's types only: blocktiled imports this module
    from .blocktiled import Rung, RungCosts


def fraction_texts(before: Fraction, after: Fraction) -> tuple[str, str]:
    """Both values as the page writes them, their decimals long enough to differ where the values do (7/128 and
    3/64 are both ≈ 0.05 to two places: ≈ 0.055 and ≈ 0.047 to three)."""
    for digits in range(2, 8):
        pair = format_number(before, digits), format_number(after, digits)
        if before == after or pair[0].rpartition("≈")[2] != pair[1].rpartition("≈")[2]:
            break
    return pair


def change(before: RungCosts | None, after: RungCosts, key: str, fewer: str = "fewer", more: str = "more") -> str:
    """How `key` changed from the previous rung to this one, in words: "4.00× fewer", "the same"."""
    if before is None:
        return "not comparable here"
    old, new = Fraction(getattr(before, key)), Fraction(getattr(after, key))
    if old == new:
        return "the same"
    if not old or not new:
        return f"{old} → {new}"
    return f"{float(max(old, new) / min(old, new)):.2f}× {fewer if new < old else more}"


def counted_change(before: RungCosts | None, after: RungCosts, key: str) -> str:
    """`change` of a count with both counts beside it, each written once: "4.00× fewer (8 → 2)", "8 → 0"."""
    said = change(before, after, key)
    if before is None or "→" in said:
        return said
    old, new = getattr(before, key), getattr(after, key)
    return f"the same ({new:,})" if old == new else f"{said} ({old:,} → {new:,})"


def than(before: RungCosts | None, after: RungCosts, key: str) -> str:
    """`change` before "the rung below's value": "1.60× more than", "the same as"."""
    said = change(before, after, key)
    return {"the same": "the same as", "not comparable here": "not comparable with"}.get(said, said + " than")


# The costs each rung is built to remove (siboehm's reason for it): the attribute that measures each, whether
# less of it is the saving, and its name in the prose. A page claims a removal only where the counts show it.
BUILT_TO_REMOVE = {
    "blocktile1d": (("wavefronts_per_fma", True, "shared-memory traffic per FMA"),),
    "vectorized": (("run_load_instructions", True, "load instructions"), ("bank_extra_cycles", True, "bank conflicts")),
    "warptile": (("warp_reuse", False, "values a warp fetches from shared memory for its work"),),
}


def removed(r: Rung, key: str, less_is_saving: bool) -> bool:
    """Whether this rung has less of the cost `key` than the rung below (False where that cannot run)."""
    if r.previous is None:
        return False
    before, after = getattr(r.previous, key), getattr(r.this, key)
    return after < before if less_is_saving else after > before


def removes(name: str, r: Rung) -> str:
    """The paragraph's first sentence: the costs this rung removes at these sizes, or which it does not."""
    costs = BUILT_TO_REMOVE[name]
    built = " and ".join(text for _, _, text in costs)
    gone = [text for key, less, text in costs if removed(r, key, less)]
    if len(gone) == len(costs):
        return f"The {plural(len(costs), 'cost')} it removes: {built}."
    if r.previous is None:
        return f"It is built to remove {built}; the rung below cannot run at these sizes to compare."
    if not gone:
        return f"It is built to remove {built}; at these sizes it does not" + (
            " remove either." if len(costs) > 1 else "."
        )
    kept = [text for key, less, text in costs if not removed(r, key, less)]
    return f"It is built to remove {built}; at these sizes it removes {' and '.join(gone)}, not {' and '.join(kept)}."
