"""The home page's picture (issue 39 item 7; tools/sitebuild/homepicture.py): what it draws is pysim's trace
of the tiling kernel's first tile load, every token lands on the cell pysim stores its value in, the
stylesheet moves the tokens by the distance the build laid out, and nothing in it is fetched."""

from __future__ import annotations

import re
import shutil

import lxml.html
import numpy as np
import pytest

from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from tools.sitebuild import homepicture, paths
from tools.sitebuild.errors import BuildError
from tools.sitebuild.site import find_fetched_urls

STYLESHEET = paths.SITE / "css" / "desktop.css"


@pytest.fixture(scope="module")
def figure():
    return lxml.html.fragment_fromstring(homepicture.picture())


def translate(element) -> tuple[float, float]:
    x, y = re.fullmatch(r"translate\(([\d.]+) ([\d.]+)\)", element.getparent().get("transform")).groups()
    return float(x), float(y)


def cells(figure, array: str) -> dict[tuple[int, int], tuple[float, float]]:
    """The top left corner of each cell of `array`, row by row as the build drew them."""
    rects = figure.xpath(f'.//g[@data-array="{array}"]/rect')
    cols = 1 + round(
        (max(float(r.get("x")) for r in rects) - min(float(r.get("x")) for r in rects)) / homepicture.PITCH
    )
    return {divmod(i, cols): (float(r.get("x")), float(r.get("y"))) for i, r in enumerate(rects)}


def test_the_tokens_are_the_first_tile_load_of_pysims_trace(figure):
    kernel = KERNELS["smem"]
    params = kernel.PARAMS.parse(homepicture.SIZES)
    trace = Trace(kernel, params)
    step = next(s for s in trace if s.phase == "load")
    load, store = step.accesses
    tokens = figure.xpath('.//g[@class="home-fly"]')
    active = np.nonzero(load.active.any(axis=0))[0].tolist()
    assert sorted(int(t.get("data-thread")) for t in tokens) == active, "one token for every thread that loads"
    for t in tokens:
        source = tuple(int(v) for v in t.get("data-from").split(","))
        target = tuple(int(v) for v in t.get("data-to").split(","))
        value = float(t.xpath("./text")[0].text)
        assert value == trace.A[source] == step.shared[store.array][target]
    # A's cells carry A's values, so the picture is the trace's matrix, not a drawing of one.
    texts = [float(t.text) for t in figure.xpath('.//g[@data-array="A"]/text[not(@class)]')]
    assert texts == np.asarray(trace.A).ravel().tolist()


def test_each_token_travels_from_its_cell_of_a_to_its_cell_of_tilea(figure):
    a, tile = cells(figure, "A"), cells(figure, "tileA")
    keyframes = re.search(r"@keyframes home-fly \{(.*?)\n", STYLESHEET.read_text()).group(1)
    dx, dy = homepicture.FLY
    assert f"translate({dx}px, {dy})" in keyframes, "the stylesheet moves the tokens by the build's FLY"
    for t in figure.xpath('.//g[@class="home-fly"]'):
        source = tuple(int(v) for v in t.get("data-from").split(","))
        target = tuple(int(v) for v in t.get("data-to").split(","))
        assert translate(t) == a[source]
        assert (a[source][0] + dx, a[source][1] + dy) == tile[target]


def test_it_links_into_the_walkthrough_and_fetches_nothing(figure, tmp_path):
    assert figure.xpath(".//a")[0].get("href") == "#/hierarchy"
    page = tmp_path / "index.html"
    shutil.copy(paths.SITE / "index.html", page)
    homepicture.draw_home_picture(page)
    html = page.read_text()
    assert homepicture.MARK not in html and 'data-testid="home-picture"' in html
    assert find_fetched_urls(tmp_path, [page]) == []
    page.write_text("<html></html>")
    with pytest.raises(BuildError):
        homepicture.draw_home_picture(page)
