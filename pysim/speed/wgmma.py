"""KernelProfile of the Hopper kernel (pysim/kernels/k13_wgmma.py), beside mma.py's and pipelined.py's.

What differs from the mma.sync kernel's profile, each modelled, not read from SASS:
- the copies are TMA boxes (`cp.async.bulk.tensor.2d`, SASS UTMALDG): one instruction of one producer thread per
  box, two a stage. No lane issues an LDGSTS or an LDS for them and no L1 wavefront is charged (the TMA unit
  writes shared memory from L2; CUDA C++ Programming Guide, "Tensor Memory Access"); their global side is the
  distinct 32-byte sectors of the boxes (wgmma_layout.counters_for: L2 traffic), their shared side the box's
  bytes written at 128 bytes a clock (the L1TEX data path's width, model.py), zero fill included;
- wgmma reads A and B from shared memory through descriptors, not through lanes: no LDS, and with the 128-byte
  swizzle a core matrix is one wavefront (pysim/core/swizzle.py, brute-forced in the tests), so no bank-conflict
  cycle. The tensor core's read path from shared memory has no public rate, so those reads are not charged to
  the L1TEX unit (what the model leaves out);
- each wgmma.m64nBNk8 is one HGMMA warp instruction in each of the warpgroup's four warps, 16·BN·8 multiply-adds
  each, BN/8 m16n8k8's worth (KernelProfile.mma_size), on the tensor pipe at the card's dense TF32 rate, which
  NVIDIA's H100 figure is for (devices.py);
- the pipeline: the producer waits on a stage's empty mbarrier S tiles ahead, so S-1 tiles are in flight while
  one is computed (Launch.overlapped and steps_per_round = S-1, as pipelined.py's; with one stage nothing is in
  flight: each tile's round trip and its work add up); no __syncthreads in the loop (mbarriers instead): a
  consumer warp's other instructions a tile are its full-barrier wait, wgmma.fence,
  commit, wait and its release (5), the producer warp's its empty wait, arrive.expect_tx and the two copies;
- shared memory per block is `stages` buffers and their mbarriers (occupancy follows); registers as setmaxnreg
  shares them (40 for the producer, the rest for the consumers: one block an SM, wgmma_params.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from math import ceil

import numpy as np

from ..core.constants import WARP_SIZE
from ..core.fragments import MMA_N
from ..hardware.wgmma_params import PRODUCER_REGISTERS, WARPGROUP, WgmmaParams
from ..kernels import KERNELS
from ..kernels import wgmma_layout as layout
from .mma import _global
from .model import KernelProfile
from .profiles import C0, Launch, build
from .wavefronts import Instr

BOXES_PER_STAGE = 2  # one TMA box of A's BM×BK slice, one of Bt's BN×BK
SHARED_BYTES_PER_CLOCK = 128  # the L1TEX data path per SM (model.py: sourced for cc 7.x, assumed later)
CONSUMER_SYNC = 5  # per consumer warp a tile: try_wait on full, wgmma.fence, commit_group, wait_group, arrive on empty
PRODUCER_SYNC = 2  # per producer warp a tile: try_wait on empty, mbarrier.arrive.expect_tx (and the two copies)


def wgmma(p: WgmmaParams) -> KernelProfile:
    """k13: one producer thread's TMA boxes into `stages` buffers, consumer warpgroups' wgmma on the tensor cores."""
    warps_per_group = WARPGROUP // WARP_SIZE
    consumer_warps = p.consumers * warps_per_group
    warps = consumer_warps + warps_per_group
    counters = KERNELS["wgmma"].counters(p)

    def body(tid: np.ndarray, it: int) -> Iterator[Instr]:
        return iter(())  # no lane's memory instruction in the main loop: TMA copies, descriptor reads

    def epilogue(tid: np.ndarray) -> Iterator[Instr]:
        # Consumer warpgroup g holds rows g·BM/consumers.. of the tile (pysim/kernels/wgmma_layout.py `d_map`).
        d = layout.d_map(p.BN)
        for g in range(p.consumers):
            for mi in range(p.MITER):
                top = g * p.rows_per_consumer + mi * 64
                for h in range(p.BN // 2 // 2):  # float2 pairs d[2h], d[2h+1]
                    rows, cols = top + d[:, 2 * h, 0], d[:, 2 * h, 1]
                    addrs = _global(C0, np.zeros(WARPGROUP, dtype=bool), rows, cols, p.N).reshape(-1, WARP_SIZE)
                    # the producer warpgroup stores nothing: its warps' lanes idle
                    idle = np.full((warps - addrs.shape[0], WARP_SIZE), -1, dtype=np.int64)
                    rows_first = g * warps_per_group
                    yield "stg", 8, np.concatenate([idle[:rows_first], addrs, idle[rows_first:]])

    producer_other = PRODUCER_SYNC + BOXES_PER_STAGE
    launch = Launch(
        p.threads,
        (ceil(p.N / p.BN), ceil(p.M / p.BM)),
        p.BM,
        p.BN,
        p.tiles,
        0,
        0,
        (PRODUCER_REGISTERS + p.consumers * p.consumer_registers) // (1 + p.consumers),
        p.shared_bytes,
        steps_per_round=max(1, p.stages - 1),
        overlapped=p.stages > 1,  # one stage: the producer refills it only after the consumers release it
        # per warp, averaged over the block's warps (build multiplies by them): whole instructions in sum
        other_per_iteration=ceil((consumer_warps * CONSUMER_SYNC + producer_other) / warps),
    )
    prof = build(p.M, p.N, p.K, launch, body, epilogue)
    blocks = prof.blocks
    hgmma = counters.mma_instructions * warps_per_group  # one HGMMA per warp of the warpgroup
    return replace(
        prof,
        fma=counters.mma_instructions * layout.flops_per_wgmma(p) // 2,
        global_loads=blocks * p.tiles * BOXES_PER_STAGE,
        global_load_sectors=counters.global_sectors,
        shared_wavefronts=prof.shared_wavefronts + counters.tma_bytes // SHARED_BYTES_PER_CLOCK,
        mma=hgmma,
        mma_size=p.BN // MMA_N,  # a warp's 16×BN×8 share of m64nBNk8 is BN/8 m16n8k8's
    )
