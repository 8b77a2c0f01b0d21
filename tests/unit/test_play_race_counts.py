"""Races past the 16 racy words described per array (issue 42 item 8): every racing pair of lines is named, each
with the full count of its racy words, in one block's interval and between blocks."""

from pysim.play import run

TWO_LINES = """from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t % 32] = A[0, 0]
    s[32 + t % 32] = B[0, 0]
    cuda.syncthreads()
    if t == 0:
        C[0, 0] = s[0] + s[63]


def launch(M, N, K):
    return 1, (64, 1)
"""

BETWEEN_BLOCKS = """from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    t = cuda.threadIdx.x
    C[0, t] = A[0, 0]
    C[1, t] = B[0, 0]


def launch(M, N, K):
    return 2, (40, 1)
"""


def line_of(text, fragment):
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_a_second_racing_line_past_the_16th_word_is_named_with_its_full_count():
    result = run(TWO_LINES, 2, 2, 2)
    races = {race.line: race for race in result.diagnostics_of("race")}
    first, second = line_of(TWO_LINES, "s[t % 32]"), line_of(TWO_LINES, "s[32 + t % 32]")
    assert set(races) == {first, second}  # words 32-63 race at their own line: named, not folded into the first
    assert races[first].count == 32 and races[second].count == 32  # every racy word counted, at its own line
    assert all("write-after-write" in race.message for race in races.values())


def test_races_between_blocks_count_every_word_at_its_own_lines():
    result = run(BETWEEN_BLOCKS, 2, 40, 2)
    races = {race.line: race for race in result.diagnostics_of("race")}
    first, second = line_of(BETWEEN_BLOCKS, "C[0, t]"), line_of(BETWEEN_BLOCKS, "C[1, t]")
    assert set(races) == {first, second}
    assert races[first].count == 40 and races[second].count == 40
