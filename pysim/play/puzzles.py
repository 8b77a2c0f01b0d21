"""Graded playground puzzles: from a copy kernel to 2D register tiling.

Each puzzle has starter code (a playground file in `starters/`), a goal, hints
and a checker: the kernel must store the right C with no diagnostics at every
size, load every element of A (and B) it needs, and stay within budgets
measured by pysim (global loads, sectors per request, bank conflicts, shared
loads per FMA). Budgets are written as functions of M, N and K, with a label
for the page.

A grade cannot be passed without computing: every run of a grade draws fresh
operands (`pysim.core.matrices.fresh_operands`, from the operating system's
randomness, out of the kernel's reach) and compares C with NumPy's answer for
them, so a kernel that rebuilds TileLab's public operands from their hash
fails. The reference solutions (`solutions/`, one per puzzle) are test data:
the site's build leaves them out, and nothing here reads them.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from math import ceil
from pathlib import Path

import numpy as np

from ..core.matrices import fresh_operands
from .budgets import (
    COALESCED_LOADS,
    COALESCED_STORES,
    EVERY_PUZZLE,
    ONE_STORE_EACH,
    Budget,
    CheckResult,
    global_loads,
    loads_with_reuse,
    shared_loads_per_fma,
    wavefronts_per_32_words,
    wavefronts_per_request,
)
from .compiler import compile_program
from .execute import run
from .program import ProgramError
from .results import RunResult

# Kernel files read as text, never imported (they import numba, and a starter is unfinished on purpose).
STARTERS = Path(__file__).parent / "starters"
FREE_PLAY_FILE = "free_play.py"  # the editor's code when no puzzle is picked
Size = tuple[int, int, int]
Pick = Callable[[tuple[Size, ...]], Size]
Operands = Callable[[int, int, int], tuple[np.ndarray, np.ndarray]]


def starter_text(name: str) -> str:
    """A starter file's code (e.g. FREE_PLAY_FILE)."""
    return (STARTERS / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Grade:
    """A checker's verdict: every check at every size; `error` when the file cannot run."""

    puzzle: str
    passed: bool
    checks: tuple[CheckResult, ...]
    error: str = ""

    def as_dict(self) -> dict:
        return {
            "puzzle": self.puzzle,
            "passed": self.passed,
            "error": self.error,
            "checks": [check.__dict__ | {"size": list(check.size)} for check in self.checks],
        }


@dataclass(frozen=True)
class Puzzle:
    key: str
    title: str
    goal: str
    starter_file: str  # in starters/
    solution_file: str  # in solutions/: for the tests only (the site's build leaves that folder out)
    hints: tuple[str, ...]
    sizes: tuple[Size, ...]  # correctness, loads, no diagnostics and every budget
    budgets: tuple[Budget, ...] = ()  # besides budgets.EVERY_PUZZLE
    edge_sizes: tuple[Size, ...] = ()  # correctness, loads and no diagnostics (sizes that break tile alignment)
    # Sizes the puzzle does not name (none has K = 8, and where the puzzle allows it none is a multiple of the
    # tile): a grade runs one of them, drawn afresh, with every budget, so that a kernel tuned to the named
    # sizes (coalesced only when K == 8) fails.
    unnamed: tuple[Size, ...] = ()
    expected: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None  # None: A @ B
    expected_label: str = "A @ B"
    reads: tuple[str, ...] = ("A", "B")  # the inputs every element of which the answer depends on
    square: bool = False  # M = N = K (transpose)
    notes: tuple[str, ...] = field(default=())

    def grade(self, source: str, draw: Operands = fresh_operands, pick: Pick = secrets.choice) -> Grade:
        """Run `source` at every size and at one unnamed size (`pick`ed), each time on operands from `draw`
        (fresh and secret unless a test says otherwise), and check correctness, loads, diagnostics and,
        at the named and the unnamed size, budgets."""
        try:
            program = compile_program(source)
        except ProgramError as error:
            return Grade(self.key, False, (), str(error))
        checks: list[CheckResult] = []
        budgeted = (*self.sizes, *((pick(self.unnamed),) if self.unnamed else ()))
        for size in (*budgeted, *self.edge_sizes):
            A, B = draw(*size)
            try:
                result = run(program, *size, A=A, B=B, expected=self.expected, keep=False)
            except ProgramError as error:
                return Grade(self.key, False, tuple(checks), str(error))
            checks.append(
                CheckResult(
                    f"C equals {self.expected_label}",
                    size,
                    result.mismatches,
                    0,
                    result.c_matches,
                    "" if result.c_matches else f"{result.mismatches} element(s) differ",
                )
            )
            checks.append(self.loads_check(result, size))
            problems = result.diagnostics
            checks.append(
                CheckResult(
                    "no diagnostics (races, out-of-bounds, barrier divergence, errors)",
                    size,
                    len(problems),
                    0,
                    not problems,
                    problems[0].message if problems else "",
                )
            )
            if size in budgeted:
                checks.extend(budget.check(result, size) for budget in (*self.budgets, *EVERY_PUZZLE))
        return Grade(self.key, all(check.passed for check in checks), tuple(checks))

    def loads_check(self, result: RunResult, size: Size) -> CheckResult:
        """Every element of the inputs the answer depends on was loaded by some thread: a kernel that stores
        the right C without loading its inputs computed nothing."""
        masks = dict(zip("AB", result.loaded))
        missing = {role: np.argwhere(~masks[role]) for role in self.reads}
        total = sum(len(cells) for cells in missing.values())
        detail = ""
        for role, cells in missing.items():
            if len(cells):
                row, col = cells[0]
                detail = f"{role}[{row}, {col}] was never loaded" + (f" ({total - 1} more)" if total > 1 else "")
                break
        return CheckResult(
            f"C is computed from loaded values: every element of {' and '.join(self.reads)} is loaded",
            size,
            total,
            0,
            total == 0,
            detail,
        )


NAIVE_LOADS = global_loads("2·M·N·K", lambda M, N, K: 2 * M * N * K)  # each thread reads a row of A and a column of B
# A tile read along its rows, or one word broadcast, costs one wavefront a request.
FEW_CONFLICTS = wavefronts_per_request(2, "tiles read along rows or broadcast: at most 2-way bank conflicts on average")


def _transposed(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return A.T.copy()


def _copied(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return A.copy()


def _row_sums(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return A.sum(axis=1, keepdims=True)


PUZZLES: tuple[Puzzle, ...] = (
    Puzzle(
        "copy",
        "1. Copy",
        "Copy A into C, one thread per element, each warp reading 32 neighbouring floats.",
        "copy.py",
        "copy.py",
        (
            "cuda.grid(2) gives (x, y) = (blockIdx.x·blockDim.x + threadIdx.x, ...): here x is the column.",
            "Guard with row < C.shape[0] and col < C.shape[1]: the grid is rounded up to whole blocks.",
        ),
        sizes=((32, 64, 64), (20, 32, 32)),
        unnamed=((37, 40, 40), (45, 24, 24), (23, 56, 56)),
        budgets=(
            global_loads("M·N (each element once)", lambda M, N, K: M * N),
            ONE_STORE_EACH,
            COALESCED_LOADS,
        ),
        edge_sizes=((5, 7, 7),),
        expected=_copied,
        expected_label="A",
        reads=("A",),
        notes=("Sizes have K = N, so A and C have the same shape.",),
    ),
    Puzzle(
        "naive",
        "2. Naive SGEMM",
        "Compute C = A @ B with one thread per element of C, reading A and B straight from global memory.",
        "naive.py",
        "naive.py",
        (
            "C[row, col] = sum over k of A[row, k] * B[k, col].",
            "Return early (or skip the work) when row ≥ M or col ≥ N: the last blocks stick out of C.",
            # Numba types 0.0 as float64 (https://numba.readthedocs.io/en/stable/reference/types.html); FP64 add
            # and FMA run at 2 results per clock per SM against FP32's 128 on compute capability 8.6 and 8.9 (CUDA
            # C++ Programming Guide, "Arithmetic Instructions", throughput table).
            "Accumulate in a local variable that starts as float32(0.0), and store C once at the end. "
            "Under Numba a plain 0.0 is a float64: the sum becomes a float64, and every += converts the float32 "
            "product and adds in double precision, which compute capability 8.6 and 8.9 GPUs (GA10x, AD10x) run at "
            "1/64 of the float32 rate, instead of one float32 FMA.",
        ),
        sizes=((16, 16, 16), (13, 7, 5)),
        unnamed=((29, 35, 11), (21, 19, 6), (35, 27, 13)),
        budgets=(NAIVE_LOADS, ONE_STORE_EACH),
        edge_sizes=((1, 1, 1),),
    ),
    Puzzle(
        "coalesced",
        "3. Coalesced naive SGEMM",
        "Same result, but make each warp's loads coalesced: at most 4 sectors per warp load.",
        "naive_strided.py",
        "naive_coalesced.py",
        (
            "A warp is 32 consecutive threadIdx.x. If they take 32 different rows, A[row, k] touches 32 sectors.",
            "Let threadIdx.x pick the column: then the warp reads one A[row, k] (a broadcast) and 32 neighbours of B.",
            "Swap the roles in cuda.grid(2) and in launch().",
        ),
        sizes=((32, 64, 8), (40, 32, 8)),
        unnamed=((37, 40, 12), (29, 48, 5), (45, 32, 11)),
        budgets=(NAIVE_LOADS, COALESCED_LOADS),
        edge_sizes=((7, 5, 3),),
    ),
    Puzzle(
        "tiled",
        "4. Shared-memory tiling",
        "Stage tiles of A and B in shared memory so that each element is fetched from global memory "
        "by one block for every 8 (or more) columns of C it serves.",
        "smem_tiled.py",
        "smem_tiled.py",
        (
            "Each thread copies A[row, tileIdx·T + tx] into tileA[ty, tx] and B[tileIdx·T + ty, col] into tileB[ty, tx].",
            "cuda.syncthreads() after the copy: no thread may read a tile before all of it is written.",
            "A second cuda.syncthreads() after the products: otherwise fast threads overwrite the tile "
            "slow threads still read (the race report names the line).",
        ),
        sizes=((32, 32, 32), (16, 24, 40)),
        unnamed=((24, 40, 16), (40, 16, 24), (48, 32, 40)),
        budgets=(loads_with_reuse(8), ONE_STORE_EACH, FEW_CONFLICTS),
    ),
    Puzzle(
        "tiled_edges",
        "5. Tiling at any size",
        "Make the tiled kernel correct when M, N and K are not multiples of the tile: "
        "write 0 into the tile where the matrix ends, and never load outside A or B.",
        "smem_tiled.py",
        "smem_tiled.py",
        (
            "Guard each load: tileA[ty, tx] = A[row, c] if row < M and c < K else float32(0.0).",
            # PTX ISA, bar/barrier: "causes executing thread to wait for non-exited threads of all other warps";
            # exit: "If the exiting threads are holding up the barrier, the barrier is released." CUDA C++
            # Programming Guide, __syncthreads(): allowed in conditional code "only if the conditional evaluates
            # identically across the entire thread block, otherwise the code execution is likely to hang or
            # produce unintended side effects".
            "Do not return early before the loop. The GPU would not hang: a barrier waits only for the threads "
            "that have not exited. But a thread that left never loads its elements of the tiles, so the others "
            "multiply whatever those words held. What can hang or misbehave is threads of one block waiting at "
            "different cuda.syncthreads() calls.",
            "Guard the final store to C.",
        ),
        sizes=((19, 23, 13), (9, 17, 30)),
        unnamed=((37, 29, 19), (27, 35, 12), (43, 21, 9)),
        budgets=(loads_with_reuse(8), FEW_CONFLICTS),
        edge_sizes=((1, 1, 1), (5, 3, 2)),
    ),
    Puzzle(
        "transpose",
        "6. Coalesced transpose",
        "C = A transposed, with both the global loads and the global stores coalesced (≤ 4 sectors per warp).",
        "transpose.py",
        "transpose.py",
        (
            "Read a TILE×TILE tile of A row by row into shared memory, then write it out row by row to C.",
            "After cuda.syncthreads(), thread (tx, ty) writes C[blockIdx.x·TILE + ty, blockIdx.y·TILE + tx] "
            "from tile[tx, ty].",
        ),
        sizes=((64, 64, 64), (40, 40, 40)),
        unnamed=((56, 56, 56), (48, 48, 48), (72, 72, 72)),
        budgets=(COALESCED_LOADS, COALESCED_STORES),
        edge_sizes=((7, 7, 7),),
        expected=_transposed,
        expected_label="Aᵀ",
        reads=("A",),
        square=True,
    ),
    Puzzle(
        "transpose_padded",
        "7. Transpose without bank conflicts",
        "Start from your puzzle-6 kernel: keep the coalesced transpose and remove its bank conflicts: reading "
        "a column of a 32×32 tile asks one bank for 32 words.",
        "transpose.py",  # puzzle 6's starter: the student brings their own puzzle-6 kernel
        "transpose_padded.py",
        (
            "Bank = word index mod 32. In a 32-wide tile, tile[0, c], tile[1, c], ... are 32 words apart.",
            "Make each row one word longer: cuda.shared.array((TILE, TILE + 1), float32).",
        ),
        sizes=((64, 64, 64), (40, 40, 40)),
        unnamed=((56, 56, 56), (48, 48, 48), (72, 72, 72)),
        budgets=(
            COALESCED_LOADS,
            COALESCED_STORES,
            wavefronts_per_request(1, "no bank conflicts"),
            wavefronts_per_32_words(2),
        ),
        edge_sizes=((7, 7, 7),),
        expected=_transposed,
        expected_label="Aᵀ",
        reads=("A",),
        square=True,
    ),
    Puzzle(
        "register_1d",
        "8. 1D register tiling",
        "Each thread computes TM elements of a column of C, reusing one shared read of B for TM "
        "multiply-adds: at most 5/4 shared loads per multiply-add (2 in the tiled kernel).",
        "register_1d.py",
        "register_1d.py",
        (
            "Copy the BM×BK and BK×BN tiles with a strided loop: for i in range(tid, BM * BK, THREADS).",
            "Keep the TM partial sums in the local array threadResults.",
            "Per dotIdx: b = Bs[dotIdx, tx], then for i in range(TM): threadResults[i] += As[ty·TM + i, dotIdx] * b.",
        ),
        sizes=((32, 32, 32),),
        unnamed=((37, 29, 19), (45, 40, 12), (33, 50, 7)),
        budgets=(loads_with_reuse(32), shared_loads_per_fma(5, 4, (32, 32, 8)), FEW_CONFLICTS),
        edge_sizes=((9, 11, 5),),
    ),
    Puzzle(
        "blocktile1d",
        "9. 1D blocktiling at siboehm's sizes",
        "Siboehm's kernel 4: 512 threads compute a 64×64 tile of C, each copying one element of As and "
        "one of Bs per bkIdx and computing TM = 8 results of a column, so each element of A or B is "
        "loaded once per 64 columns or rows of C and a multiply-add costs 9/8 shared loads.",
        "blocktile1d.py",
        "blocktile1d.py",
        (
            "No copy loop: As[threadIdx.x // BK, threadIdx.x % BK] and Bs[threadIdx.x // BN, threadIdx.x % BN] "
            "cover both tiles, because BM·BK = BN·BK = 512.",
            "Guard each copy (0 outside A or B) and the stores to C: the edge sizes are not multiples of 64.",
            "Per dotIdx: tmpB = Bs[dotIdx, threadCol], then for resIdx in range(TM): "
            "threadResults[resIdx] += As[threadRow·TM + resIdx, dotIdx] * tmpB.",
            "Initialise threadResults with float32(0.0): local arrays start with garbage (NaN in the playground).",
        ),
        sizes=((64, 64, 16), (128, 128, 8)),
        unnamed=((72, 100, 12), (96, 80, 12), (40, 90, 20)),
        budgets=(loads_with_reuse(64), shared_loads_per_fma(9, 8, (64, 64, 8)), FEW_CONFLICTS),
        edge_sizes=((70, 66, 13), (9, 11, 5)),
    ),
    Puzzle(
        "register_2d",
        "10. 2D register tiling",
        "Each thread computes a TM×TN patch from registers: at most 1/2 shared load per multiply-add "
        "(TM = TN = 4 gives (TM + TN) / (TM·TN) = 1/2).",
        "register_tiled.py",
        "register_tiled.py",
        (
            "Per dotIdx: regM[i] = As[ty·TM + i, dotIdx] for each i, regN[j] = Bs[dotIdx, tx·TN + j] for each j.",
            "Then threadResults[i·TN + j] += regM[i] * regN[j] for every (i, j): registers only.",
            "Initialise threadResults with float32(0.0): local arrays start with garbage (NaN in the playground).",
        ),
        sizes=((32, 32, 32),),
        unnamed=((37, 29, 19), (45, 40, 12), (33, 50, 7)),
        budgets=(
            loads_with_reuse(32),
            shared_loads_per_fma(1, 2, (32, 32, 8)),
            wavefronts_per_request(4, "regM reads a column of As, 4 rows of 8 words in one bank: 4-way at most"),
        ),
        edge_sizes=((9, 11, 5),),
        notes=(
            "Siboehm's next kernels, 6 (vectorized) and 10 (warptiling), stay on #/ladder and the command line: "
            "their float4 loads read four floats of A or B as one 16-byte value, which the playground's "
            "float32-only subset cannot express, although Numba CUDA has a float4 type (float32x4).",
        ),
    ),
    Puzzle(
        "warp_reduce",
        "11. Warp-shuffle reduction",
        "Sum each row of A into C[row, 0] with one warp per row: the lanes load neighbouring elements and add "
        "their partial sums with warp shuffles, without shared memory or atomics.",
        "warp_reduce.py",
        "warp_reduce.py",
        (
            "Lane l sums A[row, l], A[row, l + 32], ...: each warp load reads 32 neighbouring floats.",
            "acc += cuda.shfl_down_sync(0xffffffff, acc, offset) for offset = 16, 8, 4, 2, 1 leaves the row's "
            "sum in lane 0 (lane l adds lane l + offset's value; lanes past 31 keep their own).",
            "Every lane named in the mask must run the shuffle: keep it outside `if lane == 0`.",
        ),
        sizes=((64, 1, 256), (37, 1, 100)),
        unnamed=((29, 1, 77), (45, 1, 200), (19, 1, 33)),
        budgets=(
            Budget(
                "global sectors ≤ M·(⌈K/8⌉ + ⌈K/32⌉) (32 lanes read 32 neighbours: 4 sectors, 5 when unaligned)",
                lambda r: r.counters.global_sectors,
                lambda M, N, K: M * (ceil(K / 8) + ceil(K / 32)),
            ),
            Budget(
                "no shared memory (shared loads + stores = 0): the lanes meet in registers",
                lambda r: r.counters.shared_loads + r.counters.shared_stores,
                lambda M, N, K: 0,
            ),
            Budget("no atomics", lambda r: r.counters.atomics, lambda M, N, K: 0),
            Budget("global stores ≤ M (one per row)", lambda r: r.counters.global_stores, lambda M, N, K: M),
        ),
        edge_sizes=((5, 1, 3),),
        expected=_row_sums,
        expected_label="the row sums of A",
        reads=("A",),
        notes=("Sizes have N = 1: C is a column, B is not read.",),
    ),
)
PUZZLE_BY_KEY = {puzzle.key: puzzle for puzzle in PUZZLES}


def starter_for(puzzle: Puzzle) -> str:
    """The puzzle's starter code."""
    return starter_text(puzzle.starter_file)
