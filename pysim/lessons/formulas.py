"""Closed forms the explanations quote: totals, ideal vs exact counts, intensity, the T sweep."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from ..core.constants import WORD_BYTES
from ..hardware.devices import Device


def naive_loads(M: int, N: int, K: int) -> int:
    """Naive kernel: every one of the M·N threads loads K values of A and K of B."""
    return 2 * M * N * K


def tiled_loads(M: int, N: int, K: int, T: int) -> int:
    """Shared-memory tiling, exact: each block column reloads A, each block row reloads B."""
    return M * K * ceil(N / T) + K * N * ceil(M / T)


def ideal_tiled_loads(M: int, N: int, K: int, T: int) -> float:
    """2·M·N·K / T: the count when T divides the sizes (no edge tiles)."""
    return 2 * M * N * K / T


@dataclass(frozen=True)
class Intensity:
    """Arithmetic intensity of one thread's outer product (per dotIdx)."""

    TM: int
    TN: int

    @property
    def shared_reads(self) -> int:
        return self.TM + self.TN

    @property
    def fmas(self) -> int:
        return self.TM * self.TN

    @property
    def fma_per_read(self) -> float:
        return self.fmas / self.shared_reads


def flops_per_global_byte(fma: int, global_loads: int) -> float:
    """Two FLOPs per multiply-add, over the bytes fetched from global memory."""
    return 2 * fma / (global_loads * WORD_BYTES) if global_loads else 0.0


def tile_shared_bytes(T: int) -> int:
    """Shared memory of the smem kernel's two T×T float tiles (tileA and tileB)."""
    return 2 * T * T * WORD_BYTES


@dataclass(frozen=True)
class SweepPoint:
    """One tile size T in the sweep for an N×N×N problem, and the device's limits.

    `speedup` is naive ÷ tiled global loads: a global-load reduction, not a run-time speedup.
    """

    T: int
    speedup: float
    threads: int
    shared_bytes: int
    thread_limit: int
    shared_limit: int

    @property
    def over_threads(self) -> bool:
        return self.threads > self.thread_limit

    @property
    def over_shared(self) -> bool:
        return self.shared_bytes > self.shared_limit

    @property
    def wall(self) -> str | None:
        """Why T cannot run on the device (every reason), or None."""
        reasons = []
        if self.over_threads:
            reasons.append(f"T={self.T} needs {self.threads:,} threads per block; the limit is {self.thread_limit:,}")
        if self.over_shared:
            reasons.append(
                f"its two tiles need {self.shared_bytes:,} bytes of shared memory; the limit is {self.shared_limit:,}"
            )
        return "; ".join(reasons) or None


def sweep(N: int, device: Device, Ts: range) -> list[SweepPoint]:
    """Global-load reduction of tiling over naive for each T, with the device's thread and shared-memory limits."""
    naive = naive_loads(N, N, N)
    return [
        SweepPoint(
            T,
            naive / tiled_loads(N, N, N, T),
            T * T,
            tile_shared_bytes(T),
            device.thread_limit,
            device.shared_limit_bytes,
        )
        for T in Ts
    ]


def largest_tile(device: Device) -> int:
    """The largest T whose T×T block and two T×T tiles fit the device."""
    T = 1
    while (T + 1) ** 2 <= device.thread_limit and tile_shared_bytes(T + 1) <= device.shared_limit_bytes:
        T += 1
    return T
