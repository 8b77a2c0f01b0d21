"""Bundle TileLab into dist/: runtime, PyScript, wheels, site and pysim.

    python build.py                 # build dist/
    python build.py --serve         # build, then serve dist/ on 127.0.0.1:8000
    python build.py --serve --port 9000
    python build.py --no-service-worker   # a copy that registers no service worker (LMS packages)
    python build.py --scorm [--scorm-url URL] [--scorm-route ROUTE] [--scorm-counts quiz,checkpoints[,puzzles]]
                                    # ... and the course packages, in dist-scorm/ and linked from dist/
    python build.py --scorm --serve # what `make serve` runs

Standard library only. The output works offline and from any sub-path
(GitHub Pages serves it from /<repo>/), so every URL in it is relative.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tools.sitebuild import scorm
from tools.sitebuild.errors import BuildError, report
from tools.sitebuild.paths import DIST
from tools.sitebuild.serve import serve
from tools.sitebuild.site import build


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DIST, help="output folder (default: dist/)")
    parser.add_argument("--serve", action="store_true", help="serve the output on 127.0.0.1 after building")
    parser.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000)")
    parser.add_argument(
        "--no-service-worker", action="store_true", help="register no service worker (e.g. for LMS packages)"
    )
    parser.add_argument(
        "--scorm", action="store_true", help="also write SCORM 1.2 course packages into dist-scorm/ and beside the site"
    )
    parser.add_argument("--scorm-url", help="with --scorm: the hosted copy the link package frames")
    parser.add_argument("--scorm-route", default=scorm.DEFAULT_ROUTE, help="with --scorm: the route a package opens")
    parser.add_argument(
        "--scorm-counts",
        default="quiz,checkpoints",
        help="with --scorm: what the score counts, from quiz, checkpoints, puzzles (default quiz,checkpoints)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = argument_parser().parse_args(argv)
    try:
        # The packages first (each builds its own copy of the site), then the site that links to them.
        packages = (
            scorm.build_packages(url=args.scorm_url, route=args.scorm_route, counts=args.scorm_counts)
            if args.scorm
            else []
        )
        out = build(args.out, service_worker=not args.no_service_worker, packages=packages)
    except BuildError as error:
        return report(error)
    if args.serve:
        serve(out, args.port)
    return 0
