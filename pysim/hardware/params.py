"""Kernel parameters, their validation, and parsing from strings (URL, form, CLI).

Every rule raises ParamError naming the parameter, so the form, the URL and the
CLI all give the same message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from math import ceil
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ..core.constants import ANIMATION_MAX_SIZE, MAX_SIZE, WORD_BYTES
from .devices import DEFAULT_DEVICE, DEVICES, device
from .registers import RegisterBudget

WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,40}")
SHOWN_CHARS = 24


class ParamError(ValueError):
    """A parameter broke a rule; `param` names it and the message says which rule."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param
        self.message = message


def _shown(raw: str) -> str:
    text = raw if len(raw) <= SHOWN_CHARS else raw[:SHOWN_CHARS] + "…"
    return repr(text)


def parse_int(name: str, raw: str, low: int, high: int) -> int:
    """Parse a whole number in [low, high] from text, or raise ParamError naming `name`."""
    text = raw.strip()
    if not WHOLE_NUMBER.fullmatch(text):
        raise ParamError(name, f"{name} must be a whole number (got {_shown(raw)})")
    return check_range(name, int(text), low, high)


def check_range(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParamError(name, f"{name} must be a whole number (got {value!r})")
    if value < low:
        raise ParamError(name, f"{name} must be at least {low} (got {value})")
    if value > high:
        raise ParamError(name, f"{name} must be at most {high:,} (got {value:,})")
    return value


def _int(default: int, low: int = 1, high: int = MAX_SIZE, label: str = "") -> Any:
    return field(default=default, metadata={"low": low, "high": high, "label": label})


def _device() -> Any:
    return field(default=DEFAULT_DEVICE, metadata={"choices": tuple(DEVICES), "label": "device preset"})


P = TypeVar("P", bound="Params")


@dataclass(frozen=True)
class Params:
    """Base of every kernel's parameters: range checks from field metadata, then `check`."""

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {}

    if TYPE_CHECKING:
        # Every subclass declares `device: str = _device()` as its last field; a field here would
        # come first in each subclass's fields() and __init__, so the base only tells the checker.
        @property
        def device(self) -> str: ...

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if "choices" in spec.metadata:
                if value not in spec.metadata["choices"]:
                    choices = ", ".join(spec.metadata["choices"])
                    raise ParamError(spec.name, f"{spec.name} must be one of {choices} (got {_shown(str(value))})")
            else:
                check_range(spec.name, value, spec.metadata["low"], spec.metadata["high"])
        self.check()

    def check(self) -> None:
        """Rules between parameters; subclasses raise ParamError."""

    def inert(self) -> tuple[str, ...]:
        """Fields that change nothing at these values (a command may leave them out)."""
        return ()

    @classmethod
    def parse(cls: type[P], raw: Mapping[str, str]) -> P:
        """Build from text values (missing keys keep their defaults; unknown keys are ignored)."""
        values: dict[str, Any] = {}
        for spec in fields(cls):
            if spec.name not in raw:
                continue
            if "choices" in spec.metadata:
                values[spec.name] = str(raw[spec.name]).strip().lower()
            else:
                values[spec.name] = parse_int(
                    spec.name, str(raw[spec.name]), spec.metadata["low"], spec.metadata["high"]
                )
        return cls(**values)

    def as_strings(self) -> dict[str, str]:
        return {spec.name: str(getattr(self, spec.name)) for spec in fields(self)}

    ANIMATED: ClassVar[tuple[str, ...]] = ("M", "N", "K")

    def too_large_to_animate(self) -> ParamError | None:
        """Why this size is counts-only, or None when every step can be drawn."""
        for name in self.ANIMATED:
            value = getattr(self, name)
            if value > ANIMATION_MAX_SIZE:
                return ParamError(
                    name, f"{name}={value} is too large to animate (at most {ANIMATION_MAX_SIZE}); counts only"
                )
        return None


def _check_threads(name: str, description: str, threads: int, device_key: str) -> None:
    limit = device(device_key).thread_limit
    if threads > limit:
        raise ParamError(name, f"{description} needs {threads:,} threads per block; a block holds at most {limit:,}")


def _check_shared(name: str, description: str, words: int, device_key: str) -> None:
    preset = device(device_key)
    needed = words * WORD_BYTES
    if needed > preset.shared_limit_bytes:
        raise ParamError(
            name,
            f"{description} needs {needed:,} bytes of shared memory per block; "
            f"the {preset.name} allows {preset.shared_limit_bytes:,} (static)",
        )


# How the naive kernel maps threadIdx.x onto C (SPEC §5 `map`): the index it walks.
NAIVE_MAPS = {
    # Neutral: which map touches fewer sectors depends on the sizes (and is what the guide asks).
    "col": "col: threadIdx.x walks C's columns",
    "row": "row: threadIdx.x walks C's rows",
}


@dataclass(frozen=True)
class NaiveParams(Params):
    """One thread per element of C, launched in T×T blocks; `map` says which index of C threadIdx.x walks."""

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {
        "M=N=32, K=8, T=32: a warp is one row of the block": {"M": 32, "N": 32, "K": 8, "T": 32},
        "M=N=16, K=8, T=8: a warp is four rows of the block": {"M": 16, "N": 16, "K": 8, "T": 8},
        "M=N=4, K=8, T=2: the seed's sizes": {"M": 4, "N": 4, "K": 8, "T": 2},
    }

    M: int = _int(4)
    N: int = _int(4)
    K: int = _int(8)
    T: int = _int(2, high=1024)
    map: str = field(
        default="col", metadata={"choices": tuple(NAIVE_MAPS), "names": NAIVE_MAPS, "label": "map", "live": True}
    )
    device: str = _device()

    def check(self) -> None:
        _check_threads("T", f"T={self.T}", self.T * self.T, self.device)


@dataclass(frozen=True)
class SmemParams(Params):
    """Shared-memory tiling with T×T tiles and T×T threads per block."""

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {
        "M=N=4, K=8, T=2": {"M": 4, "N": 4, "K": 8, "T": 2},
        "M=N=6, K=9, T=3": {"M": 6, "N": 6, "K": 9, "T": 3},
    }

    M: int = _int(4)
    N: int = _int(4)
    K: int = _int(8)
    T: int = _int(2, high=1024, label="TILE")
    device: str = _device()

    def check(self) -> None:
        _check_threads("T", f"T={self.T}", self.T * self.T, self.device)
        _check_shared("T", f"T={self.T} (two {self.T}×{self.T} tiles)", 2 * self.T * self.T, self.device)

    @property
    def tiles(self) -> int:
        return ceil(self.K / self.T)


@dataclass(frozen=True)
class RegisterParams(Params):
    """2D register tiling: BM×BN block tile, BK-deep slices, TM×TN results per thread."""

    PRESETS: ClassVar[dict[str, dict[str, int]]] = {
        "seed: 8×8×8, BM=BN=BK=4, TM=TN=2 (4 threads)": {
            "M": 8,
            "N": 8,
            "K": 8,
            "BM": 4,
            "BN": 4,
            "BK": 4,
            "TM": 2,
            "TN": 2,
        },
        "4×4 per thread: 32³, BM=BN=16, BK=4, TM=TN=4 (16 threads, half a warp)": {
            "M": 32,
            "N": 32,
            "K": 32,
            "BM": 16,
            "BN": 16,
            "BK": 4,
            "TM": 4,
            "TN": 4,
        },
    }

    M: int = _int(8)
    N: int = _int(8)
    K: int = _int(8)
    BM: int = _int(4, high=1024)
    BN: int = _int(4, high=1024)
    BK: int = _int(4, high=1024)
    TM: int = _int(2, high=1024)
    TN: int = _int(2, high=1024)
    device: str = _device()

    def check(self) -> None:
        self._check_registers()
        for block, thread in (("BM", "TM"), ("BN", "TN")):
            b, t = getattr(self, block), getattr(self, thread)
            if b % t:
                raise ParamError(
                    thread,
                    f"{block}={b} is not divisible by {thread}={t}; each thread owns one {thread}-wide "
                    f"slice of the block tile, so {block} must be a multiple of {thread}",
                )
        _check_threads("TM", f"BM/TM × BN/TN = {self.BM // self.TM}×{self.BN // self.TN}", self.threads, self.device)
        _check_shared(
            "BK", f"As[{self.BM}][{self.BK}] and Bs[{self.BK}][{self.BN}]", self.BK * (self.BM + self.BN), self.device
        )

    def _check_registers(self) -> None:
        """A thread's TM×TN outer product must fit in its registers (checked first: no BM or BN can fix it).

        The error names TM unless TN alone is the larger, since shrinking the larger side helps most.
        """
        budget = RegisterBudget(self.TM, self.TN)
        limit = device(self.device).register_limit
        if budget.total > limit:
            name = "TN" if self.TN > self.TM else "TM"
            raise ParamError(
                name,
                f"TM={self.TM}, TN={self.TN} needs about {budget.total} registers per thread "
                f"(estimate: {budget.breakdown()}); a thread may use at most {limit} registers",
            )

    @property
    def threads(self) -> int:
        return (self.BM // self.TM) * (self.BN // self.TN)

    @property
    def tiles(self) -> int:
        return ceil(self.K / self.BK)


@dataclass(frozen=True)
class TransposeParams(Params):
    """Transpose through a TILE×(TILE+pad) shared tile: the bank-conflict lesson."""

    ANIMATED: ClassVar[tuple[str, ...]] = ("n",)
    # SPEC §5 names the tile size `T` in the address (`#/transpose?n&T&pad`); the field keeps the
    # listing's name TILE. `parse` accepts either key, `as_strings` writes `T`.
    KEYS: ClassVar[dict[str, str]] = {"TILE": "T"}
    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {
        "n=32, T=32, pad=0: one tile, the 32-way conflict": {"n": 32, "TILE": 32, "pad": 0},
        "n=64, T=32: four tiles": {"n": 64, "TILE": 32},
        "n=8, T=4: small, every value visible": {"n": 8, "TILE": 4},
    }

    n: int = _int(64)
    TILE: int = field(default=32, metadata={"low": 1, "high": 1024, "label": "TILE", "key": "T"})
    pad: int = field(default=0, metadata={"low": 0, "high": 4, "label": "pad", "options": range(5), "live": True})
    device: str = _device()

    @classmethod
    def parse(cls, raw: Mapping[str, str]) -> TransposeParams:
        """As Params.parse, with the address key `T` for TILE (TILE wins if both are given)."""
        values = dict(raw)
        for name, key in cls.KEYS.items():
            if key in values and name not in values:
                values[name] = values[key]
        return super().parse(values)

    def as_strings(self) -> dict[str, str]:
        return {self.KEYS.get(name, name): value for name, value in super().as_strings().items()}

    def check(self) -> None:
        _check_threads("TILE", f"TILE={self.TILE}", self.TILE * self.TILE, self.device)
        _check_shared(
            "TILE", f"tile[{self.TILE}][{self.TILE + self.pad}]", self.TILE * (self.TILE + self.pad), self.device
        )

    @property
    def M(self) -> int:
        return self.n

    N = K = M


@dataclass(frozen=True)
class HierarchyParams(Params):
    """The walkthrough's N×N×N problem and tile size T (T past the walls is allowed: it shows them)."""

    N: int = _int(1024)
    T: int = _int(16, high=256)
    device: str = _device()
