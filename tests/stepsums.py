"""A trace's counters recounted step by step: the sum of every step's delta, which the tests hold against the
kernel's closed form and the brute force (the trace's own totals come from its per-block running sums)."""

from pysim.core.counters import Counters
from pysim.core.trace import Trace, count_step


def summed(trace: Trace) -> Counters:
    total = Counters()
    for step in trace:
        total = total + step.delta
    return total


def as_written(trace: Trace) -> Counters:
    """The trace's counters with every shared access priced as the listing writes it (count_step without the
    plan of what nvcc issues, pysim.core.instructions.issued). The playground counts a kernel this way: it has no
    compiler model (`pysim run --sass` asks ptxas), so its per-instruction counters are per source access."""
    total = Counters()
    for step in trace:
        total = total + count_step(step)
    return total
