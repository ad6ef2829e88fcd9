"""The playground's app without a browser (Starlette's TestClient): the API, its errors and
limits, and the secrecy of every seat: nothing sent to a seat names a card the engine's
projection never showed it."""

from __future__ import annotations

import io
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, require

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

GAMES = ROOT / "games"


@pytest.fixture(scope="module")
def testclient():
    require("starlette")
    require("httpx")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's notice that it will move to another HTTP client
        from starlette.testclient import TestClient

    return TestClient


def _app(specs: list[Path] | None = None, **kw: Any) -> Any:
    from interpreter.serve.app import create_app

    return create_app([str(p) for p in (specs or [GAMES / "highhand.yaml", GAMES / "highjack.yaml"])], **kw)


@pytest.fixture
def client(testclient):
    with testclient(_app(), raise_server_exceptions=False) as c:
        yield c


def _server(client: Any) -> Any:
    return client.app.state.server


def _settle(client: Any, match_id: str) -> Any:
    """Wait until the bots and chance of a match have moved (a person must act, or it is over)."""
    match = _server(client).registry.matches[match_id]
    deadline = time.monotonic() + 20
    while (match.driving or match.bot_due()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not match.bot_due()
    return match


def _start(client: Any, **body: Any) -> dict[str, Any]:
    r = client.post("/api/matches", json=body)
    assert r.status_code == 201, r.text
    return r.json()


# ---------------------------------------------------------------------- pages and assets


def test_pages_and_assets_are_served_from_the_package(client):
    for path in ("/", "/editor", "/replay", "/simulate", "/t/anything"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "default-src 'self'" in r.headers["content-security-policy"]
    folder = ROOT / "interpreter" / "serve" / "static"
    names = sorted(p.name for p in folder.iterdir())
    assert {"common.js", "render.js", "table.js", "editor.js", "style.css"} <= set(names)
    for name in names:
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and r.content == (folder / name).read_bytes()
        text = (folder / name).read_text(encoding="utf-8").replace("http://www.w3.org/2000/svg", "")  # a namespace
        assert re.search(r"(?:https?|wss?):/+[\w-]", text) is None, f"{name} loads something from the network"


def test_unknown_paths_are_json_errors(client):
    for path in ("/static/..%2F..%2Fpyproject.toml", "/static/app.py", "/nothing", "/api/specs/nope/text",
                 "/api/t/nope", "/api/replays/nope"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "error" in r.json() and "Traceback" not in r.text


def test_the_specs_are_listed_with_players_options_and_variants(client):
    specs = {s["id"]: s for s in client.get("/api/specs").json()["specs"]}
    assert sorted(specs) == ["highhand", "highjack"]
    assert specs["highhand"]["players"] == [2, 4]
    assert "rounds" in [o["name"] for o in specs["highhand"]["options"]]
    assert specs["highjack"]["variants"]
    text = client.get("/api/specs/highhand/text").json()["text"]
    assert text == (GAMES / "highhand.yaml").read_text(encoding="utf-8")


# ---------------------------------------------------------------------- the editor


BAD = "rulespec: 1\ngame: {name: X, players: [2]}\nzones:\n  deck: {visiblity: hidden}\n"


def test_validate_gives_each_problem_at_its_line_as_rulespec_validate_does(client, tmp_path):
    from interpreter.cli import main

    result = client.post("/api/validate", json={"text": BAD, "base": "highhand"}).json()
    assert result["ok"] is False
    by_line = {d["line"]: d for d in result["diagnostics"]}
    assert by_line[4]["col"] == 10 and "unknown key 'visiblity'" in by_line[4]["message"]
    assert by_line[4]["hint"] == "did you mean 'visibility'?"
    path = tmp_path / "editor.yaml"
    path.write_text(BAD, encoding="utf-8")
    err = io.StringIO()
    assert main(["validate", str(path)], io.StringIO(), err) == 1
    cli = err.getvalue().replace(str(tmp_path) + "/", "")
    for d in result["diagnostics"]:
        assert d["text"] in cli
    assert result["summary"] in cli


def test_valid_text_gives_the_generated_rules(client):
    text = (GAMES / "highhand.yaml").read_text(encoding="utf-8")
    result = client.post("/api/validate", json={"text": text}).json()
    assert result["ok"] and result["name"] == "High Hand" and result["describe"].startswith("# High Hand")


def test_extends_is_confined_to_the_served_specs_folder(client):
    inside = client.post("/api/validate", json={"text": "extends: highhand.yaml\n", "base": "highhand"}).json()
    assert inside["ok"], inside
    for ref in ("../pyproject.yaml", "/etc/hosts.yaml", "../../../../etc/x.yml"):
        result = client.post("/api/validate", json={"text": f"extends: {ref}\n", "base": "highhand"}).json()
        assert not result["ok"]
        assert any("outside" in d["message"] or "absolute" in d["message"] for d in result["diagnostics"]), result
        assert str(ROOT) not in json.dumps(result)


def test_pasted_text_is_bounded_and_requests_must_be_json_objects(client):
    from interpreter.serve.app import MAX_BODY
    from interpreter.serve.catalog import MAX_TEXT

    r = client.post("/api/validate", json={"text": "#" * (MAX_TEXT + 1)})
    assert r.status_code == 413 and "longer than" in r.json()["error"]
    r = client.post("/api/validate", content=b"x" * (MAX_BODY + 1), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    for body in (b"not json", b"[1, 2]", b"\xff\xfe", b"[" * 100_000):
        r = client.post("/api/validate", content=body)
        assert r.status_code == 400 and r.json() == {"error": "the request must be a JSON object"}
    r = client.post("/api/validate", json={"text": 3})
    assert r.status_code == 400
    bomb = "a: &a [1,1,1,1,1,1,1,1]\n" + "".join(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                                               for p, c in zip("abcdefgh", "bcdefghi"))
    result = client.post("/api/validate", json={"text": bomb}).json()
    assert result["ok"] is False  # the compiler's own limits (aliases, nodes) apply


# ---------------------------------------------------------------------- matches


def test_a_match_from_the_editors_text(client):
    text = (GAMES / "highhand.yaml").read_text(encoding="utf-8").replace("name: High Hand", "name: My Hand")
    links = _start(client, text=text, spec="highhand", players=2, hot_seat=True, seed=1)
    view = client.get(f"/api/t/{links['hot_seat']}").json()
    assert view["layout"]["game"] == "My Hand" and view["hot_seat"] is True
    r = client.post("/api/matches", json={"text": BAD, "players": 2})
    assert r.status_code == 422 and "not valid" in r.json()["error"]


def test_seats_turns_and_illegal_actions(client):
    links = _start(client, spec="highhand", players=4, seats=["human", "human", "random", "random"], seed=2)
    tokens = [s["token"] for s in links["seats"]]
    assert tokens[2] is None and len(set(tokens[:2])) == 2 and all(len(t) >= 24 for t in tokens[:2])
    match = _settle(client, links["match"])
    current = match.state.current_player()
    waiting = tokens[1 - current]
    legal = match.state.legal_actions()
    r = client.post(f"/api/t/{waiting}/act", json={"action": legal[0]})
    assert r.status_code == 409 and r.json()["error"] == "it is not your turn"
    mine = tokens[current]
    view = client.get(f"/api/t/{mine}").json()
    assert sorted(a["id"] for a in view["actions"]) == sorted(legal)
    assert client.get(f"/api/t/{waiting}").json()["actions"] == []
    for bad in (-1, 10**9, "1", None, 1.5):
        r = client.post(f"/api/t/{mine}/act", json={"action": bad})
        assert r.status_code == 400 and r.json()["error"] == "that action is not legal now"
    r = client.post(f"/api/t/{mine}/act", json={"action": legal[0]})
    assert r.status_code == 200 and r.json()["log"][-1]["player"] == current
    r = client.post(f"/api/t/{links['spectator']}/act", json={"action": legal[0]})
    assert r.status_code == 409


def test_bad_match_requests(client):
    for body, status in (({"spec": "nope"}, 404), ({"spec": "highhand", "players": 3}, 400),
                         ({"spec": "highhand", "players": "4"}, 400),
                         ({"spec": "highhand", "players": 2, "seats": ["human"]}, 400),
                         ({"spec": "highhand", "players": 2, "seats": ["human", "alphazero"]}, 400),
                         ({"spec": "highhand", "players": 2, "seats": ["human", "mcts:x"]}, 400),
                         ({"spec": "highhand", "players": 2, "options": {"rounds": 0}}, 400),
                         ({"spec": "highhand", "players": 2, "options": []}, 400),
                         ({"spec": "highhand", "players": 2, "seed": -1}, 400)):
        r = client.post("/api/matches", json=body)
        assert r.status_code == status, (body, r.text)
        assert set(r.json()) == {"error"}


def test_live_matches_are_bounded_and_expire(testclient):
    with testclient(_app(max_matches=2, idle=60)) as c:
        for _ in range(2):
            _start(c, spec="highhand", players=2, seats=["human", "human"])
        r = c.post("/api/matches", json={"spec": "highhand", "players": 2, "seats": ["human", "human"]})
        assert r.status_code == 503 and "live matches" in r.json()["error"]
        registry = _server(c).registry
        token = next(iter(registry.tokens))
        assert registry.expire(time.monotonic() + 61) == 2
        assert registry.tokens == {} and c.get(f"/api/t/{token}").status_code == 404
        _start(c, spec="highhand", players=2, seats=["human", "human"])


def test_an_internal_error_is_a_json_500_without_a_traceback(client, monkeypatch):
    from interpreter.serve import matches

    links = _start(client, spec="highhand", players=2, seats=["human", "human"], seed=3)
    monkeypatch.setattr(matches.LiveMatch, "payload", lambda self, viewer: 1 / 0)
    r = client.get(f"/api/t/{links['seats'][0]['token']}")
    assert r.status_code == 500
    assert r.json() == {"error": "internal error (the server's log has the details)"}


def test_bots_play_a_match_to_its_end_and_its_log_replays(client, tmp_path):
    from interpreter.cli import main

    links = _start(client, spec="highhand", players=2, seats=["random", "greedy"], seed=4,
                   options={"rounds": 1})
    match = _settle(client, links["match"])
    assert match.state.is_terminal()
    view = client.get(f"/api/t/{links['spectator']}").json()
    assert view["over"] and view["view"]["winners"] == match.state.winners()
    log = client.get(f"/api/t/{links['spectator']}/log")
    assert log.status_code == 200
    (tmp_path / "highhand.yaml").write_text((GAMES / "highhand.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "m.jsonl").write_text(log.text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["replay", str(tmp_path / "m.jsonl"), "--quiet"], out, err) == 0, err.getvalue()
    assert "identical to the log" in out.getvalue()


def test_the_log_of_a_match_is_given_only_when_it_is_over(client):
    links = _start(client, spec="highhand", players=2, seats=["human", "human"], seed=5)
    r = client.get(f"/api/t/{links['seats'][0]['token']}/log")
    assert r.status_code == 409


def test_the_websocket_pushes_each_change(client):
    links = _start(client, spec="highhand", players=2, seats=["human", "random"], seed=6)
    token = links["seats"][0]["token"]
    match = _settle(client, links["match"])
    with client.websocket_connect(f"/ws/{token}") as ws:
        first = ws.receive_json()
        assert first["version"] == match.version and first["you"] == 0
        if not match.state.is_terminal():
            action = first["actions"][0]["id"]
            client.post(f"/api/t/{token}/act", json={"action": action})
            later = ws.receive_json()
            assert later["version"] > first["version"]
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws/nobody") as ws:
        ws.receive_json()


# ---------------------------------------------------------------------- secrecy


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values()), set(value)) if value else set(value)
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


class SecrecyCheck:
    """Per seat: the card names the engine's projection has shown it so far; a payload may
    name no other card that is hidden from the seat now."""

    def __init__(self, game: Any):
        self.game = game
        self.names = set(game.cards.names)
        self.seen: dict[int, set[str]] = {}
        self.checked_hidden = 0

    def learn(self, state: Any, seat: int) -> None:
        from interpreter.visibility import visible_cards

        seen = self.seen.setdefault(seat, set())
        seen.update(self.game.cards.names[c] for c in visible_cards(state, seat))
        seen.update(s for s in _strings(state.observation(seat)) if s in self.names)
        for name in self.names:  # names inside texts of the projection (event fields, labels)
            if name not in seen and any(_mentions(s, name) for s in _strings(state.observation(seat))):
                seen.add(name)

    def forbidden(self, state: Any, seat: int) -> set[str]:
        from interpreter.visibility import visible_cards

        visible = visible_cards(state, seat)
        hidden = {self.game.cards.names[c] for c in range(len(state.loc)) if c not in visible}
        return hidden - self.seen.get(seat, set())

    def check(self, state: Any, seat: int, payload: str, where: str) -> None:
        forbidden = self.forbidden(state, seat)
        self.checked_hidden += len(forbidden)
        leaked = sorted(n for n in forbidden if _mentions(payload, n))
        assert leaked == [], f"{where}: seat {seat} was sent hidden cards {leaked}"


def _secrecy_run(client: Any, spec: str, players: int, seed: int, steps: int) -> SecrecyCheck:
    links = _start(client, spec=spec, players=players, seats=["human"] * players, seed=seed)
    tokens = [s["token"] for s in links["seats"]]
    match = _settle(client, links["match"])
    check = SecrecyCheck(match.game)
    rng = random.Random(seed)
    sockets = [client.websocket_connect(f"/ws/{t}") for t in tokens]
    sessions = [s.__enter__() for s in sockets]
    try:
        for seat, token in enumerate(tokens):
            check.check(match.state, seat, client.get(f"/t/{token}").text, "the table page")
        for step in range(steps):
            state = match.state
            for seat in range(players):
                check.learn(state, seat)
            for seat, token in enumerate(tokens):
                check.check(state, seat, client.get(f"/api/t/{token}").text, f"step {step}: GET")
                frame = sessions[seat].receive_text()
                while json.loads(frame)["version"] < match.version:
                    check.check(state, seat, frame, f"step {step}: an older WebSocket frame")
                    frame = sessions[seat].receive_text()
                check.check(state, seat, frame, f"step {step}: WebSocket")
            if state.is_terminal():
                break
            current = state.current_player()
            action = rng.choice(state.legal_actions())
            r = client.post(f"/api/t/{tokens[current]}/act", json={"action": action})
            assert r.status_code == 200, r.text
            match = _settle(client, links["match"])
            check.learn(match.state, current)
            check.check(match.state, current, r.text, f"step {step}: the answer to an action")
    finally:
        for s in sockets:
            s.__exit__(None, None, None)
    return check


@pytest.mark.parametrize("spec, players, seed", [("highjack", 3, 1), ("highjack", 2, 7), ("highhand", 4, 2)])
def test_nothing_sent_to_a_seat_names_another_seats_hidden_cards(client, spec, players, seed):
    check = _secrecy_run(client, spec, players, seed, steps=40)
    assert check.checked_hidden > 0  # there were hidden cards to leak


def test_the_secrecy_check_catches_a_leak(client):
    """The check has teeth: the omniscient picture of a state names cards a seat may not see."""
    from interpreter.views import render_text

    links = _start(client, spec="highjack", players=2, seats=["human", "human"], seed=1)
    match = _settle(client, links["match"])
    check = SecrecyCheck(match.game)
    check.learn(match.state, 0)
    with pytest.raises(AssertionError, match="hidden cards"):
        check.check(match.state, 0, render_text(match.state, None), "omniscient")


def test_the_log_replaces_cards_a_seat_may_not_see():
    import interpreter
    from interpreter.serve.tables import SPECTATOR, LogBook, snapshot
    from interpreter.visibility import visible_cards

    game = interpreter.load_game(str(GAMES / "highjack.yaml"), players=2)
    state = game.new_initial_state(3)
    book = LogBook(game)
    rng = random.Random(0)
    replaced = 0
    for _ in range(200):
        if state.is_terminal():
            break
        player = state.current_player()
        action = state.sample_chance_outcome(rng) if player < 0 else rng.choice(state.legal_actions())
        label = state.action_to_string(action)
        before = snapshot(state)
        state.apply_action(action)
        book.record(player, label, before, state)
        texts = book.entries[-1][1]
        for viewer, text in zip([0, 1, SPECTATOR], texts):
            if viewer != player and text != label:
                replaced += 1
                hidden = {game.cards.names[c] for c in range(len(state.loc)) if c not in visible_cards(state, viewer)}
                assert "a card" in text and not any(_mentions(text, n) and not _mentions(label.replace(n, ""), n)
                                                    for n in hidden if _mentions(label, n) and n not in text)
    assert replaced > 0


# ---------------------------------------------------------------------- replays


def _play_log(tmp_path: Path, spec: str = "highhand.yaml", players: int = 2) -> str:
    from interpreter.cli import main

    (tmp_path / spec).write_text((GAMES / spec).read_text(encoding="utf-8"), encoding="utf-8")
    err = io.StringIO()
    assert main(["play", str(tmp_path / spec), "--players", str(players), "--agents", "random", "--seed", "2",
                 "--option", "rounds=1", "--log", str(tmp_path / "m.jsonl")], io.StringIO(), err) == 0, err.getvalue()
    return (tmp_path / "m.jsonl").read_text(encoding="utf-8")


def test_a_replay_steps_through_a_log_from_any_seat(client, tmp_path):
    import interpreter

    text = _play_log(tmp_path)
    data = client.post("/api/replays", json={"log": text}).json()
    total = data["total"]
    header, *actions = [json.loads(line) for line in text.splitlines()]
    actions = [a for a in actions if "action" in a]
    assert total == len(actions) and data["seats"] == ["P0", "P1"]
    game = interpreter.load_game(str(GAMES / "highhand.yaml"), players=2, options=header["options"])
    state = game.new_initial_state(header["seed"])
    for step in (0, 1, 2, total // 2, total - 1):
        while len(state.history) < step:
            state.apply_action(actions[len(state.history)]["action"])
        for seat in (-1, 0, 1):
            view = client.get(f"/api/replays/{data['replay']}?step={step}&seat={seat}").json()
            expected = state.observation(seat)
            assert view["view"]["zones"] == expected["zones"] and view["step"] == step and view["you"] == seat
    last = client.get(f"/api/replays/{data['replay']}?step={total + 50}").json()
    assert last["step"] == total and last["over"]
    for query in ("step=x", "seat=7", "seat=-3"):
        assert client.get(f"/api/replays/{data['replay']}?{query}").status_code == 400


def test_bad_logs_are_refused_with_a_reason(client, tmp_path):
    text = _play_log(tmp_path)
    header, rest = text.split("\n", 1)
    cases = [
        ("", 400),
        ("not json\n", 422),
        ("\n".join(_with_first_action(text.splitlines(), 99999)) + "\n", 422),
        (json.dumps({**json.loads(header), "spec": "../../../etc/other.yaml"}) + "\n" + rest, 404),
    ]
    for log, status in cases:
        r = client.post("/api/replays", json={"log": log})
        assert r.status_code == status, (r.status_code, r.text[:300])
        assert "error" in r.json() and "Traceback" not in r.text and "/tmp/" not in r.json()["error"]


def _with_first_action(lines: list[str], action: int) -> list[str]:
    out = list(lines)
    record = json.loads(out[1])
    out[1] = json.dumps({**record, "action": action})
    return out


# ---------------------------------------------------------------------- simulate


def test_simulate_a_spec_and_a_variant(client):
    from interpreter.simulate import simulate, summarize

    r = client.post("/api/simulate", json={"spec": "highhand", "players": 2, "games": 2, "seed": 3,
                                           "options": {"rounds": 1}, "variant": {"rounds": 2}})
    assert r.status_code == 200, r.text
    data = r.json()
    a, b = data["summaries"]
    assert a["options"]["rounds"] == 1 and b["options"]["rounds"] == 2 and a["games"] == 2
    expected = summarize(simulate(str(GAMES / "highhand.yaml"), 2, ["random"], 2, {"rounds": 1}, 3))
    assert [s["wins"] for s in a["seats"]] == [s["wins"] for s in expected["seats"]]
    assert a["spec"] == "highhand.yaml" and data["comparison"]
    for body in ({"spec": "highhand", "games": 10**6}, {"spec": "highhand", "agents": ["human"]},
                 {"spec": "highhand", "variant": {"rounds": 0}}, {"spec": "highhand", "variant": [1]}):
        r = client.post("/api/simulate", json=body)
        assert r.status_code == 400 and set(r.json()) == {"error"}, body


# ---------------------------------------------------------------------- the command line


def test_serve_without_the_extra_is_one_line_exit_2(monkeypatch):
    import interpreter.serve
    from interpreter.cli import main

    monkeypatch.setattr(interpreter.serve, "missing_extra", lambda: "starlette")
    out, err = io.StringIO(), io.StringIO()
    assert main(["serve", str(GAMES / "highhand.yaml")], out, err) == 2
    assert err.getvalue() == "rulespec: error: rulespec serve needs starlette: pip install 'rulespec[serve]'\n"


def test_serve_refuses_a_missing_spec_and_a_bad_port():
    from interpreter.cli import main

    err = io.StringIO()
    assert main(["serve", "no/such.yaml"], io.StringIO(), err) == 2
    assert err.getvalue() == "rulespec: error: no such file: no/such.yaml\n"
    err = io.StringIO()
    assert main(["serve", "--port", "70000"], io.StringIO(), err) == 2
    assert "the port must be from 0 to 65535" in err.getvalue()


def test_serve_prints_its_url_and_serves(monkeypatch):
    require("uvicorn")
    import uvicorn

    from interpreter.cli import main

    seen: dict[str, Any] = {}

    def fake_run(self: Any, sockets: Any = None) -> None:  # stands in for the server loop
        seen["app"] = self.config.app
        seen["port"] = sockets[0].getsockname()[1]
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    out = io.StringIO()
    assert main(["serve", str(GAMES / "highhand.yaml"), "--port", "0"], out, io.StringIO()) == 0
    assert out.getvalue().startswith(f"rulespec playground: http://127.0.0.1:{seen['port']}/")
    assert [s.id for s in seen["app"].state.server.catalog.specs.values()] == ["highhand"]
