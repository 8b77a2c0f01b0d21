"""Every number of the memory-hierarchy walkthrough (seed 002), for a chosen N, T and device.

The prose lives in site/partials/hierarchy.html; this module only computes what
its number slots show, so each fact has one source the tests can check.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import ceil

from ..core import banks
from ..hardware.devices import Device, device
from ..hardware.params import HierarchyParams, NaiveParams, ParamError, SmemParams
from ..speed import SpeedReport, TimeBound, format_bytes, format_seconds, time_bound
from . import formulas
from .checkpoints import whole_number
from .ladder import limiter_name, report_for

SWEEP_MAX_T = 96  # past both walls of every preset (threads at 33, static shared memory at 79)
BANK_TILE = 32  # one warp, one lane per bank
QUIZ_N, QUIZ_T = 512, 8  # the quiz's example size for its load counts
QUIZ_OTHER_N = 256  # the example's N when the form's N is QUIZ_N: never the N whose totals the page prints


@dataclass(frozen=True)
class Timing:
    """Step 5's time sentences: the bound and the speed model's estimates, or why the page gives no time.

    Only a tile the device can launch gets a time; every time is the bound or labelled an estimate."""

    reason: str  # why no time is given at all ('' when the tile can launch)
    bound: str  # the bound and what sets it ('' when no time is given)
    bound_s: float | None
    estimate: str  # the speed model's estimates, or why there are none ('' when no time is given)
    naive_s: float | None
    tiled_s: float | None

    @property
    def timed(self) -> bool:
        return not self.reason

    def attributes(self) -> tuple[tuple[str, str, str], ...]:
        """(data-testid, attribute, exact seconds or '') for the page's time paragraphs."""
        cells = (
            ("time-bound", "data-value", self.bound_s),
            ("time-estimate", "data-naive", self.naive_s),
            ("time-estimate", "data-tiled", self.tiled_s),
        )
        return tuple((testid, name, "" if seconds is None else repr(seconds)) for testid, name, seconds in cells)


@dataclass(frozen=True)
class Walkthrough:
    params: HierarchyParams

    @property
    def N(self) -> int:
        return self.params.N

    @property
    def T(self) -> int:
        return self.params.T

    @property
    def device(self) -> Device:
        return device(self.params.device)

    # --- steps 1-2: the naive kernel ---------------------------------------
    @property
    def per_thread_loads(self) -> int:
        """Step 1: one naive thread reads a row of A and a column of B."""
        return 2 * self.N

    @property
    def threads(self) -> int:
        return self.N * self.N

    @property
    def naive_total(self) -> int:
        return formulas.naive_loads(self.N, self.N, self.N)

    # --- steps 3-5: tiling ---------------------------------------------------
    @property
    def tiles_per_row(self) -> int:
        """⌈N/T⌉: blocks along a row of C, and tile steps along k."""
        return ceil(self.N / self.T)

    @property
    def divides(self) -> bool:
        return self.N % self.T == 0

    @property
    def capped(self) -> bool:
        """T > N: a block is wider than the matrix, so no value can be used more than N times."""
        return self.T > self.N

    @property
    def reuse(self) -> int:
        """Uses of each loaded value inside a full block: T, but never more than N."""
        return min(self.T, self.N)

    @property
    def full_blocks(self) -> int:
        """Block columns (and rows) that are T wide."""
        return self.N // self.T

    @property
    def edge_width(self) -> int:
        """Width of the last, partial block column (0 when T divides N): its loads are used only this often."""
        return self.N % self.T

    @property
    def slice_loads(self) -> int:
        """Loads of A by one block column (all N rows × N k-values), whatever its width; likewise B per block row."""
        return self.N * self.N

    @property
    def floor_loads(self) -> int:
        """2N²: every element of A and of B loaded at least once; no tiling can go below it."""
        return 2 * self.N * self.N

    @property
    def ideal_tiled(self) -> float:
        """2N³/T: every loaded value used exactly T times (below `floor_loads` when T > N)."""
        return formulas.ideal_tiled_loads(self.N, self.N, self.N, self.T)

    @property
    def exact_tiled(self) -> int:
        return formulas.tiled_loads(self.N, self.N, self.N, self.T)

    @property
    def edge_excess(self) -> float:
        """Loads over 2N³/T: the partial block column reloads A's N² values but uses them only
        `edge_width` times (likewise B), so 2N²·(T − edge_width)/T more."""
        return self.exact_tiled - self.ideal_tiled

    @property
    def reduction(self) -> float:
        """Naive ÷ tiled global loads (= N/⌈N/T⌉): a global-load reduction, not a run-time speedup."""
        return self.naive_total / self.exact_tiled

    @property
    def tiled_fma(self) -> int:
        """FMAs the tiled kernel executes, padding included: every thread of the ⌈N/T⌉² blocks runs all
        ⌈N/T⌉ tile steps of T multiply-adds, so (⌈N/T⌉·T)³ in all."""
        return (self.tiles_per_row * self.T) ** 3

    @property
    def naive_bound(self) -> TimeBound:
        N = self.N
        return time_bound(self.device, N**3, self.naive_total, N * N, N, N, N)

    @property
    def tiled_bound(self) -> TimeBound:
        N = self.N
        return time_bound(self.device, self.tiled_fma, self.exact_tiled, N * N, N, N, N)

    @property
    def bound(self) -> TimeBound:
        """The bound on any kernel doing this N×N×N product: 2N³ FLOPs, A, B and C once, one round trip."""
        return self.naive_bound

    def kernel_params(self) -> tuple[NaiveParams, SmemParams]:
        """Both kernels with T×T blocks (the naive one's threadIdx.x along C's columns); ParamError if they cannot
        launch."""
        N, T, device = self.N, self.T, self.params.device
        return NaiveParams(M=N, N=N, K=N, T=T, map="col", device=device), SmemParams(M=N, N=N, K=N, T=T, device=device)

    @cached_property
    def estimates(self) -> tuple[SpeedReport, SpeedReport] | str:
        """The speed model's reports of the naive and tiled kernels, or why there are none."""
        try:
            naive, tiled = self.kernel_params()
        except ParamError as error:
            return error.message
        reports = report_for("naive", naive), report_for("smem", tiled)
        failed = [r for r in reports if isinstance(r, str)]
        if failed:
            return failed[0]
        a, b = reports
        assert isinstance(a, SpeedReport) and isinstance(b, SpeedReport)
        return a, b

    @cached_property
    def timing(self) -> Timing:
        if self.wall is not None:
            reason = (
                f"No time is given for T = {self.T}: a T×T block cannot launch on the {self.device.name}, "
                f"since {self.wall}. The load counts above are arithmetic for T×T tiles, not a run."
            )
            return Timing(reason, "", None, "", None, None)
        bound = self.bound
        found = self.estimates
        if isinstance(found, str):
            return Timing(
                "", f"{bound.summary()} {bound.regime()}", bound.seconds, f"No estimate: {found}.", None, None
            )
        naive, tiled = found
        a, b = naive.estimate_s, tiled.estimate_s
        faster = f"{a / b:.2g}× faster" if b < a else "not faster"
        estimate = (
            f"Estimate (speed model, not a measurement): the naive kernel about {format_seconds(a)}, the tiled "
            f"kernel about {format_seconds(b)}: {faster}, against {self.reduction:.2f}× fewer global loads. "
            + (
                f"The model's limiter for both: {limiter_name(naive)}."
                if limiter_name(naive) == limiter_name(tiled)
                else f"The model's limiter: {limiter_name(naive)} for the naive kernel, "
                f"{limiter_name(tiled)} for the tiled one."
            )
        )
        return Timing("", f"{bound.summary()} {bound.regime()}", bound.seconds, estimate, a, b)

    @property
    def no_reuse_text(self) -> str:
        """The no-reuse traffic of both kernels, named for what it is: bytes, not a time; '' when the tile cannot
        launch (neither kernel runs with T×T blocks, so there is no traffic to speak of)."""
        if self.wall is not None:
            return ""
        naive, tiled = self.naive_bound.no_reuse.dram_bytes, self.tiled_bound.no_reuse.dram_bytes
        return (
            f"With no cache reuse at all, every global load and store would reach DRAM: {format_bytes(naive)} for the "
            f"naive kernel, {format_bytes(tiled)} for the tiled one. That is an estimate of traffic, and a pessimistic "
            "one: the caches serve many repeated loads before they reach DRAM, so a real kernel can take less time "
            "than moving it would."
        )

    @property
    def latency_ratio(self) -> float:
        """How many times longer the device's modelled global latency is than its shared latency."""
        return self.device.latency_global.value / self.device.latency_shared.value

    # --- step 7: the walls -----------------------------------------------------
    @property
    def block_threads(self) -> int:
        return self.T * self.T

    @property
    def shared_bytes(self) -> int:
        return formulas.tile_shared_bytes(self.T)

    @property
    def barriers_per_block(self) -> int:
        return 2 * self.tiles_per_row

    @cached_property
    def sweep(self) -> list[formulas.SweepPoint]:
        return formulas.sweep(self.N, self.device, range(1, SWEEP_MAX_T + 1))

    @property
    def fit(self) -> formulas.SweepPoint:
        """The chosen T against the device's thread and shared-memory limits."""
        return formulas.sweep(self.N, self.device, range(self.T, self.T + 1))[0]

    @property
    def wall(self) -> str | None:
        """Why the chosen T cannot run on the device, if it cannot."""
        return self.fit.wall

    @property
    def largest_tile(self) -> int:
        return formulas.largest_tile(self.device)


def bank_picture(pad: int, access: str, index: int = 0) -> banks.BankReport:
    """Step 6: one warp reading a BANK_TILE × (BANK_TILE + pad) tile by row, column or broadcast."""
    return banks.analyse(banks.tile_warp_words(BANK_TILE, pad, access, index))


@dataclass(frozen=True)
class Question:
    """One reveal-check question: its prose is in the page, its answer comes from pysim."""

    key: str
    answer: int


def quiz_example(params: HierarchyParams) -> Walkthrough:
    """The quiz's load-count sizes. Not the form's N: the summary just above the questions prints
    that N's naive total in bold, and steps 2 and 5 its totals, which would give the answers away."""
    n = QUIZ_OTHER_N if params.N == QUIZ_N else QUIZ_N
    return Walkthrough(HierarchyParams(N=n, T=QUIZ_T, device=params.device))


def quiz(walk: Walkthrough) -> list[Question]:
    """Reveal-check answers; pysim computes every one."""
    example = quiz_example(walk.params)
    return [
        Question("naive", example.naive_total),
        Question("tiled", example.exact_tiled),
        Question("bank", bank_picture(0, "column").degree),
        Question("padded", bank_picture(1, "column").degree),
        Question("largest", walk.largest_tile),
    ]


def check(question: Question, text: str) -> tuple[bool | None, str]:
    """Mark an answer typed by the reader (thousands separators allowed: checkpoints.whole_number): (right, verdict);
    right is None when the text is not a whole number."""
    value = whole_number(text)
    if value is None:
        return None, "Type a whole number (thousands separators are fine)."
    if value == question.answer:
        return True, "Right."
    return False, "Not quite."  # no answer yet: the page offers a second try first (app.core.tries)
