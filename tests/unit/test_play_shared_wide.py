"""3-D shared and local arrays, and 8-byte (float64, int64) shared arrays (issue 43 item 1), counted like the
rest; Numba's simulator gives the same C (tests/unit/test_play_subset3.py: shared_3d.py, shared_float64.py)."""

import numpy as np
import pytest

from pysim.play import ProgramError, run

HEAD = "from numba import cuda, float32, float64, int64\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
FIRST = HEAD.count("\n") + 1


def kernel(body: str, launch: str = "1, 32") -> str:
    return HEAD + body + f"\n\ndef launch(M, N, K):\n    return {launch}\n"


@pytest.mark.parametrize(
    "body,fragment",
    [
        ("    t = cuda.shared.array((2, 2, 2, 2), float32)\n", "one, two or three whole numbers"),
        ("    t = cuda.shared.array((2, 2, 2), float32)\n    t[0][1][1] = 1.0\n", "index a 3-D array as X[i, j, k]"),
    ],
)
def test_a_fourth_dimension_or_chained_3d_indexing_is_refused_with_the_line(body, fragment):
    with pytest.raises(ProgramError) as caught:
        run(kernel(body), 1, 1, 1)
    assert caught.value.line == FIRST + body.count("\n") - 1 and fragment in caught.value.message, caught.value


def test_a_3d_array_indexed_with_two_indices_or_out_of_bounds_is_a_diagnostic_with_the_line():
    body = "    t = cuda.shared.array((2, 2, 8), float32)\n    t[1, 1, cuda.threadIdx.x] = 1.0\n"
    (outside,) = run(kernel(body, "1, 9"), 1, 1, 1).diagnostics_of("out_of_bounds")
    assert outside.line == FIRST + 1 and "t[1, 1, 8]" in outside.message, outside.message
    (error,) = run(kernel(body.replace("t[1, 1, cuda", "t[1, cuda")), 1, 1, 1).diagnostics_of("error")
    assert error.line == FIRST + 1 and "t has 3 dimension(s) but is indexed with 2" in error.message


@pytest.mark.parametrize(
    "index,wavefronts",
    [
        ("t", 2),  # 16 lanes × 8 bytes fill the 32 banks once per half-warp
        ("2 * t", 4),  # every other element: each half-warp asks each bank for two words
        ("(t * 16) % 32", 4),  # elements 0 and 16 share banks 0 and 1 in each half-warp: 2-way
        ("t % 16", 2),  # both half-warps ask the same 16 elements: one phase each, no conflict
        ("0", 2),  # one element for all: a broadcast in each half-warp
    ],
)
def test_a_float64_shared_read_costs_a_wavefront_per_half_warp_and_bank_degree(index, wavefronts):
    """The 64-bit rule of pysim.core.banks (LDS.64: two half-warp phases, conflicts only within a phase)."""
    body = f"    t = cuda.threadIdx.x\n    s = cuda.shared.array(64, float64)\n    C[0, t] = s[{index}]\n"
    result = run(kernel(body), 1, 32, 1, expected=lambda A, B: np.full((1, 32), np.nan))
    assert (result.counters.shared_loads, result.counters.shared_wavefronts) == (32, wavefronts)
    assert result.counters.bank_extra_cycles == wavefronts - 2


def test_eight_byte_shared_arrays_count_eight_bytes_against_the_limit():
    body = "    s = cuda.shared.array(6200, float64)\n"
    with pytest.raises(ProgramError) as caught:
        run(kernel(body), 1, 1, 1)
    assert "49,600 bytes of shared memory" in caught.value.message, caught.value.message
    run(kernel(body.replace("6200, float64", "6200, float32")), 1, 1, 1)


def test_the_bank_picture_of_a_float64_read_shows_two_words_a_lane_in_its_cells():
    """The warp picture (pysim.core.lanes.warp_banks) of `s[(t * 16) % 32]`: each lane asks two 32-bit words,
    banks 0-1 and 32-33 of its element's, and each word is drawn in its element's cell."""
    body = "    t = cuda.threadIdx.x\n    s = cuda.shared.array(64, float64)\n    C[0, t] = s[(t * 16) % 32]\n"
    result = run(kernel(body), 1, 32, 1, expected=lambda A, B: np.full((1, 32), np.nan))
    (read,) = [i for i in result.warp_instructions(0) if not i.is_global]
    picture = read.banks()
    assert read.count == picture.report.degree == 2 and picture.wavefronts == 4
    assert picture.report.words_per_bank[0] == (0, 32) and picture.report.words_per_bank[1] == (1, 33)
    assert [picture.cell_of(word) for word in (0, 1, 32, 33)] == [(0, 0), (0, 0), (0, 16), (0, 16)]
