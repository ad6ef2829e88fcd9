"""The printed rulebooks in a real browser: docs/rulebooks/*.html of both seed games rendered by
headless Chromium (Debian's ``chromium``, driven by playwright) as they print (A4, print styles):
no text may overflow its box or the page. This test fails, never skips, on a machine without
Chromium: the printed rulebook is a deliverable. With RULESPEC_SCREENSHOTS=1 it also writes the
screenshots docs/rulebooks.md shows (docs/img/rulebook-*.png)."""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
BOOKS = ROOT / "docs" / "rulebooks"
SHOTS = ROOT / "docs" / "img"
A4 = {"width": 794, "height": 1123}  # an A4 page at 96 dots an inch
PHONE = {"width": 380, "height": 800}

OVERFLOWS = """() => {
  // every element holding text whose content is wider or taller than its box (and is not
  // scrolled or clipped on purpose), and every line of text reaching past the page's edge
  const out = [];
  const page = document.documentElement.clientWidth;
  let texts = 0;
  for (const el of document.body.querySelectorAll("*")) {
    const s = getComputedStyle(el);
    if (s.display === "none" || s.display === "inline") continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own && el.tagName.toLowerCase() !== "svg") continue;
    texts += 1;
    if (s.overflowX === "visible" && el.scrollWidth > el.clientWidth + 1 && el.tagName.toLowerCase() !== "svg")
      out.push(el.tagName + ": " + el.textContent.trim().slice(0, 50)
               + " (" + el.scrollWidth + " > " + el.clientWidth + ")");
    const r = el.getBoundingClientRect();
    if (r.right > page + 1 || r.left < -1)
      out.push(el.tagName + " past the page: " + el.textContent.trim().slice(0, 50));
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim() || !node.parentElement) continue;
    const box = node.parentElement.closest("td, th, li, p, figcaption, caption, h1, h2, header") || document.body;
    const b = box.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 1) continue;
      if (r.right > b.right + 1 || r.left < b.left - 1)
        out.push("text outside its box: " + node.textContent.trim().slice(0, 50));
    }
  }
  return { texts, out };
}"""


def _chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no chromium on this machine: the printed rulebooks are checked in headless Chromium "
                "(install Debian's chromium)")


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright import sync_api
    except ImportError:
        pytest.fail("playwright is missing: the printed rulebooks are checked in headless Chromium through it")
    path = _chromium()
    with sync_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=path, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield instance
        instance.close()


def _open(browser: Any, game: str, viewport: dict[str, int], media: str) -> Any:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.emulate_media(media=media)
    page.goto((BOOKS / f"{game}.html").as_uri())
    page.wait_for_load_state("load")
    assert errors == []
    return page


@pytest.mark.parametrize("game", ["highjack", "highhand"])
@pytest.mark.parametrize("viewport, media", [(A4, "print"), (A4, "screen"), (PHONE, "screen")])
def test_no_text_overflows_its_box(browser, game, viewport, media):
    page = _open(browser, game, viewport, media)
    try:
        found = page.evaluate(OVERFLOWS)
        assert found["texts"] > 50, "too little text to judge"
        assert found["out"] == [], f"{game} ({media}, {viewport['width']}px): {found['out'][:10]}"
        if media == "print" and os.environ.get("RULESPEC_SCREENSHOTS"):
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"rulebook-{game}.png"))
            page.locator("#quick").screenshot(path=str(SHOTS / f"rulebook-{game}-quick.png"))
    finally:
        page.context.close()


@pytest.mark.parametrize("game", ["highjack", "highhand"])
def test_the_rulebook_prints_to_pdf(browser, game, tmp_path):
    page = _open(browser, game, A4, "print")
    try:
        pdf = page.pdf(format="A4", print_background=True)
    finally:
        page.context.close()
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
