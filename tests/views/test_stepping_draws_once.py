"""A stepping view draws once per address (site/app/views/stepping.py): a deep link, a change of sizes and
a form's Apply each draw the step they ask for and no other; sizes too large to animate draw nothing. Every
stepping route, built in CPython on the build's DOM (tools/sitebuild/fakedom.py), its `render` counted."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.core.urlstate import VIEWS, ViewSpec
from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from tools.sitebuild.fakedom import Document, parse_into
from tools.sitebuild.paths import PARTIALS, SITE
from tools.sitebuild.prerender import MAIN, browser_stand_in
from tools.sitebuild.site import include_partials

STEPPING = [spec for spec in VIEWS if spec.kernel]


@pytest.fixture(scope="module")
def main(tmp_path_factory) -> str:
    """The page's <main> with its partials, where the views are built (as the pre-render has it)."""
    page = tmp_path_factory.mktemp("draws") / "index.html"
    page.write_text((SITE / "index.html").read_text(encoding="utf-8"), encoding="utf-8")
    include_partials(page, SITE / PARTIALS)
    return MAIN.search(Path(page).read_text(encoding="utf-8")).group(0)


@dataclass
class Opened:
    view: object
    drawn: list[int]  # the step index of every render, in order
    address: dict[str, str]  # what the view last wrote into the address

    def visit(self, raw: dict[str, str]) -> list[int]:
        """The steps drawn while the view takes this address."""
        self.drawn.clear()
        self.view.activate(raw)
        return list(self.drawn)


@contextmanager
def opened(main: str, spec: ViewSpec) -> Iterator[Opened]:
    document = Document()
    body = document.createElement("body")
    document.appendChild(body)
    parse_into(body, main)
    with browser_stand_in(document):
        view_class = getattr(importlib.import_module(spec.module), spec.name)
        address: dict[str, str] = {}
        view = view_class(document.getElementById(spec.container), address.update)
        found = Opened(view, [], address)
        render = view.render

        def counted(step) -> None:
            found.drawn.append(view.player.index)
            render(step)

        view.render = counted
        yield found


def presets(spec: ViewSpec) -> list[dict[str, str]]:
    """The kernel's presets that animate, as address values; one more on another device where it has one."""
    params_cls = KERNELS[spec.kernel].PARAMS
    found = []
    for values in params_cls.PRESETS.values():
        raw = {name: str(value) for name, value in values.items()}
        if not params_cls.parse(raw).too_large_to_animate():
            found.append(raw)
    if len(found) == 1:  # another device than the preset's (#/wgmma's is the H100 already: it runs on Hopper only)
        device = params_cls.parse(found[0]).device
        found.append({**found[0], "device": "h200" if device == "h100" else "h100"})
    return found


def steps(spec: ViewSpec, raw: dict[str, str]) -> int:
    params_cls = KERNELS[spec.kernel].PARAMS
    return len(Trace(KERNELS[spec.kernel], params_cls.parse(raw)))


def too_large(spec: ViewSpec) -> dict[str, str]:
    params_cls = KERNELS[spec.kernel].PARAMS
    return {**presets(spec)[0], params_cls.ANIMATED[0]: "100"}


@pytest.mark.parametrize("spec", STEPPING, ids=lambda spec: spec.path)
def test_a_deep_link_a_new_size_and_a_new_step_each_draw_one_step(main, spec):
    first, other = presets(spec)[:2]
    with opened(main, spec) as page:
        index = min(5, steps(spec, first) - 1)
        assert page.visit({**first, "thread": "1,0", "step": str(index)}) == [index]
        assert page.address["step"] == str(index) and page.address["thread"] == "1,0"
        index = steps(spec, other) - 1
        assert page.visit({**other, "step": str(index)}) == [index]
        assert page.address["step"] == str(index)
        assert page.visit({**other, "step": "1"}) == [1]
        assert page.visit({**other, "step": "1", "thread": "0,0"}) == [1]
        assert page.address["thread"] == "0,0"


@pytest.mark.parametrize("spec", STEPPING, ids=lambda spec: spec.path)
def test_apply_draws_step_zero_once(main, spec):
    first, other = presets(spec)[:2]
    params_cls = KERNELS[spec.kernel].PARAMS
    with opened(main, spec) as page:
        page.visit({**first, "step": "2"})
        page.drawn.clear()
        page.view.apply(params_cls.parse(other))
        assert page.drawn in ([0], [2])  # a view may keep the step when only the map, pad or device changed
        assert len(page.drawn) == 1


@pytest.mark.parametrize("spec", STEPPING, ids=lambda spec: spec.path)
def test_too_large_draws_nothing_and_offers_the_counts(main, spec):
    first = presets(spec)[0]
    params_cls = KERNELS[spec.kernel].PARAMS
    big = too_large(spec)
    with opened(main, spec) as page:
        page.visit({**first, "step": "3"})
        before = dict(page.address)
        assert page.visit({**big, "step": "0"}) == []
        assert page.address == before  # the state shown stays
        assert "too large to animate" in page.view.form.error.textContent
        assert not page.view.counts_button.hasAttribute("hidden")
        page.view.apply(params_cls.parse(big))  # from the form, too
        assert page.drawn == [] and "too large to animate" in page.view.form.error.textContent
        page.view.enter_counts_only()  # the counts button
        assert page.view.counts_only and page.address.get("mode") == "counts"
        assert page.view.counts_button.hasAttribute("hidden")
    with opened(main, spec) as page:  # a first visit to such sizes: their counts, nothing drawn
        assert page.visit(big) == []
        assert page.view.counts_only and page.address.get("mode") == "counts"
        assert page.view.form.error.hasAttribute("hidden")


@pytest.mark.parametrize("spec", STEPPING, ids=lambda spec: spec.path)
def test_a_bad_step_for_new_sizes_shows_them_from_step_zero_under_the_error(main, spec):
    first, other = presets(spec)[:2]
    with opened(main, spec) as page:
        page.visit({**first, "step": "1"})
        assert page.visit({**other, "step": "99999"}) == [0]
        assert "step" in page.view.form.error.textContent
        assert page.address["step"] == "0"


@pytest.mark.parametrize("spec", STEPPING, ids=lambda spec: spec.path)
def test_a_link_past_an_open_checkpoint_draws_the_asked_step_once(main, spec):
    """A quiz link never moves backwards (issue 38 item 5): past an open checkpoint it opens at its own step,
    drawn once, the checkpoints before it passed (tests/views/test_deep_link_checkpoints.py)."""
    first = presets(spec)[0]
    last = steps(spec, first) - 1
    with opened(main, spec) as page:
        assert page.visit({**first, "quiz": "1", "step": str(last)}) == [last]
