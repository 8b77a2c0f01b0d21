"""Input matrices: small whole numbers, identical in CPython and Pyodide.

Values 1..9 keep every product exact in float32 (so C must equal A @ B to the
bit) and keep a written 0 recognisable as a zero-fill. A counter-based hash
rather than a NumPy random generator guarantees the same digits on every
platform and NumPy version.

The hash is public, so a kernel could rebuild `operands` without loading
anything; a puzzle is therefore graded on `fresh_operands`, digits drawn from
the operating system's randomness, which no kernel can know.
"""

from __future__ import annotations

import secrets

import numpy as np

GOLDEN = np.uint64(2654435761)  # Knuth's multiplicative hash constant
WORD = np.uint64(1 << 32)


def digits(rows: int, cols: int, salt: int) -> np.ndarray:
    """A rows×cols float32 array of digits 1..9 from a hash of (index, salt)."""
    index = np.arange(rows * cols, dtype=np.uint64)
    mixed = (index * GOLDEN + np.uint64(salt) * np.uint64(40503) + np.uint64(12345)) % WORD
    mixed ^= mixed >> np.uint64(13)
    mixed = (mixed * GOLDEN) % WORD >> np.uint64(8)
    return (np.uint64(1) + mixed % np.uint64(9)).astype(np.float32).reshape(rows, cols)


def operands(M: int, N: int, K: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A (M×K) and B (K×N), float32, the same for the same sizes and seed."""
    return digits(M, K, 2 * seed), digits(K, N, 2 * seed + 1)


def fresh_operands(M: int, N: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """A (M×K) and B (K×N), float32 digits 1..9 drawn afresh from `secrets` (the OS's randomness) at every
    call: the seed never leaves this function, so a kernel cannot rebuild them."""
    generator = np.random.default_rng(secrets.randbits(128))
    return (
        generator.integers(1, 10, size=(M, K)).astype(np.float32),
        generator.integers(1, 10, size=(K, N)).astype(np.float32),
    )
