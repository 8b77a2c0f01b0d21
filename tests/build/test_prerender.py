"""The pre-render (tools/sitebuild/prerender.py) in CPython: what the views draw on the build's DOM
(tools/sitebuild/fakedom.py), read back by an independent HTML parser (lxml, libxml2's)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from urllib.parse import parse_qsl

import lxml.html
import pytest

from app.core.urlstate import VIEWS
from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from tools.sitebuild.fakedom import Document, Element, parse_into
from tools.sitebuild.paths import PARTIALS, SITE
from tools.sitebuild.prerender import FREE, MAIN, PRERENDERS_MARK, Drawn, draw_views, prerender, read_drawing
from tools.sitebuild.site import include_partials


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    """site/index.html with its partials, as the build has it when it pre-renders."""
    path = tmp_path_factory.mktemp("prerender") / "index.html"
    path.write_text((SITE / "index.html").read_text(encoding="utf-8"), encoding="utf-8")
    include_partials(path, SITE / PARTIALS)
    return path


@pytest.fixture(scope="module")
def main(page) -> str:
    """The page's <main>, where the views are drawn (as prerender() takes it)."""
    return MAIN.search(page.read_text(encoding="utf-8")).group(0)


@pytest.fixture(scope="module")
def drawn(main) -> dict[str, Drawn]:
    return draw_views(main)


def read(markup: str):
    """The markup as a browser-grade parser builds it."""
    return lxml.html.fragment_fromstring(markup, create_parent="div")


def test_every_view_is_drawn(drawn):
    assert set(drawn) == {spec.container for spec in VIEWS}
    for container, view in drawn.items():
        assert view.markup.strip() and "placeholder" not in view.markup, container
        # the ladder, the playground and the teachers' index have no step (the index not even an address)
        assert "step=" in view.address or container in {"app-ladder", "app-playground", "app-teach"}, container


@pytest.mark.parametrize("spec", [spec for spec in VIEWS if spec.kernel], ids=lambda spec: spec.path)
def test_a_stepping_view_shows_its_sizes_values_and_zero_counters(drawn, spec):
    markup = drawn[spec.container].markup
    state = dict(parse_qsl(drawn[spec.container].address))
    kernel = KERNELS[spec.kernel]
    params = kernel.PARAMS.parse({key: value for key, value in state.items() if key not in ("thread", "step")})
    assert state["step"] == "0"
    tree = read(markup)
    counters = [dd.text_content().strip() for dd in tree.xpath("//*[contains(@class, 'counter')]//dd")]
    # "?": a counter the guide's first question is about, not written until it is answered (SPEC §7)
    assert counters and set(counters) <= {"0", "?"} and "0" in counters
    listing = tree.xpath("//pre[contains(@class, 'code')]")[0].text_content()
    assert "__global__" in listing and "@@" not in listing  # the kernel's CUDA, markers stripped (PTX has `@!p`)
    trace = Trace(kernel, params)
    cells = tree.xpath("//*[@data-testid='grid-A']//span[@data-r]")
    if trace.A.size <= 1024:  # drawn as elements; larger matrices are a canvas Python paints
        assert [cell.text_content() for cell in cells] == [f"{value:g}" for value in trace.A.reshape(-1)]
    else:
        assert cells == [] and tree.xpath("//canvas[@data-testid='canvas-A']")


def test_inline_styles_travel_as_data_for_the_csp(drawn):
    grid = read(drawn["app-tiling"].markup).xpath("//*[@data-testid='grid-A']")[0]
    assert grid.get("style") is None
    assert grid.get("data-prerender-style").startswith("--cols:")
    assert all(" style=" not in view.markup for view in drawn.values())


def test_each_view_gets_a_file_the_pages_head_names(page, drawn, tmp_path):
    copy = tmp_path / "index.html"
    copy.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    prerender(copy)
    html = copy.read_text(encoding="utf-8")
    assert PRERENDERS_MARK not in html
    assert set(re.findall(r"<template\b[^>]*>", html)) == {'<template class="prose">'}  # the prose's, no drawing
    head = lxml.html.parse(str(copy)).getroot().find("head")
    metas = [meta.get("content").split(" ") for meta in head.xpath("meta[@name='tilelab-prerender']")]
    named = {route: name for route, name, *mode in metas if mode != [FREE]}  # what a first visit fetches
    assert set(named) == {spec.path for spec in VIEWS}
    for spec in VIEWS:
        container, view = read_drawing((tmp_path / named[spec.path]).read_text(encoding="utf-8"))
        assert container == spec.container and view.route == spec.path
        assert view.address == drawn[container].address and read(view.markup) is not None


def test_fakedom_markup_reads_back_as_built():
    document = Document()
    root = document.createElement("div")
    root.setAttribute("title", 'say "a < b" & more')
    code = document.createElement("pre")
    code.textContent = "for (i < n && j > 0)"
    svg = document.createElementNS("http://www.w3.org/2000/svg", "svg")
    svg.setAttribute("viewBox", "0 0 10 10")
    svg.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "rect"))
    field = document.createElement("input")
    field.value = "7"
    field.hidden = True
    for child in (code, svg, field):
        root.appendChild(child)
    tree = read(root.outerHTML)[0]
    assert tree.get("title") == 'say "a < b" & more'
    assert tree.xpath("./pre")[0].text == "for (i < n && j > 0)"
    assert tree.xpath("./svg/rect") and tree.xpath("./svg")[0].get("viewbox") == "0 0 10 10"
    assert tree.xpath("./input")[0].get("value") == "7" and tree.xpath("./input")[0].get("hidden") == ""


SELECTORS = {
    '[data-slot="T"]': "//*[@data-slot='T']",
    ".counter": "//*[contains(concat(' ', normalize-space(@class), ' '), ' counter ')]",
    "section > h1": "//section/h1",
    "main section h2": "//main//section//h2",
    'a[href^="#/"]': "//a[starts-with(@href, '#/')]",
    "form[data-quiz]": "//form[@data-quiz]",
}


@pytest.mark.parametrize("selector", SELECTORS)
def test_selectors_find_what_xpath_finds(main, selector):
    document = Document()
    body = document.createElement("body")
    document.appendChild(body)
    parse_into(body, main)
    found = [node.outerHTML for node in document.querySelectorAll(selector)]
    expected = read(main).xpath(SELECTORS[selector])
    assert len(found) == len(expected) > 0
    assert [node.get("id") for node in expected] == [read(markup)[0].get("id") for markup in found]


def test_live_children_follow_removals():
    parent = Element("ol")
    for _ in range(3):
        parent.appendChild(Element("li"))
    children = parent.children
    while children.length > 1:  # as site/app/views/tiling.py's fill_list trims a list
        parent.removeChild(parent.lastChild)
    assert parent.children.length == 1


def test_a_view_that_needs_more_fails_the_build():
    with pytest.raises(AttributeError, match="fakedom"):
        Element("div").offsetParentChain  # noqa: B018 - reading it is the test


def test_a_row_written_in_a_table_gets_the_tbody_a_browser_gives_it():
    root = Element("div")
    parse_into(root, "<table><tr><td>1</td></tr></table>")
    assert [element.localName for element in root.descendants()] == ["table", "tbody", "tr", "td"]


def test_a_second_page_drawn_in_one_process_is_drawn_alike(main, drawn):
    """The build draws the site and then a course package in one process, and tests import the app's
    packages (here `app.widgets`, as tests/views/test_walkthrough.py does): each page gets modules bound to
    its own document, so the same drawing (but for an id made from a Python object's id, the player's
    speed slider's)."""
    importlib.import_module("app.widgets.chartmath")
    draw_views(main)

    def alike(views: dict[str, Drawn]) -> dict[str, tuple[str, str]]:
        return {key: (re.sub(r"speed-[0-9]+", "speed-N", view.markup), view.address) for key, view in views.items()}

    assert alike(draw_views(main)) == alike(drawn)
