"""Regenerate the README's screenshots: one per view, light and dark (`python docs/screenshots.py`).

Each shot is a deep link into a built site, so the pictures always show what the code draws
today. `--only NAME` and `--out DIR` let the test suite run it in a short form.
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

SHOTS = {
    "tiling": "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14",
    "register": "#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&step=40",
    "hierarchy": "#/hierarchy?N=1000&T=16&step=5",
    "naive": "#/naive?M=32&N=32&K=8&T=32&map=row&step=3",
    "transpose": "#/transpose?n=64&T=32&pad=0&step=3",
    "ladder": "#/ladder?N=4096&device=h100",
    "playground": "#/playground",
}
VIEWPORT = {"width": 1280, "height": 800}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the PNG files (default docs/)")
    parser.add_argument("--only", choices=sorted(SHOTS), help="one view only")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where to build the site (default dist/)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    server = Server(build(args.dist, service_worker=False))
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for scheme in ("light", "dark"):
                context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
                for name, route in SHOTS.items():
                    if args.only and name != args.only:
                        continue
                    page = context.new_page()  # a fresh page: a hash change alone would keep the last scroll
                    page.goto(server.url + route)
                    if wait_ready(page) != "ready":
                        raise RuntimeError(f"{route} did not start")
                    page.wait_for_timeout(600)  # the address settles and the C check finishes
                    path = args.out / f"screenshot-{name}-{scheme}.png"
                    page.screenshot(path=str(path))
                    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
                    page.close()
                context.close()
            browser.close()
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
