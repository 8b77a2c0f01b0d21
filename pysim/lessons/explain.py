"""Every number the tiling and register explanations quote, taken from the kernels' own counters.

The views' prose is a template (site/partials/*-explain.html); these functions
compute what goes into its slots for the sizes on screen. Counts come from the
kernels (`counters(params)`) so the prose can never disagree with the counter
board; closed forms (`formulas`) only supply the *ideal* figures the prose
compares them with.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from fractions import Fraction
from math import ceil, gcd

import numpy as np

from ..core.banks import BankReport
from ..core.constants import NUM_BANKS, SECTOR_BYTES, WARP_SIZE, WORD_BYTES
from ..core.counters import Counters
from ..core.instructions import instruction_class
from ..core.sectors import warp_sectors
from ..core.warps import INACTIVE
from ..hardware.params import NAIVE_MAPS, NaiveParams, RegisterParams, SmemParams, TransposeParams
from ..hardware.registers import MAX_REGISTERS_PER_THREAD, RegisterBudget, largest_square_tile
from ..kernels import KERNELS, k01_naive, k03_smem_tiled, k03_tilelab_transpose, k05_register_tiled
from ..speed.measured import measured
from .formulas import Intensity, flops_per_global_byte

# The shape siboehm's 2D-blocktiling kernel uses (BM = BN = 128, TM = TN = 8, 256 threads):
# the "production" comparison point of the register view.
PRODUCTION_BLOCK_TILE = 128
PRODUCTION_THREAD_TILE = 8
PRODUCTION_KERNEL = 5  # its number in siboehm's repository and measured table
# TM = TN values the intensity chart plots: round numbers, the last one past the register wall.
INTENSITY_SWEEP = (1, 2, 4, 8, 16)


def decimal(value: Fraction, places: int = 5) -> str:
    """A count that may be fractional (2MNK/T): exact when it has at most `places` decimals, as every
    x/T does for T a power of two up to 32 (192.5, 0.03125); else truncated with an ellipsis (0.666…),
    so an '=' before it stays true."""
    scaled = value * 10**places
    whole = scaled.numerator // scaled.denominator
    text = f"{whole // 10**places:,}"
    digits = f"{whole % 10**places:0{places}d}"
    if scaled.denominator == 1:
        digits = digits.rstrip("0")
        return f"{text}.{digits}" if digits else text
    return f"{text}.{digits[:3]}…"


@dataclass(frozen=True)
class TilingNumbers:
    """The derivation of seed 000 for one M, N, K, T: naive 2MNK, ideal 2MNK/T, exact and its excess."""

    p: SmemParams
    naive: Counters
    tiled: Counters

    @property
    def blocks_x(self) -> int:
        return ceil(self.p.N / self.p.T)

    @property
    def blocks_y(self) -> int:
        return ceil(self.p.M / self.p.T)

    @property
    def blocks(self) -> int:
        return self.blocks_x * self.blocks_y

    @property
    def naive_threads(self) -> int:
        """Threads that compute an element of C (threads outside C return at once)."""
        return self.p.M * self.p.N

    @property
    def threads_per_block(self) -> int:
        return self.p.T * self.p.T

    @property
    def a_values(self) -> int:
        return self.p.M * self.p.K

    @property
    def b_values(self) -> int:
        return self.p.K * self.p.N

    @property
    def k_edge(self) -> bool:
        """T does not divide K: the last tile step is partly zero-filled along K."""
        return self.p.K % self.p.T != 0

    @property
    def loads_per_thread(self) -> int:
        return 2 * self.p.K

    @property
    def cells_per_step(self) -> int:
        """Tile cells a block writes per tile step: one of tileA and one of tileB per thread."""
        return 2 * self.p.T * self.p.T

    @property
    def cells_per_block(self) -> int:
        return self.p.tiles * self.cells_per_step

    @property
    def zero_filled(self) -> int:
        """Tile cells outside A or B: written as 0 by the guard, never loaded from global memory."""
        return self.tiled.shared_stores - self.tiled.global_loads

    @property
    def reuse_a(self) -> int:
        """Elements of C one loaded value of A serves: T, or N when the tile is wider than C."""
        return min(self.p.T, self.p.N)

    @property
    def reuse_b(self) -> int:
        return min(self.p.T, self.p.M)

    @property
    def ideal_a(self) -> Fraction:
        """A's loads if every loaded value served reuse_a elements of C: M·N·K / min(T, N)."""
        return Fraction(self.p.M * self.p.N * self.p.K, self.reuse_a)

    @property
    def ideal_b(self) -> Fraction:
        return Fraction(self.p.M * self.p.N * self.p.K, self.reuse_b)

    @property
    def ideal(self) -> Fraction:
        """The fewest loads T×T tiles allow: 2·M·N·K/T when T ≤ M, N; never below A and B loaded once."""
        return self.ideal_a + self.ideal_b

    @property
    def excess(self) -> Fraction:
        return self.tiled.global_loads - self.ideal

    @property
    def partial_cols(self) -> int:
        """Columns of C in the last block column (0 when T divides N)."""
        return self.p.N % self.p.T

    @property
    def partial_rows(self) -> int:
        return self.p.M % self.p.T

    @property
    def excess_a(self) -> Fraction:
        """A's share of the excess: when T < N and T does not divide N, the last block column loads all
        M·K values of A but uses each for fewer than T columns; a tile as wide as C is at A's floor."""
        return self.p.M * self.p.K * self.blocks_x - self.ideal_a

    @property
    def excess_b(self) -> Fraction:
        return self.p.K * self.p.N * self.blocks_y - self.ideal_b

    @property
    def divides(self) -> bool:
        """T divides M and N: no block is partial."""
        return self.partial_cols == 0 and self.partial_rows == 0

    @property
    def floor(self) -> int:
        """Loading A and B once each: no kernel loads less, whatever T (reached when T ≥ M and T ≥ N)."""
        return self.p.M * self.p.K + self.p.K * self.p.N

    @property
    def capped(self) -> bool:
        """T exceeds M or N: reuse is capped by the matrix, not by the tile."""
        return self.p.T > min(self.p.M, self.p.N)

    @property
    def useful_fma(self) -> int:
        return self.p.M * self.p.N * self.p.K

    @property
    def padding_fma(self) -> int:
        """FMAs of launched threads on zero-filled cells or for elements outside C."""
        return self.tiled.fma - self.useful_fma

    @property
    def reduction(self) -> float:
        """Global-load reduction (not a speedup: caches serve many naive loads)."""
        return self.naive.global_loads / self.tiled.global_loads


def tiling(p: SmemParams) -> TilingNumbers:
    """The tiling explanation's numbers; the naive kernel is counted with the same T×T blocks."""
    naive = KERNELS["naive"].counters(NaiveParams(M=p.M, N=p.N, K=p.K, T=p.T, device=p.device))
    return TilingNumbers(p, naive, KERNELS["smem"].counters(p))


@dataclass(frozen=True)
class WarpLoad:
    """One warp-wide global load as the coalescing prose describes it: warp 0 of block (0, 0) at k = 0."""

    lanes: int  # lanes inside C (the others have returned)
    words: int  # distinct words they ask for
    sectors: int  # distinct 32-byte sectors those words lie in

    @property
    def broadcast(self) -> bool:
        """Every lane asks for the same word."""
        return self.words == 1 < self.lanes

    @property
    def sector_per_word(self) -> bool:
        """No two of the words share a sector: a whole sector is fetched for each word."""
        return self.sectors == self.words > 1

    @property
    def bytes_used(self) -> int:
        return self.words * WORD_BYTES

    @property
    def bytes_fetched(self) -> int:
        return self.sectors * SECTOR_BYTES


@dataclass(frozen=True)
class NaiveMap:
    """What one `map` does: warp 0's loads of A[row][k] and B[k][col], and the whole run's sectors."""

    map: str
    a: WarpLoad
    b: WarpLoad
    run: k01_naive.Coalescing


def _warp_load(elements: np.ndarray) -> WarpLoad:
    """`elements`: each lane's element index, INACTIVE for lanes outside C (one warp at most)."""
    active = elements[elements != INACTIVE]
    return WarpLoad(len(active), len(np.unique(active)), int(warp_sectors(elements)[0]))


def naive_maps(p: NaiveParams) -> tuple[NaiveMap, NaiveMap]:
    """Both maps (col, then row) for the sizes of p: the coalescing explanation's numbers."""
    tid = np.arange(min(p.T * p.T, WARP_SIZE))
    ty, tx = np.divmod(tid, p.T)
    found = []
    for name in NAIVE_MAPS:
        q = replace(p, map=name)
        rows, cols = k01_naive.offsets(q, tx, ty)  # block (0, 0): offsets are C's row and column
        inside = (rows < p.M) & (cols < p.N)
        a = _warp_load(np.where(inside, rows * p.K, INACTIVE))  # A[row][0]
        b = _warp_load(np.where(inside, cols, INACTIVE))  # B[0][col]
        found.append(NaiveMap(name, a, b, k01_naive.coalescing(q)))
    col, row = found
    return col, row


# Every pad the transpose form offers (TransposeParams' pad field): the table and the verdict cover them all.
TRANSPOSE_PADS = range(next(f for f in fields(TransposeParams) if f.name == "pad").metadata["high"] + 1)


@dataclass(frozen=True)
class TransposeNumbers:
    """The transpose explanation's numbers: what each pad does to warp 0 and to the whole run."""

    p: TransposeParams
    choices: tuple[k03_tilelab_transpose.PadChoice, ...]  # one per pad in TRANSPOSE_PADS, in order

    @property
    def best(self) -> k03_tilelab_transpose.PadChoice:
        """The pad with the fewest bank-conflict cycles over the run (the smallest such pad on a tie)."""
        return min(self.choices, key=lambda c: (c.run_cycles, c.pad))

    @property
    def padded(self) -> k03_tilelab_transpose.PadChoice:
        """The pad the verdict compares with none: the one on screen, or one word where the screen shows none."""
        return next(c for c in self.choices if c.pad == (self.p.pad or 1))

    @property
    def padding_effect(self) -> str:
        """What `padded` does to the run's conflict cycles against no padding: removes, helps, worse or nothing."""
        before, after = self.choices[0].run_cycles, self.padded.run_cycles
        if after == before:
            return "nothing"
        if after > before:
            return "worse"
        return "removes" if after == 0 else "helps"

    @property
    def warp_tile_rows(self) -> int:
        """Rows of the tile that warp 0 of a full block covers (one when T ≥ 32)."""
        return ceil(min(self.p.TILE * self.p.TILE, WARP_SIZE) / self.p.TILE)

    @property
    def warp_words(self) -> str:
        """Warp 0's threads and rows, in words (as the tiling view's bank note says them)."""
        return warp_rows(self.p.TILE, self.p.TILE * self.p.TILE)


def transpose(p: TransposeParams) -> TransposeNumbers:
    return TransposeNumbers(p, k03_tilelab_transpose.pad_choices(p, TRANSPOSE_PADS))


@dataclass(frozen=True)
class BankLine:
    """One warp-wide shared read as the 'why no padding' prose describes it."""

    array: str
    index: str
    report: BankReport
    width: int = 1

    @property
    def read(self) -> str:
        """The read as nvcc issues it: e.g. 'tileA[ty][0…3], one LDS.128 per thread'."""
        return f"{self.array}{self.index}, one {instruction_class('LDS', self.width)} per thread"

    @property
    def words(self) -> int:
        return sum(len(words) for words in self.report.words_per_bank)

    @property
    def verdict(self) -> str:
        return "no conflict" if self.report.degree <= 1 else f"a {self.report.degree}-way conflict"


def warp_rows(threads_per_row: int, threads: int) -> str:
    """Which rows of the block warp 0 holds, in words: e.g. 'threads 0–31: rows ty = 0…3'."""
    lanes = min(threads, WARP_SIZE)
    rows = ceil(lanes / threads_per_row)
    if lanes == 1:
        return "thread 0 alone (the block has one thread)"
    span = "row ty = 0" if rows == 1 else f"rows ty = 0…{rows - 1}"
    whole = " (the whole block)" if lanes == threads else ""
    return f"threads 0–{lanes - 1}{whole}: {span}"


def tiling_banks(p: SmemParams) -> tuple[BankLine, BankLine]:
    """Warp 0's two reads at k = 0 as nvcc issues them: a thread's tileA[ty][0], [1], ... merged where
    aligned (`pysim.core.instructions.issued`, the rule the trace's counters follow)."""
    (a, a_width), (b, b_width) = k03_smem_tiled.read_bank_reports(p)
    a_index = "[ty][0]" if a_width == 1 else f"[ty][0…{a_width - 1}]"
    return BankLine("tileA", a_index, a, a_width), BankLine("tileB", "[0][tx]", b, b_width)


@dataclass(frozen=True)
class IntensityRow:
    label: str
    TM: int
    TN: int

    @property
    def intensity(self) -> Intensity:
        return Intensity(self.TM, self.TN)

    @property
    def budget(self) -> RegisterBudget:
        return RegisterBudget(self.TM, self.TN)


def intensity_rows(p: RegisterParams) -> tuple[IntensityRow, ...]:
    """Seed 001's 1D strip vs 2D squares, the square past the register wall, and the sizes on screen."""
    return (
        IntensityRow("1D strip 4×1", 4, 1),
        IntensityRow("2D 4×4", 4, 4),
        IntensityRow("2D 8×8", 8, 8),
        IntensityRow("2D 16×16", 16, 16),
        IntensityRow(f"yours {p.TM}×{p.TN}", p.TM, p.TN),
    )


def intensity_points() -> list[tuple[float, float]]:
    return [(float(t), Intensity(t, t).fma_per_read) for t in INTENSITY_SWEEP]


def register_wall() -> int:
    """The smallest TM = TN whose register budget exceeds the per-thread limit."""
    return largest_square_tile() + 1


@dataclass(frozen=True)
class RegisterNumbers:
    """The register view's numbers: whole-run intensity, padding FMAs, and warp 0's bank reports."""

    p: RegisterParams
    counters: Counters
    m_read: BankReport
    n_read: BankReport
    m_width: int  # words a lane moves in that instruction (nvcc's LDS, LDS.64 or LDS.128)
    n_width: int

    @property
    def useful_fma(self) -> int:
        return self.p.M * self.p.N * self.p.K

    @property
    def padding_fma(self) -> int:
        return self.counters.fma - self.useful_fma

    @property
    def intensity(self) -> Intensity:
        """Per dotIdx: TM + TN shared reads feed TM·TN FMAs."""
        return Intensity(self.p.TM, self.p.TN)

    @property
    def useful_flops(self) -> int:
        """2·M·N·K: the multiply-adds that add a product to C, two FLOPs each (padding excluded)."""
        return 2 * self.useful_fma

    @property
    def flops_per_byte(self) -> float:
        """Useful FLOPs over the bytes of the global loads: padding FMAs do no work for C."""
        return flops_per_global_byte(self.useful_fma, self.counters.global_loads)

    @property
    def global_bytes(self) -> int:
        return self.counters.global_loads * WORD_BYTES

    @property
    def row_stride(self) -> int:
        """Words between the As rows that threads with neighbouring ty read (As[ty*TM][dotIdx])."""
        return self.p.TM * self.p.BK

    @property
    def rows_per_bank(self) -> int:
        """Every this many ty values the regM read lands in the same bank again."""
        return repeat_period(self.row_stride)

    @property
    def cols_per_bank(self) -> int:
        """Every this many tx values the regN read (Bs[dotIdx][tx*TN], words TN apart) lands in the same bank again."""
        return repeat_period(self.p.TN)

    @property
    def whole_run(self) -> int:
        """Launched blocks times bkIdx steps: how often one step's shared accesses repeat in the run."""
        gx, gy = KERNELS["register"].grid(self.p)
        return gx * gy * self.p.tiles

    def bank_cycles(self, kind: str) -> int:
        """The whole run's bank-conflict cycles of one kind of shared access (copies, regM, regN)."""
        return self.whole_run * k05_register_tiled.shared_costs_by_access(self.p)[kind][0]


def repeat_period(stride: int) -> int:
    """Lanes reading words `stride` apart land in the same bank again every this many lanes."""
    return NUM_BANKS // gcd(stride, NUM_BANKS)


def register(p: RegisterParams) -> RegisterNumbers:
    kernel = KERNELS["register"]
    (m_read, m_width), (n_read, n_width) = k05_register_tiled.read_bank_reports(p)
    return RegisterNumbers(p, kernel.counters(p), m_read, n_read, m_width, n_width)


@dataclass(frozen=True)
class Production:
    """siboehm's kernel-5 shape and the 16×16 per-thread tile that does not fit."""

    block_tile: int = PRODUCTION_BLOCK_TILE
    thread_tile: int = PRODUCTION_THREAD_TILE

    @property
    def threads(self) -> int:
        return (self.block_tile // self.thread_tile) ** 2

    @property
    def intensity(self) -> Intensity:
        return Intensity(self.thread_tile, self.thread_tile)

    @property
    def budget(self) -> RegisterBudget:
        return RegisterBudget(self.thread_tile, self.thread_tile)

    @property
    def doubled(self) -> RegisterBudget:
        return RegisterBudget(2 * self.thread_tile, 2 * self.thread_tile)

    @property
    def limit(self) -> int:
        return MAX_REGISTERS_PER_THREAD

    @property
    def share_of_cublas(self) -> float:
        """siboehm's kernel 5 over cuBLAS, GFLOP/s in his measured table (pysim.speed.measured)."""
        kernel, cublas = measured(PRODUCTION_KERNEL), measured(0)
        assert kernel is not None and cublas is not None  # both rows are in the cited table
        return kernel.gflops / cublas.gflops
