"""The explanations' numbers (pysim/lessons/explain.py, pysim/lessons/comparison.py) against brute force, and the
prose templates' shipped defaults against what the views fill in."""

from __future__ import annotations

from fractions import Fraction
from html.parser import HTMLParser
from math import ceil
from pathlib import Path

import pytest

from app.views import naive_explain, transpose_explain
from app.views import register_explain as explain_register
from app.views import tiling_explain as explain_tiling
from bruteforce import naive, register, smem, vector_banks
from pysim.hardware.params import NaiveParams, RegisterParams, SmemParams, TransposeParams
from pysim.hardware.registers import MAX_REGISTERS_PER_THREAD, RegisterBudget
from pysim.lessons import comparison, explain

PARTIALS = Path(__file__).resolve().parents[2] / "site" / "partials"

# Non-multiples, T larger than M and N, 1×1×1, and a tile of one warp-wide row.
TILING_SIZES = [(4, 4, 8, 2), (5, 6, 9, 3), (7, 5, 11, 4), (1, 1, 1, 1), (3, 2, 5, 4), (2, 9, 3, 8), (33, 1, 2, 32)]


def edge_brute_force(M: int, N: int, K: int, T: int) -> dict[str, int]:
    """Loop over every tile cell and every FMA of the smem kernel: loads of A, loads of B,
    zero-filled cells, and FMAs that do not contribute a product to C."""
    c = dict.fromkeys(("a_loads", "b_loads", "zero_filled", "padding_fma"), 0)
    for by in range(ceil(M / T)):
        for bx in range(ceil(N / T)):
            for t in range(ceil(K / T)):
                for ty in range(T):
                    for tx in range(T):
                        row, col = by * T + ty, bx * T + tx
                        if row < M and t * T + tx < K:
                            c["a_loads"] += 1
                        else:
                            c["zero_filled"] += 1
                        if t * T + ty < K and col < N:
                            c["b_loads"] += 1
                        else:
                            c["zero_filled"] += 1
                        for k in range(T):
                            if not (row < M and col < N and t * T + k < K):
                                c["padding_fma"] += 1
    return c


@pytest.mark.parametrize("M,N,K,T", TILING_SIZES)
def test_tiling_numbers_match_brute_force(M, N, K, T):
    n = explain.tiling(SmemParams(M=M, N=N, K=K, T=T))
    tiled, untiled, edges = smem(M, N, K, T), naive(M, N, K, T), edge_brute_force(M, N, K, T)
    assert n.naive.global_loads == untiled["global_loads"] == n.naive_threads * n.loads_per_thread
    assert n.tiled.global_loads == tiled["global_loads"] == edges["a_loads"] + edges["b_loads"]
    assert n.tiled.fma == tiled["fma"]
    assert n.zero_filled == edges["zero_filled"]
    assert n.padding_fma == edges["padding_fma"]
    assert n.blocks * n.cells_per_block == n.tiled.shared_stores == tiled["shared_stores"]
    # A loaded value of A serves at most min(T, N) elements of C, one of B at most min(T, M).
    assert n.ideal == Fraction(M * N * K, min(T, N)) + Fraction(M * N * K, min(T, M))
    assert (n.ideal == Fraction(2 * M * N * K, T)) == (T <= min(M, N))
    # Each part of the excess is that matrix's loads over its ideal share.
    assert n.excess_a == edges["a_loads"] - Fraction(M * N * K, min(T, N))
    assert n.excess_b == edges["b_loads"] - Fraction(M * N * K, min(T, M))
    assert n.excess == n.excess_a + n.excess_b
    assert (n.excess == 0) == all(d % T == 0 or d <= T for d in (M, N))
    assert n.tiled.global_loads >= n.floor == M * K + K * N  # A and B loaded once each at least
    assert (n.tiled.global_loads == n.floor) == (T >= M and T >= N)
    assert n.capped == (T > M or T > N)
    assert n.reduction == pytest.approx(untiled["global_loads"] / tiled["global_loads"])


def test_seed_examples_read_as_the_tests_expect():
    default = explain_tiling.slot_values(SmemParams())
    assert (default["naive"], default["ideal"], default["exact"]) == (256, "128", 128)
    assert explain_tiling.slot_values(SmemParams(M=5, N=6, K=9, T=3))["excess"] == "18"
    odd = explain_tiling.slot_values(SmemParams(M=7, N=5, K=11, T=4))
    assert (odd["ideal"], odd["excess"], odd["excess_a"], odd["excess_b"]) == (
        "192.5",
        "71.5",
        "57.75",
        "13.75",
    )
    assert (odd["useful_fma"], odd["padding_fma"]) == (385, 383)


def test_decimal_is_exact_when_whole():
    assert explain.decimal(Fraction(1234567)) == "1,234,567"
    assert explain.decimal(Fraction(385, 2)) == "192.5"
    assert explain.decimal(Fraction(1, 32)) == "0.03125"  # every 2MNK/T with T a power of two is exact
    assert explain.decimal(Fraction(2000002, 3)) == "666,667.333…"


def bank_brute_force(words: list[int]) -> tuple[int, int, int, int]:
    """(distinct words, banks used, degree, words read by more than one thread) of one warp's access."""
    banks: dict[int, set[int]] = {}
    for w in words:
        banks.setdefault(w % 32, set()).add(w)
    repeated = sum(1 for w in set(words) if words.count(w) > 1)
    return len(set(words)), len(banks), max(len(s) for s in banks.values()), repeated


@pytest.mark.parametrize("T", range(1, 33))
def test_tiling_bank_lines_for_every_tile_size(T):
    a, b = explain.tiling_banks(SmemParams(M=T, N=T, K=T, T=T))
    lanes = [(tid % T, tid // T) for tid in range(min(T * T, 32))]
    # nvcc merges a thread's tileA[ty][0..] into its widest aligned access (LDS.128, LDS.64): each lane
    # asks for that many words at once; tileB[0][tx] stays one word.
    width = 4 if T % 4 == 0 else 2 if T % 2 == 0 and T > 1 else 1
    assert (a.width, b.width) == (width, 1)
    a_words = [ty * T + word for tx, ty in lanes for word in range(width)]
    for line, words in ((a, a_words), (b, [tx for tx, ty in lanes])):
        report = line.report
        assert (line.words, report.banks_used, report.degree, report.broadcast_words) == bank_brute_force(words)
        assert report.threads == len(lanes)
        assert line.verdict == "no conflict"  # one thread per tile element never conflicts on these reads
    assert explain.tiling(SmemParams(M=T, N=T, K=T, T=T)).tiled.bank_extra_cycles == 0


def test_warp_rows_in_words():
    assert explain.warp_rows(1, 1) == "thread 0 alone (the block has one thread)"
    assert explain.warp_rows(3, 9) == "threads 0–8 (the whole block): rows ty = 0…2"
    assert explain.warp_rows(32, 1024) == "threads 0–31: row ty = 0"
    assert explain.warp_rows(5, 25) == "threads 0–24 (the whole block): rows ty = 0…4"


REGISTER_SIZES = [
    dict(M=8, N=8, K=8, BM=4, BN=4, BK=4, TM=2, TN=2),
    dict(M=7, N=5, K=11, BM=4, BN=4, BK=4, TM=2, TN=2),
    dict(M=1, N=1, K=1, BM=1, BN=1, BK=1, TM=1, TN=1),
    dict(M=9, N=7, K=5, BM=8, BN=4, BK=3, TM=2, TN=1),
    dict(M=3, N=70, K=2, BM=2, BN=64, BK=2, TM=1, TN=4),
]


@pytest.mark.parametrize("sizes", REGISTER_SIZES)
def test_comparison_rows_match_brute_force(sizes):
    p = RegisterParams(**sizes)
    table = comparison.compare(p)
    assert table.T == min(p.BM, p.BN, 32)
    expected = {
        "naive": naive(p.M, p.N, p.K, table.T),
        "smem": smem(p.M, p.N, p.K, table.T),
        "register": register(*sizes.values()),
    }
    assert [row.kernel for row in table.rows] == ["naive", "smem", "register"]
    for row in table.rows:
        assert row.counters is not None, row.reason
        for name, value in expected[row.kernel].items():
            assert getattr(row.counters, name) == value, (row.kernel, name)


def test_comparison_tile_is_capped_at_the_device_block_limit():
    p = RegisterParams(M=64, N=64, K=8, BM=64, BN=64, BK=4, TM=4, TN=4)
    table = comparison.compare(p)
    assert table.T == 32 and "capped" in table.T_note
    assert all(row.counters is not None for row in table.rows)
    assert table.rows[0].counters.global_loads == 2 * 64 * 64 * 8  # naive loads do not depend on T
    assert table.rows[0].counters.global_sectors == naive(64, 64, 8, 32)["global_sectors"]


@pytest.mark.parametrize("sizes", REGISTER_SIZES)
def test_register_numbers_match_brute_force(sizes):
    p = RegisterParams(**sizes)
    n = explain.register(p)
    brute = register(*sizes.values())
    assert n.padding_fma == brute["fma"] - p.M * p.N * p.K
    assert n.flops_per_byte == pytest.approx(2 * p.M * p.N * p.K / (4 * brute["global_loads"]))  # useful work only
    assert n.counters.bank_extra_cycles == brute["bank_extra_cycles"]


def test_register_wall_and_chart_points():
    wall = explain.register_wall()
    assert RegisterBudget(wall - 1, wall - 1).total <= MAX_REGISTERS_PER_THREAD < RegisterBudget(wall, wall).total
    xs = [x for x, _ in explain.intensity_points()]
    assert xs == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert any(x >= wall for x in xs) and any(x < wall for x in xs)  # the chart shows both sides of the wall


def test_production_shape():
    prod = explain.Production()
    assert prod.threads == 256 and prod.intensity.fma_per_read == 4
    assert prod.budget.fits and not prod.doubled.fits
    assert prod.doubled.accumulators == 256


def test_register_bank_conflict_sentence_numbers():
    # BN/TN = 1 column of threads: warp 0 has 32 values of ty, rows TM·BK = 4 words apart.
    # As scalar, those reads would conflict 4 ways; nvcc merges a thread's 4 aligned words (As[ty·2 + i][0..1]) into
    # one LDS.128, served in quarter-warp phases of 8 lanes whose 32 words fill 32 banks: no conflict.
    p = RegisterParams(M=64, N=1, K=4, BM=64, BN=1, BK=2, TM=2, TN=1)
    n = explain.register(p)
    words = [ty * 4 for ty in range(32)]
    assert bank_brute_force(words)[2] == 4
    assert (n.m_width, n.m_read.degree) == (4, 1) and vector_banks(words, 4) == (4, 0)
    assert (n.row_stride, n.rows_per_bank) == (4, 8)
    assert not explain_register.shown(p)["m-conflict"]


class Slots(HTMLParser):
    """Collect every `data-slot` element's text and attributes, and every `data-show` element."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, dict]] = []
        self.slots: list[tuple[str, dict, list[str]]] = []
        self.shows: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "data-show" in attributes:
            self.shows.append((attributes["data-show"], "hidden" in attributes))
        text: list[str] = []
        if "data-slot" in attributes:
            self.slots.append((attributes["data-slot"], attributes, text))
        self.open.append((tag, text))

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag:
            pass

    def handle_data(self, data):
        if self.open:
            self.open[-1][1].append(data)


def parse(name: str) -> Slots:
    parser = Slots()
    parser.feed((PARTIALS / name).read_text(encoding="utf-8"))
    return parser


def shown_text(value: object) -> str:
    """What slots.fill writes for a value."""
    return f"{value:,}" if isinstance(value, int) else str(value)


@pytest.mark.parametrize(
    "partial,module,params",
    [
        ("tiling-explain.html", explain_tiling, SmemParams()),
        ("register-explain.html", explain_register, RegisterParams()),
        ("view-naive.html", naive_explain, NaiveParams(**next(iter(NaiveParams.PRESETS.values())))),
        ("view-transpose.html", transpose_explain, TransposeParams()),
    ],
)
def test_template_defaults_are_what_python_fills_in(partial, module, params):
    template = parse(partial)
    values = module.slot_values(params)
    assert {name for name, _, _ in template.slots} == set(values), "every slot filled, every value used"
    for name, attributes, text in template.slots:
        assert "data-default" in attributes, name
        assert " ".join("".join(text).split()) == shown_text(values[name]), name
        if "data-value" in attributes:
            expected = str(values[name]) if isinstance(values[name], int) else ""
            assert attributes["data-value"] == expected, name
    visible = module.shown(params)
    assert {name for name, _ in template.shows} == set(visible)
    for name, hidden in template.shows:
        assert hidden == (not visible[name]), name


def test_register_slots_for_a_row_that_cannot_run_say_why():
    row = comparison.Row("smem", "Shared-memory tiled, T = 4", None, "T=4 is over a limit")
    assert explain_register._cell(row, "global_loads") == explain_register.NOT_COUNTED
