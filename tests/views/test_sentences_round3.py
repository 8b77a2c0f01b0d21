"""Issue 42 ("Every sentence true"), a read-only review's third round: sentences that held only at some of the
sizes the forms accept, read on the page (tests/views/page.py) at the addresses the review quotes.

The counts a sentence must agree with are made here by brute force (tests/bruteforce.py and the loops below),
never taken from the code under test.
"""

from __future__ import annotations

import re
from fractions import Fraction
from math import ceil

import pytest

import bruteforce

VECTORIZED = dict(M=17, N=36, K=64, BM=64, BN=64, BK=16, TM=4, TN=4)
WARPTILE = dict(M=3, N=100, K=12, BM=64, BN=64, BK=4, WM=32, WN=64, WNITER=1, TM=1, TN=4, threads=64)


def address(route: str, sizes: dict) -> str:
    return f"#/{route}?" + "&".join(f"{key}={value}" for key, value in sizes.items())


def removes(page, route: str, sizes: dict) -> str:
    page.go(address(route, sizes))
    return page.inner_text(page.testid("rung-removes"))


def test_vectorized_claims_only_the_costs_it_removes_and_writes_each_count_once(page):
    """0 → 384 bank-conflict cycles were "removed", and written twice: "0 → 384 (0 → 384)"."""
    text = removes(page, "vectorized", VECTORIZED)
    below = bruteforce.register(**VECTORIZED)  # the rung below: the same tiles, scalar loads, As not transposed
    this = bruteforce.vectorized(**VECTORIZED)
    before, after = below["bank_extra_cycles"], this["bank_extra_cycles"]
    assert before < after, "the review's sizes: conflicts rise"
    assert "The costs it removes" not in text, text
    assert "not bank conflicts" in text, text
    assert "untransposed As made lanes ask" not in text, "no reason for conflicts the rung below did not have"
    assert text.count(f"{before:,} → {after:,}") == 1, text
    assert Fraction(this["shared_wavefronts"], this["fma"]) > Fraction(below["shared_wavefronts"], below["fma"])


def warp0_reuse(BM, BN, rows_of, cols_of, lanes: int, fmas_per_lane: int) -> Fraction:
    """FMAs warp 0 does in one dotIdx per distinct value of As and Bs it reads: a lane reads the As rows and Bs
    columns of its results."""
    rows = {row for lane in range(lanes) for row in rows_of(lane)}
    cols = {col for lane in range(lanes) for col in cols_of(lane)}
    return Fraction(lanes * fmas_per_lane, len(rows) + len(cols))


def test_warptile_claims_its_removal_only_where_warp_reuse_rises(page):
    """64/3 FMAs per value, "the same than" the vectorized kernel's 64/3, under "The cost it removes"."""
    text = removes(page, "warptile", WARPTILE)
    s = WARPTILE
    wmiter = s["WM"] * s["WN"] // (32 * s["TM"] * s["TN"] * s["WNITER"])
    wsubm, wsubn = s["WM"] // wmiter, s["WN"] // s["WNITER"]

    def patch(lane):
        return bruteforce.warp_patch(lane, s["BN"], s["WM"], s["WN"], wsubn, s["TM"], s["TN"])

    this = warp0_reuse(
        s["BM"],
        s["BN"],
        lambda lane: [patch(lane)[0] + m * wsubm + i for m in range(wmiter) for i in range(s["TM"])],
        lambda lane: [patch(lane)[1] + n * wsubn + j for n in range(s["WNITER"]) for j in range(s["TN"])],
        32,
        wmiter * s["WNITER"] * s["TM"] * s["TN"],
    )
    label = page.text(page.find('[data-slot="prev_label"]'))  # the vectorized run it is compared with
    v = {key: int(value) for key, value in re.findall(r"(BM|BN|BK|TM|TN)=(\d+)", label)}
    cols = v["BN"] // v["TN"]
    threads = v["BM"] // v["TM"] * cols
    below = warp0_reuse(
        v["BM"],
        v["BN"],
        lambda tid: [tid // cols * v["TM"] + i for i in range(v["TM"])],
        lambda tid: [tid % cols * v["TN"] + j for j in range(v["TN"])],
        min(threads, 32),
        v["TM"] * v["TN"],
    )
    assert this == below == Fraction(64, 3), (this, below)
    assert "The cost it removes" not in text and "at these sizes it does not" in text, text
    assert "the same than" not in text and "the same as the vectorized kernel's" in text, text


def test_blocktile1d_writes_two_different_wavefront_rates_differently(page):
    """7/128 and 3/64 were both "≈ 0.05": the arrow between them read as no change."""
    sizes = dict(M=8, N=8, K=8, BM=8, BN=8, BK=2, TM=4)  # the teaching preset
    text = removes(page, "blocktile1d", sizes)
    found = re.search(r"\((\d+/\d+) \(≈ ([\d.]+)\) → (\d+/\d+) \(≈ ([\d.]+)\)\)", text)
    assert found is not None, text
    this = bruteforce.blocktile1d(**sizes)
    assert Fraction(found.group(3)) == Fraction(this["shared_wavefronts"], this["fma"])
    assert Fraction(found.group(1)) != Fraction(found.group(3))
    assert found.group(2) != found.group(4), text


MMA = dict(M=32, N=32, K=64, BM=32, BN=32, BK=32, WM=16, WN=16, stages=2, split=1)


def test_mma_names_the_padded_strides_under_the_swizzle_too(page):
    """At swizzle=1 the sentence said 'the rows are padded to 32 and 32 words (swizzle=0)': the swizzled rows'
    lengths. The padded ones are read from the swizzle=0 page's own As and Bs captions."""
    page.go(address("mma", {**MMA, "swizzle": 0}))
    shown = page.text()
    strides = [re.search(rf"{array} \[2·32\]\[(\d+)\]", shown).group(1) for array in ("As", "Bs")]
    page.go(address("mma", {**MMA, "swizzle": 1}))
    text = page.inner_text(page.testid("rung-removes"))
    assert f"padded to {strides[0]} and {strides[1]} words (swizzle=0)" in text, (strides, text)
    assert strides != ["32", "32"]


def test_one_mma_instruction_is_singular(page):
    sizes = dict(M=16, N=8, K=8, BM=16, BN=8, BK=8, WM=16, WN=8)  # one 16×8×8 tile: one mma.m16n8k8
    page.go(address("mma", sizes))
    text = page.inner_text(page.testid("rung-removes"))
    assert "issues 1 mma instruction," in text, text


def test_blocktile1d_at_tm_1_claims_no_reuse(page):
    """'TM = 1 results … reuses it for all 1 FMAs … 2 shared reads for 1 FMAs, 2 per FMA instead of 2'."""
    sizes = dict(M=1, N=64, K=64, BM=8, BN=8, BK=8, TM=1)
    page.go(address("blocktile1d", sizes))
    text = page.inner_text(page.find('[data-testid="rung-change"] p'))
    counted = bruteforce.blocktile1d(**sizes)
    per_fma = Fraction(counted["shared_loads"], counted["fma"])
    assert per_fma == 2 == Fraction(bruteforce.smem(1, 64, 64, 8)["shared_loads"], bruteforce.smem(1, 64, 64, 8)["fma"])
    assert "TM = 1 result of one column" in text, text
    assert "reuses it" not in text and "instead of" not in text, text
    assert f"{per_fma} shared reads per FMA, as the rung below does" in text, text
    assert "a 8×8" not in text and "one 8×8 tile of C with 64 threads" in text, text


def test_tiling_nouns_agree_with_one(page):
    """#/tiling at M = N = K = T = 1: 'M·N = 1 threads', 'the blocks execute 1 FMAs', 'N = 1 elements',
    'each of the 1 thread' (the setup step's narration)."""
    page.go(address("tiling", dict(M=1, N=1, K=1, T=1)))
    text = page.inner_text()
    assert "M·N = 1 thread." in text, text
    assert "execute 1 FMA." in text and "M·N·K = 1 of them is useful" in text, text
    assert "1 threads" not in text and "1 FMAs" not in text and "1 elements" not in text, text
    assert "each of the 1 " not in text and "Setup: the one thread computes which element" in text, text


def test_register_listing_comment_has_no_plural_for_one_thread(page):
    """'1 threads compute a 2x2 tile' in the listing's first line (BM = BN = TM = TN = 2: one thread a block)."""
    sizes = dict(M=2, N=2, K=2, BM=2, BN=2, BK=2, TM=2, TN=2)
    page.go(address("register", sizes))
    text = page.text()
    assert (sizes["BM"] // sizes["TM"]) * (sizes["BN"] // sizes["TN"]) == 1
    assert "1 threads" not in text and "threads=1 computes one 2x2 tile of C" in text, text


PIPELINED = dict(M=18, N=52, K=8, BM=16, BN=64, BK=8, WM=16, WN=64, WNITER=2, TM=1, TN=4, threads=32, stages=4)


def test_pipelined_with_one_tile_sets_nothing_off_and_removes_no_wait(page):
    """'sets off 3 tile(s) ahead' and 'The cost it removes: waiting. Of the 1 tiles …' where K ≤ BK."""
    assert ceil(PIPELINED["K"] / PIPELINED["BK"]) == 1  # one tile along K: nothing can travel while one computes
    page.go(address("pipelined", PIPELINED))
    text = page.inner_text(page.testid("rung-change"))
    assert "tile(s)" not in text and "sets off 3" not in text, text
    assert "nothing to set off ahead" in text, text
    removes = page.inner_text(page.testid("rung-removes"))
    assert "The cost it removes" not in removes and "1 tiles" not in removes, removes
    assert "a block computes one tile (K ≤ BK)" in removes, removes
    page.go(address("pipelined", {**PIPELINED, "K": 32}))  # four tiles: the pipeline sets off stages − 1 = 3
    text = page.inner_text(page.testid("rung-change"))
    assert "the block sets off 3 tiles ahead" in text, text
    assert "The cost it removes: waiting. Of the 4 tiles" in page.inner_text(page.testid("rung-removes"))


def test_naive_table_labels_do_not_call_the_map_with_more_sectors_coalesced(page):
    """map=col was labelled '(coalesced)' and map=row '(strided)' at sizes where col touches more sectors."""
    sizes = dict(M=32, N=1, K=9, T=7)
    col, row = (bruteforce.naive(**sizes, map=m)["global_sectors"] for m in ("col", "row"))
    assert col > row, (col, row)
    page.go(address("naive", sizes))
    labels = [page.text(cell) for cell in page.all('table th[scope="row"]') if page.text(cell)[:3] in ("col", "row")]
    assert labels == ["col (threadIdx.x walks C's columns)", "row (threadIdx.x walks C's rows)"], labels
    assert f"map=row touches {row:,} sectors, map=col {col:,}" in page.inner_text(page.testid("coalescing-verdict"))


@pytest.mark.parametrize("pad", [2, 3, 4])
def test_transpose_verdict_speaks_of_the_pad_on_screen(page, pad):
    """At pad = 2 the verdict said 'Here pad = 1 removes the conflict': the pad it compared, not the one shown."""
    n, T = 37, 32
    before, after = (bruteforce.transpose(n, T, each)["bank_extra_cycles"] for each in (0, pad))
    page.go(address("transpose", dict(n=n, T=T, pad=pad)))
    text = page.inner_text(page.testid("pad-verdict"))
    effect = (
        "changes nothing"
        if after == before
        else "makes it worse"
        if after > before
        else "removes the conflict"
        if after == 0
        else "helps but leaves conflicts"
    )
    assert f"pad = {pad} {effect} ({before:,} → {after:,} {'cycle' if after == 1 else 'cycles'})" in text, text
    assert "pad = 1 removes" not in text, text


def test_ladder_at_n_1_writes_slow_rates_in_a_unit_that_shows_them(page):
    """#/ladder?N=1 said '1.83 µs, 0 GFLOP/s', '≤ 0 GFLOP/s' and 'estimate 6.43e+05 FLOP/s'; and 4,096 FMAs per
    global byte as '4.1e+03'."""
    page.go("#/ladder?N=1")
    text = page.inner_text()
    assert " 0 GFLOP/s" not in text and "≤ 0 GFLOP/s" not in text, text
    assert not re.search(r"\de[+-]\d", text), re.search(r".{60}\de[+-]\d.{20}", text).group(0)
    # every rate on the page is at least 1 of its unit: 2·N³ = 2 FLOPs in microseconds is kFLOP/s or MFLOP/s
    timed = [line for line in text.splitlines() if "limiter:" in line or "≤ " in line or "estimate " in line]
    assert timed
    for line in timed:
        for number, unit in re.findall(r"([\d,.]+) ([kMGTP]?)FLOP/s", line):
            assert float(number.replace(",", "")) >= 1, (number, unit, line)
    assert re.search(r"µs, [\d.]+ [kM]FLOP/s; limiter", text), text
