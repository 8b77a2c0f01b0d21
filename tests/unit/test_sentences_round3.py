"""Issue 42 ("Every sentence true"), a read-only review's third round: pysim's sentences (guide explanations,
narration) that held only at some of the sizes the forms accept. The counts each must agree with are made here
by brute force (tests/bruteforce.py and plain loops), never taken from the code under test.
"""

from __future__ import annotations

import pytest

import bruteforce
from pysim.hardware.blocktile_params import VectorizedParams
from pysim.hardware.params import NaiveParams
from pysim.lessons.guides import guide_for
from pysim.lessons.guides.teaching import activity

WORDS_PER_SECTOR = 8  # 32-byte sectors of 4-byte words


def why(view: str, params, key: str) -> str:
    (moment,) = [m for m in guide_for(view, params).moments if m.key == key]
    return moment.why


def float4_sectors(p) -> tuple[int, int]:
    """(sectors holding two lanes' float4s, sectors holding one) of warp 0's first load of A (the listing:
    innerRowA = tid / (BK/4), innerColA = tid % (BK/4), a float4 at A[innerRowA][innerColA * 4])."""
    lanes: dict[int, int] = {}
    for tid in range(min(p.threads, 32)):
        row, col = tid // (p.BK // 4), tid % (p.BK // 4) * 4
        if row < p.M and col + 3 < p.K:
            for word in range(row * p.K + col, row * p.K + col + 4):
                lanes.setdefault(word // WORDS_PER_SECTOR, set()).add(tid)
    held = [len(found) for found in lanes.values()]
    return sum(n == 2 for n in held), sum(n == 1 for n in held)


@pytest.mark.parametrize(
    "sizes",
    [
        {},  # the teaching preset: BK = 4, one float4 per row, each alone in its sector
        dict(M=3, N=4, K=4),  # a row of A is one float4: rows 0 and 1 share a sector
        dict(M=64, N=64, K=32, BM=32, BN=32, BK=8, TM=4, TN=4),  # BK = 8: two lanes on a row share one
    ],
)
def test_vectorized_sector_reason_counts_the_lanes_that_share_a_sector(sizes):
    """'two lanes fill a 32-byte sector' was said at BK = 4, where each float4 sits alone in its sector."""
    p = VectorizedParams(**{**VectorizedParams.PRESETS[next(iter(VectorizedParams.PRESETS))], **sizes})
    text = why("vectorized", p, "vectorized:sectors-a")
    paired, alone = float4_sectors(p)
    assert ("the float4s of two lanes" in text) == (paired > 0), text
    assert ("one lane's float4 alone" in text) == (alone > 0), text
    if paired:
        assert f"{paired:,} {'sector holds' if paired == 1 else 'sectors hold'} the float4s of two lanes" in text
    if alone:
        assert f"{alone:,} {'sector holds' if alone == 1 else 'sectors hold'} one lane's float4 alone" in text
    assert "so two lanes fill a 32-byte sector" not in text


@pytest.mark.parametrize("M,N,K,T", [(32, 32, 8, 32), (32, 1, 9, 7), (16, 16, 8, 8), (5, 3, 2, 4)])
@pytest.mark.parametrize("map_", ["col", "row"])
def test_naive_sector_reasons_follow_the_map(M, N, K, T, map_):
    """At map=col warp 0's lanes share a row of C and ask for one word of A (a broadcast), but the reason said
    'the lanes of a warp load A at their own rows' at either map; B's said neighbouring columns share sectors
    where the lanes all lie on one column."""
    p = NaiveParams(M=M, N=N, K=K, T=T, map=map_)
    cells = [bruteforce.naive_element(0, 0, tid, T, map_) for tid in range(min(T * T, 32))]
    inside = [(row, col) for row, col in cells if row < M and col < N]
    for array, line, index in (("A", "row", 0), ("B", "column", 1)):
        text = why("naive", p, f"naive:sectors-{array.lower()}")
        lines = len({cell[index] for cell in inside})
        assert f"lie on {lines:,} {line if lines == 1 else line + 's'} of C" in text or (
            len(inside) == 1 and f"lies on 1 {line} of C" in text
        ), text
        assert ("(a broadcast)" in text) == (lines == 1 < len(inside)), text
        assert ("their own rows" in text) is False, text
        assert f"picks the {'column' if map_ == 'col' else 'row'} of C" in text, text


def test_teacher_activity_agrees_with_one_skipped_moment():
    """'(1 of the guide's moments do not exist at these sizes and are skipped)' on #/teach."""
    guide = guide_for("register", dict(M="4", N="4", K="4", BM="4", BN="4", BK="4", TM="2", TN="2"))
    assert len(guide.skipped) == 1
    text = " ".join(what for _, what in activity("register", guide))
    assert "(1 of the guide's moments does not exist at these sizes and is skipped)" in text, text
    assert f"answer its {len(guide.moments)} questions" in text, text
