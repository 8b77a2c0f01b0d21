"""The 128-byte swizzle (pysim/core/swizzle.py) against its definition, and why it is there: the bank count of
a wgmma core matrix read with and without it, by brute force."""

import numpy as np

from pysim.core import banks
from pysim.core.swizzle import swizzle_bytes, swizzle_words

# The 128-byte swizzle as the PTX ISA draws it ("Asynchronous Warpgroup Level Matrix Shared Memory Layout",
# the 128B swizzling mode's figure; the CUDA Programming Guide's "TMA Swizzle" table is the same): row r of an
# 8-row, 1,024-byte atom puts its 16-byte chunk j at position PTX_128B[r][j]. Transcribed, not computed.
PTX_128B = (
    (0, 1, 2, 3, 4, 5, 6, 7),
    (1, 0, 3, 2, 5, 4, 7, 6),
    (2, 3, 0, 1, 6, 7, 4, 5),
    (3, 2, 1, 0, 7, 6, 5, 4),
    (4, 5, 6, 7, 0, 1, 2, 3),
    (5, 4, 7, 6, 1, 0, 3, 2),
    (6, 7, 4, 5, 2, 3, 0, 1),
    (7, 6, 5, 4, 3, 2, 1, 0),
)


def test_every_byte_of_four_atoms_lands_where_the_table_says():
    offsets = np.arange(4 * 1024)
    found = swizzle_bytes(offsets)
    for offset, moved in zip(offsets.tolist(), found.tolist()):
        line, within_line = divmod(offset, 128)
        chunk, within_chunk = divmod(within_line, 16)
        assert moved == line * 128 + PTX_128B[line % 8][chunk] * 16 + within_chunk, offset


def test_the_word_form_is_the_byte_form_and_a_permutation_of_each_line():
    words = np.arange(8 * 1024)
    assert np.array_equal(swizzle_words(words) * 4, swizzle_bytes(words * 4))
    assert np.array_equal(np.sort(swizzle_words(words)), words)
    assert np.array_equal(swizzle_words(words) // 32, words // 32)  # no word leaves its 128-byte line


def _brute_wavefronts(words):
    """Largest number of distinct words any bank is asked for (plain loops)."""
    asked = {}
    for word in words:
        asked.setdefault(word % 32, set()).add(word)
    return max(len(found) for found in asked.values())


def test_a_core_matrix_meets_all_32_banks_only_when_swizzled():
    """wgmma's unit of a K-major TF32 operand is a core matrix, 8 rows × 16 bytes (4 floats) at the same k: 32
    words. Rows of 128 bytes as they lie put all 8 on the same 4 banks (8 wavefronts if read at once); the
    swizzle spreads them over all 32 (one). pysim's bank count agrees with the brute force."""
    for chunk in range(8):
        plain = [row * 32 + chunk * 4 + i for row in range(8) for i in range(4)]
        swizzled = swizzle_words(np.array(plain)).tolist()
        assert _brute_wavefronts(plain) == 8 and _brute_wavefronts(swizzled) == 1
        assert banks.costs(np.array([plain]))[1] == 8 and banks.costs(np.array([swizzled]))[1] == 1
