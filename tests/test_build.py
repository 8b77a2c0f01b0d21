"""build.py: manifest, hashes, refusal of a corrupted wheel, no external URLs."""

import hashlib
import json
import shutil

import pytest

import build


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build.build(tmp_path_factory.mktemp("b") / "dist")


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
        "pyscript/core.js",
        "pyodide/pyodide.mjs",
        "pyodide/pyodide.asm.wasm",
        "pyodide/python_stdlib.zip",
        "pyodide/pyodide-lock.json",
        "pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl",
        "katex/katex.min.js",
        "pysim/trace.py",
        "app/shell.py",
    ):
        assert (built / path).is_file(), path
    assert not list(built.rglob("*.map"))
    config = json.loads((built / "pyscript.json").read_text())
    assert config["interpreter"] == "./pyodide/pyodide.mjs"
    assert "./pysim/kernels/k02_smem_tiled.py" in config["files"]


def test_every_url_is_relative(built):
    html = (built / "index.html").read_text()
    assert 'src="/' not in html and 'href="/' not in html


def test_corrupted_wheel_is_refused(tmp_path):
    wheels = tmp_path / "wheels"
    shutil.copytree(build.VENDOR_WHEELS, wheels)
    wheel = next(wheels.glob("numpy-*.whl"))
    data = bytearray(wheel.read_bytes())
    data[1000] ^= 0xFF
    wheel.write_bytes(bytes(data))
    with pytest.raises(build.BuildError, match="numpy-2.0.2.*sha256"):
        build.build(tmp_path / "dist", wheel_dir=wheels, npm=False)


def test_unknown_wheel_is_refused(tmp_path):
    (tmp_path / "evil-1.0-py3-none-any.whl").write_bytes(b"PK")
    with pytest.raises(build.BuildError, match="not listed"):
        build.verify_wheels(tmp_path, build.PYODIDE_DIR / "pyodide-lock.json")


def test_external_fetch_fails_the_build(tmp_path, monkeypatch):
    site = tmp_path / "site"
    shutil.copytree(build.SITE, site)
    page = site / "index.html"
    page.write_text(page.read_text().replace("</head>", '<script src="https://cdn.example.com/x.js"></script></head>'))
    monkeypatch.setattr(build, "SITE", site)
    with pytest.raises(build.BuildError, match="cdn.example.com"):
        build.build(tmp_path / "dist", npm=False)


def test_links_and_quoted_sources_are_not_fetches(tmp_path):
    page = tmp_path / "a.html"
    page.write_text('<a href="https://docs.nvidia.com/">docs</a>\nSOURCE = "https://arxiv.org/abs/1"\n')
    assert build.find_fetched_urls(tmp_path, [page]) == []
    page.write_text('<link rel="stylesheet" href="https://x.org/a.css"><img src="http://x.org/i.png">')
    assert len(build.find_fetched_urls(tmp_path, [page])) == 2


def test_serve_mime_types():
    assert build.Handler.extensions_map[".wasm"] == "application/wasm"
    assert build.Handler.extensions_map[".mjs"] == "text/javascript"
