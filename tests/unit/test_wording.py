"""Counts read right for every value: "1 barrier", not "1 barriers" (pysim.core.words), in the
sentences the stepping views print and the warp pictures' summaries, down to one thread per block."""

from __future__ import annotations

import re

import pytest

from pysim.core.lanes import warp_banks, warp_sectors
from pysim.core.trace import Trace
from pysim.core.words import count, plural
from pysim.kernels import KERNELS
from pysim.lessons.narration import narration

# A number followed by a plural noun, or a hedged "(s)" plural: what must not be printed for 1.
ONE_WITH_PLURAL = re.compile(r"(?<![\d.,×])\b1 (?:extra |distinct |more |shared |load )?[a-z]+s\b")
HEDGED = re.compile(r"\w\((?:s|es)\)")
# Plural words that end in s and are right after 1 (not nouns in the plural).
SINGULAR_ENDING_IN_S = {"1 pass", "1 class"}

# The smallest sizes each kernel accepts, so that counts of 1 turn up (one thread, one element, one tile).
SMALLEST = {
    "naive": {"M": "1", "N": "1", "K": "1", "T": "1"},
    "smem": {"M": "1", "N": "1", "K": "1", "T": "1"},
    "blocktile1d": {"M": "1", "N": "1", "K": "1", "BM": "1", "BN": "1", "BK": "1", "TM": "1"},
    "register": {"M": "1", "N": "1", "K": "1", "BM": "1", "BN": "1", "BK": "1", "TM": "1", "TN": "1"},
    "transpose": {"n": "1", "T": "1"},
}


def test_plural_and_count():
    assert [count(n, "barrier") for n in (0, 1, 2, 2048)] == ["0 barriers", "1 barrier", "2 barriers", "2,048 barriers"]
    assert count(1, "pass", "passes") == "1 pass" and count(3, "pass", "passes") == "3 passes"
    assert plural(1.0, "cycle") == "cycle" and plural(0.5, "cycle") == "cycles"


def texts(key: str, raw: dict[str, str]) -> list[str]:
    kernel = KERNELS[key]
    p = kernel.PARAMS.parse(raw)
    words = narration(key)
    out = []
    threads = kernel.threads(p)
    for step in Trace(kernel, p):
        for thread in sorted({0, threads - 1}):
            out += [words.narrate(step, p, thread), words.describe(step, p, thread)]
        if hasattr(words, "phase_detail"):
            out.append(words.phase_detail(step, p))
        for access in step.accesses:
            if access.space == "global":
                out.append(warp_sectors(access, 0).summary())
            elif access.space == "shared":
                out.append(warp_banks(access, 0).summary())
    return out


@pytest.mark.parametrize("key", [*SMALLEST, "vectorized", "warptile"])
def test_no_count_of_one_takes_a_plural(key):
    # One thread and the default sizes; the float4 and full-warp kernels on their smallest C (1×4, K=4).
    raws = [SMALLEST[key], {}] if key in SMALLEST else [{"M": "1", "N": "4", "K": "4"}]
    seen = [text for raw in raws for text in texts(key, raw)]
    wrong = sorted({m.group(0) for text in seen for m in ONE_WITH_PLURAL.finditer(text)} - SINGULAR_ENDING_IN_S)
    assert wrong == []
    assert [text for text in seen if HEDGED.search(text)] == []


def test_a_broadcast_load_reads_as_the_ideal_case():
    # In the naive kernel with map=col a warp's 32 lanes share one row of A: A[row][k] is one word for all.
    kernel = KERNELS["naive"]
    p = kernel.PARAMS.parse({"M": "32", "N": "32", "K": "2", "T": "32", "map": "col"})
    step = next(s for s in Trace(kernel, p) if s.phase == "compute")
    by_array = {access.array: warp_sectors(access, 0) for access in step.accesses if access.space == "global"}
    broadcast = next(ws for ws in by_array.values() if ws.words_used == 1)
    assert "broadcast" in broadcast.summary() and "ideal" in broadcast.summary()
    assert "%" not in broadcast.summary()
