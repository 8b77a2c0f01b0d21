"""The home page's course section (site/partials/course.html): its figures are the packages' own, and
its download links exist only in a build that holds the packages (tools/sitebuild/site.py offer_packages)."""

from __future__ import annotations

import re
from pathlib import Path

from app.core.score import COUNT_KINDS, counted_keys, keys_by_kind
from tools.sitebuild import scorm, site

COURSE = Path(__file__).resolve().parents[2] / "site" / "partials" / "course.html"
ZIP_LINK = re.compile(r'href="[^"]*\.zip"')


def slot(name: str) -> int:
    match = re.search(rf'data-slot="{name}" data-default>([\d,]+)<', COURSE.read_text(encoding="utf-8"))
    assert match, name
    return int(match.group(1).replace(",", ""))


def test_the_course_section_states_the_packages_figures():
    kinds = keys_by_kind()
    assert {kind: slot(kind) for kind in COUNT_KINDS} == {kind: len(kinds[kind]) for kind in COUNT_KINDS}
    assert slot("default") == len(counted_keys())
    assert slot("all") == len(counted_keys(COUNT_KINDS))
    assert slot("mastery") == scorm.MASTERY_SCORE


def test_package_links_are_kept_only_for_the_packages_offered(tmp_path):
    page = tmp_path / "index.html"
    source = (
        "<p>a</p><!-- package: tilelab-scorm12.zip --><a href='tilelab-scorm12.zip'>full</a><!-- /package -->"
        "<!-- package: tilelab-scorm12-link.zip -->\n<a href='tilelab-scorm12-link.zip'>link</a>\n<!-- /package --><p>b</p>"
    )
    page.write_text(source)
    site.offer_packages(page, {"tilelab-scorm12.zip"})
    assert page.read_text() == "<p>a</p><a href='tilelab-scorm12.zip'>full</a><p>b</p>"
    page.write_text(source)
    site.offer_packages(page, set())
    assert page.read_text() == "<p>a</p><p>b</p>"


def test_a_plain_build_links_to_no_package(dist):
    html = (dist / "index.html").read_text(encoding="utf-8")
    assert ZIP_LINK.findall(html) == []
    assert "<!-- package" not in html and 'data-testid="course"' in html
    assert not any((dist / name).exists() for name in (scorm.FULL_ZIP, scorm.LINK_ZIP))


def test_a_build_with_packages_links_to_each_and_holds_it(tmp_path):
    zips = []
    for name in (scorm.FULL_ZIP, scorm.LINK_ZIP):
        zips.append(tmp_path / name)
        zips[-1].write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip: the build copies, never opens it
    out = site.build(tmp_path / "dist", packages=zips)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert sorted(ZIP_LINK.findall(html)) == sorted(f'href="{z.name}"' for z in zips)
    assert all((out / z.name).read_bytes() == z.read_bytes() for z in zips)
