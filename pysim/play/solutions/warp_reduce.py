"""Row sums with a warp-shuffle reduction: one warp per row of A.

The 32 lanes read 32 neighbouring floats of the row at a time (coalesced), each keeping a partial sum; five
shfl_down_sync steps (offsets 16, 8, 4, 2, 1) add them in registers, with no shared memory and no atomic,
and lane 0 stores the row's sum.
"""

from numba import cuda, float32

ROWS = 4  # rows per block: warp y of the block takes row blockIdx.x·ROWS + y
FULL = 0xFFFFFFFF  # every lane of the warp takes part in each shuffle


@cuda.jit
def kernel(A, B, C):
    row = cuda.blockIdx.x * ROWS + cuda.threadIdx.y
    lane = cuda.laneid
    if row < A.shape[0]:  # a whole warp has one row: the lanes of a shuffle all get here together
        acc = float32(0.0)
        for k in range(lane, A.shape[1], cuda.warpsize):
            acc += A[row, k]
        offset = 16
        while offset > 0:
            acc += cuda.shfl_down_sync(FULL, acc, offset)
            offset //= 2
        if lane == 0:
            C[row, 0] = acc


def launch(M, N, K):
    return (M + ROWS - 1) // ROWS, (32, ROWS)
