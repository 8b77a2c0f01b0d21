"""A playground file in the address: `code=` holds it zlib-compressed and base64url-encoded.

Pure Python, no browser imports, so it is tested in CPython. `decode` never trusts
its input: anything that is not exactly what `encode` writes (bad characters, a
truncated or corrupted stream, a stream that would inflate past the size limit,
bytes that are not UTF-8) raises CodeLinkError with a message for the page.
"""

from __future__ import annotations

import base64
import binascii
import zlib

from pysim.play.limits import MAX_SOURCE_BYTES  # a playground file is a page of code; more is a mistake or an attack

KEY = "code"  # the address parameter
MAX_LINK_CHARS = 16_000  # encoded; MAX_SOURCE_BYTES of Python compress far below this
ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class CodeLinkError(ValueError):
    """The address's `code=` cannot be read; the message says why."""


def encode(source: str) -> str:
    """The text of `code=`: zlib (level 9) of the UTF-8 source, base64url without padding."""
    data = source.encode("utf-8")
    if len(data) > MAX_SOURCE_BYTES:
        raise CodeLinkError(
            f"the code is {len(data):,} bytes; a link holds at most {MAX_SOURCE_BYTES:,}, so it was not put in the address"
        )
    return base64.urlsafe_b64encode(zlib.compress(data, 9)).decode("ascii").rstrip("=")


def decode(text: str) -> str:
    """The source a `code=` value holds; CodeLinkError when it is not one `encode` wrote."""
    if not text:
        raise CodeLinkError("the link's code= is empty")
    if len(text) > MAX_LINK_CHARS:
        raise CodeLinkError(f"the link's code= is {len(text):,} characters long; at most {MAX_LINK_CHARS:,} are read")
    if not set(text) <= ALPHABET:
        raise CodeLinkError("the link's code= has characters a TileLab link never holds (it was cut or altered)")
    try:
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise CodeLinkError("the link's code= is not valid base64url (it was cut or altered)") from None
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, MAX_SOURCE_BYTES + 1)
    except zlib.error:
        raise CodeLinkError("the link's code= is not compressed code (it was cut or altered)") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise CodeLinkError(f"the link's code= holds more than {MAX_SOURCE_BYTES:,} bytes of code; it was not opened")
    if not inflater.eof or inflater.unused_data:
        raise CodeLinkError("the link's code= is incomplete or has extra bytes (it was cut or altered)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CodeLinkError("the link's code= does not hold text (it was altered)") from None
