"""A trace's counters recounted step by step: the sum of every step's delta, which the tests hold against the
kernel's closed form and the brute force (the trace's own totals come from its per-block running sums)."""

from pysim.core.counters import Counters
from pysim.core.trace import Trace


def summed(trace: Trace) -> Counters:
    total = Counters()
    for step in trace:
        total = total + step.delta
    return total
