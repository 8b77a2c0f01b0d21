"""Parameters of siboehm's blocktiled kernels 4, 6 and 10 (pysim/kernels/k04, k06 and k10): the rules his
runner's static_asserts enforce, the float4 alignment they need, and the device budgets, each
refused with a message naming the parameter."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import ClassVar

from ..core.constants import WARP_SIZE
from .devices import device
from .params import ParamError, Params, RegisterParams, _check_shared, _check_threads, _device, _int
from .registers import RegisterBudget


def _require(name: str, holds: bool, message: str) -> None:
    """Raise ParamError naming `name` with `message` unless the rule `holds`; the message starts with
    the parameter's name, as every input error does (the form, the address and the CLI show it as is)."""
    if not holds:
        raise ParamError(name, message if message.startswith(name) else f"{name}: {message}")


def _check_budget(names: tuple[str, str], rows: int, cols: int, device_key: str, what: str) -> None:
    """A thread's rows×cols accumulators (plus fragments) must fit in its registers (an estimate)."""
    budget = RegisterBudget(rows, cols)
    limit = device(device_key).register_limit
    _require(
        names[1] if cols > rows else names[0],
        budget.total <= limit,
        f"{what} needs about {budget.total} registers per thread (estimate: {budget.breakdown()}); "
        f"a thread may use at most {limit} registers",
    )


def _check_float4(params: Params, names: tuple[str, ...]) -> None:
    """float4 accesses must start on 16-byte boundaries: each named length must be a multiple of 4 floats."""
    for name in names:
        value = getattr(params, name)
        _require(
            name,
            value % 4 == 0,
            f"{name}={value} is not a multiple of 4: the kernel moves 4 floats at a time (float4, 16 bytes), "
            f"and a float4 must start on a 16-byte boundary, so {name} must be a multiple of 4",
        )


@dataclass(frozen=True)
class Blocktile1DParams(Params):
    """1D blocktiling (siboehm's kernel 4): a BM×BN tile of C, BM·BN/TM threads, TM results each."""

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {
        "teaching: 8×8×8, BM=BN=8, BK=2, TM=4 (16 threads)": {
            "M": 8,
            "N": 8,
            "K": 8,
            "BM": 8,
            "BN": 8,
            "BK": 2,
            "TM": 4,
        },
        "siboehm's A6000 runner: 64³, BM=BN=64, BK=8, TM=8 (512 threads)": {
            "M": 64,
            "N": 64,
            "K": 64,
            "BM": 64,
            "BN": 64,
            "BK": 8,
            "TM": 8,
        },
    }

    M: int = _int(64)
    N: int = _int(64)
    K: int = _int(64)
    BM: int = _int(64, high=1024)
    BN: int = _int(64, high=1024)
    BK: int = _int(8, high=1024)
    TM: int = _int(8, high=1024)
    device: str = _device()

    def check(self) -> None:
        _check_budget(("TM", "TM"), self.TM, 1, self.device, f"TM={self.TM}")
        _require(
            "TM",
            self.BM % self.TM == 0,
            f"BM={self.BM} is not divisible by TM={self.TM}; each thread owns TM consecutive rows of the "
            f"block tile, so BM must be a multiple of TM",
        )
        _check_threads("TM", f"BM·BN/TM = {self.BM}·{self.BN}/{self.TM}", self.threads, self.device)
        # siboehm's asserts: every thread copies exactly one element of As and one of Bs.
        for name, tile, size in (("BK", "As", self.BM * self.BK), ("BN", "Bs", self.BN * self.BK)):
            _require(
                name,
                size == self.threads,
                f"{tile} holds {size:,} elements but the block has {self.threads:,} threads; each thread copies "
                f"exactly one element of As and one of Bs, so BM·BK and BN·BK must both equal BM·BN/TM "
                f"(BK = BM/TM and BN = BM)",
            )
        _check_shared(
            "BK", f"As[{self.BM}][{self.BK}] and Bs[{self.BK}][{self.BN}]", self.BK * (self.BM + self.BN), self.device
        )

    @property
    def threads(self) -> int:
        return self.BM * self.BN // self.TM

    @property
    def tiles(self) -> int:
        return ceil(self.K / self.BK)


@dataclass(frozen=True)
class VectorizedParams(RegisterParams):
    """siboehm's kernel 6: the 2D kernel with float4 global loads and As stored transposed.

    Every rule of RegisterParams applies, plus float4 alignment (K, N, BK, BN and TN multiples
    of 4: a row of A, B or C, and every tile row, must start on a 16-byte boundary) and his
    load shape: each thread copies exactly one float4 of A and one of B per bkIdx.
    """

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {
        "teaching: 16×16×8, BM=BN=16, BK=4, TM=TN=4 (16 threads)": {
            "M": 16,
            "N": 16,
            "K": 8,
            "BM": 16,
            "BN": 16,
            "BK": 4,
            "TM": 4,
            "TN": 4,
        },
        "siboehm's A6000 runner: 128³, BM=BN=128, BK=8, TM=TN=8 (256 threads)": {
            "M": 128,
            "N": 128,
            "K": 128,
            "BM": 128,
            "BN": 128,
            "BK": 8,
            "TM": 8,
            "TN": 8,
        },
    }

    M: int = _int(64)
    N: int = _int(64)
    K: int = _int(64)
    BM: int = _int(128, high=1024)
    BN: int = _int(128, high=1024)
    BK: int = _int(8, high=1024)
    TM: int = _int(8, high=1024)
    TN: int = _int(8, high=1024)

    def check(self) -> None:
        super().check()
        _check_float4(self, ("K", "N", "BK", "BN", "TN"))
        for name, tile, size in (("BK", "As", self.BM * self.BK), ("BN", "Bs", self.BN * self.BK)):
            _require(
                name,
                size == 4 * self.threads,
                f"{tile} holds {size:,} elements but the {self.threads:,} threads copy 4 each ({4 * self.threads:,}); "
                f"each thread loads exactly one float4 of A and one of B, so BM·BK and BN·BK must both equal "
                f"4·(BM/TM)·(BN/TN)",
            )


@dataclass(frozen=True)
class WarptileParams(Params):
    """siboehm's kernel 10: warps own WM×WN warp tiles, computed in WMITER×WNITER subtiles of TM×TN per thread."""

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {
        "teaching: 16×64×16, one warp, BM=16, BN=64, BK=8, WNITER=2, TM=1, TN=4": {
            "M": 16,
            "N": 64,
            "K": 16,
            "BM": 16,
            "BN": 64,
            "BK": 8,
            "WM": 16,
            "WN": 64,
            "WNITER": 2,
            "TM": 1,
            "TN": 4,
            "threads": 32,
        },
        "siboehm's A6000 runner: 128³, 128 threads, BM=BN=128, BK=16, WM=WN=64, WNITER=4, TM=8, TN=4": {
            "M": 128,
            "N": 128,
            "K": 128,
            "BM": 128,
            "BN": 128,
            "BK": 16,
            "WM": 64,
            "WN": 64,
            "WNITER": 4,
            "TM": 8,
            "TN": 4,
            "threads": 128,
        },
    }

    M: int = _int(64)
    N: int = _int(64)
    K: int = _int(64)
    BM: int = _int(128, high=1024)
    BN: int = _int(128, high=1024)
    BK: int = _int(16, high=1024)
    WM: int = _int(64, high=1024)
    WN: int = _int(64, high=1024)
    WNITER: int = _int(4, high=1024)
    TM: int = _int(8, high=1024)
    TN: int = _int(4, high=1024)
    threads: int = _int(128, high=4096)
    device: str = _device()

    def check(self) -> None:
        _check_threads("threads", f"threads={self.threads}", self.threads, self.device)
        _require(
            "threads",
            self.threads % WARP_SIZE == 0,
            f"threads={self.threads} is not a multiple of {WARP_SIZE}: every warp owns a warp tile, "
            f"so every warp must be full",
        )
        _require("WM", self.BM % self.WM == 0, f"BM={self.BM} is not divisible by WM={self.WM} (BM % WM == 0)")
        _require("WN", self.BN % self.WN == 0, f"BN={self.BN} is not divisible by WN={self.WN} (BN % WN == 0)")
        warps = (self.BM // self.WM) * (self.BN // self.WN)
        _require(
            "threads",
            warps * WARP_SIZE == self.threads,
            f"(BM/WM)·(BN/WN) = {warps} warp tiles but threads={self.threads} makes {self.threads // WARP_SIZE} "
            f"warps; each warp computes one warp tile, so they must be equal",
        )
        per_warp = WARP_SIZE * self.TM * self.TN * self.WNITER
        _require(
            "WNITER",
            (self.WM * self.WN) % per_warp == 0,
            f"WM·WN = {self.WM * self.WN:,} is not a multiple of 32·TM·TN·WNITER = {per_warp:,}; "
            f"WMITER = WM·WN/(32·TM·TN·WNITER) must be a whole number",
        )
        _require("WM", self.WM % self.WMITER == 0, f"WM={self.WM} is not divisible by WMITER={self.WMITER}")
        _require("WNITER", self.WN % self.WNITER == 0, f"WN={self.WN} is not divisible by WNITER={self.WNITER}")
        for name, sub, tile in (("TM", self.WSUBM, self.TM), ("TN", self.WSUBN, self.TN)):
            _require(
                name,
                sub % tile == 0,
                f"the warp subtile side {sub} is not divisible by {name}={tile}; each lane owns a "
                f"TM×TN patch of the WSUBM×WSUBN = {self.WSUBM}×{self.WSUBN} subtile",
            )
        _check_budget(("TM", "TN"), self.WMITER * self.TM, self.WNITER * self.TN, self.device, self._budget_text())
        _check_float4(self, ("K", "N", "BK", "TN"))
        self._check_loads()
        self._check_shared()

    def _check_shared(self) -> None:
        """One As and one Bs, declared static."""
        _check_shared(
            "BK", f"As[{self.BK}][{self.BM}] and Bs[{self.BK}][{self.BN}]", self.BK * (self.BM + self.BN), self.device
        )

    def _budget_text(self) -> str:
        return f"WMITER·TM × WNITER·TN = {self.WMITER * self.TM}×{self.WNITER * self.TN} results"

    def _check_loads(self) -> None:
        """The runner's static_asserts on the float4 copy loops and the thread layout."""
        n4 = 4 * self.threads
        rules = (
            ("BK", n4 % self.BK == 0, f"threads·4 = {n4} must be a multiple of BK={self.BK}"),
            ("BN", n4 % self.BN == 0, f"threads·4 = {n4} must be a multiple of BN={self.BN}"),
            ("BN", self.BN % (16 * self.TN) == 0, f"BN={self.BN} must be a multiple of 16·TN = {16 * self.TN}"),
            ("BM", self.BM % (16 * self.TM) == 0, f"BM={self.BM} must be a multiple of 16·TM = {16 * self.TM}"),
            (
                "BK",
                (self.BM * self.BK) % n4 == 0,
                f"BM·BK = {self.BM * self.BK} must be a multiple of threads·4 = {n4}",
            ),
            (
                "BK",
                (self.BN * self.BK) % n4 == 0,
                f"BN·BK = {self.BN * self.BK} must be a multiple of threads·4 = {n4}",
            ),
        )
        for name, holds, rule in rules:
            _require(name, holds, f"{rule} (siboehm's static_assert: the float4 copy loops must cover As and Bs whole)")

    @property
    def WMITER(self) -> int:
        return (self.WM * self.WN) // (WARP_SIZE * self.TM * self.TN * self.WNITER)

    @property
    def WSUBM(self) -> int:
        return self.WM // self.WMITER

    @property
    def WSUBN(self) -> int:
        return self.WN // self.WNITER

    @property
    def tiles(self) -> int:
        return ceil(self.K / self.BK)
