"""KernelProfile of the TF32 tensor-core kernel (pysim/kernels/k12_mma.py), beside pipelined.py's.

Priced from the kernel's own layout (pysim/kernels/mma_layout.py), each modelled, not read from SASS:
- the copies are 16-byte cp.async (LDGSTS) of A as it lies and of B, priced like an LDG.128 on the global side
  and an STS.128 at the padded or swizzled place on the shared side, as pipelined.py prices k11's;
- each k-step of 8 a lane reads its fragments with 32-bit LDS (4 per mma row of A, 2 per mma column of B) and
  the warp issues MITER·NITER·split mma.sync (`KernelProfile.mma`), priced on the tensor pipe at the card's
  dense TF32 rate (model.py); no FFMA;
- other instructions: one cvt.rna.tf32 per fragment value a k-step (nvcc converts a[mi] and b[ni] once, not per
  mma: the instruction model's `tensor-core` rule), twice that and one FADD per value at split=3;
- the float2 stores of C; no read of C (TileLab's listing computes C = A·B);
- shared memory per block is `stages` padded or swizzled buffers (occupancy follows), and the copies of S-1
  tiles are in flight while one is computed (Launch.overlapped: a round lasts the longer of its round trip and
  its work, model.py `_latency`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from math import ceil

import numpy as np

from ..core.constants import WARP_SIZE, WORD_BYTES
from ..core.fragments import C_MAP, MMA_K, MMA_M, MMA_N
from ..core.warps import INACTIVE
from ..hardware.mma_params import MmaParams
from ..hardware.registers import OVERHEAD_ESTIMATE
from ..kernels import mma_layout as layout
from .model import KernelProfile
from .profiles import A0, B0, C0, Launch, build
from .wavefronts import Instr


def _bytes(words: np.ndarray, base: int) -> np.ndarray:
    """Byte addresses of words (-1 for an idle lane)."""
    return np.where(words == INACTIVE, -1, base + words * WORD_BYTES)


def _global(base: int, idle: np.ndarray, rows: np.ndarray, cols: np.ndarray, width: int) -> np.ndarray:
    """Byte addresses of elements (rows, cols) of a matrix `width` wide at `base` (-1 for an idle lane). The bases
    pass 2**31: rows and cols are int64 where the layouts make them (mma_layout.py, wgmma_layout.py)."""
    return np.where(idle, -1, base + (rows * width + cols) * WORD_BYTES)


def _shared(p: MmaParams, words: np.ndarray, base: int = 0) -> np.ndarray:
    """Byte offsets in shared memory of an array's logical words, padded or swizzled as the listing places them
    (`Bs[swz(i)]`: the swizzle acts on the index within the array, which starts `base` words in)."""
    return _bytes(layout.physical_words(p, words), base * WORD_BYTES)


def mma(p: MmaParams) -> KernelProfile:
    """k12: cp.async copies into `stages` buffers, fragment loads and mma.sync on the tensor cores."""
    warps = p.warps
    b_base = p.stages * p.BM * p.a_stride  # Bs follows As in the one dynamic shared array
    a_copy, b_copy = layout.copy_rounds(p, p.BM, p.BK), layout.copy_rounds(p, p.BK, p.BN)
    a_rows, a_cols, b_rows, b_cols = layout.fragment_reads(p)

    def lanes(values: np.ndarray) -> np.ndarray:
        return values.reshape(warps, WARP_SIZE)

    def body(tid: np.ndarray, it: int) -> Iterator[Instr]:
        stage, k0 = it % p.stages, it * p.BK
        for rows, cols in zip(*a_copy, strict=True):
            yield "ldg", 16, lanes(_global(A0, rows == INACTIVE, rows, k0 + cols, p.K))
            yield "sts", 16, lanes(_shared(p, layout.a_words(p, stage, rows, cols)))
        for rows, cols in zip(*b_copy, strict=True):
            yield "ldg", 16, lanes(_global(B0, rows == INACTIVE, k0 + rows, cols, p.N))
            yield "sts", 16, lanes(_shared(p, layout.b_words(p, stage, rows, cols), b_base))
        for k in range(0, p.BK, MMA_K):
            for words in layout.a_words(p, stage, a_rows, a_cols + k):
                yield "lds", 4, lanes(_shared(p, words))
            for words in layout.b_words(p, stage, b_rows + k, b_cols):
                yield "lds", 4, lanes(_shared(p, words, b_base))

    def epilogue(tid: np.ndarray) -> Iterator[Instr]:
        top, left = layout.warp_origin(p)
        lane = np.arange(p.threads) % WARP_SIZE
        for mi in range(p.MITER):
            for ni in range(p.NITER):
                for h in range(2):  # (c0, c1) and (c2, c3): one float2 each
                    rows = top + mi * MMA_M + C_MAP[lane, 2 * h, 0]
                    cols = left + ni * MMA_N + C_MAP[lane, 2 * h, 1]
                    yield "stg", 8, lanes(_global(C0, rows < 0, rows, cols, p.N))

    values = 4 * p.MITER + 2 * p.NITER  # fragment values a lane reads a k-step
    converts = values if p.split == 1 else 3 * values  # split=3: two cvt and one FADD per value
    launch = Launch(
        p.threads,
        (ceil(p.N / p.BN), ceil(p.M / p.BM)),
        p.BM,
        p.BN,
        p.tiles,
        0,
        2,
        p.accumulators + values + OVERHEAD_ESTIMATE,
        p.shared_bytes,
        steps_per_round=p.stages - 1,
        overlapped=True,
        mma_per_iteration=p.ksteps * p.MITER * p.NITER * p.split,
        other_per_iteration=p.ksteps * converts,
    )
    prof = build(p.M, p.N, p.K, launch, body, epilogue)
    # The product's multiply-adds, padding included, done on the tensor cores (3xTF32 does each three times).
    return replace(prof, fma=prof.mma // p.split * MMA_M * MMA_N * MMA_K)
