"""3-D blocks and grids under real Numba and pysim alike: cuda.threadIdx.z, blockIdx.z, blockDim.z, cuda.grid(3),
cuda.gridsize(3) and a launch of 3-tuples. Each block's z slices split the k loop of one C element and meet in
shared memory (2-D arrays: the playground's shared arrays have one or two dimensions); the grid's z layers cover further rows. C adds 1000 × the lanes of the element's BZ threads, so
a warp formed in another order than x, then y, then z changes C."""

from numba import cuda, float32

BX = 8
BY = 2
BZ = 4  # 64 threads: slices 0 and 1 are warp 0, slices 2 and 3 warp 1


@cuda.jit
def kernel(A, B, C):
    x, y, z = cuda.grid(3)
    width, height, depth = cuda.gridsize(3)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tz = cuda.threadIdx.z
    part = cuda.shared.array((BZ * BY, BX), float32)
    lanes = cuda.shared.array((BZ * BY, BX), float32)
    row = y + cuda.blockIdx.z * height
    col = x
    M, K = A.shape
    acc = float32(0.0)
    if row < M and col < C.shape[1] and z < depth:
        for k in range(tz, K, cuda.blockDim.z):
            acc += A[row, k] * B[k, col]
    part[tz * BY + ty, tx] = acc
    lanes[tz * BY + ty, tx] = float32(cuda.laneid)
    cuda.syncthreads()
    if tz == 0 and row < M and col < C.shape[1]:
        total = part[ty, tx]
        lane_sum = lanes[ty, tx]
        for s in range(1, cuda.blockDim.z):
            total += part[s * BY + ty, tx]
            lane_sum += lanes[s * BY + ty, tx]
        C[row, col] = total + float32(1000.0) * lane_sum


def launch(M, N, K):
    rows = (M + BY - 1) // BY
    return ((N + BX - 1) // BX, (rows + 1) // 2, 2), (BX, BY, BZ)
