"""One C element per thread, with a thread-dependent `if` inside a loop and a loop whose trip count depends on
the thread: the lanes of a warp issue a load together only in the same iteration (lockstep)."""

from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    col, row = cuda.grid(2)
    M, K = A.shape
    N = B.shape[1]
    if row < M and col < N:
        total = float32(0.0)
        for k in range(K):
            if (col + k) % 3 == 0:  # lanes take turns: a third of the warp in each iteration
                total += A[row, k] * B[k, col]
        k = col % 4
        while k < K:  # lanes start at different k, so iteration i reads different rows of B
            total += B[k, col]
            k += 1
        C[row, col] = total


def launch(M, N, K):
    return ((N + 15) // 16, (M + 3) // 4), (16, 4)
