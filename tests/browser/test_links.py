"""Nothing navigates a course's frame away: in-page links keep the frame's embed, lock and quiz
(site/app/core/shell.py), and the home page's downloads exist. That every external link opens a new tab:
tests/views/test_shell.py."""

from __future__ import annotations

from .conftest import go, url_has


def test_in_page_links_keep_embed_lock_and_quiz(app):
    go(app, "#/hierarchy?embed=1&lock=1&quiz=1")
    app.page.evaluate("document.querySelector('a[href=\"#/tiling\"]').click()")
    app.page.wait_for_function("location.hash.startsWith('#/tiling')")
    assert url_has(app.page, "embed=1", "lock=1", "quiz=1")
    assert app.page.evaluate("document.documentElement.classList.contains('embed')")
    go(app, "#/tiling")  # an address typed without them: nothing is added
    app.page.evaluate("document.querySelector('a[href=\"#/register\"]').click()")
    app.page.wait_for_function("location.hash.startsWith('#/register')")
    assert "embed=1" not in app.page.evaluate("location.hash")


def test_every_download_on_the_home_page_exists_and_a_plain_build_offers_no_package(app):
    go(app, "#/")
    downloads = app.page.locator("a[download]").evaluate_all("links => links.map(a => a.href)")
    statuses = [app.page.request.get(href).status for href in downloads]
    assert statuses == [200] * len(downloads)
    assert app.page.locator("a[href$='.zip']").count() == 0  # `python build.py` makes no course package
    assert app.page.locator("[data-testid=course]").is_visible()
