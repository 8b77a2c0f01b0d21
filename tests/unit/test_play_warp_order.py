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


# Lane 0 writes, lane 2 reads, lane 1 carries the order between two syncwarps (each naming its two lanes).
CHAIN = """    t = cuda.threadIdx.x
    buf = cuda.shared.array(32, float32)
    if t == 0:
        buf[0] = A[0, 0]
    if t < 2:
        cuda.syncwarp(0x3)
    if t == 1 or t == 2:
        cuda.syncwarp(0x6)
    if t == 2:
        C[0, 0] = buf[0]
"""


def chain_read_line(text: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.endswith("C[0, 0] = buf[0]"))


def test_a_chain_of_syncwarps_through_a_third_lane_orders_the_write_before_the_read():
    """The PTX memory model's base causality order is transitive: 0 -> (sync 0,1) -> 1 -> (sync 1,2) -> 2."""
    result = run(exchange(CHAIN, 32), 1, 1, 1, expected=lambda A, B: A[:1, :1])
    assert result.c_matches and not result.diagnostics, result.diagnostics


def test_a_chain_whose_middle_lane_syncs_with_the_reader_first_orders_nothing():
    """Lane 1 syncs with lane 2 before it syncs with lane 0: nothing leads from lane 0's write to lane 2's read."""
    first, second = (
        "    if t < 2:\n        cuda.syncwarp(0x3)\n",
        "    if t == 1 or t == 2:\n        cuda.syncwarp(0x6)\n",
    )
    text = exchange(CHAIN.replace(first + second, second + first), 32)
    assert text.index("cuda.syncwarp(0x6)") < text.index("cuda.syncwarp(0x3)")
    races = run(text, 1, 1, 1).diagnostics_of("race")
    assert races and races[0].line == chain_read_line(text), races
    assert "read-after-write" in races[0].message
