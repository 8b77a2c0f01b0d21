"""Every limit a playground file and its run stay within, with where each number comes from.

The subset's checks (`pysim.play.policy`, `pysim.play.tokens`), the launch (`pysim.play.launch`), the
rewritten kernel's arithmetic (`pysim.play.guards`) and `run` (`pysim.play.execute`) read them here.
"""

from __future__ import annotations

from typing import Any

# --- the file, before it is parsed (pysim.play.tokens) -----------------------------------------------
MAX_SOURCE_BYTES = 32 * 1024  # a playground file is a page of code; a link holds at most this much
MAX_OPERATORS = 100  # in one statement: the longest in the reference solutions holds about 20
MAX_BRACKETS = 16  # open at once: the solutions need 3
MAX_BLOCKS = 16  # indented blocks inside one another: the solutions need 5

# --- numbers ---------------------------------------------------------------------------------------
INT_LIMIT = 1 << 63  # integers live in [-2**63, 2**63), Numba's int64

# --- the launch and its memory ----------------------------------------------------------------------
THREAD_LIMIT = 1024  # threads per block on every device TileLab models
# Blocks along gridDim.x, .y and .z, and local memory per thread: the CUDA C++ Programming Guide,
# "Technical Specifications per Compute Capability" (every compute capability from 7.5 to 12.0):
# "Maximum x -dimension of a grid of thread blocks 2^31-1", "Maximum y- or z-dimension ... 65535",
# "Maximum amount of local memory per thread 512 KB".
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#features-and-technical-specifications
GRID_LIMITS = (2**31 - 1, 65535, 65535)
BLOCK_LIMITS = (1024, 1024, 64)  # the same table: "Maximum x- or y-dimension of a block 1024", "z-dimension ... 64"
LOCAL_LIMIT_BYTES = 512 * 1024
SHARED_LIMIT_BYTES = 48 * 1024  # static shared memory per block (pysim.hardware.devices.STATIC_SHARED_KB)
# Threads of one launch, all blocks: each is simulated one by one (262,144 empty ones take about 2 s of
# CPython), and a 512×512 one-thread-per-element launch, twice the playground form's largest size, fits.
TOTAL_THREAD_LIMIT = 1 << 18

# --- the run ----------------------------------------------------------------------------------------
# Steps (statements executed, loop iterations and memory accesses, all threads) before a run is stopped. A
# 32×32×32 tiled SGEMM takes 170,000 to 245,000 (by tile size), a 64×64×64 naive one about 1,090,000, the
# 1D-blocktiling puzzle's 70×66×13 edge case about 1,670,000; the default keeps a runaway loop to a couple of
# seconds of CPython. The CLI allows more (`--max-steps`).
DEFAULT_MAX_STEPS = 2_500_000


def past_64_bits(power: bool, a: Any, b: Any) -> bool:
    """Whether `a ** b` (power) or `a << b` of whole numbers would pass 2**63, from bit lengths alone: decided
    before computing, since 3 ** 65536 has 100,000 bits (squaring it again freezes the page) and 1 << 10**8
    takes seconds."""
    if not (isinstance(a, int) and isinstance(b, int) and a and b > 0):
        return False
    if power:
        return abs(a) > 1 and (abs(a).bit_length() - 1) * b >= 64
    return abs(a).bit_length() + b > 64
