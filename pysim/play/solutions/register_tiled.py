"""2D register tiling (kernel 3, `k03_register_tiled`), as a playground file.

A block computes a BM×BN tile of C with (BM/TM)·(BN/TN) threads, each owning a
TM×TN patch. For every dotIdx a thread copies TM values of a column of As into
regM and TN values of a row of Bs into regN, then does TM·TN multiply-adds from
registers alone: (TM+TN) shared reads for TM·TN FMAs.
"""

from numba import cuda, float32

BM = 32
BN = 32
BK = 8
TM = 4
TN = 4
COLS = BN // TN  # threads along a row of the block tile
THREADS = (BM // TM) * (BN // TN)


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((BM, BK), float32)
    Bs = cuda.shared.array((BK, BN), float32)
    threadResults = cuda.local.array(TM * TN, float32)
    regM = cuda.local.array(TM, float32)
    regN = cuda.local.array(TN, float32)
    M, K = A.shape
    N = B.shape[1]
    tid = cuda.threadIdx.x
    tx = tid % COLS
    ty = tid // COLS
    for i in range(TM * TN):
        threadResults[i] = float32(0.0)
    for bkIdx in range(0, K, BK):
        for i in range(tid, BM * BK, THREADS):  # cooperative load of As
            r = cuda.blockIdx.y * BM + i // BK
            c = bkIdx + i % BK
            As[i // BK, i % BK] = A[r, c] if r < M and c < K else float32(0.0)
        for i in range(tid, BK * BN, THREADS):  # cooperative load of Bs
            r = bkIdx + i // BN
            c = cuda.blockIdx.x * BN + i % BN
            Bs[i // BN, i % BN] = B[r, c] if r < K and c < N else float32(0.0)
        cuda.syncthreads()
        for dotIdx in range(BK):
            for i in range(TM):
                regM[i] = As[ty * TM + i, dotIdx]
            for j in range(TN):
                regN[j] = Bs[dotIdx, tx * TN + j]
            for i in range(TM):
                for j in range(TN):
                    threadResults[i * TN + j] += regM[i] * regN[j]
        cuda.syncthreads()  # stops fast threads overwriting As/Bs that slow threads still read
    for i in range(TM):
        for j in range(TN):
            r = cuda.blockIdx.y * BM + ty * TM + i
            c = cuda.blockIdx.x * BN + tx * TN + j
            if r < M and c < N:
                C[r, c] = threadResults[i * TN + j]


def launch(M, N, K):
    return ((N + BN - 1) // BN, (M + BM - 1) // BM), THREADS
