"""Global-memory races: write-write and read-modify-write by two threads (of one block, or of two blocks) without
an atomic are diagnosed like shared ones, and the C a run shows is one a GPU can leave (a lost update)."""

import numpy as np

from pysim.play import run

SPLIT_K = """from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    r = cuda.threadIdx.y
    c = cuda.threadIdx.x
    M, K = A.shape
    half = (K + 1) // 2
    start = cuda.blockIdx.x * half  # block 0 sums the first half of k, block 1 the second
    partial = float32(0.0)
    for k in range(start, min(start + half, K)):
        partial += A[r, k] * B[k, c]
    C[r, c] += partial  # the two blocks add into the same C without an atomic


def launch(M, N, K):
    return 2, (N, M)
"""


def one_block(body, block="(K, M)"):
    """A one-block kernel whose threads (tx, ty) = (column of A, row of A) run `body`."""
    return (
        "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
        "    tx = cuda.threadIdx.x\n    ty = cuda.threadIdx.y\n"
        + "".join(f"    {line}\n" for line in body)
        + f"\n\ndef launch(M, N, K):\n    return 1, {block}\n"
    )


def line_of(text, fragment):
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_split_k_without_atomics_is_a_lost_update_between_blocks():
    M, N, K = 3, 4, 6
    result = run(SPLIT_K, M, N, K)
    (race,) = result.diagnostics_of("race")
    assert race.line == race.other_line == line_of(SPLIT_K, "C[r, c] += partial")
    assert "lost update" in race.message and "global C[0, 0]" in race.message
    assert {race.block, (0, 0)} == {(1, 0), (0, 0)} and race.count == M * N
    assert "atomic" in race.message and "The C shown is one outcome" in race.message
    # Both blocks read C as zeros and block 1 stores last: C holds block 1's half only, never the full sum.
    half = (K + 1) // 2
    np.testing.assert_array_equal(result.C, result.A[:, half:] @ result.B[half:, :])
    assert not result.c_matches


def test_threads_of_one_block_adding_into_one_word_lose_updates():
    text = one_block(["C[0, 0] += A[ty, tx]"])
    result = run(text, 3, 2, 4)
    (race,) = result.diagnostics_of("race")
    assert "lost update" in race.message and "in block (0, 0)" in race.message
    assert race.line == line_of(text, "C[0, 0] +=")
    # Every thread read 0 before any stored; the last thread, (3, 2), stores last.
    expected = np.zeros((3, 2), dtype=np.float32)
    expected[0, 0] = result.A[2, 3]
    np.testing.assert_array_equal(result.C, expected)


def test_two_threads_storing_one_word_is_write_after_write():
    text = one_block(["C[0, 0] = A[ty, tx]"])
    result = run(text, 2, 2, 2)
    (race,) = result.diagnostics_of("race")
    assert "write-after-write" in race.message and "global C[0, 0]" in race.message
    assert result.C[0, 0] == result.A[1, 1]


def test_a_read_of_what_another_block_writes_races():
    text = (
        "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
        "    if cuda.blockIdx.x == 0:\n        C[0, 0] = A[0, 0]\n"
        "    else:\n        C[0, 1] = C[0, 0]\n"
        "\n\ndef launch(M, N, K):\n    return 2, 1\n"
    )
    result = run(text, 2, 2, 2)
    (race,) = result.diagnostics_of("race")
    assert "read-write" in race.message and race.block == (1, 0) and race.line == line_of(text, "C[0, 1] = C[0, 0]")
    assert result.C[0, 1] == 0  # shown: block 1 read C[0, 0] before block 0 stored it


def test_a_barrier_orders_the_threads_of_a_block():
    text = one_block(
        [
            "if tx == 0 and ty == 0:",
            "    C[0, 0] = A[1, 1]",
            "cuda.syncthreads()",
            "if tx == 1 and ty == 0:",
            "    C[0, 1] = C[0, 0]",
        ]
    )
    result = run(text, 2, 2, 2)
    assert not result.diagnostics_of("race")
    assert result.C[0, 1] == result.A[1, 1]


def test_without_the_barrier_it_is_a_read_after_write_race():
    text = one_block(
        ["if tx == 0 and ty == 0:", "    C[0, 0] = A[1, 1]", "if tx == 1 and ty == 0:", "    C[0, 1] = C[0, 0]"]
    )
    result = run(text, 2, 2, 2)
    (race,) = result.diagnostics_of("race")
    assert "read-after-write" in race.message and "global C[0, 0]" in race.message
    assert result.C[0, 1] == 0  # shown: the read came before the store


def test_loads_of_a_and_b_by_every_block_are_not_races():
    text = (
        "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
        "    r, c = cuda.grid(2)\n    if r < C.shape[0] and c < C.shape[1]:\n        C[r, c] = A[0, 0] + B[0, 0]\n"
        "\n\ndef launch(M, N, K):\n    return (M, N), 1\n"
    )
    result = run(text, 3, 3, 2)
    assert not result.diagnostics


def test_atomic_adds_are_not_races_and_keep_every_update():
    text = SPLIT_K.replace("C[r, c] += partial", "cuda.atomic.add(C, (r, c), partial)")
    result = run(text, 3, 4, 6)
    assert not result.diagnostics and result.c_matches
    assert result.counters.atomics == 2 * 3 * 4  # one per thread of the two blocks of 4×3 threads
