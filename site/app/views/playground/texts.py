"""How the playground writes sizes, thread and block coordinates, shapes and one recorded access."""

from __future__ import annotations

from ...core.dom import fmt

KIND_LABELS = {
    "error": "error",
    "step_budget": "step budget",
    "barrier_divergence": "barrier divergence",
    "race": "race",
    "out_of_bounds": "out of bounds",
}


def size_text(size: tuple[int, int, int]) -> str:
    return "×".join(str(v) for v in size)


def xy_text(pair) -> str:
    return f"({pair[0]}, {pair[1]})"


def shape_text(shape) -> str:
    return " × ".join(str(v) for v in shape)


def access_text(record) -> str:
    """`load global A[3, 4] → 5`: one access of one thread, from pysim's record."""
    where = f"{record.array}[{', '.join(str(i) for i in record.index)}]"
    arrow = "→" if record.op == "load" else "←"
    return f"{record.op} {record.space} {where} {arrow} {fmt(record.value) or 'NaN'}"
