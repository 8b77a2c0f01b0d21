"""site/app/views/codeurl.py: a playground file survives the address; a damaged `code=` never opens."""

import base64
import zlib
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.urlstate import format_hash, parse_hash
from app.views import codeurl
from app.views.codeurl import CodeLinkError, decode, encode
from pysim.play.puzzles import PUZZLES, starter_for

ROOT = Path(__file__).resolve().parents[2]

SOLUTIONS = sorted((ROOT / "pysim" / "play" / "solutions").glob("*.py"))


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_every_reference_solution_round_trips_through_the_address(path):
    source = path.read_text(encoding="utf-8")
    route = parse_hash(format_hash("/playground", {"M": "32", codeurl.KEY: encode(source)}))
    assert route.path == "/playground"
    assert decode(route.params[codeurl.KEY]) == source


def test_a_link_is_short_and_url_safe():
    source = (ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py").read_text()
    text = encode(source)
    assert len(text) < len(source)  # compressed
    assert quote(text, safe="") == text  # nothing to escape in an address
    assert "=" not in text


@given(st.text(max_size=2000))
@settings(max_examples=200, deadline=None)
def test_any_text_round_trips(source):
    assert decode(encode(source)) == source


def test_starters_round_trip():
    for puzzle in PUZZLES:
        assert decode(encode(starter_for(puzzle))) == starter_for(puzzle)


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("not base64!", "characters"),
        ("<script>alert(1)</script>", "characters"),
        ("A", "base64url"),  # one character is never valid base64
        ("AAAA", "not compressed"),
        (base64.urlsafe_b64encode(b"hello world").decode().rstrip("="), "not compressed"),
        ("x" * (codeurl.MAX_LINK_CHARS + 1), "characters long"),
    ],
)
def test_damaged_links_say_why(text, words):
    with pytest.raises(CodeLinkError, match=words):
        decode(text)


def test_a_cut_link_is_refused():
    text = encode((ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py").read_text())
    for cut in (len(text) // 2, len(text) - 3):
        with pytest.raises(CodeLinkError):
            decode(text[:cut])


def test_a_flipped_character_is_refused():
    text = encode("x = 1\n" * 40)
    middle = len(text) // 2
    flipped = text[:middle] + ("A" if text[middle] != "A" else "B") + text[middle + 1 :]
    with pytest.raises(CodeLinkError):
        decode(flipped)


def test_extra_bytes_after_the_stream_are_refused():
    packed = zlib.compress(b"x = 1\n") + b"junk"
    with pytest.raises(CodeLinkError, match="extra bytes"):
        decode(base64.urlsafe_b64encode(packed).decode().rstrip("="))


def test_a_zip_bomb_does_not_inflate():
    packed = zlib.compress(b" " * (50 * codeurl.MAX_SOURCE_BYTES), 9)
    text = base64.urlsafe_b64encode(packed).decode().rstrip("=")
    assert len(text) < codeurl.MAX_LINK_CHARS
    with pytest.raises(CodeLinkError, match="more than"):
        decode(text)


def test_bytes_that_are_not_text_are_refused():
    text = base64.urlsafe_b64encode(zlib.compress(b"\xff\xfe\x00bad")).decode().rstrip("=")
    with pytest.raises(CodeLinkError, match="text"):
        decode(text)


def test_code_too_large_for_a_link_is_refused_when_encoding():
    with pytest.raises(CodeLinkError, match="at most"):
        encode("#" * (codeurl.MAX_SOURCE_BYTES + 1))


def test_the_address_keeps_a_long_code_value_whole():
    """parse_hash cuts ordinary values at 200 characters, never the code."""
    source = "\n".join(f"v{i} = {i * 7919 % 1000}" for i in range(600))
    text = encode(source)
    assert len(text) > 1000
    assert parse_hash(format_hash("/playground", {codeurl.KEY: text})).params[codeurl.KEY] == text
