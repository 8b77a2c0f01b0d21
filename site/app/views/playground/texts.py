"""How the playground writes sizes, thread and block coordinates, shapes and one recorded access."""

from __future__ import annotations

from ...core.dom import fmt

KIND_LABELS = {
    "error": "error",
    "step_budget": "step budget",
    "barrier_divergence": "barrier divergence",
    "warp_sync": "warp sync",
    "race": "race",
    "out_of_bounds": "out of bounds",
}

# Why a run or a grade ended without a reply (site/app/views/playground/runner.py), in plain words.
FAILURES = {
    "timeout": "your kernel ran for {limit} s without finishing, so the {what} was stopped and the simulator restarted.",
    "stopped": "you stopped the {what}; the simulator restarted.",
    "crashed": "your kernel crashed the simulator: {detail}. It has restarted; fix the code and press Run again.",
}
# Where runs happen, and their limits.
WORKER_STATES = {
    "starting": "The simulator is starting beside this page…",
    "ready": "Runs happen beside this page, which stays responsive: a run may take {run} s and a grade {grade} s "
    "before they are stopped, and Stop ends either at once.",
    "restarting": "The simulator is restarting beside this page…",
    "main-thread": "Runs happen on this page's thread here ({detail}): the page cannot respond while one runs, "
    "and Stop is not available.",
}


def seconds_text(seconds: float) -> str:
    return f"{seconds:.2f} s"


def size_text(size: tuple[int, int, int]) -> str:
    return "×".join(str(v) for v in size)


def xy_text(pair) -> str:
    """(x, y), or (x, y, z) for a thread or block of a 3-D launch."""
    return "(" + ", ".join(str(v) for v in pair) + ")"


def shape_text(shape) -> str:
    return " × ".join(str(v) for v in shape)


def dtype_label(dtype: str) -> str:
    """The words that mark an array's values with their type: none for float32 (A, B, C and most arrays), the
    dtype's name for the others. Written out, not a colour only, so a float64 value (computed at a fraction of
    float32's rate on most GPUs) reads as one to everyone."""
    return "" if dtype == "float32" else f" {dtype}"


def access_text(record, dtype: str = "float32") -> str:
    """`load global A[3, 4] → 5`: one access of one thread, from pysim's record; `dtype`: its array's, marked
    after the value when not float32 (a float64 value with every digit it holds)."""
    where = f"{record.array}[{', '.join(str(i) for i in record.index)}]"
    arrow = "→" if record.op == "load" else "←"
    value = repr(float(record.value)) if dtype == "float64" and record.value == record.value else fmt(record.value)
    return f"{record.op} {record.space} {where} {arrow} {value or 'NaN'}{dtype_label(dtype)}"
