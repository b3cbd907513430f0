"""The quick book, built once per session (the ``quick_book`` fixture), and what it must show.

Every chapter ran on two Dask workers (the path `make book` takes) and rendered with warnings as
errors, its results feed the claims ledger, and the site works in a real browser.
These tests share this module so that ``make test`` (pytest-xdist, ``--dist loadfile``) runs
them in one worker, which builds the book once.

In the browser, headless Chromium over a localhost server walks the table of contents, checks that every chapter page loads with its figures and without
error text, that the search page finds a chapter, and that internal links resolve. Screenshots of
the landing page and one chapter go to ``build/screenshots/`` (not committed).

Skipped, with the reason shown, where Chromium or ChromeDriver is missing, except when
PROBEKIT_REQUIRE_BROWSER=1 (set by .ci/run, which installs them), where that is a failure.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pandas as pd
import pytest

from probekit.book import ledger, runner
from probekit.io import results as saved_results

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = [pytest.mark.slow, pytest.mark.model]


def _require_browser() -> None:
    if CHROMIUM and CHROMEDRIVER:
        return
    reason = "Chromium or ChromeDriver not installed (Debian: chromium chromium-driver)"
    if os.environ.get("PROBEKIT_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def site(quick_book):
    """Serve the built HTML on 127.0.0.1 with a random free port for the module's tests."""
    html = quick_book / "_build" / "html"
    handler = functools.partial(_QuietHandler, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", html
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    _require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # The machine's network is closed: no background traffic, no GPU, no sandbox as root.
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1600",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _wait(driver, condition, timeout=20):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def _toc_links(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    anchors = driver.find_elements(By.CSS_SELECTOR, "nav.bd-docs-nav a.reference.internal")
    return [a.get_attribute("href") for a in anchors]


def test_walk_the_table_of_contents(site, browser, quick_book):
    from selenium.webdriver.common.by import By

    from probekit.book.runner import toc_chapters

    base, _ = site
    browser.get(base)
    _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
    assert "Probing methods, reproduced" in browser.title
    links = _toc_links(browser)
    chapters = toc_chapters(quick_book)
    for slug in chapters:
        assert any(f"/book/chapters/{slug}.html" in link for link in links), slug

    shots = REPO / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(shots / "landing.png"))

    for link in links:
        browser.get(link)
        _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
        main = browser.find_element(By.TAG_NAME, "main").text
        for bad in ("Traceback", "PapermillExecutionError", "Error in cell", "No key"):
            assert bad not in main, (link, bad)
        # Every image is loaded and has pixels.
        images = browser.find_elements(By.CSS_SELECTOR, "main img")
        for img in images:
            ok = browser.execute_script(
                "return arguments[0].complete && arguments[0].naturalWidth > 0", img
            )
            assert ok, (link, img.get_attribute("src"))
        if re.search(r"/chapters/\d\d_", link):  # paper chapters, not assignments
            assert images, f"chapter page without figures: {link}"
            assert "Parameters and provenance" in main, link
    browser.get(urljoin(base, f"book/chapters/{chapters[0]}.html"))
    _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
    browser.save_screenshot(str(shots / f"{chapters[0]}.png"))
    assert (shots / "landing.png").stat().st_size > 10_000


def test_search_finds_a_chapter(site, browser):
    from selenium.webdriver.common.by import By

    base, _ = site
    browser.get(urljoin(base, "search.html?q=wordpieces"))
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "ul.search li a"), timeout=30)
    hits = [
        a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "ul.search li a")
    ]
    assert any("01_data_and_representations" in h for h in hits), hits


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("href", "src"):
            if tag in ("a", "img", "link", "script") and attrs.get(key):
                self.links.append(attrs[key])


def test_internal_links_resolve(site):
    """Every relative href/src of every page points at a file of the build (and its anchor)."""
    _, html = site
    pages = sorted(p for p in html.rglob("*.html") if "_static" not in p.relative_to(html).parts)
    ids: dict[Path, set[str]] = {}
    broken = []
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(errors="replace"))
        for link in parser.links:
            parsed = urlparse(link)
            if parsed.scheme or link.startswith(("//", "mailto:", "#")) or not parsed.path:
                continue
            target_url, fragment = urldefrag(link)
            target = (page.parent / urlparse(target_url).path).resolve()
            if not target.exists():
                broken.append(f"{page.relative_to(html)} -> {link}")
                continue
            if fragment and target.suffix == ".html":
                if target not in ids:
                    text = target.read_text(errors="replace")
                    ids[target] = {part.split('"')[0] for part in text.split('id="')[1:]}
                if fragment not in ids[target]:
                    broken.append(f"{page.relative_to(html)} -> {link} (no such anchor)")
    assert not broken, "\n".join(broken[:30])


def test_quick_book_renders_every_chapter(quick_book, ewt):
    """Every chapter ran under the quick profile and rendered with -W; inspect the HTML."""
    from bs4 import BeautifulSoup

    html_dir = quick_book / "_build" / "html"
    assert (html_dir / "index.html").is_file() and (html_dir / "book" / "rerun.html").is_file()
    for slug in runner.toc_chapters(quick_book):
        page = html_dir / "book" / "chapters" / f"{slug}.html"
        assert page.is_file(), slug
        raw = page.read_text()
        soup = BeautifulSoup(raw, "html.parser")
        main = " ".join(soup.find("main").get_text(" ").split())
        assert "papermill-error-cell-tag" not in raw, slug
        assert "Traceback" not in main, slug
        assert "Parameters and provenance" in main and "quick" in main, slug
        figures = [img for img in soup.find_all("img") if "_images" in img.get("src", "")]
        for img in figures:
            assert (page.parent / img["src"]).resolve().is_file(), (slug, img["src"])
        if slug[:2].isdigit():  # paper chapters save results; assignments need not
            results = quick_book / "build" / "results" / f"{slug}.json"
            assert results.is_file(), f"{slug} saved no results for the claims ledger"

    page = html_dir / "book" / "chapters" / "01_data_and_representations.html"
    soup = BeautifulSoup(page.read_text(), "html.parser")
    text = " ".join(soup.get_text(" ").split())
    assert len([i for i in soup.find_all("img") if "_images" in i.get("src", "")]) >= 3
    # Glued numbers are the treebank's, computed in this run.
    assert f"{len(ewt['dev']):,} sentences" in text
    assert "n_train = 150" not in text  # the injected-parameters cell is hidden
    rerun = (html_dir / "book" / "rerun.html").read_text()
    assert "01_data_and_representations" in rerun and "sample_seed" in rerun
    landing = (html_dir / "book" / "intro.html").read_text()
    assert "profile <strong>quick</strong>" in landing

    # The claims ledger judged every claim from the results the chapters just saved.
    page = (html_dir / "book" / "chapters" / "61_claims_ledger.html").read_text()
    soup = BeautifulSoup(page, "html.parser")
    rows = soup.select("table.claims-ledger tbody tr")
    assert len(rows) == len(ledger.CLAIMS) >= 20
    verdicts = [r.find_all("td")[-1].find("span").get_text(strip=True) for r in rows]
    assert set(verdicts) <= set(ledger.VERDICTS)
    saved = saved_results.load_results(quick_book / "build" / "results")
    table = ledger.evaluate(saved)
    # Three tables on the page: the papers' claims, the consistency checks, the findings.
    shown = pd.concat(
        [ledger.claims_of_papers(table), ledger.consistency_checks(table), ledger.findings(table)]
    )
    assert verdicts == list(shown["verdict"])
    # Every key the ledger reads was glued by its chapter: no claim is left untested.
    assert (table["verdict"] != ledger.NOT_TESTED).all(), table.to_string()
    # Each chapter's own verdict (the one its prose glues) is the ledger's.
    assert table["agrees"].all(), table[["id", "verdict", "chapter_verdict"]].to_string()
    for claim in ledger.CLAIMS:
        page = (html_dir / "book" / "chapters" / f"{claim.chapter}.html").read_text()
        chapter_verdict = saved[claim.chapter][f"{claim.key}_verdict"]
        assert chapter_verdict in BeautifulSoup(page, "html.parser").get_text(), claim.id
    for number, p in enumerate(ledger.PAPERS, start=1):
        part = html_dir / "book" / "parts" / f"part{number}.html"
        text = " ".join(BeautifulSoup(part.read_text(), "html.parser").get_text(" ").split())
        assert "Our answer on this build" in text, p.part
        claims = ledger.claims_of_papers(table[table["paper"] == p.key])
        assert ledger.tally(claims) in text, p.part
