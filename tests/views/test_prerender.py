"""The pre-render is the view: for every route, what the build writes into the page as its first state
(tools/sitebuild/prerender.py) and a CPython build of that route through the shell are the same tree,
at the same address. (Issue 37; and what tests/browser/test_prerender.py's drawn-before-Python
checks read on the page, for the routes the browser no longer opens one by one.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.core.urlstate import VIEWS
from tools.sitebuild.fakedom import Element, parse_into
from tools.sitebuild.paths import PARTIALS, SITE
from tools.sitebuild.prerender import FREE, prerender, read_drawing
from tools.sitebuild.site import include_partials
from views.page import GUIDED

# An id made from a Python object's id (the player's speed slider) differs between any two builds.
OBJECT_ID = re.compile(r"(speed)-[0-9]+")
# What each route without a kernel shows first (the browser's test_each_route_is_drawn_before_python).
PICTURE = {
    "/hierarchy": "svg.picture",
    "/ladder": "table",
    "/playground": "textarea",
    "/teach": "[data-testid=teach-index] a",
}


@pytest.fixture(scope="module")
def drawings(tmp_path_factory) -> dict[tuple[str, bool], tuple[str, str]]:
    """{(container, free): (address, markup)} as the build writes them into dist/prerender/."""
    page: Path = tmp_path_factory.mktemp("prerender") / "index.html"
    page.write_text((SITE / "index.html").read_text(encoding="utf-8"), encoding="utf-8")
    include_partials(page, SITE / PARTIALS)
    prerender(page)
    read = [read_drawing(path.read_text(encoding="utf-8")) for path in page.parent.glob("prerender/*.js")]
    return {(container, view.mode == FREE): (view.address, view.markup) for container, view in read}


@pytest.fixture(scope="module")
def written(drawings) -> dict[str, tuple[str, str]]:
    """{container: (address, markup)} of each route's first visit (guided, where the view has a guide)."""
    return {container: drawn for (container, free), drawn in drawings.items() if not free}


def tree(markup: str) -> list:
    """The markup as nested (tag, sorted attributes, children) and texts: what the page holds, not how it was spelled."""
    root = Element("div")
    parse_into(root, OBJECT_ID.sub(r"\1-N", markup))

    def shape(node) -> object:
        if not isinstance(node, Element):
            return node.textContent
        return (node.localName, sorted(node.attributes.items()), [shape(child) for child in node.childNodes])

    return [shape(child) for child in root.childNodes]


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.path)
def test_the_pre_render_is_the_view_built_in_cpython(guided_page, written, spec):
    page = guided_page  # the pre-render is the view as a first visit opens it: guided
    address, markup = written[spec.container]
    built = page.go(f"#{spec.path}", settle=False).document.getElementById(spec.container)
    assert isinstance(built, Element)
    assert tree(markup) == tree(built.innerHTML)  # as the view drew it, before its timers (the C check)
    page.settle()
    assert page.address == f"#{spec.path}" + (f"?{address}" if address else "")


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.path)
def test_the_free_pre_render_is_the_view_opened_with_guide_0(page, drawings, spec):
    """A view with a guide is drawn free too (guide=0: a shared free link, every test not about the guide)."""
    free = drawings.get((spec.container, True))
    assert (free is not None) == (spec.path in GUIDED)
    if free is None:
        return
    address, markup = free
    assert "guide=0" in address.split("&")
    built = page.go(f"#{spec.path}", settle=False).document.getElementById(spec.container)
    assert tree(markup) == tree(built.innerHTML)
    page.settle()
    assert page.address == f"#{spec.path}?{address}"


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.path)
def test_each_route_is_drawn_before_python(written, spec):
    """What the reader sees before Python: no skeleton, and the route's listing, zero counters and values
    (a stepping view) or its picture. (That the page shows it, laid out, is the browser's test.)"""
    root = Element("div")
    parse_into(root, written[spec.container][1])
    assert root.querySelector(".skeleton, .placeholder") is None
    if spec.kernel:
        assert "__global__" in root.querySelector("pre.code").textContent
        counters = [dd.textContent.strip() for dd in root.querySelectorAll('[data-testid="counters"] dd')]
        # "?": a counter the guide's first question is about, not written until it is answered (SPEC §7)
        assert counters and set(counters) <= {"0", "?"} and "0" in counters
        values = [cell.textContent.strip() for cell in root.querySelectorAll('[data-testid="grid-A"] .cell[data-r]')]
        assert (values and all(value.isdigit() for value in values)) or root.querySelector('[data-testid="canvas-A"]')
    else:
        assert root.querySelector(PICTURE[spec.path]) is not None
