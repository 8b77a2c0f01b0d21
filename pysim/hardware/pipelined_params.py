"""Parameters of the pipelined warptiling kernel (pysim/kernels/k11_pipelined.py): warptiling's rules,
plus the number of stages, the architecture cp.async needs and the shared memory the stages take."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.constants import WORD_BYTES
from .blocktile_params import WarptileParams, _require
from .devices import KIB, device
from .params import _int

ASYNC_COPY_ARCH = 80
"""cp.async (LDGSTS) first appears in compute capability 8.0 (the CUDA guide's "Asynchronous Data Copies")."""

COMPUTE_CAPABILITY = {"a100": 80, "h100": 90, "h200": 90, "t4": 75, "rtx4090": 89, "rtxa6000": 86}
"""Each device preset's compute capability ×10, as the CUDA guide lists it (CUDA_GUIDE, "Compute Capabilities")."""


def require_arch(device_key: str, arch: int, feature: str) -> None:
    """Refuse a device preset older than compute capability `arch` (×10), naming the feature that needs it."""
    found = COMPUTE_CAPABILITY[device_key]
    _require(
        "device",
        found >= arch,
        f"device: the {device(device_key).name} is compute capability {found // 10}.{found % 10}; {feature} "
        f"needs {arch // 10}.{arch % 10} or later (sm_{arch}), so this kernel cannot run there",
    )


def require_stages_fit(p: Any, buffers: str) -> None:
    """`p.stages` copies of a stage's `buffers` (p.shared_bytes in all), in dynamic shared memory up to the
    device's opt-in limit: refused naming `stages`."""
    preset = device(p.device)
    limit = int(preset.shared_per_block_optin.value) * KIB
    _require(
        "stages",
        p.shared_bytes <= limit,
        f"stages={p.stages}: {p.stages} × ({buffers}) need {p.shared_bytes:,} bytes of shared memory per block; "
        f"the {preset.name} allows {limit:,} (dynamic, opt-in), so fewer stages or smaller tiles",
    )


MIN_STAGES, MAX_STAGES = 2, 4  # one stage is warptiling itself; beyond four the latency is already hidden


@dataclass(frozen=True)
class PipelinedParams(WarptileParams):
    """Warptiling whose tiles come by cp.async, `stages` of them in flight."""

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {
        "teaching: 16×64×32, one warp, BM=16, BN=64, BK=8, WNITER=2, TM=1, TN=4, 2 stages": {
            **next(iter(WarptileParams.PRESETS.values())),
            "K": 32,
            "stages": 2,
        },
        "production: 128³, 128 threads, BM=BN=128, BK=16, WM=WN=64, WNITER=4, TM=8, TN=4, 3 stages": {
            **list(WarptileParams.PRESETS.values())[1],
            "stages": 3,
        },
    }

    stages: int = _int(2, low=MIN_STAGES, high=MAX_STAGES)

    def check(self) -> None:
        require_arch(self.device, ASYNC_COPY_ARCH, "cp.async")
        super().check()

    def _check_shared(self) -> None:
        require_stages_fit(self, f"As[{self.BM}][{self.BK}] + Bs[{self.BK}][{self.BN}]")

    @property
    def shared_bytes(self) -> int:
        return self.stages * self.BK * (self.BM + self.BN) * WORD_BYTES
