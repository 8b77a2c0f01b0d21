"""The counters of SPEC §2, as one frozen value that adds up."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class Counters:
    """Cumulative event counts of a kernel run (see SPEC §2 for each definition)."""

    global_loads: int = 0
    global_stores: int = 0
    shared_loads: int = 0
    shared_stores: int = 0
    register_reads: int = 0
    fma: int = 0
    barriers: int = 0
    global_sectors: int = 0
    bank_extra_cycles: int = 0
    shared_wavefronts: int = 0
    atomics: int = 0  # cuda.atomic.* calls executed (playground); each is also one load and one store
    # SPEC §7, the kernels past siboehm's: zero in every kernel that does not use the instruction.
    mma_instructions: int = 0  # warp-wide tensor-core instructions (mma.sync, wgmma)
    async_copy_bytes: int = 0  # bytes cp.async wrote into shared memory, zero-fills included
    tma_bytes: int = 0  # bytes the tensor memory accelerator copied (cp.async.bulk.tensor)
    mbarrier_waits: int = 0  # waits on a shared-memory barrier object (mbarrier.try_wait)

    def __add__(self, other: Counters) -> Counters:
        return Counters(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


PAST_SIBOEHM = ("mma_instructions", "async_copy_bytes", "tma_bytes", "mbarrier_waits")
"""The counters only tensor-core and asynchronous-copy kernels make non-zero (SPEC §7)."""

COUNTER_LABELS = {
    "global_loads": "global loads",
    "global_stores": "global stores",
    "shared_loads": "shared loads",
    "shared_stores": "shared stores",
    "register_reads": "register reads",
    "fma": "FMAs",
    "barriers": "barriers",
    "global_sectors": "global sectors",
    "bank_extra_cycles": "bank-conflict cycles",
    "shared_wavefronts": "shared wavefronts",
    "atomics": "atomics",
    "mma_instructions": "MMA instructions",
    "async_copy_bytes": "async-copy bytes",
    "tma_bytes": "TMA bytes",
    "mbarrier_waits": "mbarrier waits",
}
