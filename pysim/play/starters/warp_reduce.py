"""Row sums: C[row, 0] = A[row, 0] + A[row, 1] + ... + A[row, K - 1] (C has one column)."""

from numba import cuda, float32

ROWS = 4  # rows per block: one warp of 32 lanes for each


@cuda.jit
def kernel(A, B, C):
    row = cuda.blockIdx.x * ROWS + cuda.threadIdx.y
    lane = cuda.laneid
    if row >= A.shape[0]:
        return
    # One lane sums the whole row: correct, but each warp load asks for one float (one sector per element).
    # TODO: let the 32 lanes read neighbouring elements (k = lane, lane + 32, ...), each keeping a partial
    # sum, then add the 32 partial sums with cuda.shfl_down_sync (offsets 16, 8, 4, 2, 1) and let lane 0 store.
    if lane == 0:
        acc = float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k]
        C[row, 0] = acc


def launch(M, N, K):
    return (M + ROWS - 1) // ROWS, (32, ROWS)
