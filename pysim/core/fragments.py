"""Which elements of the m16n8k8 TF32 tiles each lane of a warp holds (PTX ISA 9.7.14.5.7, "Matrix Fragments
for mma.m16n8k8", its .tf32 tables: Figure 72 for A and
the figures for B and C that follow it).

With groupID = laneid >> 2 and threadID_in_group = laneid % 4, the ISA gives
  A (16×8, row-major, a0..a3): row groupID for a0, a2 and groupID+8 for a1, a3;
                               col threadID_in_group for a0, a1 and threadID_in_group+4 for a2, a3;
  B (8×8, column-major, b0, b1): row threadID_in_group for b0, threadID_in_group+4 for b1; col groupID;
  C/D (16×8, c0..c3, float32): row groupID for c0, c1 and groupID+8 for c2, c3; col threadID_in_group·2 + (i & 1).
Each map is (32 lanes, registers, 2): the (row, col) of register i of each lane in its tile. Written as the
ISA words it, per register; tests/unit/test_mma_fragments.py writes the tables out independently.
"""

from __future__ import annotations

import numpy as np

from .constants import WARP_SIZE

MMA_M, MMA_N, MMA_K = 16, 8, 8

_lane = np.arange(WARP_SIZE)
_group, _thread = _lane >> 2, _lane % 4


def _map(*registers: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    return np.stack([np.stack([row, col], axis=-1) for row, col in registers], axis=1)


A_MAP = _map(
    (_group, _thread),  # a0
    (_group + 8, _thread),  # a1
    (_group, _thread + 4),  # a2
    (_group + 8, _thread + 4),  # a3
)
B_MAP = _map((_thread, _group), (_thread + 4, _group))  # b0, b1
C_MAP = _map(*((_group + 8 * (i >> 1), _thread * 2 + (i & 1)) for i in range(4)))  # c0..c3


def gather(tile: np.ndarray, frag: np.ndarray) -> np.ndarray:
    """Each lane's registers from a tile (...×rows×cols): (..., 32, registers)."""
    return tile[..., frag[..., 0], frag[..., 1]]


def scatter(values: np.ndarray, frag: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The tile (...×rows×cols) the lanes' registers (..., 32, registers) hold."""
    tile = np.zeros(values.shape[:-2] + shape, dtype=values.dtype)
    tile[..., frag[..., 0], frag[..., 1]] = values
    return tile
