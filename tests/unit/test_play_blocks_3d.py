"""3-D blocks and grids (issue 43): cuda.threadIdx.z, blockDim.z, cuda.grid(3), cuda.gridsize(3) and a launch of
3-tuples run as under Numba's CUDA simulator: C bit for bit, and the global loads and stores the simulator made
(counted in tests/unit/play/numba_count_harness.py) equal pysim's. Warps are formed in x, then y, then z (CUDA
C++ Programming Guide, "Thread Hierarchy": a thread's ID is x + y·Dx + z·Dx·Dy; consecutive IDs share a warp)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from test_play_numba import under_numba

from pysim.core.matrices import operands
from pysim.play import ProgramError, run
from pysim.play.launch import Launch, block_number, block_xy, linear_thread, thread_xy

FIXTURE = Path(__file__).parent / "play" / "blocks_3d.py"
HARNESS = Path(__file__).parent / "play" / "numba_count_harness.py"
SIZES = [(7, 11, 5), (4, 9, 3)]  # M not a multiple of the grid's rows, N not of BX
numba_needed = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")


def expected(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """A·B plus 1000 × the lanes of each element's four z slices: lane (tx + 2·8·tz + 8·ty) mod 32."""
    M, N = A.shape[0], B.shape[1]
    tx, ty = np.arange(N) % 8, (np.arange(M) % 2)[:, None]
    lanes = sum((tx + 8 * ty + 16 * tz) % 32 for tz in range(4))
    return (A @ B + 1000 * lanes).astype(np.float32)


@numba_needed
def test_a_3d_kernel_gives_numbas_c_and_global_counts():
    cases = []
    for M, N, K in SIZES:
        A, B = operands(M, N, K)
        cases.append({"file": str(FIXTURE), "M": M, "N": N, "K": K, "A": A.tolist(), "B": B.tolist()})
    for (M, N, K), numba in zip(SIZES, under_numba(HARNESS, cases)):
        ours = run(FIXTURE.read_text(), M, N, K, expected=expected)
        assert ours.c_matches and not ours.diagnostics, ours.diagnostics
        np.testing.assert_array_equal(np.array(numba["C"], dtype=np.float32), ours.C)
        assert (numba["loads"], numba["stores"]) == (ours.counters.global_loads, ours.counters.global_stores)
        assert ours.counters.global_loads == 2 * M * N * K and ours.launch.block == (8, 2, 4)


def test_thread_and_block_ids_run_x_then_y_then_z():
    launch = Launch((3, 2, 2), (8, 2, 4))
    assert thread_xy(launch, 8 + 16 * 2 + 5) == (5, 1, 2) and linear_thread(launch, (5, 1, 2)) == 45
    assert block_xy(launch, 3 + 6 + 1) == (1, 1, 1) and block_number(launch, (1, 1, 1)) == 10
    two_d = Launch((3, 2), (8, 2))  # a 2-D launch keeps its (x, y) pairs
    assert thread_xy(two_d, 9) == (1, 1) and block_xy(two_d, 4) == (1, 1)


def test_a_race_between_z_slices_names_three_coordinates():
    text = FIXTURE.read_text().replace("    cuda.syncthreads()\n", "")
    races = run(text, 7, 11, 5).diagnostics_of("race")
    assert races and len(races[0].thread) == 3 and len(races[0].block) == 3, races


@pytest.mark.parametrize(
    "returned,fragment",
    [("1, (1, 1, 65)", "blockDim.z = 65, but CUDA allows at most 64"), ("(1, 1, 70000), 1", "gridDim.z = 70,000")],
)
def test_a_3d_launch_past_cudas_limits_is_refused(returned, fragment):
    text = FIXTURE.read_text().split("def launch")[0] + f"def launch(M, N, K):\n    return {returned}\n"
    with pytest.raises(ProgramError) as caught:
        run(text, 1, 1, 1)
    assert fragment in caught.value.message, caught.value.message


WARP_OF_SLICE = """from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    tz = cuda.threadIdx.z
    first = cuda.shfl_sync(0xffffffff, tz, 0)
    C[tz, cuda.threadIdx.x + 4 * cuda.threadIdx.y] = float32(first * 100 + cuda.laneid)


def launch(M, N, K):
    return 1, (4, 2, 8)
"""


def test_warps_fill_x_then_y_then_z():
    """Block (4, 2, 8): slices 0 to 3 are warp 0 and 4 to 7 warp 1, so lane 0 of each warp has tz 0 or 4, and the
    thread (x, y, z) is lane (x + 4y + 8z) mod 32."""
    tz, xy = np.arange(8)[:, None], np.arange(8)[None, :]
    want = (tz // 4 * 4 * 100 + (xy + 8 * tz) % 32).astype(np.float32)
    result = run(WARP_OF_SLICE, 8, 8, 1, expected=lambda A, B: want)
    assert result.c_matches and not result.diagnostics, (result.C, result.diagnostics)
