"""The playground tried as an attacker would (issue 51's findings 1-8), each over HTTP and
WebSocket against a real server (uvicorn on loopback, in a thread): one table cannot freeze
the others, bots cannot take every CPU, the editor reads no file but the served specs, the
table limits cannot be exhausted by one client, other sites cannot drive the server, the host
cannot read the others' cards, a failing rule is a clear 4xx, and an ended table says so.

Clients are told apart by X-Forwarded-For (the server trusts it from loopback here, as
``--proxy 127.0.0.1`` would); each client is an ``httpx.Client`` with its own cookies, as a
browser would be. No test asserts on wall time: "the other request was answered while the
bomb was still being worked out" is an order of events, and the waits only bound a hang.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, require

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

GAMES = ROOT / "games"
SPECS = ROOT / "tests" / "serve_specs"
HANG = 120  # seconds after which a request is a hang (a failure), not an answer


class Served:
    """A server on loopback, in a thread, and ways to talk to it."""

    def __init__(self, specs: list[Path], **limits: Any):
        require("starlette")
        uvicorn = require("uvicorn")
        from interpreter.serve.app import create_app
        from interpreter.serve.limits import ServerLimits
        from interpreter.serve.run import bind

        sock = bind("127.0.0.1", 0)
        # bots at nice 10, not only on an idle core: a test machine running the suite leaves none idle
        settings = ServerLimits(**{"bot_delay": 0.0, "bot_priority": 10, **limits})
        self.app = create_app([str(p) for p in specs], settings, proxies=["127.0.0.1"])
        self.instance = uvicorn.Server(uvicorn.Config(self.app, log_level="warning"))
        self.thread = threading.Thread(target=self.instance.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.instance.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.instance.started
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"

    def browser(self, who: str = "10.0.0.1") -> Any:
        """A client with its own cookies, from the address ``who``."""
        httpx = require("httpx")
        return httpx.Client(base_url=self.url, timeout=HANG, headers={"X-Forwarded-For": who})

    @property
    def tables(self) -> Any:
        return self.app.state.server.tables

    def stop(self) -> None:
        self.instance.should_exit = True
        self.thread.join(10)


@pytest.fixture
def served() -> Iterator[Any]:
    made: list[Served] = []

    def make(specs: list[Path] | None = None, **limits: Any) -> Served:
        server = Served(specs or [GAMES / "highhand.yaml", GAMES / "highjack.yaml"], **limits)
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()


def create(browser: Any, **body: Any) -> dict[str, Any]:
    r = browser.post("/api/matches", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def view(browser: Any, token: str) -> dict[str, Any]:
    r = browser.get(f"/api/t/{token}")
    assert r.status_code == 200, r.text
    return r.json()


def socket_close(server: Served, token: str, headers: dict[str, str] | None = None) -> tuple[int | None, str]:
    """The code and reason a seat's WebSocket is closed with, after what it was sent."""
    require("websockets")
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(server.url.replace("http://", "ws://") + f"/ws/{token}", additional_headers=headers or {},
                 open_timeout=HANG) as ws:
        try:
            while True:
                ws.recv(timeout=HANG)
        except ConnectionClosed as closed:
            return (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (None, "")
    return None, ""


def wait_until(what: Any, seconds: float = HANG) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("waited in vain")


# ---------------------------------------------------------------------- 1. one table cannot freeze the server


def test_1_a_costly_table_delays_only_itself_and_stops_at_its_budget(served):
    server = served([GAMES / "highhand.yaml", SPECS / "label_bomb.yaml"])
    attacker, other = server.browser("10.0.0.66"), server.browser("10.0.0.2")
    links = create(attacker, spec="label-bomb", players=2, seats=["human", "human"])
    deciding = view(attacker, links["spectator"])["deciding"]
    bomb: dict[str, Any] = {}

    def open_the_bombs_view() -> None:
        with attacker.stream("GET", f"/api/t/{links['seats'][deciding]['token']}") as r:
            bomb.update(status=r.status_code, done=time.monotonic())  # the answer began
            r.read()
            bomb.update(body=r.json())

    worker = threading.Thread(target=open_the_bombs_view)
    worker.start()
    time.sleep(1.0)  # its 50,000 labels are being worked out (about 12 s of CPU on this machine)
    r = other.get("/api/specs")
    answered = time.monotonic()
    assert r.status_code == 200
    assert "done" not in bomb, "another client's request waited for the costly view"
    worker.join(HANG)
    assert bomb["done"] > answered
    assert bomb["status"] == 422
    assert bomb["body"] == {"error": "this needed more than 2 s of CPU, the most this server gives one request"}
    r = attacker.get(f"/api/t/{links['spectator']}")
    assert r.status_code == 410 and "more than 2 s of CPU" in r.json()["error"]


def test_1_views_are_kept_per_seat_and_version_the_hot_seat_too(served):
    from interpreter.serve.room import HOT_SEAT

    server = served()
    host = server.browser()
    links = create(host, spec="highhand", players=2, seats=["human", "human"], hot_seat=True)
    first = host.get(f"/api/t/{links['hot_seat']}").content
    table = server.tables.live[links["match"]]
    assert table.views[HOT_SEAT] == first
    asked: list[str] = []
    table.room.call = _counting(table.room.call, asked)
    assert host.get(f"/api/t/{links['hot_seat']}").content == first
    assert asked == []  # the same version's view is not worked out again


def _counting(call: Any, asked: list[str]) -> Any:
    async def counted(op: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(op)
        return await call(op, *args, **kwargs)

    return counted


# ---------------------------------------------------------------------- 2. bots within the server's limits


def test_2_a_bot_may_not_ask_for_more_time_than_the_server_gives(served):
    server = served()
    browser = server.browser()
    r = browser.post("/api/matches", json={"spec": "highhand", "players": 2, "seats": ["human", "mcts:3600s"]})
    assert r.status_code == 400
    assert r.json()["error"] == ("seat 1: 'mcts:3600s' asks 3600 s per decision; this server allows a bot at most "
                                 "1 s (--bot-seconds)")
    r = browser.post("/api/simulate", json={"spec": "highhand", "players": 2, "games": 1, "agents": ["mcts:3600s"]},
                     timeout=20)
    assert r.status_code == 400 and "(--bot-seconds)" in r.json()["error"]
    r = browser.post("/api/simulate", json={"spec": "highhand", "games": 10**6})
    assert r.status_code == 400 and "from 1 to 200" in r.json()["error"]


def test_2_busy_bots_leave_other_tables_playing_and_their_host_stops_them(served):
    server = served(tables_per_client=10, bot_seconds=0.5)
    busy, other = server.browser("10.0.0.66"), server.browser("10.0.0.2")
    heavy = []
    for _ in range(4):  # the strongest bots each table may have, thinking all the time
        r = busy.post("/api/matches", json={"spec": "highjack", "players": 4, "seats": ["mcts:3600s"] * 4})
        if r.status_code == 400:
            assert "(--bot-seconds)" in r.json()["error"]
            r = busy.post("/api/matches", json={"spec": "highjack", "players": 4, "seats": ["mcts"] * 4})
        assert r.status_code == 201, r.text
        heavy.append(r.json())
    light = create(other, spec="highhand", players=2, seats=["random", "random"], options={"rounds": 1})
    wait_until(lambda: other.get(f"/api/t/{light['spectator']}").json().get("over"))
    assert other.get(f"/api/t/{light['spectator']}/log").status_code == 200
    for links in heavy:  # meanwhile the heavy tables think on
        assert not busy.get(f"/api/t/{links['spectator']}").json()["over"]
    table = server.tables.live[heavy[0]["match"]]
    pid = table.bots.pid
    r = busy.post(f"/api/t/{heavy[0]['host']}/stop-bots", json={})
    assert r.status_code == 200 and table.bots is None
    wait_until(lambda: not _alive(pid), 10)
    assert "the table's host stopped the bots" in busy.get(f"/api/t/{heavy[0]['spectator']}").json()["notices"]
    r = busy.post(f"/api/t/{heavy[0]['host']}/close", json={})
    assert r.status_code == 200
    r = busy.get(f"/api/t/{heavy[0]['spectator']}")
    assert r.status_code == 410 and r.json()["error"] == "this table was closed: its host closed it"
    assert busy.post(f"/api/t/{heavy[0]['spectator']}/close", json={}).status_code == 410


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


# ---------------------------------------------------------------------- 3. the editor reads only served specs


def test_3_editor_text_extends_only_a_served_spec_and_never_quotes_another_file(served, tmp_path):
    folder = tmp_path / "srv"
    folder.mkdir()
    shutil.copy(GAMES / "highhand.yaml", folder / "highhand.yaml")
    shutil.copy(GAMES / "chess.yaml", folder / "chess.yaml")
    (folder / "secrets.yaml").write_text("password: hunter2\ntoken: s3cr3t\n", encoding="utf-8")
    server = served([folder / "highhand.yaml"])
    browser = server.browser()
    assert browser.post("/api/validate", json={"text": "extends: highhand.yaml\n"}).json()["ok"]
    for name in ("secrets.yaml", "chess.yaml", "../srv/secrets.yaml", str(folder / "secrets.yaml")):
        r = browser.post("/api/validate", json={"text": f"extends: {name}\ngame: {{name: x}}\n"})
        assert r.status_code == 200 and not r.json()["ok"]
        for text in (r.text, browser.post("/api/matches", json={"text": f"extends: {name}\n", "players": 2}).text):
            assert "hunter2" not in text and "s3cr3t" not in text and "password" not in text
            assert str(tmp_path) not in text.replace(name, "")  # (a path typed is quoted back where it was typed)
        first = r.json()["diagnostics"][0]
        assert first["line"] == 1 and first["col"] == 10
        assert (first["message"].startswith("`extends` may name only a spec given here")
                or "not an absolute path" in first["message"])
        assert first["hint"] in ("the specs: highhand.yaml", "put the base spec in this folder or below it")


# ---------------------------------------------------------------------- 4. table limits one client cannot exhaust


def test_4_one_client_cannot_take_every_table(served):
    server = served(max_tables=6, tables_per_client=3)
    greedy, friend = server.browser("10.0.0.66"), server.browser("10.0.0.2")
    for _ in range(3):
        create(greedy, spec="highhand", players=2, seats=["human", "human"])
    r = greedy.post("/api/matches", json={"spec": "highhand", "players": 2, "seats": ["human", "human"]})
    assert r.status_code == 429 and r.json()["error"].startswith("you have 3 live tables, the most this server")
    assert r.headers["retry-after"]
    create(friend, spec="highhand", players=2, seats=["human", "human"])


def test_4_creations_are_rate_limited_per_client(served):
    server = served(create_per_minute=4, tables_per_client=100)
    browser = server.browser()
    for _ in range(4):
        links = create(browser, spec="highhand", players=2, seats=["human", "human"])
        browser.post(f"/api/t/{links['host']}/close", json={})
    r = browser.post("/api/matches", json={"spec": "highhand", "players": 2, "seats": ["human", "human"]})
    assert r.status_code == 429 and r.json()["error"].startswith("you may create 4 tables a minute on this server")


def test_4_a_finished_table_frees_its_slot_at_once_and_stays_readable(served):
    server = served(max_tables=1)
    browser = server.browser()
    first = create(browser, spec="highhand", players=2, seats=["random", "random"], options={"rounds": 1})
    wait_until(lambda: browser.get(f"/api/t/{first['spectator']}").json().get("over"))
    second = create(browser, spec="highhand", players=2, seats=["human", "human"])
    assert second["match"] in server.tables.live and first["match"] not in server.tables.live
    assert browser.get(f"/api/t/{first['spectator']}").json()["over"]
    log = browser.get(f"/api/t/{first['spectator']}/log")
    assert log.status_code == 200 and json.loads(log.text.splitlines()[-1])["winners"] is not None


# ---------------------------------------------------------------------- 5. only our own pages change anything


def test_5_requests_from_other_sites_are_refused(served):
    server = served()
    browser = server.browser()
    body = json.dumps({"spec": "highhand", "players": 2, "seats": ["human", "human"]})
    evil = {"Origin": "http://evil.example", "Content-Type": "text/plain"}
    r = browser.post("/api/matches", content=body, headers=evil)
    assert r.status_code == 403 and r.json() == {"error": "requests from other sites are refused"}
    r = browser.post("/api/matches", content=body, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json() == {"error": "send JSON (Content-Type: application/json)"}
    r = browser.post("/api/matches", content=body, headers={**evil, "Content-Type": "application/json"})
    assert r.status_code == 403
    r = browser.post("/api/matches", content=body, headers={"Content-Type": "application/json",
                                                            "Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    links = browser.post("/api/matches", content=body, headers={"Content-Type": "application/json",
                                                                "Origin": server.url}).json()
    token = links["seats"][0]["token"]
    view(browser, token)
    for path in (f"/api/t/{token}/act", "/api/simulate", "/api/validate", "/api/replays",
                 f"/api/t/{links['host']}/close"):
        assert browser.post(path, content=b"{}", headers=evil).status_code == 403, path
    assert socket_close(server, links["spectator"], {"Origin": "http://evil.example"})[0] == 4403


# ---------------------------------------------------------------------- 6. a fair deal, and seats that stay taken


def test_6_the_server_deals_when_several_people_play(served):
    server = served()
    host, friend = server.browser("10.0.0.1"), server.browser("10.0.0.2")
    r = host.post("/api/matches", json={"spec": "highhand", "players": 2, "seats": ["human", "human"], "seed": 7})
    assert r.status_code == 400 and "gets its deal from the server" in r.json()["error"]
    links = create(host, spec="highhand", players=2, seats=["human", "human"], options={"rounds": 1})
    people = {0: host, 1: friend}
    sent: list[str] = [json.dumps(links)]
    import random

    rng = random.Random(6)
    while True:
        spectator = host.get(f"/api/t/{links['spectator']}")
        assert spectator.status_code == 200, spectator.text
        sent.append(spectator.text)
        if spectator.json()["over"]:
            break
        seat = spectator.json()["deciding"]
        mine = people[seat].get(f"/api/t/{links['seats'][seat]['token']}")
        sent.append(mine.text)
        action = rng.choice(mine.json()["actions"])["id"]
        answer = people[seat].post(f"/api/t/{links['seats'][seat]['token']}/act", json={"action": action})
        assert answer.status_code == 200, answer.text
        sent.append(answer.text)
    header = json.loads(host.get(f"/api/t/{links['spectator']}/log").text.splitlines()[0])
    seed = str(header["seed"])
    assert len(seed) >= 6 and not any(seed in text for text in sent)  # revealed only in the log


def test_6_a_seat_is_claimed_by_the_first_browser_that_opens_it(served):
    server = served()
    host, friend = server.browser("10.0.0.1"), server.browser("10.0.0.2")
    links = create(host, spec="highhand", players=2, seats=["human", "human"])
    theirs = links["seats"][1]["token"]
    view(friend, theirs)  # the friend opened their link first
    r = host.get(f"/api/t/{theirs}")
    assert r.status_code == 403 and r.json()["error"] == ("seat taken: this seat's link was opened in another "
                                                          "browser first")
    assert host.post(f"/api/t/{theirs}/act", json={"action": 0}).status_code == 403
    code, reason = socket_close(server, theirs)
    assert code == 4409 and reason.startswith("seat taken")
    assert view(friend, theirs)["you"] == 1  # the friend goes on


# ---------------------------------------------------------------------- 7. a failing rule, taken back


def test_7_a_rule_failing_during_a_persons_move_is_a_4xx_and_the_table_is_unchanged(served):
    server = served([SPECS / "rule_failure.yaml"])
    browser = server.browser()
    links = create(browser, spec="rule-failure", players=2, seats=["human", "human"])
    seat = view(browser, links["spectator"])["deciding"]
    token = links["seats"][seat]["token"]
    before = view(browser, token)
    divide = next(a["id"] for a in before["actions"] if a["label"] == "divide by zero")
    r = browser.post(f"/api/t/{token}/act", json={"action": divide})
    assert r.status_code == 422
    assert r.json() == {"error": "that move could not be played, and was taken back: "
                                 "rule_failure.yaml:12:27: division by zero"}
    after = view(browser, token)
    assert after == before and after["error"] is None
    count = next(a["id"] for a in after["actions"] if a["label"] == "count one")
    assert browser.post(f"/api/t/{token}/act", json={"action": count}).status_code == 200


# ---------------------------------------------------------------------- 8. an ended table says so


def test_8_a_socket_to_an_expired_or_unknown_table_is_closed_with_a_code_and_why(served):
    server = served(idle=1)
    assert socket_close(server, "no-such-token")[0] == 4404  # not a refused handshake: the page learns why
    browser = server.browser()
    links = create(browser, spec="highhand", players=2, seats=["human", "human"])
    wait_until(lambda: links["match"] in server.tables.closed, 30)  # (asking would keep it open)
    assert browser.get(f"/api/t/{links['spectator']}").status_code == 410
    code, reason = socket_close(server, links["spectator"])
    assert (code, reason) == (4410, "this table was closed: nobody had it open for 1 s")
    done = create(browser, spec="highhand", players=2, seats=["random", "random"], options={"rounds": 1})
    wait_until(lambda: browser.get(f"/api/t/{done['spectator']}").json().get("over"))
    assert socket_close(server, done["spectator"]) == (4100, "the match is over")


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")
def test_the_workers_of_a_closed_table_are_gone(served):
    server = served()
    browser = server.browser()
    links = create(browser, spec="highhand", players=2, seats=["human", "greedy"])
    table = server.tables.live[links["match"]]
    pids = [table.room.pid, table.bots.pid]
    assert all(_alive(p) for p in pids)
    browser.post(f"/api/t/{links['host']}/close", json={})
    wait_until(lambda: not any(_alive(p) for p in pids), 10)


# ---------------------------------------------------------------------- what a review of the above found


def test_a_view_is_bounded_in_size_and_its_labels_in_length(served):
    from interpreter.serve.room import MAX_VIEW
    from interpreter.serve.tables import MAX_WORDS

    server = served([SPECS / "big_view.yaml"])
    browser = server.browser()
    links = create(browser, spec="big-view", players=2, seats=["human", "human"])
    seat = view(browser, links["spectator"])["deciding"]
    token = links["seats"][seat]["token"]
    mine = view(browser, token)
    grow = next(a for a in mine["actions"] if a["name"] == "grow")
    assert len(grow["label"]) == MAX_WORDS and grow["label"].startswith("grow 0, 1, 2, ") and grow["label"][-1] == "…"
    r = browser.post(f"/api/t/{token}/act", json={"action": grow["id"]})  # the views after it hold 200,000 numbers
    assert r.status_code == 422
    assert r.json() == {"error": f"a view of this table is larger than {MAX_VIEW:,} bytes, the most this server sends"}
    assert browser.get(f"/api/t/{links['spectator']}").status_code == 410


def test_one_client_may_open_only_so_many_pages(served):
    server = served(sockets_per_client=3)
    browser = server.browser()
    links = create(browser, spec="highhand", players=2, seats=["human", "human"])
    require("websockets")
    from websockets.sync.client import connect

    url = server.url.replace("http://", "ws://") + f"/ws/{links['spectator']}"
    opened = [connect(url, additional_headers={"X-Forwarded-For": "10.0.0.1"}) for _ in range(3)]
    try:
        for ws in opened:
            assert json.loads(ws.recv(timeout=HANG))["you"] == -1
        code, reason = socket_close(server, links["spectator"], {"X-Forwarded-For": "10.0.0.1"})
        assert (code, reason) == (4429, "you have 3 pages open, the most this server allows one client")
        assert socket_close(server, "no-such-token", {"X-Forwarded-For": "10.0.0.2"})[0] == 4404  # others may
    finally:
        for ws in opened:
            ws.close()


def test_concurrent_requests_cannot_pass_a_limit_together(served, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    server = served(max_tables=2, tables_per_client=10, replays_per_client=1, max_replays=5)
    body = {"spec": "highhand", "players": 2, "seats": ["human", "human"]}
    with ThreadPoolExecutor(6) as pool:
        statuses = list(pool.map(lambda k: server.browser(f"10.0.1.{k}").post("/api/matches", json=body).status_code,
                                 range(6)))
    assert sorted(statuses) == [201, 201, 503, 503, 503, 503] and len(server.tables.live) == 2
    log = _a_log(tmp_path)
    browser = server.browser("10.0.2.1")
    with ThreadPoolExecutor(4) as pool:
        statuses = list(pool.map(lambda _: browser.post("/api/replays", json={"log": log}).status_code, range(4)))
    assert sorted(statuses) == [201, 429, 429, 429]


def _a_log(tmp_path: Path) -> str:
    from interpreter.cli import main

    shutil.copy(GAMES / "highhand.yaml", tmp_path / "highhand.yaml")
    out, err = _Sink(), _Sink()
    assert main(["play", str(tmp_path / "highhand.yaml"), "--players", "2", "--agents", "random", "--seed", "1",
                 "--option", "rounds=1", "--log", str(tmp_path / "m.jsonl")], out, err) == 0
    return (tmp_path / "m.jsonl").read_text(encoding="utf-8")


class _Sink:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def test_concurrent_askers_of_a_view_wait_for_one_answer(served):
    from concurrent.futures import ThreadPoolExecutor

    server = served(requests_per_client=50)
    host = server.browser()
    links = create(host, spec="highhand", players=2, seats=["human", "human"])
    table = server.tables.live[links["match"]]
    asked: list[str] = []
    table.room.call = _counting(table.room.call, asked)
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: host.get(f"/api/t/{links['spectator']}").content, range(10)))
    assert len(set(answers)) == 1 and asked == ["view"]


def test_a_client_has_only_so_many_requests_in_work(served):
    from concurrent.futures import ThreadPoolExecutor

    server = served([GAMES / "highhand.yaml", SPECS / "label_bomb.yaml"], requests_per_client=2,
                    tables_per_client=10)
    browser = server.browser()
    tokens = []
    for _ in range(3):
        links = create(browser, spec="label-bomb", players=2, seats=["human", "human"])
        tokens.append(links["seats"][view(browser, links["spectator"])["deciding"]]["token"])
    others = [server.browser() for _ in tokens]  # one browser per seat, all of this client's address
    with ThreadPoolExecutor(3) as pool:
        answers = list(pool.map(lambda k: others[k].get(f"/api/t/{tokens[k]}").json(), range(3)))
    refused = [a for a in answers if a.get("error", "").startswith("you have 2 requests being worked on")]
    assert len(refused) == 1  # two costly views at once, and no third


def test_the_bots_go_on_when_their_worker_fails_to_start(served, monkeypatch):
    """A bot that thinks past its seconds loses its worker; when a new one then fails to start,
    the bot plays at random and the table goes on (its driver stopped for good, before)."""
    from interpreter.serve.workers import Launcher, WorkerGone

    server = served([SPECS / "many_actions.yaml"], bot_seconds=0.01, bot_match_cpu=1000)
    real = Launcher.start
    starts: list[str] = []

    async def flaky(self: Any, kind: str) -> Any:
        starts.append(kind)
        if kind == "bots" and starts.count("bots") == 2:  # the first restart of the bots' worker fails
            raise WorkerGone("a worker process could not start")
        return await real(self, kind)

    monkeypatch.setattr(Launcher, "start", flaky)
    browser = server.browser()
    links = create(browser, spec="many-actions", players=2, seats=["greedy", "greedy"])
    wait_until(lambda: browser.get(f"/api/t/{links['spectator']}").json()["version"] >= 6)
    assert starts.count("bots") >= 3  # the bots' worker started again after the failed start
    assert links["match"] in server.tables.live
    assert any(n.endswith("bot did not decide in time and played at random")
               for n in browser.get(f"/api/t/{links['spectator']}").json()["notices"])


def test_a_bot_thinks_within_its_seconds_and_the_match_within_its_bots_budget(served):
    server = served([SPECS / "many_actions.yaml"], bot_seconds=0.05, bot_match_cpu=0.4)
    browser = server.browser()
    links = create(browser, spec="many-actions", players=2, seats=["greedy", "greedy"])
    expected = "the bots have used the 0.4 s of thinking this server gives a match: they play at random from now on"
    wait_until(lambda: expected in browser.get(f"/api/t/{links['spectator']}").json().get("notices", []))
    table = server.tables.live.get(links["match"])
    notices = browser.get(f"/api/t/{links['spectator']}").json()["notices"]
    assert any(n.endswith("bot did not decide in time and played at random") for n in notices)
    if table is not None:
        per_decision = 1.25 * 0.05 + 0.1
        assert table.bot_cpu <= 0.4 + per_decision + 0.2  # (the decision that crossed the line, and a sync)


def test_a_simulation_stopped_inside_a_match_reports_the_matches_before_it(served):
    server = served(sim_cpu=0.5, bot_seconds=0.05)
    r = server.browser().post("/api/simulate", json={"spec": "highjack", "players": 4, "games": 50,
                                                     "agents": ["mcts:5"]})
    assert r.status_code in (200, 422), r.text
    if r.status_code == 200:
        data = r.json()
        assert data["stopped"].startswith(f"stopped after {data['summaries'][0]['games']} of 50 matches")
    else:
        assert r.json()["error"] == ("not one match finished within the 0.5 s of CPU this server gives a simulation "
                                     "(--sim-cpu)")


def test_malformed_numbers_in_a_request_are_400s(served, tmp_path):
    server = served()
    browser = server.browser()
    replay = browser.post("/api/replays", json={"log": _a_log(tmp_path)}).json()["replay"]
    for query in ("step=--5", "step=%C2%B2", "seat=1e3", "step=" + "9" * 13):
        r = browser.get(f"/api/replays/{replay}?{query}")
        assert r.status_code == 400 and r.json()["error"].endswith("must be a whole number"), query
    import socket

    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=HANG) as raw:  # (no client library sends this)
        raw.sendall(b"POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 12abc\r\n\r\n{}")
        status = raw.recv(100).split(b" ")[1]
    assert status == b"400"


def test_a_host_name_this_server_does_not_answer_to_is_refused(testclient_app=None):
    require("starlette")
    require("httpx")
    from starlette.testclient import TestClient

    from interpreter.serve.app import create_app
    from interpreter.serve.run import allowed_hosts

    app = create_app([str(GAMES / "highhand.yaml")], allowed_hosts=allowed_hosts("0.0.0.0", ["games.example.org"]))
    with TestClient(app, base_url="http://evil.example:8000") as evil:
        r = evil.post("/api/matches", json={"spec": "highhand"}, headers={"Origin": "http://evil.example:8000"})
        assert r.status_code == 400
    with TestClient(app, base_url="http://games.example.org") as good:
        assert good.get("/api/specs").status_code == 200
