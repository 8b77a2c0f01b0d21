"""Where the walkthrough leads (issue 41 item 6): the reuse argument one level further, for the N and the device on
screen. Shared-memory tiling reuses each global load T times; register tiling reuses each shared-memory read across
a thread's TM×TN patch of C; a tensor core's mma.sync reuses each fragment register across a 16×8×8 tile shared by
the warp's 32 lanes, 1,024 multiply-adds an instruction where an FFMA does 32. The counts come from the kernels' own
closed forms (siboehm's 8×8 register tiling and the ladder's TF32 rung at N), the times from the speed model."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from ..core.constants import WARP_SIZE
from ..hardware.devices import Device, device
from ..hardware.params import ParamError
from ..kernels import KERNELS
from ..kernels.mma_layout import FLOPS_PER_MMA
from ..speed import SpeedReport, format_flops
from .ladder import LadderParams, production, report_for, tensor_rung

MMA_FMA = FLOPS_PER_MMA // 2  # multiply-adds one mma.m16n8k8 does for the whole warp


@dataclass(frozen=True)
class NextLevel:
    """Shared-memory reads per multiply-add with registers and with tensor-core fragments, and the model's times."""

    N: int
    device: Device
    register_reads: Fraction  # siboehm's 8×8 register tiling: shared loads per multiply-add
    fragment_reads: Fraction | None  # the ladder's TF32 rung: fragment loads per multiply-add (None: it cannot run)
    register: SpeedReport | str  # the speed model's estimate, or why there is none
    tensor: SpeedReport | str

    @property
    def fewer(self) -> Fraction | None:
        """How many times fewer shared reads per multiply-add the fragments need."""
        return None if self.fragment_reads is None else self.register_reads / self.fragment_reads

    @property
    def instructions_fewer(self) -> int:
        """One FFMA warp instruction does 32 multiply-adds, one mma.m16n8k8 does 1,024."""
        return MMA_FMA // WARP_SIZE

    @property
    def priced(self) -> bool:
        return isinstance(self.tensor, SpeedReport) and isinstance(self.register, SpeedReport)

    def tf32_peak(self) -> str:
        figure = self.device.tf32_tensor
        return "" if figure is None else format_flops(figure.value * 1e12)


@lru_cache(maxsize=16)  # the page asks for its slots and for its sentences
def next_level(N: int, device_key: str) -> NextLevel:
    p = LadderParams(N=N, device=device_key)
    register = production(p)
    counters = KERNELS["register"].counters(register)
    register_reads = Fraction(counters.shared_loads, counters.fma)
    try:
        mma = tensor_rung(p)
    except ParamError as error:
        return NextLevel(N, device(device_key), register_reads, None, report_for("register", register), error.message)
    found = KERNELS["mma"].counters(mma)
    fragment_reads = Fraction(found.shared_loads, found.mma_instructions // mma.split * MMA_FMA)
    return NextLevel(
        N, device(device_key), register_reads, fragment_reads, report_for("register", register), report_for("mma", mma)
    )
