"""The hash helpers of the app shell (pure Python)."""

from app.urlstate import format_hash, parse_hash, pick


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
