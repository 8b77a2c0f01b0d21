"""The tiling and register explanations in Chromium: slots filled from pysim for the sizes on
screen, alternatives shown or hidden, drawings present, numbers equal to brute force."""

from __future__ import annotations

import re

import pytest

from browser.conftest import go, view
from bruteforce import naive, register, smem

TILING_ODD = "#/tiling?M=7&N=5&K=11&T=4"
REGISTER_ODD = dict(M=7, N=5, K=11, BM=4, BN=4, BK=4, TM=2, TN=2)


def part(app, name: str, route: str):
    return view(app, route).locator(f"[data-testid={name}]")


def number(locator) -> int:
    return int(locator.get_attribute("data-value"))


def test_tiling_derivation_for_sizes_that_are_not_multiples(app):
    go(app, TILING_ODD)
    why = part(app, "why-tiling", "tiling")
    expected = smem(7, 5, 11, 4)
    assert number(why.locator("[data-testid=naive-loads]")) == naive(7, 5, 11, 4)["global_loads"] == 2 * 7 * 5 * 11
    assert number(why.locator("[data-testid=exact-loads]")) == expected["global_loads"]
    useful, wasted = why.locator("[data-testid=useful-fma]"), why.locator("[data-testid=wasted-fma]")
    assert number(useful) == 7 * 5 * 11
    assert number(useful) + number(wasted) == expected["fma"]
    text = why.inner_text()
    assert "770 / 4 = 192.5 (ideal)" in text and "71.5 more than ideal" in text
    assert "zero-filled, not loaded" in text and "Global-load reduction" in text
    edge = why.locator("[data-testid=edge-excess]")
    assert edge.is_visible()
    assert "only N mod T = 1 column(s) of C" in edge.inner_text()
    assert "only M mod T = 3 row(s) of C" in edge.inner_text()
    assert view(app, "tiling").locator("[data-slot][data-default]").count() == 0


def test_tiling_derivation_when_tile_divides_the_sizes(app):
    go(app, "#/tiling?M=4&N=4&K=8&T=2")
    why = part(app, "why-tiling", "tiling")
    assert not why.locator("[data-testid=edge-excess]").is_visible()
    assert "equal, because T divides M and N" in why.locator("[data-testid=tiling-verdict]").inner_text()
    assert number(why.locator("[data-testid=wasted-fma]")) == 0


def test_tile_larger_than_the_matrix_explains_the_reuse_cap(app):
    go(app, "#/tiling?M=3&N=2&K=5&T=4")
    cap = part(app, "reuse-cap", "tiling")
    assert cap.is_visible()
    assert "M·K + K·N = 25 global loads" in cap.inner_text()
    assert number(part(app, "exact-loads", "tiling")) == smem(3, 2, 5, 4)["global_loads"] == 25


@pytest.mark.parametrize(
    "T,a_words,b_banks",
    [(1, "1 distinct word", "1 bank"), (3, "3 distinct words", "3 banks"), (32, "1 distinct word", "32 banks")],
)
def test_bank_lines_for_small_odd_and_warp_wide_tiles(app, T, a_words, b_banks):
    go(app, f"#/tiling?M={T + 1}&N={T + 1}&K={T}&T={T}")
    a, b = part(app, "bank-tileA", "tiling"), part(app, "bank-tileB", "tiling")
    assert a.get_attribute("data-degree") == "1" and b.get_attribute("data-degree") == "1"
    assert f"{a_words} in" in a.inner_text()  # the noun agrees with the number (app.core.slots)
    assert re.search(rf"\bin {b_banks}[:,]", b.inner_text())
    assert ("broadcast" in a.inner_text()) == (T > 1)


def register_hash(sizes: dict[str, int]) -> str:
    return "#/register?" + "&".join(f"{k}={v}" for k, v in sizes.items())


def test_register_compare_table_equals_brute_force(app):
    go(app, register_hash(REGISTER_ODD))
    rows = part(app, "compare-table", "register").locator("tbody tr")
    T = 4  # min(BM, BN): the modelling choice of pysim/lessons/comparison.py
    expected = (naive(7, 5, 11, T), smem(7, 5, 11, T), register(*REGISTER_ODD.values()))
    names = ("global_loads", "shared_loads", "register_reads", "fma", "global_sectors", "bank_extra_cycles")
    for row, counts in enumerate(expected):
        cells = rows.nth(row).locator("td")
        for column, name in enumerate(names):
            if name in counts and not (name == "register_reads" and row < 2):
                assert int(cells.nth(column).get_attribute("data-value")) == counts[name], (row, name)
    assert "T = min(BM, BN) = 4" in part(app, "compare-note", "register").inner_text()


def test_register_intensity_wall_and_padding(app):
    go(app, register_hash(REGISTER_ODD))
    assert "TM + TN = 2 + 2 = 4" in part(app, "intensity-current", "register").inner_text()
    chart = part(app, "intensity-chart", "register").locator("svg")
    assert chart.locator("rect.wall").count() == 1
    assert "> 255 registers" in chart.text_content()
    global_text = part(app, "intensity-global", "register").inner_text()
    fma = register(*REGISTER_ODD.values())["fma"]
    assert f"{fma:,} FMAs" in global_text and f"{fma - 7 * 5 * 11:,} on zero-filled padding" in global_text
    assert part(app, "register-banks", "register").get_attribute("data-degree") == "1"


def test_outer_product_picture_has_one_cell_per_product(app):
    go(app, register_hash(dict(M=8, N=8, K=8, BM=8, BN=8, BK=4, TM=4, TN=2)))
    picture = part(app, "outer-product-picture", "register").locator("svg")
    assert picture.locator("rect.tile-box").count() == 8
    assert picture.locator("rect.row-hot").count() == 4 and picture.locator("rect.lane-hit").count() == 2


def test_real_gpus_section_cites_its_sources(app):
    go(app, register_hash(REGISTER_ODD))
    section = part(app, "real-gpus", "register")
    text = section.inner_text()
    assert "256 threads" in text and "304 registers" in text
    hrefs = [section.locator("a").nth(i).get_attribute("href") for i in range(section.locator("a").count())]
    assert "https://siboehm.com/articles/22/CUDA-MMM" in hrefs
    assert any(h.startswith("https://docs.nvidia.com/cuda/cuda-c-programming-guide/") for h in hrefs)
