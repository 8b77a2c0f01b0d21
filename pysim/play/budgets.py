"""The puzzles' budgets: what a grade measures of a run, its bound, and what a failed check says.

A budget is per element or per request where it can be, so that a kernel cannot meet it by doing the
work badly in fewer, larger pieces (issue 43 item 2):

- **sectors per element loaded**: a warp that asks for 32 neighbouring floats fetches 4 sectors, 1/8 of
  a sector per element; a lane that loads alone fetches a whole sector for its 4 bytes;
- **wavefronts per shared request**: 1 when a warp's shared access has no bank conflict;
- **a minimum share of active lanes** per warp instruction of memory: a kernel whose lanes take turns, or
  that runs one thread per block, issues its instructions with 1 lane of 32;
- **local-memory words per thread**: a local array that does not fit in the registers is spilled to
  local memory (pysim.play.spills), and its accesses become memory traffic;
- **atomics**, reported as atomics: a `cuda.atomic.*` is recorded as a load and a store of the word (so
  races and C come out right), and the budgets on loads and stores count it apart, once, as an atomic.

Each failed check says which budget and by how much (`Budget.check`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import ceil

from ..core.constants import WARP_SIZE
from .results import RunResult
from .spills import REGISTERS_PER_THREAD, spill_text, spill_words

Size = tuple[int, int, int]
Number = int | Fraction


@dataclass(frozen=True)
class CheckResult:
    label: str
    size: Size
    value: int | float | None
    limit: int | float | None
    passed: bool
    detail: str = ""
    relation: str = "≤"  # how value must compare with limit: "≤" (a budget, the default) or "≥" (a minimum)


def _shown(number: Number) -> int | float:
    """A measured figure as the grade shows it: whole numbers exact, ratios to 3 decimals."""
    return int(number) if number == int(number) else round(float(number), 3)


def _text(number: Number) -> str:
    shown = _shown(number)
    return f"{shown:,}" if isinstance(shown, int) else f"{shown:,.3f}".rstrip("0")


@dataclass(frozen=True)
class Budget:
    """One measured quantity and its bound. `label` is what the page shows (e.g. "global loads ≤ 2MNK/8");
    `name` is the quantity in a failed check's sentence; `at_least` makes the bound a minimum; `explain`
    adds what the run did to the sentence (the spilled arrays, the atomics counted apart)."""

    label: str
    measure: Callable[[RunResult], Number]
    limit: Callable[[int, int, int], Number]
    name: str = ""
    at_least: bool = False
    explain: Callable[[RunResult], str] | None = None

    def check(self, result: RunResult, size: Size) -> CheckResult:
        value, limit = self.measure(result), self.limit(*size)
        passed = value >= limit if self.at_least else value <= limit
        said = self.explain(result) if self.explain is not None else ""
        if passed:
            detail = said
        else:
            name = self.name or self.label.split(" ≤ ")[0].split(" ≥ ")[0]
            side = f"under the minimum {_text(limit)} by" if self.at_least else f"over the budget {_text(limit)} by"
            detail = f"{name}: {_text(value)}, {side} {_text(abs(Fraction(value) - Fraction(limit)))}" + (
                f"; {said}" if said else ""
            )
        return CheckResult(
            self.label, size, _shown(value), _shown(limit), passed, detail, "≥" if self.at_least else "≤"
        )


def _ratio(numerator: int, denominator: int) -> Fraction:
    return Fraction(numerator, denominator) if denominator else Fraction(0)


def _atomics_apart(result: RunResult) -> str:
    atomics = result.counters.atomics
    return f"{atomics:,} atomics counted apart, as atomics" if atomics else ""


def plain_loads(result: RunResult) -> int:
    """Global loads that are not an atomic's read."""
    return result.counters.global_loads - result.counters.atomics


def plain_stores(result: RunResult) -> int:
    """Global stores that are not an atomic's write."""
    return result.counters.global_stores - result.counters.atomics


def global_loads(label: str, limit: Callable[[int, int, int], int]) -> Budget:
    """A budget on global loads, atomics apart (`label` follows "global loads ≤ ")."""
    return Budget(f"global loads ≤ {label}", plain_loads, limit, "global loads", explain=_atomics_apart)


def loads_with_reuse(tile: int) -> Budget:
    """Global loads of a kernel that reuses each loaded element `tile` times (SPEC §2's smem formula)."""
    return global_loads(
        f"M·K·⌈N/{tile}⌉ + K·N·⌈M/{tile}⌉ (each element loaded by at most one block in {tile})",
        lambda M, N, K: M * K * ceil(N / tile) + K * N * ceil(M / tile),
    )


COALESCED_LOADS = Budget(
    "every warp's global load touches at most 4 sectors (32 floats in a row: coalesced)",
    lambda r: r.metrics.max_sectors_per_load,
    lambda M, N, K: 4,
    "sectors of the worst warp load",
)
COALESCED_STORES = Budget(
    "every warp's global store touches at most 4 sectors (coalesced)",
    lambda r: r.metrics.max_sectors_per_store,
    lambda M, N, K: 4,
    "sectors of the worst warp store",
)
ONE_STORE_EACH = Budget(
    "global stores ≤ M·N (each element of C once)",
    plain_stores,
    lambda M, N, K: M * N,
    "global stores",
    explain=_atomics_apart,
)
SECTORS_PER_ELEMENT = Budget(
    "global sectors per element loaded ≤ 1/2 (a warp that loads 32 neighbouring floats fetches 4 sectors: 1/8)",
    lambda r: _ratio(r.counters.global_sectors, r.counters.global_loads),
    lambda M, N, K: Fraction(1, 2),
    "sectors per element loaded",
)
# 1/8, not more: a 32-wide block at a size the puzzle names (N = 7) keeps 7 lanes of 32 busy, honestly.
ACTIVE_LANES = Budget(
    f"active lanes per warp instruction of memory ≥ 1/8 on average (4 of {WARP_SIZE}; lanes that take turns, "
    "or one thread per block, use 1)",
    lambda r: _ratio(r.metrics.memory_lanes, WARP_SIZE * r.metrics.memory_requests) if r.metrics.memory_requests else 1,
    lambda M, N, K: Fraction(1, 8),
    "share of active lanes",
    at_least=True,
)


def _spills(result: RunResult) -> str:
    named = spill_text(result.program)
    if not named:
        return ""
    traffic = result.metrics.local_loads + result.metrics.local_stores
    return f"spilled to local memory: {named}; {traffic:,} local-memory accesses"


LOCAL_MEMORY = Budget(
    f"local-memory words per thread ≤ 0 (local arrays fit in the {REGISTERS_PER_THREAD} registers a thread has)",
    lambda r: spill_words(r.program),
    lambda M, N, K: 0,
    "local-memory words per thread",
    explain=_spills,
)


def _atomics(result: RunResult) -> str:
    metrics = result.metrics
    if not metrics.atomic_requests:
        return ""
    return (
        f"{result.counters.atomics:,} atomics in {metrics.atomic_requests:,} warp instructions, serialised into "
        f"{metrics.atomic_wavefronts:,} passes (lanes on one word take turns)"
    )


ATOMICS = Budget(
    "atomics ≤ 8·M·N (at most 8 per element of C; an atomic is not counted as a load and a store)",
    lambda r: r.counters.atomics,
    lambda M, N, K: 8 * M * N,
    "atomics",
    explain=_atomics,
)


def wavefronts_per_request(most: int, why: str) -> Budget:
    """Shared-memory wavefronts per warp request: 1 without bank conflicts."""
    return Budget(
        f"shared wavefronts per request ≤ {most} ({why})",
        lambda r: _ratio(r.counters.shared_wavefronts, r.metrics.shared_requests),
        lambda M, N, K: most,
        "shared wavefronts per request",
    )


def wavefronts_per_32_words(most: int) -> Budget:
    """Shared-memory wavefronts per 32 words moved: 1 when every request is a whole warp without conflicts, 32
    when the lanes take turns (each request then has no conflict, so the per-request budget cannot see it)."""
    return Budget(
        f"shared wavefronts per 32 words moved ≤ {most} (a whole warp without conflicts: 1; one lane at a time: 32)",
        lambda r: _ratio(WARP_SIZE * r.counters.shared_wavefronts, r.counters.shared_loads + r.counters.shared_stores),
        lambda M, N, K: most,
        "shared wavefronts per 32 words",
    )


def shared_loads_per_fma(numerator: int, denominator: int, block: Size) -> Budget:
    """Shared loads per multiply-add of the block tiles `block` = (BM, BN, BK) a launch covers: where M, N or
    K is not a multiple, the last tiles are padded with zeros and their multiply-adds are done all the same."""
    bm, bn, bk = block

    def padded(M: int, N: int, K: int) -> int:
        return ceil(M / bm) * bm * ceil(N / bn) * bn * ceil(K / bk) * bk * numerator // denominator

    return Budget(
        f"shared loads ≤ {numerator}/{denominator} · M'·N'·K' (≤ {numerator}/{denominator} per multiply-add; "
        f"M', N', K': M, N, K rounded up to the {bm}×{bn}×{bk} block tiles)",
        lambda r: r.counters.shared_loads,
        padded,
        "shared loads",
    )


# Every puzzle's: the technique-free ways through (one lane at a time, one thread for all, spilled local
# arrays, atomics in place of stores) fail these whatever the puzzle.
EVERY_PUZZLE = (SECTORS_PER_ELEMENT, ACTIVE_LANES, LOCAL_MEMORY, ATOMICS)
