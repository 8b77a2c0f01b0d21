"""Regenerate the screenshots (`python docs/screenshots.py`): every route at a laptop (1366×768) and a phone
(390×844) in docs/screenshots/, and the README's pictures, light and dark, at the laptop size.

Each shot is a deep link into a built site (the free view, guide=0, at a step worth seeing), so the pictures
always show what the code draws today. `--only NAME` and `--out DIR` let the test suite run it in a short form.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.harness import Server, launch, wait_ready  # noqa: E402
from tools.sitebuild.site import build  # noqa: E402

# Every route, as a first screen shows it.
ROUTES = {
    "home": "#/",
    "hierarchy": "#/hierarchy?N=1000&T=16&step=5",
    "tiling": "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14",
    "register": "#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&step=40",
    "naive": "#/naive?M=32&N=32&K=8&T=32&map=row&step=3",
    "transpose": "#/transpose?n=64&T=32&pad=0&step=15",
    "blocktile1d": "#/blocktile1d?step=12",
    "vectorized": "#/vectorized?step=2",
    "warptile": "#/warptile?step=30",
    "pipelined": "#/pipelined?step=20",
    "mma": "#/mma?step=9",
    "wgmma": "#/wgmma?step=10",
    "ladder": "#/ladder?N=4096&device=h100",
    "playground": "#/playground",
    "teach": "#/teach?view=tiling",
}
SIZES = {"1366x768": {"width": 1366, "height": 768}, "390x844": {"width": 390, "height": 844}}
README = ("tiling", "register", "hierarchy", "naive", "transpose", "ladder", "playground")  # light and dark
LAPTOP = "1366x768"


def address(route: str) -> str:
    return route + ("&" if "?" in route else "?") + "guide=0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the PNG files (default docs/)")
    parser.add_argument("--only", choices=sorted(ROUTES), help="one route only")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where to build the site (default dist/)")
    args = parser.parse_args(argv)
    (args.out / "screenshots").mkdir(parents=True, exist_ok=True)
    shots = [
        (name, size, "light", args.out / "screenshots" / f"{name}-{size}.png") for name in ROUTES for size in SIZES
    ]
    shots += [
        (name, LAPTOP, scheme, args.out / f"screenshot-{name}-{scheme}.png")
        for name in README
        for scheme in ("light", "dark")
    ]
    server = Server(build(args.dist, service_worker=False))
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for name, size, scheme, path in shots:
                if args.only and name != args.only:
                    continue
                # A fresh context and page per shot: a hash change alone would keep the last scroll.
                context = browser.new_context(viewport=SIZES[size], color_scheme=scheme)
                page = context.new_page()
                page.goto(server.url + address(ROUTES[name]))
                if wait_ready(page) != "ready":
                    raise RuntimeError(f"{ROUTES[name]} did not start")
                page.wait_for_timeout(600)  # the address settles and the C check finishes
                page.screenshot(path=str(path))
                print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
                context.close()
            browser.close()
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
