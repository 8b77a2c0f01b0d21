"""The build (tools/sitebuild/): manifest, hashes, refusal of a corrupted wheel, no external URLs."""

import base64
import gzip
import hashlib
import json
import re
import shutil
import struct
import zipfile

import pytest

from app.core.urlstate import GUIDED_VIEWS, VIEWS
from tools.sitebuild import errors, paths, prerender, runtime, serve, site


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return site.build(tmp_path_factory.mktemp("b") / "dist")


def test_manifest_covers_every_file_with_true_hashes(built):
    entries = json.loads((built / "manifest.json").read_text())["files"]
    paths = {e["path"] for e in entries}
    assert paths == {p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file()} - {"manifest.json"}
    for entry in entries:
        data = (built / entry["path"]).read_bytes()
        assert len(data) == entry["bytes"]
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]


def test_runtime_and_site_are_bundled(built):
    for path in (
        "index.html",
        "boot.js",
        "main.py",
        "pyscript.json",
        ".nojekyll",
        "sw.js",
        "manifest.webmanifest",
        "icons/icon-192.png",
        "icons/icon-512.png",
        "pyscript/core.js",
        "pyodide/pyodide.mjs",
        "pyodide/pyodide.asm.wasm",
        "pyodide/python_stdlib.zip",
        "pyodide/pyodide-lock.json",
        "pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl",
        paths.PYTHON_ARCHIVE,
        paths.NUMPY_BYTECODE,
    ):
        assert (built / path).is_file(), path
    assert not list(built.rglob("*.map"))
    config = json.loads((built / "pyscript.json").read_text())
    assert config["interpreter"] == "./pyodide/pyodide.mjs"
    assert config["files"] == {"./tilelab.zip": "./*", "./pyodide/numpy-bytecode.zip": paths.SITE_PACKAGES + "/*"}
    with zipfile.ZipFile(built / paths.PYTHON_ARCHIVE) as archive:
        assert {"pysim/kernels/k03_smem_tiled.py", "app/core/shell.py"} <= set(archive.namelist())
    assert not (built / "pysim").exists() and not (built / "app").exists()


def test_every_url_is_relative(built):
    html = (built / "index.html").read_text()
    assert 'src="/' not in html and 'href="/' not in html


def test_corrupted_wheel_is_refused(tmp_path):
    wheels = tmp_path / "wheels"
    shutil.copytree(paths.VENDOR_WHEELS, wheels)
    wheel = next(wheels.glob("numpy-*.whl"))
    data = bytearray(wheel.read_bytes())
    data[1000] ^= 0xFF
    wheel.write_bytes(bytes(data))
    with pytest.raises(errors.BuildError, match="numpy-2.0.2.*sha256"):
        site.build(tmp_path / "dist", wheel_dir=wheels, npm=False)


def test_unknown_wheel_is_refused(tmp_path):
    (tmp_path / "evil-1.0-py3-none-any.whl").write_bytes(b"PK")
    with pytest.raises(errors.BuildError, match="not listed"):
        runtime.verify_wheels(tmp_path, paths.PYODIDE_DIR / "pyodide-lock.json")


def test_external_fetch_fails_the_build(tmp_path, monkeypatch):
    copied = tmp_path / "site"
    shutil.copytree(paths.SITE, copied)
    page = copied / "index.html"
    page.write_text(page.read_text().replace("</head>", '<script src="https://cdn.example.com/x.js"></script></head>'))
    monkeypatch.setattr(site, "SITE", copied)
    with pytest.raises(errors.BuildError, match="cdn.example.com"):
        site.build(tmp_path / "dist", npm=False)


def test_links_and_quoted_sources_are_not_fetches(tmp_path):
    page = tmp_path / "a.html"
    page.write_text('<a href="https://docs.nvidia.com/">docs</a>\nSOURCE = "https://arxiv.org/abs/1"\n')
    assert site.find_fetched_urls(tmp_path, [page]) == []
    page.write_text('<link rel="stylesheet" href="https://x.org/a.css"><img src="http://x.org/i.png">')
    assert len(site.find_fetched_urls(tmp_path, [page])) == 2


def test_serve_mime_types():
    assert serve.Handler.extensions_map[".wasm"] == "application/wasm"
    assert serve.Handler.extensions_map[".mjs"] == "text/javascript"


def test_the_page_names_the_runtime_downloads(built):
    head = (built / "index.html").read_text().split("</head>")[0]
    for path in site.PRELOAD_FETCHED:
        assert f'<meta name="tilelab-preload" content="fetch {path}">' in head
    for path in site.PRELOAD_MODULES:
        assert f'<meta name="tilelab-preload" content="module {path}">' in head
    # Pyodide's own fetch of the WebAssembly is what reads V8's code cache: never a preload's.
    assert site.WEBASSEMBLY not in head
    wheel = "pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
    # NumPy: preloaded by the boot guard once the standard library is in, with the lock's hash.
    lock = json.loads((built / "pyodide" / "pyodide-lock.json").read_text())
    digest = base64.b64encode(bytes.fromhex(lock["packages"]["numpy"]["sha256"])).decode()
    assert f'<meta name="tilelab-preload-later" content="fetch {wheel} sha256-{digest}">' in head
    assert f'<meta name="tilelab-preload-later" content="fetch {paths.NUMPY_BYTECODE}">' in head
    assert site.PRELOADS_MARK not in head


def test_the_lock_file_lists_only_what_dist_ships(built, tmp_path):
    shipped = json.loads((built / "pyodide" / "pyodide-lock.json").read_text())
    released = json.loads((paths.PYODIDE_DIR / "pyodide-lock.json").read_text())
    assert shipped["info"] == released["info"] and shipped["info"]["version"] == "0.27.8"
    assert shipped["packages"] == {"numpy": released["packages"]["numpy"]}
    assert (built / "pyodide" / "pyodide-lock.json").stat().st_size < 2_000
    # A shipped wheel whose dependency is not shipped fails the build.
    lock = tmp_path / "pyodide-lock.json"
    released["packages"]["numpy"]["depends"] = ["openblas"]
    lock.write_text(json.dumps(released))
    with pytest.raises(errors.BuildError, match="numpy depends on openblas"):
        runtime.trimmed_lock(lock, sorted(paths.VENDOR_WHEELS.glob("*.whl")))


def test_service_worker_precaches_this_build_by_hash(built):
    manifest = json.loads((built / "manifest.json").read_text())
    entries = {entry["path"]: entry for entry in manifest["files"]}
    worker = (built / "sw.js").read_text()
    build_id = re.search(r'const BUILD = "([0-9a-f]{16})";', worker).group(1)
    assert build_id == manifest["build"]
    files = json.loads(re.search(r"const FILES = (\{.*?\});", worker, re.S).group(1))
    assert set(files) == set(entries) - {"sw.js", ".nojekyll"}
    for path, integrity in files.items():
        assert integrity == "sha256-" + base64.b64encode(bytes.fromhex(entries[path]["sha256"])).decode()


# Issue 44: the page is the shell (and the landing page's text); each view's drawing is a file of its own.
PAGE_GZIP_BYTES = 40_000


def test_the_page_is_the_shell_and_each_views_drawing_a_file_the_worker_caches(built):
    html = (built / "index.html").read_text()
    assert len(gzip.compress(html.encode(), 9)) <= PAGE_GZIP_BYTES
    # No view's drawing in a template; the only templates hold the stepping views' prose, out of the page until
    # the view places it (it states what their questions ask: site/app/widgets/prose.py).
    assert set(re.findall(r"<template\b[^>]*>", html)) == {'<template class="prose">'}
    outside = re.sub(r'<template class="prose">.*?</template>', "", html, flags=re.S)
    for prose in ("why-tiling", "why-no-padding", "intensity", "rung-change", "rung-costs", "why-coalescing"):
        assert f'data-testid="{prose}"' in html and f'data-testid="{prose}"' not in outside, prose
    head = html.split("</head>")[0]
    metas = re.findall(r'<meta name="tilelab-prerender" content="(\S+) (\S+)(?: (guide=[01]))?">', head)
    named = {route: name for route, name, mode in metas if mode != "guide=0"}  # a first visit's
    assert set(named) == {spec.path for spec in VIEWS}
    assert {route for route, _, mode in metas if mode == "guide=0"} == {view.path for view in GUIDED_VIEWS}
    assert head.index('name="tilelab-prerender"') < head.index('<script src="boot.js">')  # read by the boot guard
    files = json.loads(re.search(r"const FILES = (\{.*?\});", (built / "sw.js").read_text(), re.S).group(1))
    containers = {spec.path: spec.container for spec in VIEWS}
    for route, name, mode in metas:
        container, drawn = prerender.read_drawing((built / name).read_text())
        assert (drawn.route, container, drawn.mode) == (route, containers[route], mode) and drawn.markup
        assert name in files


def test_build_id_changes_with_any_file(built, tmp_path, monkeypatch):
    copied = tmp_path / "site"
    shutil.copytree(paths.SITE, copied)
    (copied / "css" / "tilelab.css").write_text((copied / "css" / "tilelab.css").read_text() + "\n/* v2 */\n")
    monkeypatch.setattr(site, "SITE", copied)
    again = site.build(tmp_path / "dist", npm=False)
    assert (
        json.loads((again / "manifest.json").read_text())["build"]
        != json.loads((built / "manifest.json").read_text())["build"]
    )


def test_service_worker_can_be_left_out(tmp_path):
    out = site.build(tmp_path / "dist", npm=False, service_worker=False)
    assert not (out / "sw.js").exists()
    assert '<html data-sw="off" lang="en"' in (out / "index.html").read_text()
    assert "sw.js" not in {entry["path"] for entry in json.loads((out / "manifest.json").read_text())["files"]}


def test_installable(built):
    manifest = json.loads((built / "manifest.webmanifest").read_text())
    assert manifest["start_url"] and manifest["display"] == "standalone"
    sizes = set()
    for icon in manifest["icons"]:
        data = (built / icon["src"]).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        width, height = struct.unpack(">II", data[16:24])
        assert icon["sizes"] == f"{width}x{height}"
        sizes.add(width)
    assert {192, 512} <= sizes
    head = (built / "index.html").read_text().split("</head>")[0]
    assert '<link rel="manifest" href="manifest.webmanifest">' in head and 'name="theme-color"' in head
    assert serve.Handler.extensions_map[".webmanifest"] == "application/manifest+json"


def test_partials_are_included_where_they_are_named_even_inside_partials(tmp_path):
    (tmp_path / "outer.html").write_text("<div><!-- include: inner.html --></div>\n")
    (tmp_path / "inner.html").write_text("<p>inner</p>\n")
    page = tmp_path / "index.html"
    page.write_text("<main><!-- include: outer.html --></main>")
    site.include_partials(page, tmp_path)
    assert page.read_text() == "<main><div><p>inner</p></div></main>"
    page.write_text("<!-- include: missing.html -->")
    with pytest.raises(errors.BuildError, match="missing.html"):
        site.include_partials(page, tmp_path)


def test_every_stepping_view_starts_from_its_outline(built):
    html = (built / "index.html").read_text()
    assert "<!-- include:" not in html
    for view in ("tiling", "register", "naive", "transpose"):
        outline = rf'id="app-{view}"><p class="placeholder">[^<]*</p>\s*(<!--.*?-->\s*)?<div class="skeleton[^"]*" aria-hidden="true">'
        assert re.search(outline, html, re.S), view
