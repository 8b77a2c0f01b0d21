"""The runner's CUDA source: a kernel's listing exactly as the page shows it, and a main() that launches it as the
listing says, times it with CUDA events, and checks C before it reports a time.

A and B hold small integers (A: -3..3, B: -2..2), so every product and every partial sum up to K = 2^21 is an
integer below 2^24: exact in FP32 whatever the order of the additions and whether they are fused, and the operands
are exact in TF32 (the tensor-core kernels). C therefore equals A·B *exactly*, and the check compares with `!=`:
C's first and last entries and CHECKED spread between them, each against a float64 dot product on the host. C is
filled with NaN (all bits set) before the first launch, so an entry no thread writes fails too. A runner whose C is
wrong exits 1 with the first wrong entry and prints no time: the time of a wrong kernel measures nothing.
"""

from __future__ import annotations

import re
from typing import Any

from pysim.kernels import Kernel

BLOCK_DIM = re.compile(r"blockDim = \((\d+), (\d+)\)")
SIGNATURE = re.compile(r"__global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(([^)]*)\)")
CHECKED = 512

MAIN = """
#include <cmath>
#include <cstdio>
#include <cstdlib>
{includes}
int main(int argc, char **argv) {{
  const int reps = argc > 1 ? atoi(argv[1]) : 10;
  const size_t a = {a_size}, b = {b_size}, c = {c_size}, cols = {cols};
  float *hA = (float *)malloc(a * sizeof(float)), *hB = (float *)malloc(b * sizeof(float));
  float *hC = (float *)malloc(c * sizeof(float));
  for (size_t i = 0; i < a; ++i) hA[i] = (float)(i % 7) - 3.0f;
  for (size_t i = 0; i < b; ++i) hB[i] = (float)(i % 5) - 2.0f;
  float *A, *B, *C;
  cudaMalloc(&A, a * sizeof(float)); cudaMalloc(&B, b * sizeof(float)); cudaMalloc(&C, c * sizeof(float));
  cudaMemcpy(A, hA, a * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB, b * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(C, 0xFF, c * sizeof(float));  // NaN: an entry no launch writes cannot pass the check
{prelaunch}
  dim3 grid({grid_x}, {grid_y}), block({block_x}, {block_y});
  {name}<<<grid, block, {dynamic}>>>({arguments});
  cudaEvent_t start, stop;
  cudaEventCreate(&start); cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int r = 0; r < reps; ++r) {name}<<<grid, block, {dynamic}>>>({arguments});
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaMemcpy(hC, C, c * sizeof(float), cudaMemcpyDeviceToHost);
  cudaError_t failed = cudaGetLastError();
  if (failed != cudaSuccess) {{ fprintf(stderr, "CUDA error: %s\\n", cudaGetErrorString(failed)); return 1; }}
  long wrong = 0;
  for (size_t s = 0; s < {checked} + 2; ++s) {{
    const size_t entry = s == 0 ? 0 : s == 1 ? c - 1 : (s * 2654435761u) % c, row = entry / cols, col = entry % cols;
    double want = 0;
    {reference}
    if (hC[entry] != (float)want && wrong++ == 0)
      fprintf(stderr, "C[%zu][%zu] is %g where the host computes %g\\n", row, col, hC[entry], want);
  }}
  if (wrong) {{ fprintf(stderr, "C wrong at %ld of %d entries checked\\n", wrong, {checked} + 2); return 1; }}
  printf("{{\\"ms\\": %g, \\"checked\\": %d}}\\n", ms / reps, {checked} + 2);
  return 0;
}}
"""
GEMM_REFERENCE = "for (size_t k = 0; k < {K}; ++k) want += (double)hA[row * {K} + k] * hB[k * cols + col];"
TRANSPOSE_REFERENCE = "want = hA[col * cols + row];  // C = A^T"

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


def source(kernel: Kernel, params: Any) -> str:
    """The listing and a main() that times it and checks C (see the module's docstring)."""
    listing = kernel.source(params)
    match = SIGNATURE.search("\n".join(listing))
    if match is None:
        raise ValueError(f"{kernel.NAME}: no __global__ function in the listing")
    name, declared = match.groups()
    shape = BLOCK_DIM.search(listing[0])
    block = (int(shape.group(1)), int(shape.group(2))) if shape else (kernel.threads(params), 1)
    grid = kernel.grid(params)
    dynamic = getattr(params, "shared_bytes", 0) if "extern __shared__" in "\n".join(listing) else 0
    prelaunch = [
        f"  cudaFuncSetAttribute({name}, cudaFuncAttributeMaxDynamicSharedMemorySize, {dynamic});" if dynamic else ""
    ]
    includes = ""
    if declared.startswith("int n,"):  # the transpose: C = A^T, n×n
        sizes, cols, arguments = (f"{params.n * params.n}",) * 3, params.n, f"{params.n}, A, C"
        reference = TRANSPOSE_REFERENCE
    else:
        M, N, K = params.M, params.N, params.K
        sizes, cols, arguments = (f"{M * K}", f"{K * N}", f"{M * N}"), N, f"{M}, {N}, {K}, A, B, C"
        reference = GEMM_REFERENCE.format(K=K)
        if "CUtensorMap" in declared:
            includes = "#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled"
            prelaunch.insert(0, TENSOR_MAPS.format(M=M, N=N, K=K, BM=params.BM, BN=params.BN, BK=params.BK))
            arguments = f"{M}, {N}, {K}, mapA, mapBt, C"
    return "\n".join(listing) + MAIN.format(
        includes=includes,
        a_size=sizes[0],
        b_size=sizes[1],
        c_size=sizes[2],
        cols=cols,
        prelaunch="\n".join(line for line in prelaunch if line),
        grid_x=grid[0],
        grid_y=grid[1],
        block_x=block[0],
        block_y=block[1],
        name=name,
        dynamic=dynamic,
        arguments=arguments,
        checked=CHECKED,
        reference=reference,
    )
