"""The PNG icons the web app manifest (site/manifest.webmanifest) names."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

ICON_SIZES = (192, 512)  # what browsers ask of an installable web app
ICON_INK, ICON_PAPER = (0x43, 0x38, 0xCA), (0xFF, 0xFF, 0xFF)


def icon_png(size: int) -> bytes:
    """favicon.svg's picture (four tiles on indigo) as a PNG, full-bleed so it also works as a
    maskable icon: the tiles stay inside the central safe zone."""
    cell = size // 8  # tiles of 2 cells with 1-cell gaps, inside a 2-cell margin

    def paper(x: int, y: int) -> bool:
        return all(2 * cell <= v < 6 * cell and not (3.8 * cell <= v < 4.2 * cell) for v in (x, y))

    rows = b"".join(
        b"\x00" + b"".join(bytes(ICON_PAPER if paper(x, y) else ICON_INK) for x in range(size)) for y in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def write_icons(out: Path) -> None:
    (out / "icons").mkdir(exist_ok=True)
    for size in ICON_SIZES:
        (out / "icons" / f"icon-{size}.png").write_bytes(icon_png(size))
