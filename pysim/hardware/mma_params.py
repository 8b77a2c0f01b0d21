"""Parameters of the TF32 tensor-core kernel (pysim/kernels/k12_mma.py): warp tiles made of whole
mma.m16n8k8 tiles, a cp.async pipeline of `stages` buffers, padded or XOR-swizzled shared rows, and
TF32 (split=1) or 3xTF32 (split=3) arithmetic; each rule refused with a message naming the parameter."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil
from typing import Any, ClassVar

from ..core.constants import WARP_SIZE, WORD_BYTES
from ..core.fragments import MMA_K, MMA_M, MMA_N
from ..core.swizzle import Swizzle
from .blocktile_params import _require
from .devices import device
from .params import Params, _check_threads, _device, _int
from .pipelined_params import MAX_STAGES, MIN_STAGES, require_arch, require_stages_fit

TENSOR_TF32_ARCH = 80
"""mma.sync.m16n8k8 with .tf32 operands needs sm_80 (PTX ISA, "mma": "requires sm_80 or higher" for .tf32)."""

PAD_A, PAD_B = 4, 8
"""Words added to each As and Bs row when swizzle=0: As rows BK+4 long put the 8 rows an A fragment reads in
8 different groups of 4 banks, Bs rows BN+8 long do the same for the 4 rows a B fragment reads (BK and BN being
multiples of 8); both keep every row 16-byte aligned for cp.async."""

COPY_FLOATS = 4  # one cp.async moves 16 bytes
EDITOR = ("swz_bits", "swz_base", "swz_shift")  # the swizzle editor's fields
SWIZZLED = ("swizzle", "1")  # the editor is shown while the swizzle switch says 1
CHUNK_BASE = 2
"""The smallest swizzle base: a cp.async lands 16 bytes (2**2 words) at one place, so whole 16-byte chunks move."""


def _switch(default: int, names: dict[int, str], label: str, shown_when: tuple[str, str] | None = None) -> Any:
    """An int field offered as a select of `names` that applies when changed (widgets/form.py's `live`), shown
    only while another field's control holds a value, if `shown_when` says so."""
    options = tuple(names)
    metadata = {"low": min(options), "high": max(options), "label": label, "options": options, "names": names}
    return field(
        default=default, metadata={**metadata, "live": True, **({"shown_when": shown_when} if shown_when else {})}
    )


@dataclass(frozen=True)
class MmaParams(Params):
    """A BM×BN block tile of C, warps of WM×WN made of 16×8 mma tiles, BK-deep slices copied `stages` ahead."""

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {
        label: dict(zip(("M", "N", "K", "BM", "BN", "BK", "WM", "WN", "stages", "swizzle", "split"), values))
        for label, values in (
            (
                "teaching: 16×16×32, one warp, BM=BN=WM=WN=16, BK=8, 2 stages, padded, TF32",
                (16, 16, 32, 16, 16, 8, 16, 16, 2, 0, 1),
            ),
            (
                "production: 128³, 4 warps, BM=BN=128, BK=16, WM=WN=64, 3 stages, padded, TF32",
                (128, 128, 128, 128, 128, 16, 64, 64, 3, 0, 1),
            ),
        )
    }

    M: int = _int(64)
    N: int = _int(64)
    K: int = _int(64)
    BM: int = _int(64, high=1024)
    BN: int = _int(64, high=1024)
    BK: int = _int(16, high=1024)
    WM: int = _int(32, high=1024)
    WN: int = _int(32, high=1024)
    stages: int = _int(3, low=MIN_STAGES, high=MAX_STAGES)
    # The two switches the #/mma lesson is about: selects beside the collapsed form, applied when changed.
    swizzle: int = _switch(0, {0: "0: padded rows", 1: "1: XOR swizzle"}, "swizzle")  # the names say what each is
    split: int = _switch(1, {1: "1: TF32", 3: "3: 3xTF32"}, "split")
    # The swizzle editor beside the switch, shown while it says 1: CuTe's Swizzle<B, M, S> (pysim/core/swizzle.py),
    # the defaults the 128-byte swizzle. Values the rules refuse are offered too, so that the refusal can teach why.
    swz_bits: int = _switch(3, {b: f"{b}: {2**b} chunks a block" for b in range(1, 5)}, "swizzle bits B", SWIZZLED)
    swz_base: int = _switch(2, {m: f"{m}: {4 * 2**m}-byte chunks" for m in range(5)}, "swizzle base M", SWIZZLED)
    swz_shift: int = _switch(3, {s: str(s) for s in range(1, 7)}, "swizzle shift S", SWIZZLED)
    device: str = _device()

    def check(self) -> None:
        require_arch(self.device, TENSOR_TF32_ARCH, "mma.sync with .tf32 operands")
        _require("split", self.split in (1, 3), f"split={self.split}: split is 1 (TF32) or 3 (3xTF32)")
        for name, shape, what in (("WM", MMA_M, "m"), ("WN", MMA_N, "n"), ("BK", MMA_K, "k")):
            value = getattr(self, name)
            _require(
                name,
                value % shape == 0,
                f"{name}={value} is not a multiple of {shape}, the {what} of mma.m16n8k8: a warp's tile is made "
                f"of whole {MMA_M}×{MMA_N}×{MMA_K} MMA tiles",
            )
        _require("WM", self.BM % self.WM == 0, f"BM={self.BM} is not divisible by WM={self.WM} (BM % WM == 0)")
        _require("WN", self.BN % self.WN == 0, f"BN={self.BN} is not divisible by WN={self.WN} (BN % WN == 0)")
        _check_threads("WM", f"(BM/WM)·(BN/WN) = {self.warps} warps", self.threads, self.device)
        for name in ("K", "N"):
            value = getattr(self, name)
            _require(
                name,
                value % COPY_FLOATS == 0,
                f"{name}={value} is not a multiple of 4: a cp.async copies 16 bytes (4 floats) of a row of "
                f"{'A' if name == 'K' else 'B'}, which must start on a 16-byte boundary",
            )
        if self.swizzle:
            self._check_swizzle()
        self._check_registers()
        self._check_shared()

    def _check_swizzle(self) -> None:
        xor = self.xor
        _require(
            "swz_base",
            xor.base >= CHUNK_BASE,
            f"swz_base={xor.base}: a cp.async lands 16 bytes (4 words) at one place, so the swizzle must move whole "
            f"16-byte chunks (swz_base at least {CHUNK_BASE}); {WORD_BYTES * xor.chunk}-byte chunks would split a copy",
        )
        _require(
            "swz_shift",
            xor.shift >= xor.bits,
            f"swz_shift={xor.shift} < swz_bits={xor.bits}: the bits XORed in would overlap the bits they change; CuTe's "
            "Swizzle asserts 'abs(SShift) must be more than BBits' (then chunks trade places in pairs)",
        )
        for name, array in (("BK", "As"), ("BN", "Bs")):
            value = getattr(self, name)
            _require(
                name,
                value % xor.block == 0,
                f"{name}={value}: {xor} moves {xor.chunk}-word chunks within "
                f"blocks of 2^(swz_base+swz_bits) = {xor.block} words, so a swizzled {array} row of {name} words must "
                f"be whole blocks ({name} a multiple of {xor.block}); a row of {value} words would not be permuted "
                "within itself (use swizzle=0, padding, or a smaller swz_base or fewer swizzle bits)",
            )
        largest = self.stages * max(self.BM * self.BK, self.BK * self.BN)
        _require(
            "swz_shift",
            largest > xor.line,
            f"swz_shift={xor.shift}: {xor} XORs in bits from "
            f"{xor.base + xor.shift} up of a word's place in As or Bs (all stages: {largest:,} words at most, below "
            f"2^{xor.base + xor.shift}), which are 0 for every word: it would move nothing (a smaller swz_shift)",
        )

    def _check_registers(self) -> None:
        """A lane's accumulators and fragments (an estimate: nvcc needs a few more for addresses)."""
        needed = self.accumulators + 4 * self.MITER + 2 * self.NITER
        limit = device(self.device).register_limit
        _require(
            "WN" if self.WN > self.WM else "WM",
            needed <= limit,
            f"WM×WN = {self.WM}×{self.WN} gives each lane {self.accumulators} accumulators and {needed - self.accumulators} "
            f"fragment registers, {needed} in all; a thread may use at most {limit} registers",
        )

    def _check_shared(self) -> None:
        require_stages_fit(self, f"As[{self.BM}][{self.a_stride}] + Bs[{self.BK}][{self.b_stride}]")

    def inert(self) -> tuple[str, ...]:
        """The swizzle editor's fields do nothing to padded rows."""
        return () if self.swizzle else EDITOR

    @property
    def xor(self) -> Swizzle:
        """The editor's swizzle (used where swizzle=1)."""
        return Swizzle(self.swz_bits, self.swz_base, self.swz_shift)

    @property
    def warps(self) -> int:
        return (self.BM // self.WM) * (self.BN // self.WN)

    @property
    def threads(self) -> int:
        return self.warps * WARP_SIZE

    @property
    def warp_cols(self) -> int:
        return self.BN // self.WN

    @property
    def MITER(self) -> int:
        return self.WM // MMA_M

    @property
    def NITER(self) -> int:
        return self.WN // MMA_N

    @property
    def accumulators(self) -> int:
        return self.WM * self.WN // WARP_SIZE

    @property
    def a_stride(self) -> int:
        """Words per As row: BK, plus the padding when the rows are not swizzled."""
        return self.padded_strides[0] if not self.swizzle else self.BK

    @property
    def b_stride(self) -> int:
        return self.padded_strides[1] if not self.swizzle else self.BN

    @property
    def padded_strides(self) -> tuple[int, int]:
        """Words per row of As and of Bs where the rows are padded (swizzle=0), whichever layout these sizes use."""
        return self.BK + PAD_A, self.BN + PAD_B

    @property
    def shared_bytes(self) -> int:
        return self.stages * (self.BM * self.a_stride + self.BK * self.b_stride) * WORD_BYTES

    @property
    def tiles(self) -> int:
        return ceil(self.K / self.BK)

    @property
    def ksteps(self) -> int:
        """mma k-steps per tile."""
        return self.BK // MMA_K
