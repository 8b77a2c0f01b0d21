"""The hash helpers of the app shell (pure Python)."""

from app.core.urlstate import format_hash, modules_shown, parse_hash, pick


def test_parse_route_and_params():
    route = parse_hash("#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14")
    assert route.path == "/tiling"
    assert route.params == {"M": "6", "N": "6", "K": "9", "T": "3", "thread": "1,2", "step": "14"}


def test_empty_and_unknown_routes():
    assert parse_hash("").path == "/"
    assert parse_hash("#").path == "/"
    route = parse_hash("#/admin?x=1")
    assert route.path == "/" and not route.known


def test_first_duplicate_wins_and_values_are_capped():
    route = parse_hash("#/tiling?M=4&M=9&N=" + "9" * 5000)
    assert route.params["M"] == "4"
    assert len(route.params["N"]) == 200


def test_format_round_trips():
    params = {"M": "6", "thread": "1,2", "step": "3"}
    text = format_hash("/tiling", params)
    assert text == "#/tiling?M=6&thread=1,2&step=3"
    assert parse_hash(text).params == params
    assert format_hash("/", {}) == "#/"


def test_hostile_text_is_encoded():
    text = format_hash("/tiling", {"M": "<script>&x=1"})
    assert "<" not in text and parse_hash(text).params["M"] == "<script>&x=1"


def test_shell_keys_and_pick():
    route = parse_hash("#/register?embed=1&BM=4&junk=2")
    assert route.shell == {"embed": "1"}
    assert pick(route.params, ("BM", "BN")) == {"BM": "4"}


def test_the_page_has_a_section_and_a_nav_link_for_every_route():
    """One route table (app.core.urlstate.VIEWS): the static page agrees with it."""
    import re
    from pathlib import Path

    from app.core.urlstate import ROUTES, VIEWS

    site = Path(__file__).resolve().parents[2] / "site"
    html = (site / "index.html").read_text()
    # A view's whole <section> may live in a partial that index.html includes (build.py expands them).
    html = re.sub(
        r"<!--\s*include:\s*([a-z0-9_-]+\.html)\s*-->", lambda m: (site / "partials" / m.group(1)).read_text(), html
    )
    assert set(re.findall(r'data-route="([^"]+)"', html)) == set(ROUTES)
    assert set(re.findall(r'data-nav="([^"]+)"', html)) == set(ROUTES)
    for view in VIEWS:
        assert f'id="{view.container}"' in html


def test_the_module_imported_first_is_the_one_the_address_shows_and_can_be_imported():
    import importlib.util

    assert modules_shown("#/warptile?BM=64&step=3") == ("app.views.blocktiled",)
    assert modules_shown("#/playground?code=x") == ("app.views.playground.page",)
    assert modules_shown("#/") == modules_shown("#/nowhere") == modules_shown("") == ()
    assert importlib.util.find_spec("app.views.playground.page") is not None
