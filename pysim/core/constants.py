"""Hardware constants the model is built on (NVIDIA, compute capability 7.0 and later)."""

WARP_SIZE = 32  # threads that issue one instruction together
NUM_BANKS = 32  # shared-memory banks
WORD_BYTES = 4  # one float32, and the width of a shared-memory bank
SECTOR_BYTES = 32  # the unit a global-memory access is served in
WORDS_PER_SECTOR = SECTOR_BYTES // WORD_BYTES

# Largest problem the views animate cell by cell; beyond it they offer counts only.
ANIMATION_MAX_SIZE = 64
# Largest problem size any parameter accepts (counts stay exact Python integers).
MAX_SIZE = 16384
