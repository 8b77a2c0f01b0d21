"""Warp-level ordering (issue 43): a `cuda.syncwarp()` orders the shared accesses of the lanes in its mask (CUDA
C++ Programming Guide, `__syncwarp()`: "guarantees memory ordering among threads participating in the
barrier"), so an exchange between lanes of one warp is no race; without it, or between two warps, it is."""

import numpy as np

from pysim.play import run

HEAD = "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
EXCHANGE = """    t = cuda.threadIdx.x
    buf = cuda.shared.array(64, float32)
    buf[t] = A[0, t]
    cuda.syncwarp()
    C[0, t] = buf[t - t % 32 + (t + 1) % 32]
"""


def read_line(text: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith("    C[0, t] = buf["))


def exchange(body: str, threads: int = 64) -> str:
    return HEAD + body + f"\n\ndef launch(M, N, K):\n    return 1, {threads}\n"


def rotated(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Each lane's right neighbour in its warp, wrapping at the warp's end."""
    t = np.arange(64)
    return A[:1, t - t % 32 + (t + 1) % 32]


def test_an_exchange_within_a_warp_after_syncwarp_is_no_race():
    result = run(exchange(EXCHANGE), 1, 64, 64, expected=rotated)
    assert result.c_matches and not result.diagnostics, result.diagnostics


def test_the_same_exchange_without_syncwarp_is_a_race_at_the_read():
    text = exchange(EXCHANGE.replace("    cuda.syncwarp()\n", ""))
    races = run(text, 1, 64, 64, expected=rotated).diagnostics_of("race")
    assert races and all(race.line == read_line(text) for race in races), races
    assert "read-after-write" in races[0].message and "cuda.syncwarp()" in races[0].message


def test_a_syncwarp_does_not_order_two_warps():
    body = EXCHANGE.replace("buf[t - t % 32 + (t + 1) % 32]", "buf[(t + 32) % 64]")
    text = exchange(body)
    races = run(text, 1, 64, 64, expected=lambda A, B: A[:1, (np.arange(64) + 32) % 64]).diagnostics_of("race")
    assert races and races[0].line == read_line(text), races


def test_a_lane_left_out_of_the_mask_is_not_ordered():
    """Lanes 0..15 sync among themselves, 16..31 too (a valid pair of masks): lane 15 reading lane 16's word races."""
    body = EXCHANGE.replace("cuda.syncwarp()", "cuda.syncwarp(0xffff if t % 32 < 16 else 0xffff0000)")
    text = exchange(body, 32)
    races = run(text, 1, 32, 32).diagnostics_of("race")
    assert races and races[0].line == read_line(text), races
    assert "buf[16]" in races[0].message or "buf[0]" in races[0].message, races[0].message
