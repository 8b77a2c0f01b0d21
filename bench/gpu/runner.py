"""The runner's CUDA source: a kernel's listing exactly as the page shows it, the host's fill of A and B and check of
C (`host`, C++ that needs no GPU), and a main() that launches the kernel as the listing says, times it with CUDA
events (after 100 ms of launches, so the clocks have risen; at least 200 ms timed), and checks C before it
reports a time.

A and B hold small integers from a hash of the index (A: -3..3, B: -2..2), so every product and every partial sum
up to K = 2^21 is an integer below 2^24: exact in FP32 whatever the order of the additions and whether they are
fused, and the operands are exact in TF32 (the tensor-core kernels). C therefore equals A·B *exactly*, and the
check compares with `!=`: C's first and last entries and CHECKED spread between them against float64 dot
products, and every row's and column's weighted sum against the host's (GEMM_CHECK); the transpose's every entry.
C is filled with NaN (all bits set) before the first launch, so an entry no thread writes fails too. A runner whose
C is wrong exits 1 naming the first wrong entry or sum and prints no time: the time of a wrong kernel measures
nothing.
"""

from __future__ import annotations

import re
from typing import Any

from pysim.kernels import Kernel

BLOCK_DIM = re.compile(r"blockDim = \((\d+), (\d+)\)")
SIGNATURE = re.compile(r"__global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(([^)]*)\)")
CHECKED = 512

# The host's half that needs no GPU: the fill of A and B and the check of C (tests/unit/test_bench_gpu.py compiles it
# with a host-made C, right and wrong, and g++).
HOST = """
#include <cmath>
#include <cstdio>
#include <cstdlib>
// Small integers with no pattern a wrong index could match (i % 7 repeats rows and makes A and B symmetric at
// some sizes, so a kernel reading B^T, or a transpose that copies, passed).
static float fill(size_t i, unsigned seed, unsigned range) {{
  unsigned h = (unsigned)i * 0x9E3779B1u ^ seed;
  h ^= h >> 15; h *= 0x85EBCA77u; h ^= h >> 13; h *= 0xC2B2AE35u; h ^= h >> 16;
  return (float)(h % range) - (float)(range / 2);
}}
static long check(const float *hA, const float *hB, const float *hC) {{
  const size_t c = {c_size}, cols = {cols};
  long wrong = 0;
{check}
  return wrong;
}}
"""
MAIN = """
{includes}
static int failed(const char *what) {{
  cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess) return 0;
  fprintf(stderr, "CUDA error %s: %s\\n", what, cudaGetErrorString(error));
  return 1;
}}
int main(int argc, char **argv) {{
  const int asked = argc > 1 ? atoi(argv[1]) : 10;
  const size_t a = {a_size}, b = {b_size}, c = {c_size};
  float *hA = (float *)malloc(a * sizeof(float)), *hB = (float *)malloc(b * sizeof(float));
  float *hC = (float *)malloc(c * sizeof(float));
  for (size_t i = 0; i < a; ++i) hA[i] = fill(i, 1, 7);  // -3..3
  for (size_t i = 0; i < b; ++i) hB[i] = fill(i, 2, 5);  // -2..2
  float *A, *B, *C;
  cudaMalloc(&A, a * sizeof(float)); cudaMalloc(&B, b * sizeof(float)); cudaMalloc(&C, c * sizeof(float));
  cudaMemcpy(A, hA, a * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB, b * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(C, 0xFF, c * sizeof(float));  // NaN: an entry no launch writes cannot pass the check
  if (failed("before the launch")) return 1;
{prelaunch}
  dim3 grid({grid_x}, {grid_y}), block({block_x}, {block_y});
  {name}<<<grid, block, {dynamic}>>>({arguments});
  cudaDeviceSynchronize();
  if (failed("in the first launch")) return 1;
  // One launch timed sizes the rest: launches for 100 ms to let the clocks rise from idle, then at least
  // `asked` timed launches and at least 200 ms of them.
  cudaEvent_t start, stop;
  cudaEventCreate(&start); cudaEventCreate(&stop);
  cudaEventRecord(start);
  {name}<<<grid, block, {dynamic}>>>({arguments});
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float one = 0;
  cudaEventElapsedTime(&one, start, stop);
  const int warm = (int)ceil(100.0 / fmax(one, 1e-3)), reps = (int)fmax(asked, ceil(200.0 / fmax(one, 1e-3)));
  for (int r = 0; r < warm; ++r) {name}<<<grid, block, {dynamic}>>>({arguments});
  cudaEventRecord(start);
  for (int r = 0; r < reps; ++r) {name}<<<grid, block, {dynamic}>>>({arguments});
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaMemcpy(hC, C, c * sizeof(float), cudaMemcpyDeviceToHost);
  if (failed("in the timed launches")) return 1;
  if (check(hA, hB, hC)) return 1;
  printf("{{\\"ms\\": %g, \\"reps\\": %d, \\"checked\\": \\"%s\\"}}\\n", ms / reps, reps, "{checked}");
  return 0;
}}
"""
# A GEMM's C is checked at CHECKED + 2 entries (the first, the last, and CHECKED spread between), each against a
# float64 dot product, and every row and column through weighted sums: sum_j C[i][j]·(1 + j % 3) against
# sum_k A[i][k]·(sum_j B[k][j]·(1 + j % 3)), and the same down the columns. Every term is an integer below 2^53,
# so float64 sums them exactly, and a NaN (an entry never written) fails its row. The transpose: every entry.
GEMM_CHECK = """  for (size_t s = 0; s < {checked} + 2; ++s) {{
    const size_t entry = s == 0 ? 0 : s == 1 ? c - 1 : (s * 2654435761u) % c, row = entry / cols, col = entry % cols;
    double want = 0;
    for (size_t k = 0; k < {K}; ++k) want += (double)hA[row * {K} + k] * hB[k * cols + col];
    if (hC[entry] != (float)want && wrong++ == 0)
      fprintf(stderr, "C[%zu][%zu] is %g where the host computes %g\\n", row, col, hC[entry], want);
  }}
  double *v = (double *)calloc({K}, sizeof(double)), *t = (double *)calloc({K}, sizeof(double));
  for (size_t k = 0; k < {K}; ++k)
    for (size_t j = 0; j < {N}; ++j) v[k] += (double)hB[k * {N} + j] * (1 + j % 3);
  for (size_t i = 0; i < {M}; ++i) {{
    double got = 0, want = 0;
    for (size_t j = 0; j < {N}; ++j) got += (double)hC[i * {N} + j] * (1 + j % 3);
    for (size_t k = 0; k < {K}; ++k) want += (double)hA[i * {K} + k] * v[k];
    for (size_t k = 0; k < {K}; ++k) t[k] += (double)hA[i * {K} + k] * (1 + i % 3);
    if (got != want && wrong++ == 0) fprintf(stderr, "row %zu of C sums to %g where the host's sums %g\\n", i, got, want);
  }}
  for (size_t j = 0; j < {N}; ++j) {{
    double got = 0, want = 0;
    for (size_t i = 0; i < {M}; ++i) got += (double)hC[i * {N} + j] * (1 + i % 3);
    for (size_t k = 0; k < {K}; ++k) want += t[k] * hB[k * {N} + j];
    if (got != want && wrong++ == 0) fprintf(stderr, "column %zu of C sums to %g where the host's sums %g\\n", j, got, want);
  }}
  if (wrong) fprintf(stderr, "C wrong at %ld of the entries and sums checked\\n", wrong);"""
TRANSPOSE_CHECK = """  for (size_t entry = 0; entry < c; ++entry) {{  // C = A^T, every entry
    const size_t row = entry / cols, col = entry % cols;
    if (hC[entry] != hA[col * cols + row] && wrong++ == 0)
      fprintf(stderr, "C[%zu][%zu] is %g where A^T has %g\\n", row, col, hC[entry], hA[col * cols + row]);
  }}"""

# The Hopper listing reads A and Bt (B transposed, N×K: wgmma takes TF32 operands K-major only) through tensor maps
# the host encodes: K-major boxes of BK × BM (A) and BK × BN (Bt) floats, 128-byte swizzle, zeros outside the
# matrix. cuTensorMapEncodeTiled is a driver function, found through the runtime so nothing links libcuda.
TENSOR_MAPS = """  float *hBt = (float *)malloc(b * sizeof(float)), *Bt;
  for (size_t k = 0; k < {K}; ++k)
    for (size_t j = 0; j < {N}; ++j) hBt[j * {K} + k] = hB[k * {N} + j];
  cudaMalloc(&Bt, b * sizeof(float));
  cudaMemcpy(Bt, hBt, b * sizeof(float), cudaMemcpyHostToDevice);
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult found;
  cudaError_t entry = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                                       cudaEnableDefault, &found);
  if (entry != cudaSuccess || encode == nullptr) {{
    fprintf(stderr, "CUDA error: no cuTensorMapEncodeTiled (%s)\\n", cudaGetErrorString(entry));
    return 1;
  }}
  CUtensorMap mapA, mapBt;
  auto tiled = [&](CUtensorMap *map, float *base, cuuint64_t rows, cuuint32_t boxRows) {{
    cuuint64_t dims[2] = {{{K}, rows}}, strides[1] = {{{K} * sizeof(float)}};
    cuuint32_t box[2] = {{{BK}, boxRows}}, steps[2] = {{1, 1}};
    return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, steps,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }};
  if (tiled(&mapA, A, {M}, {BM}) != CUDA_SUCCESS || tiled(&mapBt, Bt, {N}, {BN}) != CUDA_SUCCESS) {{
    fprintf(stderr, "cuTensorMapEncodeTiled refused a map\\n");
    return 1;
  }}"""


def host(kernel: Kernel, params: Any) -> str:
    """The fill of A and B and the check of C for these sizes: C++ that needs no GPU."""
    return _host(params, _transpose(_signature(kernel, kernel.source(params))[1]))


def _host(params: Any, transpose: bool) -> str:
    if transpose:
        return HOST.format(c_size=params.n * params.n, cols=params.n, check=TRANSPOSE_CHECK)
    check = GEMM_CHECK.format(M=params.M, N=params.N, K=params.K, checked=CHECKED)
    return HOST.format(c_size=params.M * params.N, cols=params.N, check=check)


def source(kernel: Kernel, params: Any) -> str:
    """The listing, the host's fill and check, and a main() that times the kernel and checks C (module docstring)."""
    listing = kernel.source(params)
    name, declared = _signature(kernel, listing)
    shape = BLOCK_DIM.search(listing[0])
    block = (int(shape.group(1)), int(shape.group(2))) if shape else (kernel.threads(params), 1)
    grid = kernel.grid(params)
    dynamic = getattr(params, "shared_bytes", 0) if "extern __shared__" in "\n".join(listing) else 0
    prelaunch = [
        f"  cudaFuncSetAttribute({name}, cudaFuncAttributeMaxDynamicSharedMemorySize, {dynamic});" if dynamic else ""
    ]
    includes, transpose = "", _transpose(declared)
    if transpose:  # C = A^T, n×n
        sizes, arguments, checked = (params.n * params.n,) * 3, f"{params.n}, A, C", "every entry"
    else:
        M, N, K = params.M, params.N, params.K
        sizes, arguments = (M * K, K * N, M * N), f"{M}, {N}, {K}, A, B, C"
        checked = f"{CHECKED + 2} entries, every row and column sum"
        if "CUtensorMap" in declared:
            includes = "#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled"
            prelaunch.insert(0, TENSOR_MAPS.format(M=M, N=N, K=K, BM=params.BM, BN=params.BN, BK=params.BK))
            arguments = f"{M}, {N}, {K}, mapA, mapBt, C"
    return "\n".join([*listing, _host(params, transpose)]) + MAIN.format(
        includes=includes,
        a_size=sizes[0],
        b_size=sizes[1],
        c_size=sizes[2],
        prelaunch="\n".join(line for line in prelaunch if line),
        grid_x=grid[0],
        grid_y=grid[1],
        block_x=block[0],
        block_y=block[1],
        name=name,
        dynamic=dynamic,
        arguments=arguments,
        checked=checked,
    )


def _signature(kernel: Kernel, listing: list[str]) -> tuple[str, str]:
    """The kernel's name and its declared parameters, from the listing's __global__ line."""
    match = SIGNATURE.search("\n".join(listing))
    if match is None:
        raise ValueError(f"{kernel.NAME}: no __global__ function in the listing")
    return match.group(1), match.group(2)


def _transpose(declared: str) -> bool:
    """Whether the kernel's declared parameters are the transpose's (C = A^T, n×n), not a GEMM's."""
    return declared.startswith("int n,")
