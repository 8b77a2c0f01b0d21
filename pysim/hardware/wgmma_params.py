"""Parameters of the Hopper kernel (pysim/kernels/k13_wgmma.py): BM×BN block tiles computed by `consumers`
warpgroups with wgmma.mma_async m64nBNk8 (TF32), fed by one producer thread's TMA copies through `stages`
shared-memory buffers with the 128-byte swizzle; each rule refused with a message naming the parameter.

Sources of the rules: PTX ISA, "wgmma.mma_async" (shapes m64nNk8 for .tf32, N a multiple of 8 up to 256;
.tf32 operands K-major only) and "Matrix Descriptor" (the 128-byte swizzle: rows of 128 bytes); CUDA Driver
API, cuTensorMapEncodeTiled (every box dimension at most 256; with CU_TENSOR_MAP_SWIZZLE_128B the box's inner
dimension at most 128 bytes; global strides multiples of 16 bytes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil
from typing import ClassVar

from ..core.constants import WORD_BYTES
from .blocktile_params import _require
from .devices import DEVICES, device
from .params import Params, _check_threads, _int
from .pipelined_params import COMPUTE_CAPABILITY, require_stages_fit

WGMMA_ARCH = 90
"""wgmma.mma_async needs sm_90a: Hopper only (PTX ISA, "wgmma.mma_async": "requires sm_90a"; Blackwell's sm_100
has tcgen05.mma instead). cp.async.bulk.tensor (TMA) needs sm_90 or later; the kernel needs both."""

WGMMA_M, WGMMA_K, WGMMA_N_STEP, WGMMA_N_MAX = 64, 8, 8, 256
"""wgmma.mma_async.m64nNk8 with .tf32 operands: 64 rows, k of 8, N in steps of 8 up to 256."""

WARPGROUP = 128  # four consecutive warps
SWIZZLE_BYTES = 128  # CU_TENSOR_MAP_SWIZZLE_128B, and the descriptor's 128-byte swizzle mode
BOX_MAX = 256  # cuTensorMapEncodeTiled: boxDim[i] <= 256
SWIZZLE_ROW = SWIZZLE_BYTES // WORD_BYTES
"""Floats in a 128-byte swizzled row: a K-major tile with the 128-byte swizzle is BK = 32 floats wide. Wider, the
TMA box's inner dimension would pass the swizzle's 128 bytes; narrower, the tile would need the 64- or 32-byte
swizzle mode (PTX ISA, "Matrix Descriptor"), which this kernel does not offer."""
TMA_STRIDE_FLOATS = 4  # a tensor map's global stride (a row of A or Bt, K floats) is a multiple of 16 bytes
BARRIER_BYTES = 8  # one mbarrier: a 64-bit word in shared memory
REGISTER_FILE = 65_536  # 32-bit registers per SM, compute capability 9.0 (CUDA C++ Programming Guide, limits table)
PRODUCER_REGISTERS = 40
"""What the producer warpgroup keeps after `setmaxnreg.dec` (its one copying thread needs few; DeepGEMM's and
CUTLASS's warp-specialized Hopper kernels keep 40) so that the consumers may take the rest."""
WGMMA_OPERANDS, LISTING_REGISTERS = 26, 32
"""Registers beyond the accumulators, measured with nvcc 13.5 for sm_90a (-O3) on this listing at the tiles in
tests/unit/test_wgmma_sass.py: one wgmma.m64nNk8 needs N/2 + 26 within what a thread launches with, or ptxas stops
("Insufficient registers (128) ... Try to compile with register target of 146": 3 consumers, BN=240; 154 at 256,
98 and 106 at 4 consumers, BN=144 and 160); a consumer spills (STL/LDL in the SASS) once its accumulators pass
setmaxnreg's count less 32 (1 consumer, 248 registers: 216 clean, 224 spill; 2 consumers, 232: 200 clean, 208
spill)."""


@dataclass(frozen=True)
class WgmmaParams(Params):
    """A BM×BN block tile: `consumers` warpgroups of BM/consumers rows each, BK-deep slices in `stages` buffers."""

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {
        label: dict(zip(("M", "N", "K", "BM", "BN", "BK", "stages", "consumers"), values))
        for label, values in (
            (
                "teaching: 64×32×64, BM=64, BN=32, BK=32, 2 stages, one consumer warpgroup",
                (64, 32, 64, 64, 32, 32, 2, 1),
            ),
            (
                "production: 256³, BM=BN=128, BK=32, 4 stages, two consumer warpgroups",
                (256, 256, 256, 128, 128, 32, 4, 2),
            ),
        )
    }

    M: int = _int(64)
    N: int = _int(64)
    K: int = _int(64)
    BM: int = _int(64, high=1024)
    BN: int = _int(64, high=1024)
    BK: int = _int(32, high=1024)
    stages: int = _int(2, low=1, high=8)
    consumers: int = _int(1, low=1, high=4, label="consumer warpgroups")
    device: str = field(default="h100", metadata={"choices": tuple(DEVICES), "label": "device preset"})

    def check(self) -> None:
        found = COMPUTE_CAPABILITY[self.device]
        _require(
            "device",
            found == WGMMA_ARCH,
            f"device: the {device(self.device).name} is compute capability {found // 10}.{found % 10}; wgmma.mma_async "
            "needs 9.0 (sm_90a, Hopper only; its TMA copies need 9.0 or later), so this kernel cannot run there",
        )
        _require(
            "BK",
            self.BK % WGMMA_K == 0,
            f"BK={self.BK} is not a multiple of {WGMMA_K}, the k of wgmma.m64nNk8 (TF32): a tile is whole k-steps",
        )
        _require(
            "BK",
            self.BK == SWIZZLE_ROW,
            f"BK={self.BK}: this kernel uses the 128-byte swizzle, whose row of the K-major tile is {SWIZZLE_BYTES} "
            f"bytes, BK = {SWIZZLE_ROW} floats ("
            + (
                "the TMA box's inner dimension may not pass the swizzle's 128 bytes)"
                if self.BK > SWIZZLE_ROW
                else "a narrower tile would need the 64- or 32-byte swizzle mode, not offered here)"
            ),
        )
        _require(
            "BN",
            self.BN % WGMMA_N_STEP == 0 and self.BN <= WGMMA_N_MAX,
            f"BN={self.BN} is not a wgmma N: wgmma.m64nNk8 takes N a multiple of {WGMMA_N_STEP} up to {WGMMA_N_MAX}",
        )
        rows = WGMMA_M * self.consumers
        _require(
            "BM",
            self.BM % rows == 0,
            f"BM={self.BM} is not a multiple of 64·consumers = {rows}: each of the {self.consumers} consumer "
            f"warpgroups takes BM/consumers rows, whole m64 tiles of wgmma",
        )
        _require(
            "BM", self.BM <= BOX_MAX, f"BM={self.BM}: a TMA box is at most {BOX_MAX} rows (cuTensorMapEncodeTiled)"
        )
        _check_threads("consumers", f"{self.consumers} consumer warpgroups and a producer", self.threads, self.device)
        _require(
            "K",
            self.K % TMA_STRIDE_FLOATS == 0,
            f"K={self.K} is not a multiple of 4: a tensor map's row stride (K floats of A and of Bt) must be a "
            "multiple of 16 bytes",
        )
        _require("N", self.N % 2 == 0, f"N={self.N} is odd: each lane stores its accumulators as float2 pairs")
        self._check_registers()
        self._check_shared()

    def _check_registers(self) -> None:
        """What ptxas can allocate, measured (WGMMA_OPERANDS, LISTING_REGISTERS): one wgmma's accumulators within
        the registers a thread launches with, all of a consumer's within what setmaxnreg gives it."""
        launch, half = self.launch_registers, self.BN // 2
        _require(
            "BN",
            half + WGMMA_OPERANDS <= launch,
            f"BN={self.BN}: one wgmma.m64n{self.BN}k8 holds {half} accumulators of each thread, and ptxas needs about "
            f"{WGMMA_OPERANDS} registers more beside them: {half + WGMMA_OPERANDS}, while a thread of the "
            f"{self.threads} launches with {launch} (nvcc stops: 'Insufficient registers'); a smaller BN or fewer "
            "consumers",
        )
        limit, needed = self.consumer_registers, self.accumulators + LISTING_REGISTERS
        _require(
            "BN",
            needed <= limit,
            f"BN={self.BN}: each consumer thread holds {self.MITER}×{half} = {self.accumulators} accumulators "
            f"(BM/consumers = {self.rows_per_consumer} rows), and the listing needs about {LISTING_REGISTERS} "
            f"registers more (addresses, counters, barrier phases, the stores' indices): {needed}; with "
            f"{self.consumers} consumer warpgroup(s) setmaxnreg gives a consumer thread {limit}, and ptxas would "
            "spill the rest to local memory (more consumers or a smaller tile)",
        )

    @property
    def launch_registers(self) -> int:
        """Registers a thread launches with, one block an SM (`__launch_bounds__(threads, 1)`): the register file
        split among the block's threads, a multiple of 8 (the allocation unit), at most the thread limit."""
        return min(REGISTER_FILE // self.threads // 8 * 8, device(self.device).register_limit // 8 * 8)

    @property
    def consumer_registers(self) -> int:
        """What `setmaxnreg.inc` asks for each consumer thread, one block an SM: the block's register pool less
        the producer's share, split among the consumers, a multiple of 8 and at most the thread limit (PTX ISA,
        "setmaxnreg": 24 to 256, a multiple of 8). The pool is what the launch gave the block, not the whole
        register file: "A pool of available registers is maintained per-CTA ... setmaxnreg.inc blocks the
        execution until enough registers are available in the CTA's register pool", so asking for more than
        the pool holds waits forever (4 consumers: 640 threads launch with 96 registers each, 61,440 in all)."""
        limit = device(self.device).register_limit // 8 * 8
        pool = self.launch_registers * self.threads
        share = (pool - PRODUCER_REGISTERS * WARPGROUP) // (self.consumers * WARPGROUP) // 8 * 8
        return min(share, limit)

    def _check_shared(self) -> None:
        require_stages_fit(self, f"As[{self.BM}][{self.BK}] + Bs[{self.BN}][{self.BK}] + 2 mbarriers")

    @property
    def threads(self) -> int:
        """A producer warpgroup and the consumers."""
        return (1 + self.consumers) * WARPGROUP

    @property
    def rows_per_consumer(self) -> int:
        return self.BM // self.consumers

    @property
    def MITER(self) -> int:
        """m64 wgmmas a consumer issues per k-step."""
        return self.rows_per_consumer // WGMMA_M

    @property
    def accumulators(self) -> int:
        return self.MITER * self.BN // 2

    @property
    def stage_bytes(self) -> int:
        """What one stage's TMA copies write (zero-fill included): the mbarrier's expected transaction count."""
        return (self.BM + self.BN) * self.BK * WORD_BYTES

    @property
    def shared_bytes(self) -> int:
        return self.stages * (self.stage_bytes + 2 * BARRIER_BYTES)

    @property
    def tiles(self) -> int:
        return ceil(self.K / self.BK)

    @property
    def ksteps(self) -> int:
        return self.BK // WGMMA_K
