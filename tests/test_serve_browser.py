"""The playground in a real browser: headless Chromium (Debian's ``chromium``) driven by
playwright. Skipped on a machine without them, but failing in CI (``CI`` set), where
.ci/run installs both.

Also writes the screenshots of docs/playground.md when RULESPEC_SCREENSHOTS=1.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from typing import Any

import pytest

from tests.conftest import ROOT, require

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
SHOTS = ROOT / "docs" / "img"
TIMEOUT = 15_000  # ms a page may take to show what a step waits for


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
    from interpreter.serve.run import bind

    sock = bind("127.0.0.1", 0)
    app = create_app([str(ROOT / "games" / "highhand.yaml"), str(ROOT / "games" / "highjack.yaml")])
    config = uvicorn.Config(app, log_level="warning")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
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


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == []


def _shot(page: Any, name: str) -> None:
    if os.environ.get("RULESPEC_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / name), full_page=True)


def _version(page: Any) -> int:
    return int(page.get_attribute("#table", "data-version") or -1)


def _events(page: Any) -> list[str]:
    return [e.get_attribute("data-type") for e in page.query_selector_all("#events .event")]


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


# ---------------------------------------------------------------------- High Hand with three bots


def _click_any_action(page: Any) -> None:
    """Click the first target on the table (a cell, a card), else the first button."""
    target = page.query_selector("[data-target]")
    if target is not None:
        target.click()
    else:
        page.click("#actions button[data-action]")
    chooser = page.query_selector("#chooser button[data-action]")
    if chooser is not None:
        chooser.click()


def test_high_hand_four_players_a_round_by_clicking(server, page):
    page.goto(server + "/")
    page.wait_for_selector("#spec option[value='highhand']", state="attached")
    page.select_option("#spec", "highhand")
    page.select_option("#players", "4")
    for seat, kind in enumerate(["human", "random", "random", "random"]):
        page.select_option(f"[data-seat='{seat}']", kind)
    page.fill("#seed", "5")
    page.click("#start")
    page.click("[data-seat-link='0']")
    page.wait_for_selector("#table[data-version]")
    clicks = 0
    shot = False
    while "round_end" not in _events(page):
        assert clicks < 200, "the round did not end"
        page.wait_for_function("() => document.querySelector('#table').dataset.actions > 0 || [...document"
                               ".querySelectorAll('#events .event')].some(e => e.dataset.type == 'round_end')")
        if "round_end" in _events(page):
            break
        before = _version(page)
        if clicks == 1 or not shot:
            _shot(page, "highhand.png")  # the table after the first click (the last shot before the round ends)
            shot = clicks == 1
        _click_any_action(page)
        page.wait_for_function(f"() => Number(document.querySelector('#table').dataset.version) > {before}")
        clicks += 1
    assert clicks > 0
    assert page.query_selector("svg.board g[data-cell='a1']") is not None


# ---------------------------------------------------------------------- Highjack, two people


def _preferred(page: Any, words: tuple[str, ...]) -> Any:
    buttons = page.query_selector_all("#actions button[data-action]")
    for word in words:
        for button in buttons:
            if word in (button.text_content() or ""):
                return button
    return page.query_selector("[data-target]") or (buttons[0] if buttons else None)


def test_highjack_two_seats_play_a_session(server, browser):
    import urllib.request

    body = {"spec": "highjack", "players": 2, "seats": ["human", "human"], "seed": 11, "options": {"max_rounds": 1}}
    request = urllib.request.Request(server + "/api/matches", method="POST",
                                     headers={"Content-Type": "application/json"}, data=json.dumps(body).encode())
    links = json.loads(urllib.request.urlopen(request).read())
    pages = []
    for seat in links["seats"]:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        p = context.new_page()
        p.set_default_timeout(TIMEOUT)
        p.goto(f"{server}/t/{seat['token']}")
        p.wait_for_selector("#status")
        pages.append(p)
    try:
        clicks = 0
        shot = False
        while not any(t in _events(pages[0]) for t in ("session_won", "session_void", "stoners_quarrel")):
            assert clicks < 300, "no Session was played"
            mover = None
            deadline = time.monotonic() + TIMEOUT / 1000
            while mover is None and time.monotonic() < deadline:
                for p in pages:
                    if int(p.get_attribute("#table", "data-actions") or 0) > 0:
                        mover = p
                        break
                else:
                    time.sleep(0.05)
            assert mover is not None, "neither seat may act"
            other = pages[1] if mover is pages[0] else pages[0]
            if clicks >= 2 and not shot:
                _shot(mover, "highjack.png")
                shot = True
            before = _version(other)
            choice = _preferred(mover, ("play Session", "play Highjack", "commit", "Session"))
            choice.click()
            chooser = mover.query_selector("#chooser button[data-action]")
            if chooser is not None:
                chooser.click()
            other.wait_for_function(f"() => Number(document.querySelector('#table').dataset.version) > {before}")
            clicks += 1
        # each seat sees its own hand and only the number of cards in the other's
        for seat, p in enumerate(pages):
            own = p.query_selector(f"[data-zone='hand'][data-seat='{seat}']")
            theirs = p.query_selector(f"[data-zone='hand'][data-seat='{1 - seat}']")
            assert own.query_selector(".card:not(.back)") is not None or "empty" in own.text_content()
            assert theirs.query_selector(".card:not(.back)") is None
    finally:
        for p in pages:
            p.context.close()


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
