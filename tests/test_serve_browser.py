"""The playground in a real browser: headless Chromium (Debian's ``chromium``) driven by
playwright. Skipped on a machine without them, but failing in CI (``CI`` set), where
.ci/run installs both.

The tables are played as a newcomer would: every move is found by what the page says it does
(its label in the list of moves, the text a target shows on hover), never by an action id.
Also writes the screenshots of docs/playground.md when RULESPEC_SCREENSHOTS=1 (and checks,
always, that no two pieces of text on them overlap).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import threading
import time
import urllib.request
from typing import Any

import pytest

from tests.conftest import ROOT, require

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
SHOTS = ROOT / "docs" / "img"
TIMEOUT = 20_000  # ms a page may take to show what a step waits for
SIZES = ((1280, 800), (800, 600))
SPECS = [ROOT / "games" / "highhand.yaml", ROOT / "games" / "highjack.yaml",
         ROOT / "tests" / "serve_specs" / "rule_failure.yaml"]


def _chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI"):
        pytest.fail("no chromium on this machine (.ci/run installs Debian's chromium)")
    pytest.skip("no chromium on this machine")


@pytest.fixture(scope="module")
def server():
    require("starlette")
    uvicorn = require("uvicorn")
    from interpreter.serve.app import create_app
    from interpreter.serve.limits import ServerLimits
    from interpreter.serve.run import bind

    sock = bind("127.0.0.1", 0)
    app = create_app([str(p) for p in SPECS], ServerLimits(bot_delay=0.05, bot_priority=10, tables_per_client=50,
                                                           create_per_minute=1000, requests_per_client=100))
    config = uvicorn.Config(app, log_level="warning")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert instance.started
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    instance.should_exit = True
    thread.join(5)


@pytest.fixture(scope="module")
def browser():
    sync_api = require("playwright.sync_api")
    path = _chromium()
    with sync_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=path, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield instance
        instance.close()


def _page(browser: Any, width: int = 1280, height: int = 800) -> tuple[Any, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


@pytest.fixture
def page(browser):
    page, errors = _page(browser)
    yield page
    page.context.close()
    assert errors == []


def _post(server: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(server + path, method="POST", headers={"Content-Type": "application/json"},
                                     data=json.dumps(body).encode())
    return json.loads(urllib.request.urlopen(request).read())


def _shot(page: Any, name: str) -> None:
    if os.environ.get("RULESPEC_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / name))


def _version(page: Any) -> int:
    return int(page.get_attribute("#table", "data-version") or -1)


def _events(page: Any) -> list[str]:
    return [e.get_attribute("data-type") for e in page.query_selector_all("#events .event")]


OVERLAPS = """() => {
  // every piece of visible text as the boxes of its lines, clipped by the boxes that scroll or hide
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!el || !node.textContent.trim() || el.closest("title, script, style")) continue;
    const folded = el.closest("details");
    if (folded && !folded.open && !el.closest("summary")) continue;  // the closed part of a <details> is not drawn
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      let box = { l: r.left, t: r.top, r: r.right, b: r.bottom };
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.display === "none" || s.visibility === "hidden") { box = null; break; }
        if (s.overflowX !== "visible" || s.overflowY !== "visible") {
          const c = a.getBoundingClientRect();
          box = { l: Math.max(box.l, c.left), t: Math.max(box.t, c.top),
                  r: Math.min(box.r, c.right), b: Math.min(box.b, c.bottom) };
        }
      }
      if (box && box.r - box.l > 1 && box.b - box.t > 1) {
        boxes.push({ ...box, text: node.textContent.trim().slice(0, 40) });
      }
    }
  }
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    const w = Math.min(a.r, b.r) - Math.max(a.l, b.l), h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
    if (w > 1 && h > 1) out.push(a.text + " | " + b.text);
  }
  return { count: boxes.length, overlaps: out };
}"""


def _no_overlapping_text(page: Any, where: str) -> None:
    found = page.evaluate(OVERLAPS)
    assert found["count"] > 20, f"{where}: too little text to judge"
    assert found["overlaps"] == [], f"{where}: text overlaps: {found['overlaps'][:10]}"


# ---------------------------------------------------------------------- the editor


def test_the_editor_marks_an_error_at_its_line(server, page):
    page.goto(server + "/editor?spec=highhand")
    page.wait_for_selector("#summary[data-ok='1']")
    assert "High Hand" in page.text_content("#describe")
    source = page.locator("#source")
    lines = source.input_value().split("\n")
    line = next(i for i, t in enumerate(lines) if t.startswith("zones:")) + 2  # the first zone's line (1-based)
    assert "visibility" in lines[line - 1]
    start = sum(len(t) + 1 for t in lines[: line - 1]) + lines[line - 1].index("visibility")
    source.click()
    page.evaluate(f"document.querySelector('#source').setSelectionRange({start}, {start + len('visibility')})")
    page.keyboard.type("visiblity")  # typed over the selected word, as a person would
    page.wait_for_selector("#summary[data-ok='0']")
    page.wait_for_selector(f"#gutter .bad[data-line='{line}']")
    assert [e.get_attribute("data-line") for e in page.query_selector_all("#gutter .bad")] == [str(line)]
    message = page.text_content(f"#problems li[data-line='{line}']")
    assert "unknown key 'visiblity'" in message and "did you mean 'visibility'?" in message
    _shot(page, "editor.png")


def test_the_editor_shows_what_the_text_changes_in_its_base(server, page):
    page.goto(server + "/editor?spec=highhand")
    page.wait_for_selector("#summary[data-ok='1']")
    shows = "(words) => document.querySelector('#diff').textContent.includes(words)"
    page.wait_for_function(shows, arg="no change the rules show")
    source = page.locator("#source")
    text = source.input_value()
    assert "name: High Hand\n" in text
    source.fill(text.replace("name: High Hand\n", "name: High Hand Two\n", 1))
    source.dispatch_event("input")
    page.wait_for_function(shows, arg="Name: High Hand -> High Hand Two")


# ---------------------------------------------------------------------- High Hand against a bot


def _moves(page: Any) -> list[str]:
    """The moves the page offers, as it words them."""
    return [b.inner_text() for b in page.query_selector_all("#moves button")]


def _wait_for_turn_or(page: Any, event: str) -> None:
    page.wait_for_function("(event) => document.querySelectorAll('#moves button').length > 0 || [...document"
                           ".querySelectorAll('#events .event')].some(e => e.dataset.type == event)", arg=event)


def test_high_hand_a_full_round_against_a_bot_by_what_the_page_says(server, page):
    """Set up from the start page, then play a whole round of High Hand (2 players) against a bot,
    each move found by its visible description: the list's label, or the hover text of a target."""
    page.goto(server + "/")
    page.wait_for_selector("#spec option[value='highhand']", state="attached")
    page.select_option("#spec", "highhand")
    page.select_option("#players", "2")
    page.select_option("[data-seat='0']", "human")
    page.select_option("[data-seat='1']", "greedy")
    page.fill("#seed", "5")  # one person at the table: the seed may be chosen
    page.click("#start")
    page.click("[data-seat-link='0']")
    page.wait_for_selector("#table[data-version]")
    rng = random.Random(5)
    steps: set[str] = set()
    moves_made = 0
    while "round_end" not in _events(page):
        assert moves_made < 400, "the round did not end"
        _wait_for_turn_or(page, "round_end")
        if "round_end" in _events(page):
            break
        before = _version(page)
        labels = _moves(page)
        steps.add(page.inner_text("#step"))
        label = rng.choice(labels)
        if moves_made % 2 == 0:
            page.get_by_role("button", name=label, exact=True).click()
        else:  # the same move through its target on the board: the cell whose hover text says it
            cell = next(c for c in page.query_selector_all("[data-target='cell']")
                        if label in (c.query_selector("title").text_content() or ""))
            cell.click()
            chooser = page.query_selector("#chooser button")
            if chooser is not None:
                page.locator("#chooser").get_by_role("button", name=label, exact=True).click()
        page.wait_for_function(f"() => Number(document.querySelector('#table').dataset.version) > {before}")
        moves_made += 1
        if moves_made == 1:
            _shot(page, "highhand.png")
    assert moves_made > 5
    assert "block: first move your blocker, one of your pawns; it takes no card" in steps
    assert "take: then move your taker, your other pawn; it takes the card where it stops" in steps
    round_end = page.query_selector("#events .event[data-type='round_end']").inner_text()
    assert round_end.startswith("round end: ") and "scores" in round_end
    pieces = {p.get_attribute("data-piece-name") for p in page.query_selector_all("svg.board [data-piece]")}
    assert pieces <= {"P0 pawn 1", "P0 pawn 2", "P1 pawn 1", "P1 pawn 2"} and "P0 pawn 1" in pieces


# ---------------------------------------------------------------------- what the tables look like


@pytest.mark.parametrize("spec, seats", [("highjack", ["human", "random", "random", "random"]),
                                         ("highhand", ["human", "random"])])
def test_the_tables_at_two_window_sizes_have_no_overlapping_text(server, browser, spec, seats):
    links = _post(server, "/api/matches", {"spec": spec, "players": len(seats), "seats": seats, "seed": 3})
    page, errors = _page(browser)
    try:
        page.goto(f"{server}/t/{links['seats'][0]['token']}")
        page.wait_for_selector("#moves button")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(200)  # the layout settles
            _no_overlapping_text(page, f"{spec} at {width}x{height}")
            _shot(page, f"{spec}-{len(seats)}p-{width}x{height}.png")
        page.click("#how summary")
        _no_overlapping_text(page, f"{spec} with how to play open")
        assert page.inner_text("#how .rules").strip()
    finally:
        page.context.close()
    assert errors == []


# ---------------------------------------------------------------------- Highjack, two people


def _choose(page: Any, words: tuple[str, ...]) -> None:
    labels = _moves(page)
    label = next((m for w in words for m in labels if w in m), labels[0])
    page.get_by_role("button", name=label, exact=True).click()


def test_highjack_two_seats_play_a_session(server, browser):
    links = _post(server, "/api/matches", {"spec": "highjack", "players": 2, "seats": ["human", "human"],
                                           "options": {"max_rounds": 1}})
    pages = []
    for seat in links["seats"]:
        p, _ = _page(browser)
        p.goto(f"{server}/t/{seat['token']}")
        p.wait_for_selector("#status")
        pages.append(p)
    try:
        moves = 0
        while not any(t in _events(pages[0]) for t in ("session_won", "session_void", "stoners_quarrel")):
            assert moves < 300, "no Session was played"
            mover = None
            deadline = time.monotonic() + TIMEOUT / 1000
            while mover is None and time.monotonic() < deadline:
                mover = next((p for p in pages if int(p.get_attribute("#table", "data-actions") or 0) > 0), None)
                if mover is None:
                    time.sleep(0.05)
            assert mover is not None, "neither seat may act"
            other = pages[1] if mover is pages[0] else pages[0]
            before = _version(other)
            _choose(mover, ("play Session", "commit", "play Highjack"))
            other.wait_for_function(f"() => Number(document.querySelector('#table').dataset.version) > {before}")
            moves += 1
        # each seat sees its own hand and only the number of cards in the other's
        for seat, p in enumerate(pages):
            own = p.query_selector(f"[data-zone='hand'][data-seat='{seat}']")
            theirs = p.query_selector(f"[data-zone='hand'][data-seat='{1 - seat}']")
            assert own.query_selector(".card:not(.back)") is not None or "empty" in own.text_content()
            assert theirs.query_selector(".card:not(.back)") is None
    finally:
        for p in pages:
            p.context.close()


# ---------------------------------------------------------------------- ends, errors and claims


def test_a_closed_table_says_so_and_stops_reconnecting(server, browser):
    """Finding 8: the page of a table that closed shows why, links home, and opens no new socket."""
    links = _post(server, "/api/matches", {"spec": "highhand", "players": 2, "seats": ["human", "human"]})
    page, errors = _page(browser)
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    try:
        page.goto(f"{server}/t/{links['seats'][0]['token']}")
        page.wait_for_selector("#moves, #waiting", state="attached")
        page.wait_for_function("() => true")
        _post(server, f"/api/t/{links['host']}/close", {})
        page.wait_for_selector("#ended:not(.hidden)")
        assert "This table was closed: its host closed it" in page.inner_text("#ended")
        assert page.get_attribute("#ended a", "href") == "/"
        page.wait_for_timeout(3000)  # the page of old reconnected every second
        assert len(sockets) == 1
        page.goto(f"{server}/t/{links['seats'][0]['token']}")  # and opened again
        page.wait_for_selector("#ended:not(.hidden)")
        assert "This table was closed: its host closed it" in page.inner_text("#ended")
    finally:
        page.context.close()
    assert errors == []


def test_a_seat_opened_in_another_browser_is_taken(server, browser):
    links = _post(server, "/api/matches", {"spec": "highhand", "players": 2, "seats": ["human", "human"]})
    first, _ = _page(browser)
    second, _ = _page(browser)
    try:
        url = f"{server}/t/{links['seats'][1]['token']}"
        first.goto(url)
        first.wait_for_selector("#status")
        second.goto(url)
        second.wait_for_selector("#ended:not(.hidden)")
        assert "Seat taken: this seat's link was opened in another browser first" in second.inner_text("#ended")
        first.reload()
        first.wait_for_selector("#status")  # the browser that holds the seat goes on
    finally:
        first.context.close()
        second.context.close()


def test_a_rule_failing_during_a_move_is_shown_and_taken_back(server, browser):
    """Finding 7: the person reads what failed, the table is as it was, and they play on."""
    links = _post(server, "/api/matches", {"spec": "rule-failure", "players": 2, "seats": ["human", "human"]})
    spectator = json.loads(urllib.request.urlopen(f"{server}/api/t/{links['spectator']}").read())
    page, errors = _page(browser)
    try:
        page.goto(f"{server}/t/{links['seats'][spectator['deciding']]['token']}")
        page.wait_for_selector("#moves button")
        before = _version(page)
        page.get_by_role("button", name="divide by zero", exact=True).click()
        page.wait_for_selector("#flash:not(.hidden)")
        assert page.inner_text("#flash") == ("that move could not be played, and was taken back: "
                                            "rule_failure.yaml:12:27: division by zero")
        assert _version(page) == before and _moves(page) == ["divide by zero", "count one"]
        page.get_by_role("button", name="count one", exact=True).click()
        page.wait_for_function(f"() => Number(document.querySelector('#table').dataset.version) > {before}")
        assert page.is_hidden("#flash")
    finally:
        page.context.close()
    assert errors == []


# ---------------------------------------------------------------------- a replay


def test_a_replay_steps_forward_and_back(server, page, tmp_path):
    from interpreter.cli import main

    log = tmp_path / "match.jsonl"
    spec = tmp_path / "highhand.yaml"
    shutil.copy(ROOT / "games" / "highhand.yaml", spec)
    out, err = _Sink(), _Sink()
    assert main(["play", str(spec), "--players", "2", "--agents", "random", "--seed", "3", "--option", "rounds=1",
                 "--log", str(log)], out, err) == 0, err.text
    page.goto(server + "/replay")
    page.set_input_files("#file", str(log))
    page.click("#open")
    page.wait_for_selector("#table[data-step='0']")
    total = int(page.text_content("#total"))
    assert total > 3
    page.click("#forward")
    page.wait_for_selector("#table[data-step='1']")
    page.click("#forward")
    page.wait_for_selector("#table[data-step='2']")
    first = page.text_content("#log")
    page.click("#back")
    page.wait_for_selector("#table[data-step='1']")
    assert page.text_content("#log") != first
    page.select_option("#seat", "1")
    page.wait_for_selector("#status:has-text('You are P1')")
    page.click("#last")
    page.wait_for_selector(f"#table[data-step='{total}']")
    assert "Match over" in page.text_content("#status")


class _Sink:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False
