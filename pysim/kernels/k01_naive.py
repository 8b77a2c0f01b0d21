"""Kernel 1: naive SGEMM, one thread per element of C.

Each thread walks a row of A and a column of B straight from global memory:
2·K loads for K multiply-adds, 2·M·N·K loads in all. Neighbouring threads load
the same values again and again; kernel 2 removes that waste.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import ceil

import numpy as np

from ..counters import Counters
from ..params import NaiveParams
from ..sectors import tile_load_sectors
from ..trace import Access, Step
from ..warps import INACTIVE

NAME = "naive"
TITLE = "Naive"
PARAMS = NaiveParams

SOURCE = """\
// blockDim = ({T}, {T}), grid = ({gx}, {gy}): one thread per element of C
__global__ void sgemm_naive(int M, int N, int K, const float *A, const float *B, float *C) {{
  int row = blockIdx.y * {T} + threadIdx.y;
  int col = blockIdx.x * {T} + threadIdx.x;
  if (row >= M || col >= N) return;  // threads outside C leave at once
  float sum = 0.0f;
  for (int k = 0; k < K; k++) {{
    sum += A[row * K + k] * B[k * N + col];
  }}
  C[row * N + col] = sum;
}}"""

SETUP, FMA, STORE = (3, 6), (8, 8), (10, 10)
STATEMENT_LINES = frozenset([*range(SETUP[0], SETUP[1] + 1), FMA[0], STORE[0]])


def source(p: NaiveParams) -> list[str]:
    gx, gy = grid(p)
    return SOURCE.format(T=p.T, gx=gx, gy=gy).splitlines()


def grid(p: NaiveParams) -> tuple[int, int]:
    return ceil(p.N / p.T), ceil(p.M / p.T)


def threads(p: NaiveParams) -> int:
    return p.T * p.T


def thread_xy(p: NaiveParams, thread: int) -> tuple[int, int]:
    return thread % p.T, thread // p.T


def steps_per_block(p: NaiveParams) -> int:
    return p.K + 2


def c_region(p: NaiveParams, bx: int, by: int) -> tuple[slice, slice]:
    return slice(by * p.T, min((by + 1) * p.T, p.M)), slice(bx * p.T, min((bx + 1) * p.T, p.N))


def block_steps(p: NaiveParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    T = p.T
    ty, tx = np.divmod(np.arange(T * T), T)
    row = by * T + ty
    col = bx * T + tx
    inside = (row < p.M) & (col < p.N)
    active = int(np.count_nonzero(inside))
    live_row, live_col = np.where(inside, row, INACTIVE), np.where(inside, col, INACTIVE)
    total = np.zeros(T * T, dtype=np.float32)
    yield Step("setup", SETUP, registers={"sum": total})
    for k in range(p.K):
        kk = np.where(inside, k, INACTIVE)
        total = total + np.where(inside, A[np.minimum(row, p.M - 1), k] * B[k, np.minimum(col, p.N - 1)], 0)
        yield Step(
            "compute",
            FMA,
            k=k,
            fma=active,
            accesses=(
                Access("A", "global", "load", live_row, kk, p.K),
                Access("B", "global", "load", kk, live_col, p.N),
            ),
            registers={"sum": total},
        )
    yield Step(
        "store", STORE, accesses=(Access("C", "global", "store", live_row, live_col, p.N),), registers={"sum": total}
    )


def counters_for(p: NaiveParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    T = p.T
    row_extents = np.minimum(p.M - bys * T, T)
    col_extents = np.minimum(p.N - bxs * T, T)
    rows, cols = int(row_extents.sum()), int(col_extents.sum())
    ty, tx = np.divmod(np.arange(T * T), T)
    ks = np.arange(p.K)
    sectors = 0
    # A thread outside C loads nothing, so A's pattern depends on the block's
    # column extent (and B's on its row extent): count each extent separately.
    for extent, count in zip(*np.unique(col_extents, return_counts=True)):
        a_rows = np.where(tx < extent, ty, INACTIVE)[None, :]
        sectors += tile_load_sectors(a_rows, np.zeros_like(a_rows), p.K, bys * T, ks, (p.M, p.K), int(count))
    for extent, count in zip(*np.unique(row_extents, return_counts=True)):
        b_cols = np.where(ty < extent, tx, INACTIVE)[None, :]
        b_rows = np.where(ty < extent, 0, INACTIVE)[None, :]
        sectors += tile_load_sectors(b_rows, np.maximum(b_cols, 0), p.N, ks, bxs * T, (p.K, p.N), int(count))
    return Counters(
        global_loads=2 * rows * cols * p.K,
        global_stores=rows * cols,
        fma=rows * cols * p.K,
        global_sectors=sectors,
    )


def block_counters(p: NaiveParams, bx: int, by: int) -> Counters:
    return counters_for(p, np.array([bx]), np.array([by]))


def counters(p: NaiveParams) -> Counters:
    gx, gy = grid(p)
    return counters_for(p, np.arange(gx), np.arange(gy))


def reference(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """What C must equal: NumPy's product."""
    return A @ B


def run_c(p: NaiveParams, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Each thread's float32 dot product (NumPy's matmul; inputs are exact in float32)."""
    return A @ B


def describe(step: Step, p: NaiveParams, thread: int) -> str:
    tx, ty = thread_xy(p, thread)
    row, col = step.block[1] * p.T + ty, step.block[0] * p.T + tx
    if row >= p.M or col >= p.N:
        return "has returned (outside C)"
    if step.phase == "setup":
        return f"computes row={row}, col={col}"
    if step.phase == "compute":
        return f"sum += A[{row}][{step.k}]·B[{step.k}][{col}] → {step.registers['sum'][thread]:g}"
    return f"stores C[{row}][{col}] = {step.registers['sum'][thread]:g}"


def narrate(step: Step, p: NaiveParams, thread: int) -> str:
    tx, ty = thread_xy(p, thread)
    where = f"Block ({step.block[0]},{step.block[1]})" + (f", k={step.k}" if step.k is not None else "")
    return f"{where}: thread ({tx},{ty}) {describe(step, p, thread)}."
