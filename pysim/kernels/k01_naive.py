"""Kernel 1: naive SGEMM, one thread per element of C (siboehm's kernels 1 and 2).

Each thread walks a row of A and a column of B straight from global memory:
2·K loads for K multiply-adds, 2·M·N·K loads in all. Neighbouring threads load
the same values again and again; kernel 3 (shared-memory tiling) removes that waste.

`map` chooses which index of C threadIdx.x walks (the lesson of coalescing).
With `col` the 32 threads of a warp take neighbouring columns: their loads of B
are neighbouring words (a few 32-byte sectors) and their loads of A one word
(a broadcast). With `row` they take neighbouring rows: each loads a word of A
from a different row, K words apart, so each needs a sector of its own. `row` is siboehm's
kernel 1, `col` his kernel 2 (global-memory coalescing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from math import ceil

import numpy as np

from ..core.counters import Counters
from ..core.listing import Listing
from ..core.sectors import tile_load_sectors
from ..core.trace import Access, Cell, Focus, Step, cells
from ..core.warps import INACTIVE, by_warp
from ..hardware.params import NaiveParams
from .plumbing import block_span, guarded_store

NAME = "naive"
TITLE = "Naive"
PARAMS = NaiveParams

LISTING = Listing("""\
// blockDim = ({T}, {T}), grid = ({gx}, {gy}): one thread per element of C, threadIdx.x walks C's {walks}
__global__ void sgemm_naive(int M, int N, int K, const float *A, const float *B, float *C) {{
  int row = blockIdx.y * {T} + threadIdx.{row_index};  @@setup
  int col = blockIdx.x * {T} + threadIdx.{col_index};  @@setup
  if (row >= M || col >= N) return;  // threads outside C leave at once  @@setup
  float sum = 0.0f;  @@setup
  for (int k = 0; k < K; k++) {{
    sum += A[row * K + k] * B[k * N + col];  @@fma
  }}
  C[row * N + col] = sum;  @@store
}}""")
SETUP, FMA, STORE = (LISTING.at(marker) for marker in ("setup", "fma", "store"))


WALKS = {"col": "columns", "row": "rows"}


def source(p: NaiveParams) -> list[str]:
    gx, gy = grid(p)
    row_index, col_index = ("y", "x") if p.map == "col" else ("x", "y")
    return LISTING.render(T=p.T, gx=gx, gy=gy, walks=WALKS[p.map], row_index=row_index, col_index=col_index)


def grid(p: NaiveParams) -> tuple[int, int]:
    return ceil(p.N / p.T), ceil(p.M / p.T)


def threads(p: NaiveParams) -> int:
    return p.T * p.T


def thread_xy(p: NaiveParams, thread: int) -> tuple[int, int]:
    return thread % p.T, thread // p.T


def offsets(p: NaiveParams, tx, ty):
    """(row, col) of a thread's element of C inside its block's T×T patch: the `map` choice, in one place."""
    return (ty, tx) if p.map == "col" else (tx, ty)


def element(p: NaiveParams, block: tuple[int, int], thread: int) -> tuple[int, int]:
    """The (row, col) of C that `thread` of `block` computes (possibly outside C)."""
    r, c = offsets(p, *thread_xy(p, thread))
    return block[1] * p.T + r, block[0] * p.T + c


def steps_per_block(p: NaiveParams) -> int:
    return p.K + 2


def owner(p: NaiveParams, row: int, col: int) -> tuple[tuple[int, int], int]:
    """The block and linear thread id that compute C[row][col]."""
    r, c = row % p.T, col % p.T
    tx, ty = (c, r) if p.map == "col" else (r, c)  # offsets() inverted
    return (col // p.T, row // p.T), ty * p.T + tx


def regions(p: NaiveParams, step: Step) -> dict[str, list[Cell]]:
    """The block's part of C and, at step k, the column k of A and row k of B its threads read."""
    rows, cols = block_span(step.block, p.T, p.T, (p.M, p.N))
    found = {"C": cells(rows, cols)}
    if step.k is not None:
        found |= {"A": cells(rows, range(step.k, step.k + 1)), "B": cells(range(step.k, step.k + 1), cols)}
    return found


def focus(p: NaiveParams, step: Step, thread: int) -> Focus:
    """The thread's element of C, the row of A and column of B it walks, and the pair it reads now."""
    row, col = element(p, step.block, thread)
    if row >= p.M or col >= p.N:
        return Focus(())
    operands = {"A": tuple((row, k) for k in range(p.K)), "B": tuple((k, col) for k in range(p.K))}
    current = {"A": ((row, step.k),), "B": ((step.k, col),)} if step.k is not None else {}
    return Focus(((row, col),), operands, current)


def block_steps(p: NaiveParams, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
    T = p.T
    ty, tx = np.divmod(np.arange(T * T), T)
    r, c = offsets(p, tx, ty)
    row = by * T + r
    col = bx * T + c
    inside = (row < p.M) & (col < p.N)
    active = int(np.count_nonzero(inside))
    live_row, live_col = np.where(inside, row, INACTIVE), np.where(inside, col, INACTIVE)
    total = np.zeros(T * T, dtype=np.float32)
    yield Step("setup", SETUP, registers={"sum": total})
    for k in range(p.K):
        kk = np.where(inside, k, INACTIVE)
        a = np.where(inside, A[np.minimum(row, p.M - 1), k], 0).astype(np.float32)
        b = np.where(inside, B[k, np.minimum(col, p.N - 1)], 0).astype(np.float32)
        total = total + a * b
        loads = (
            Access("A", "global", "load", live_row, kk, p.K, a),
            Access("B", "global", "load", kk, live_col, p.N, b),
        )
        yield Step("compute", FMA, k=k, fma=active, accesses=loads, registers={"sum": total})
    store = guarded_store("C", (p.M, p.N), live_row, live_col, total)
    yield Step("store", STORE, accesses=(store,), registers={"sum": total})


def counters_for(p: NaiveParams, bxs: np.ndarray, bys: np.ndarray) -> Counters:
    """Closed-form counters of the blocks (bx, by) for bx in bxs, by in bys."""
    T = p.T
    row_extents = np.minimum(p.M - bys * T, T)
    col_extents = np.minimum(p.N - bxs * T, T)
    rows, cols = int(row_extents.sum()), int(col_extents.sum())
    ty, tx = np.divmod(np.arange(T * T), T)
    r, c = offsets(p, tx, ty)  # each thread's (row, col) offset in its block's patch of C
    ks = np.arange(p.K)
    sectors = 0
    # A thread outside C loads nothing, so A's pattern depends on the block's
    # column extent (and B's on its row extent): count each extent separately.
    for extent, count in zip(*np.unique(col_extents, return_counts=True)):
        a_rows = np.where(c < extent, r, INACTIVE)[None, :]
        sectors += tile_load_sectors(a_rows, np.zeros_like(a_rows), p.K, bys * T, ks, (p.M, p.K), int(count))
    for extent, count in zip(*np.unique(row_extents, return_counts=True)):
        b_cols = np.where(r < extent, c, INACTIVE)[None, :]
        b_rows = np.where(r < extent, 0, INACTIVE)[None, :]
        sectors += tile_load_sectors(b_rows, np.maximum(b_cols, 0), p.N, ks, bxs * T, (p.K, p.N), int(count))
    return Counters(
        global_loads=2 * rows * cols * p.K,
        global_stores=rows * cols,
        fma=rows * cols * p.K,
        global_sectors=sectors,
    )


def load_instructions(p: NaiveParams) -> int:
    """Warp-wide global load instructions of the whole run: per k, one for A and one for B per warp
    with a thread inside C (a warp whose threads all returned issues none). Blocks are grouped by
    how many of their rows and columns lie inside C, so this is quick at any size."""
    gx, gy = grid(p)
    T = p.T
    ty, tx = np.divmod(np.arange(T * T), T)
    r, c = offsets(p, tx, ty)
    row_extents = Counter(np.minimum(p.M - np.arange(gy) * T, T).tolist())
    col_extents = Counter(np.minimum(p.N - np.arange(gx) * T, T).tolist())
    warps = 0
    for row_extent, row_count in row_extents.items():
        for col_extent, col_count in col_extents.items():
            inside = ((r < row_extent) & (c < col_extent)).astype(np.int64)
            live = int(np.count_nonzero(by_warp(inside).max(axis=-1) > 0))
            warps += live * row_count * col_count
    return 2 * p.K * warps


@dataclass(frozen=True)
class Coalescing:
    """A whole run's global loads seen as warp requests: sectors touched per load instruction."""

    map: str
    sectors: int
    requests: int

    @property
    def per_request(self) -> Fraction:
        return Fraction(self.sectors, self.requests) if self.requests else Fraction(0)

    @property
    def per_request_text(self) -> str:
        return f"{float(self.per_request):.3g}"


def coalescing(p: NaiveParams, map: str | None = None) -> Coalescing:
    """Sectors and load instructions of the run with `map` (default: p's own), from the closed forms."""
    q = p if map in (None, p.map) else replace(p, map=map)
    return Coalescing(q.map, counters_for_run(q).global_sectors, load_instructions(q))


def counters_for_run(p: NaiveParams) -> Counters:
    gx, gy = grid(p)
    return counters_for(p, np.arange(gx), np.arange(gy))
