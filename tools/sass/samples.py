"""Parameter sets the SASS checks sample per kernel: sizes that are no multiple of the tiles, tiles from
small to the largest the form accepts, drawn with a fixed seed so a warm cache holds every one."""

from __future__ import annotations

import random

from pysim.hardware.params import ParamError
from pysim.kernels import KERNELS

TILES: dict[str, dict[str, tuple[object, ...]]] = {
    "naive": {"T": (1, 2, 3, 8, 16, 32), "map": ("col", "row")},
    "smem": {"T": (1, 2, 3, 5, 8, 12, 16, 32)},
    "transpose": {"TILE": (2, 3, 4, 8, 16, 32), "pad": (0, 1, 2)},
    "blocktile1d": {
        "BM": (4, 8, 16, 32, 64, 128),
        "BN": (4, 8, 16, 32, 64, 128),
        "BK": (1, 2, 4, 8, 16, 32),
        "TM": (1, 2, 4, 8, 16, 32),
    },
    "register": {
        "BM": (4, 8, 12, 16, 32, 64, 128),
        "BN": (4, 8, 16, 32, 64, 128),
        "BK": (1, 2, 3, 4, 8, 16),
        "TM": (1, 2, 3, 4, 8),
        "TN": (1, 2, 3, 4, 8),
    },
    "vectorized": {
        "BM": (16, 32, 64, 128),
        "BN": (16, 32, 64, 128),
        "BK": (4, 8, 16),
        "TM": (1, 2, 4, 8),
        "TN": (4, 8),
    },
    "warptile": {
        "BM": (16, 32, 64, 128),
        "BN": (32, 64, 128),
        "BK": (8, 16),
        "WM": (16, 32, 64),
        "WN": (32, 64),
        "WNITER": (1, 2, 4),
        "TM": (1, 2, 4, 8),
        "TN": (4, 8),
        "threads": (32, 64, 128, 256),
    },
}
TILES["pipelined"] = {**TILES["warptile"], "stages": (2, 3, 4)}
TILES["mma"] = {
    "BM": (16, 32, 64, 128),
    "BN": (16, 32, 64, 128),
    "BK": (8, 32),  # 32: swizzled rows must be whole 128-byte lines
    "WM": (16, 32, 64),
    "WN": (8, 16, 32, 64),
    "stages": (2, 3, 4),
    "swizzle": (0, 1),
    "split": (1, 3),
}
ALIGNED = {name: ("K", "N") for name in ("vectorized", "warptile", "pipelined", "mma")}  # 16-byte rows: multiples of 4


def samples(kernel: str, count: int, seed: int = 40) -> list[dict[str, object]]:
    """`count` distinct parameter sets the form accepts (rejection sampling over TILES and sizes 1-150)."""
    rng = random.Random(f"{kernel}-{seed}")
    found: list[dict[str, object]] = []
    for _ in range(100_000):
        if len(found) == count:
            break
        values = {name: rng.choice(choices) for name, choices in TILES[kernel].items()}
        sizes = ("n",) if kernel == "transpose" else ("M", "N", "K")
        for name in sizes:
            values[name] = 4 * rng.randint(1, 37) if name in ALIGNED.get(kernel, ()) else rng.randint(1, 150)
        try:
            KERNELS[kernel].PARAMS.parse({name: str(value) for name, value in values.items()})
        except ParamError:
            continue
        if values not in found:
            found.append(values)
    return found
