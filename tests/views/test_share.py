"""What the Share dialog, the embed's "open in TileLab" link and the tab's title are made of
(app.core.urlstate, pure Python): addresses of a state, the iframe snippet, per-route titles."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from app.core.urlstate import HOME_TITLE, iframe_snippet, open_in_full_hash, page_title, parse_hash, shared_hash
from pysim.core.trace import Trace
from pysim.hardware.params import SmemParams
from pysim.kernels import KERNELS

STATE = "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14"


def test_shared_address_keeps_the_state_and_only_the_chosen_toggles():
    route = parse_hash(STATE + "&embed=1&relay=abc&quiz=1")
    assert shared_hash(route) == STATE
    assert shared_hash(route, ("lock", "quiz")) == STATE + "&lock=1&quiz=1"
    assert parse_hash(shared_hash(route, ("embed", "lock", "quiz"))).params == {
        **parse_hash(STATE).params,
        "embed": "1",
        "lock": "1",
        "quiz": "1",
    }


def test_open_in_full_drops_embed_lock_and_relay_but_keeps_the_quiz():
    assert open_in_full_hash(parse_hash(STATE + "&embed=1&lock=1&relay=n0nce")) == STATE
    assert open_in_full_hash(parse_hash(STATE + "&embed=1&quiz=1")) == STATE + "&quiz=1"


class Attributes(HTMLParser):
    def handle_starttag(self, tag, attrs):
        self.tag, self.attrs = tag, dict(attrs)


@pytest.mark.parametrize("value", ['1"><script>alert(1)</script>', "a<c>'d"])
def test_the_snippet_is_one_iframe_whatever_the_address_holds(value):
    url = "https://x.example/tilelab/" + shared_hash(parse_hash(f"#/tiling?M={value}"), ("embed",))
    parsed = Attributes()
    parsed.feed(iframe_snippet(url, 'TileLab: "tiling" <b>'))
    assert parsed.tag == "iframe"
    assert parsed.attrs["src"] == url and parse_hash(url.partition("#")[2]).params["M"] == value
    assert parsed.attrs["title"] == 'TileLab: "tiling" <b>'
    assert parsed.attrs["sandbox"] == "allow-scripts allow-same-origin"


def test_titles_name_the_route_and_its_sizes():
    tiling = parse_hash("#/tiling?M=32&N=32&K=32&T=8&thread=0,0&step=3&embed=1")
    assert page_title("Shared-memory tiling", tiling) == "Shared-memory tiling · M=N=K=32, T=8 · TileLab"
    naive = parse_hash("#/naive?M=32&N=32&K=8&T=32&map=row")
    assert page_title("Coalescing", naive) == "Coalescing · M=N=32, K=8, T=32, map=row · TileLab"
    assert page_title("Playground", parse_hash("#/playground?code=eNp")) == "Playground · TileLab"
    assert page_title("Home", parse_hash("#/")) == HOME_TITLE
    assert len(page_title("Tiling", parse_hash("#/tiling?" + "&".join(f"k{i}={i}" for i in range(80))))) < 160


def test_the_page_starts_with_the_home_title():
    page = (Path(__file__).resolve().parents[2] / "site" / "index.html").read_text(encoding="utf-8")
    assert f"<title>{HOME_TITLE}</title>" in page


def test_the_readmes_step_example_is_pysims():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    last = len(Trace(KERNELS["smem"], SmemParams(M=6, N=6, K=9, T=3))) - 1
    assert "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14" in readme
    assert f'shows "step 14 of {last}", {last} being the last step' in readme.replace("\n", " ")
