"""The 128-byte XOR swizzle of shared memory: where the TMA writes a tile and where wgmma's descriptor reads it
(and the mma kernel's `swizzle=1`, the same permutation on floats).

Shared memory is cut into 128-byte lines (32 banks × 4 bytes) and each line into eight 16-byte chunks. The
swizzle moves chunk c of line r to chunk c XOR (r mod 8) of the same line, so the pattern repeats every 8 lines
(1,024 bytes): on byte offsets, bits 4-6 XOR bits 7-9. Sources: PTX ISA, "Asynchronous Warpgroup Level Matrix
Shared Memory Layout" (the 128-byte swizzling mode of the matrix descriptor and its figure of the 16-byte
chunks of each row), CUDA C++ Programming Guide, "Tensor Memory Access" → "TMA Swizzle"
(CU_TENSOR_MAP_SWIZZLE_128B: 16-byte granularity, repeating every 1,024 bytes, which the tile's base must be
aligned to), and CUTLASS's cute::Swizzle<3, 4, 3> on bytes (include/cute/swizzle.hpp; Swizzle<3, 2, 3> on
4-byte words). A row of 8 lines that all read chunk c (a wgmma core matrix: 8 rows × 16 bytes) thus meets
eight different chunks, all 32 banks, instead of 8 rows on the same 4 banks.

`Swizzle` is the general form the #/mma editor offers, CuTe's Swizzle<B, M, S> on word indices (swizzle.hpp:
the B bits starting at M + S are XORed into the B bits starting at M); the 128-byte swizzle is
Swizzle(3, 2, 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .warps import INACTIVE

LINES = 8  # the pattern repeats every 8 lines of 128 bytes (bits 7-9 of a byte offset pick the XOR)


def swizzle_bytes(offset: np.ndarray) -> np.ndarray:
    """The physical byte offset of each logical byte offset (from a 1,024-byte aligned base)."""
    offset = np.asarray(offset)
    return offset ^ (((offset >> 7) & (LINES - 1)) << 4)


@dataclass(frozen=True)
class Swizzle:
    """w' = w ^ (((w >> (base + shift)) & (2**bits - 1)) << base) on word indices: chunks of 2**base words trade
    places in pairs within aligned blocks of 2**(base + bits) words, by the index of their 2**(base + shift)-word
    line mod 2**bits. CuTe asserts shift >= bits (then the bits read are not the bits written, and applying it
    twice is the identity); #/mma's form refuses smaller shifts."""

    bits: int
    base: int
    shift: int

    def __str__(self) -> str:
        """CuTe's name for it: "Swizzle<3, 2, 3>"."""
        return f"Swizzle<{self.bits}, {self.base}, {self.shift}>"

    @property
    def block(self) -> int:
        """Words within which chunks move: a word never leaves its aligned block of 2**(base + bits)."""
        return 1 << (self.base + self.bits)

    @property
    def chunk(self) -> int:
        """Words that move together."""
        return 1 << self.base

    @property
    def line(self) -> int:
        """Words of the line whose index (mod 2**bits) a chunk is XORed with."""
        return 1 << (self.base + self.shift)

    def words(self, words: np.ndarray) -> np.ndarray:
        """The physical word of each logical word (INACTIVE stays)."""
        words = np.asarray(words)
        moved = words ^ (((words >> (self.base + self.shift)) & ((1 << self.bits) - 1)) << self.base)
        return np.where(words == INACTIVE, INACTIVE, moved)


SWIZZLE_128B = Swizzle(bits=3, base=2, shift=3)


def swizzle_words(words: np.ndarray) -> np.ndarray:
    """The 128-byte swizzle on 4-byte word indices (INACTIVE stays): w ^ (((w >> 5) & 7) << 2)."""
    return SWIZZLE_128B.words(words)
