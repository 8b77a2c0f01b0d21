"""KernelProfile of pipelined warptiling (pysim/kernels/k11_pipelined.py), beside profiles.py's kernels.

What differs from kernel 10's profile, each modelled, not read from SASS:
- the copies are LDGSTS, whose global side is priced like an LDG of its width and whose shared side
  like an STS of its width (the write goes through the same shared-memory wavefronts): B in 16-byte
  copies, A in 4-byte copies that scatter each float to its transposed place in As (four LDG.32
  where warptiling had one LDG.128: more load instructions, no register staging);
- shared memory per block is `stages` copies of As and Bs, so fewer blocks may fit an SM;
- the overlap: S-1 tiles are in flight while one is computed, so a dependent global round trip
  is paid once per S-1 tiles (Launch.steps_per_round = S-1) instead of once per tile, and a round
  lasts the longer of its round trip and its work, not their sum (Launch.overlapped, model.py
  `_latency`): in steady state the copy of tile t+S-1 is issued S-1 tiles before it is needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import ceil

import numpy as np

from ..core.constants import WARP_SIZE, WORD_BYTES
from ..hardware.pipelined_params import PipelinedParams
from ..hardware.registers import RegisterBudget
from .model import KernelProfile
from .profiles import A0, B0, Launch, _strided_copy, build, warp_epilogue, warp_reads
from .wavefronts import Instr


def pipelined(p: PipelinedParams) -> KernelProfile:
    """Kernel 10's warp tiles and reads, fed by cp.async copies into `stages` buffers."""
    wmiter = (p.WM * p.WN) // (WARP_SIZE * p.TM * p.TN * p.WNITER)
    stage_bytes = (p.BM + p.BN) * p.BK * WORD_BYTES

    def body(tid: np.ndarray, it: int) -> Iterator[Instr]:
        As = (it % p.stages) * stage_bytes
        Bs = As + p.BM * p.BK * WORD_BYTES
        k0 = it * p.BK
        for ar, ac in _strided_copy(tid, p.threads, p.BM, p.BK // 4):
            for j in range(4):
                yield "ldg", 4, np.where(ar < 0, -1, A0 + (ar * p.K + k0 + 4 * ac + j) * WORD_BYTES)
                yield "sts", 4, np.where(ar < 0, -1, As + ((4 * ac + j) * p.BM + ar) * WORD_BYTES)
        for br, bc in _strided_copy(tid, p.threads, p.BK, p.BN // 4):
            yield "ldg", 16, np.where(br < 0, -1, B0 + ((k0 + br) * p.N + 4 * bc) * WORD_BYTES)
            yield "sts", 16, np.where(br < 0, -1, Bs + (br * p.BN + 4 * bc) * WORD_BYTES)
        yield from warp_reads(p, tid, As, Bs)

    launch = Launch(
        p.threads,
        (ceil(p.N / p.BN), ceil(p.M / p.BM)),
        p.BM,
        p.BN,
        ceil(p.K / p.BK),
        wmiter * p.TM * p.WNITER * p.TN * p.BK,
        2,
        RegisterBudget(wmiter * p.TM, p.WNITER * p.TN).total,
        p.stages * stage_bytes,
        steps_per_round=p.stages - 1,
        overlapped=True,
    )
    return build(p.M, p.N, p.K, launch, body, warp_epilogue(p))
