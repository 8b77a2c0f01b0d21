"""Group per-thread accesses into warps: WARP_SIZE consecutive linear thread ids."""

from __future__ import annotations

import numpy as np

from .constants import WARP_SIZE

INACTIVE = -1


def by_warp(values: np.ndarray) -> np.ndarray:
    """Reshape (..., threads) to (..., warps, WARP_SIZE), padding the last warp with INACTIVE."""
    threads = values.shape[-1]
    warps = -(-threads // WARP_SIZE)
    padded = np.full(values.shape[:-1] + (warps * WARP_SIZE,), INACTIVE, dtype=np.int64)
    padded[..., :threads] = values
    return padded.reshape(values.shape[:-1] + (warps, WARP_SIZE))
