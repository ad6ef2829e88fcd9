"""The playground's app without a browser (Starlette's TestClient): the API, its errors and
limits, and the secrecy of every seat: nothing sent to a seat names a card the engine's
projection never showed it. Every engine call runs in the server's worker processes; the
tests read a table's true state through the room's ``inspect`` request (Python only: no
route leads to it)."""

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
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def testclient():
    require("starlette")
    require("httpx")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's notice that it will move to another HTTP client
        from starlette.testclient import TestClient

    return TestClient


def app_of(specs: list[Path] | None = None, **limits: Any) -> Any:
    from interpreter.serve.app import create_app
    from interpreter.serve.limits import ServerLimits

    # bots at nice 10, not only on an idle core: a test machine running the suite leaves none idle
    settings = ServerLimits(**{"bot_delay": 0.0, "bot_priority": 10, **limits})
    proxies = ["testclient"]  # the tests name their clients with X-Forwarded-For
    return create_app([str(p) for p in (specs or [GAMES / "highhand.yaml", GAMES / "highjack.yaml"])], settings,
                      proxies=proxies)


@pytest.fixture
def client(testclient):
    with testclient(app_of(), raise_server_exceptions=False) as c:
        yield c


def server_of(client: Any) -> Any:
    return client.app.state.server


def live(client: Any, table_id: str) -> Any:
    return server_of(client).tables.live.get(table_id)


def settle(client: Any, table_id: str, seconds: float = 30) -> Any:
    """Wait until chance and the bots of a table have moved (a person must act, or it ended);
    the table, live or finished."""
    tables = server_of(client).tables
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        table = tables.live.get(table_id)
        if table is None:
            return tables.finished.get(table_id)
        deciding = table.status["deciding"]
        if isinstance(deciding, int) and table.kinds[deciding] == "human" and table.views is not None:
            return table
        time.sleep(0.01)
    raise AssertionError("the bots did not settle")


def inspect(client: Any, table: Any) -> dict[str, Any]:
    """The room's own record of its match: seed, history and state (tests only)."""
    answer = client.portal.call(lambda: table.room.call("inspect", {}, (), 5.0, 30.0))
    return answer.header


def true_state(client: Any, table: Any, spec: str, players: int) -> Any:
    import interpreter

    game = interpreter.load_game(str(GAMES / spec), players=players)
    return game.state_from_json(inspect(client, table)["state"])


def start(client: Any, **body: Any) -> dict[str, Any]:
    r = client.post("/api/matches", json=body)
    assert r.status_code == 201, r.text
    return r.json()


# ---------------------------------------------------------------------- pages and assets


def test_pages_and_assets_are_served_from_the_package(client):
    for path in ("/", "/editor", "/replay", "/simulate", "/t/anything"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "default-src 'self'" in r.headers["content-security-policy"]
        assert '<link rel="icon" href="/static/favicon.svg"' in r.text
    folder = ROOT / "interpreter" / "serve" / "static"
    names = sorted(p.name for p in folder.iterdir())
    assert {"common.js", "render.js", "table.js", "editor.js", "style.css", "favicon.svg"} <= set(names)
    for name in names:
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and r.content == (folder / name).read_bytes()
        text = (folder / name).read_text(encoding="utf-8").replace("http://www.w3.org/2000/svg", "")  # a namespace
        assert re.search(r"(?:https?|wss?):/+[\w-]", text) is None, f"{name} loads something from the network"
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"


def test_unknown_paths_are_json_errors(client):
    for path in ("/static/..%2F..%2Fpyproject.toml", "/static/app.py", "/nothing", "/api/specs/nope/text",
                 "/api/t/nope", "/api/replays/nope"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "error" in r.json() and "Traceback" not in r.text


def test_the_specs_are_listed_with_players_options_and_variants(client):
    data = client.get("/api/specs").json()
    specs = {s["id"]: s for s in data["specs"]}
    assert sorted(specs) == ["highhand", "highjack"]
    assert specs["highhand"]["players"] == [2, 4] and specs["highhand"]["file"] == "highhand.yaml"
    assert "rounds" in [o["name"] for o in specs["highhand"]["options"]]
    assert specs["highjack"]["variants"]
    assert data["limits"]["bot_seconds"] == 1.0
    text = client.get("/api/specs/highhand/text").json()["text"]
    assert text == (GAMES / "highhand.yaml").read_text(encoding="utf-8")
    assert str(ROOT) not in json.dumps(data)


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


def test_the_editor_check_gives_what_the_text_changes_in_its_base(client):
    target = next(o.default for o in rulespec_options(GAMES / "highjack.yaml") if o.name == "target")
    text = f"extends: highjack.yaml\noptions:\n  target: {{default: {target + 1}}}\n"
    result = client.post("/api/validate", json={"text": text}).json()
    assert result["ok"], result
    diff = result["diff"]
    assert diff["base"] == "highjack.yaml" and diff["variant"] == "editor.yaml"
    assert {"kind": "changed", "where": "Options, target, default", "before": str(target),
            "after": str(target + 1)} in diff["changes"]
    assert f"Options, target, default: {target} -> {target + 1}" in diff["text"]
    [step] = diff["steps"]
    assert step["line"] == 2 and "Options, target, default" in step["text"]
    # whole text edited from a served spec: compared with the spec the editor loaded
    whole = (GAMES / "highhand.yaml").read_text(encoding="utf-8").replace("name: High Hand", "name: High Hand 2", 1)
    result = client.post("/api/validate", json={"text": whole, "base": "highhand"}).json()
    assert result["ok"] and result["diff"]["changes"] == [
        {"kind": "changed", "where": "Name", "before": "High Hand", "after": "High Hand 2"}], result["diff"]
    # no base: no diff
    assert client.post("/api/validate", json={"text": whole}).json()["diff"] is None


def rulespec_options(path: Path) -> Any:
    import rulespec

    return rulespec.compile_file(path).model.options


def test_extends_may_name_only_a_served_spec(client):
    inside = client.post("/api/validate", json={"text": "extends: highhand.yaml\n"}).json()
    assert inside["ok"], inside
    for ref in ("../pyproject.yaml", "/etc/hosts.yaml", "../../../../etc/x.yml", "tictactoe.yaml"):
        result = client.post("/api/validate", json={"text": f"extends: {ref}\n"}).json()
        assert not result["ok"]
        message = result["diagnostics"][0]["message"]
        assert "may name only a spec given here" in message or "absolute" in message, result
        assert str(ROOT) not in json.dumps(result)


def test_pasted_text_is_bounded_and_requests_must_be_json_objects(client):
    from interpreter.serve.app import MAX_BODY
    from interpreter.serve.specs import MAX_TEXT

    r = client.post("/api/validate", json={"text": "#" * (MAX_TEXT + 1)})
    assert r.status_code == 413 and "longer than" in r.json()["error"]
    r = client.post("/api/validate", content=b"x" * (MAX_BODY + 1), headers=JSON)
    assert r.status_code == 413
    for body in (b"not json", b"[1, 2]", b"\xff\xfe", b"[" * 100_000):
        r = client.post("/api/validate", content=body, headers=JSON)
        assert r.status_code == 400 and r.json() == {"error": "the request must be a JSON object"}
    r = client.post("/api/validate", json={"text": 3})
    assert r.status_code == 400
    bomb = "a: &a [1,1,1,1,1,1,1,1]\n" + "".join(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                                               for p, c in zip("abcdefgh", "bcdefghi"))
    result = client.post("/api/validate", json={"text": bomb}).json()
    assert result["ok"] is False  # the compiler's own limits (aliases, nodes) apply


# ---------------------------------------------------------------------- tables


def test_a_table_from_the_editors_text(client):
    text = (GAMES / "highhand.yaml").read_text(encoding="utf-8").replace("name: High Hand", "name: My Hand")
    links = start(client, text=text, players=2, hot_seat=True, seats=["human", "human"])
    view = client.get(f"/api/t/{links['hot_seat']}").json()
    assert view["layout"]["game"] == "My Hand" and view["hot_seat"] is True and view["spec"] == "editor.yaml"
    r = client.post("/api/matches", json={"text": BAD, "players": 2})
    assert r.status_code == 422 and "not valid" in r.json()["error"]


def test_seats_turns_and_illegal_actions(client):
    links = start(client, spec="highhand", players=4, seats=["human", "human", "random", "random"])
    tokens = [s["token"] for s in links["seats"]]
    assert tokens[2] is None and len(set(tokens[:2])) == 2 and all(len(t) >= 24 for t in tokens[:2])
    table = settle(client, links["match"])
    current = table.status["deciding"]
    waiting = tokens[1 - current]
    legal = true_state(client, table, "highhand.yaml", 4).legal_actions()
    r = client.post(f"/api/t/{waiting}/act", json={"action": legal[0]})
    assert r.status_code == 409 and r.json()["error"] == "it is not your turn"
    mine = tokens[current]
    view = client.get(f"/api/t/{mine}").json()
    assert sorted(a["id"] for a in view["actions"]) == sorted(legal)
    assert all(a["label"] and a["name"] for a in view["actions"]) and view["step"]["actions"]
    assert client.get(f"/api/t/{waiting}").json()["actions"] == []
    for bad in (-1, 10**9, "1", None, 1.5):
        r = client.post(f"/api/t/{mine}/act", json={"action": bad})
        assert r.status_code == 400 and r.json()["error"] == "that action is not legal now"
    r = client.post(f"/api/t/{mine}/act", json={"action": legal[0]})
    assert r.status_code == 200 and r.json()["log"][-1]["player"] == current
    for token in (links["spectator"], links["host"]):
        assert client.post(f"/api/t/{token}/act", json={"action": legal[0]}).status_code == 409


def test_bad_table_requests(client):
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
    assert not server_of(client).tables.live  # a refused table holds no slot


def test_live_tables_are_bounded_and_an_abandoned_one_frees_its_slot(testclient):
    with testclient(app_of(max_tables=2, idle=60), raise_server_exceptions=False) as c:
        links = [start(c, spec="highhand", players=2, seats=["human", "human"]) for _ in range(2)]
        r = c.post("/api/matches", json={"spec": "highhand", "players": 2, "seats": ["human", "human"]},
                   headers={"X-Forwarded-For": "10.0.0.9"})
        assert r.status_code == 503 and "live tables" in r.json()["error"]
        tables = server_of(c).tables
        for table in tables.live.values():
            table.last_seen -= 61  # nobody has looked for longer than --idle
        c.portal.call(tables.sweep)
        assert not tables.live
        r = c.get(f"/api/t/{links[0]['seats'][0]['token']}")
        assert r.status_code == 410 and "nobody had it open for 60 s" in r.json()["error"]
        start(c, spec="highhand", players=2, seats=["human", "human"])


def test_an_internal_error_is_a_json_500_without_a_traceback(client, monkeypatch):
    from interpreter.serve.live import Tables

    links = start(client, spec="highhand", players=2, seats=["human", "human"])

    async def broken(self: Any, table: Any, viewer: int, who: str) -> bytes:
        raise ZeroDivisionError

    monkeypatch.setattr(Tables, "view", broken)
    r = client.get(f"/api/t/{links['seats'][0]['token']}")
    assert r.status_code == 500
    assert r.json() == {"error": "internal error (the server's log has the details)"}


def test_bots_play_a_match_to_its_end_and_its_log_replays(client, tmp_path):
    from interpreter.cli import main

    links = start(client, spec="highhand", players=2, seats=["random", "greedy"], seed=4, options={"rounds": 1})
    finished = settle(client, links["match"])
    assert finished is not None and links["match"] not in server_of(client).tables.live
    view = client.get(f"/api/t/{links['spectator']}").json()
    assert view["over"] and view["view"]["winners"]
    log = client.get(f"/api/t/{links['spectator']}/log")
    assert log.status_code == 200
    assert json.loads(log.text.splitlines()[0])["seed"] == 4
    (tmp_path / "highhand.yaml").write_text((GAMES / "highhand.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "m.jsonl").write_text(log.text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["replay", str(tmp_path / "m.jsonl"), "--quiet"], out, err) == 0, err.getvalue()
    assert "identical to the log" in out.getvalue()


def test_the_log_of_a_match_is_given_only_when_it_is_over(client):
    links = start(client, spec="highhand", players=2, seats=["human", "human"])
    r = client.get(f"/api/t/{links['seats'][0]['token']}/log")
    assert r.status_code == 409


def test_the_websocket_pushes_each_change(client):
    links = start(client, spec="highhand", players=2, seats=["human", "random"], seed=6)
    token = links["seats"][0]["token"]
    table = settle(client, links["match"])
    client.get(f"/api/t/{token}")  # claims the seat for this client
    with client.websocket_connect(f"/ws/{token}") as ws:
        first = ws.receive_json()
        assert first["version"] == table.status["version"] and first["you"] == 0
        action = first["actions"][0]["id"]
        client.post(f"/api/t/{token}/act", json={"action": action})
        later = ws.receive_json()
        assert later["version"] > first["version"]


def test_the_words_of_a_view(client):
    """Pieces by the names the log uses, events as `rulespec play` prints them, the step of a
    turn by its actions and their descriptions, and how to play."""
    links = start(client, spec="highhand", players=2, seats=["human", "human"])
    table = settle(client, links["match"])
    view = client.get(f"/api/t/{links['seats'][table.status['deciding']]['token']}").json()
    assert view["layout"]["pieces"] == ["P0 pawn 1", "P0 pawn 2", "P1 pawn 1", "P1 pawn 2"]
    assert view["layout"]["how_to_play"].startswith("# High Hand")
    assert view["step"] == {"actions": ["block"], "about": {"block": "first move your blocker, one of your pawns; "
                                                                     "it takes no card"}}
    draw = next(e for e in view["view"]["events"] if e["type"] == "first_player_draw")
    assert draw["text"].startswith("first player draw: players P0, P1, cards ")


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
        self.layout: dict[str, Any] = {}
        self.seed: int | None = None

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
        if payload.startswith('{"layout":'):
            # the layout is the table's fixed shape, made from the spec alone when the table opened (its
            # rules name every card of the deck): the same for every seat, so a view is checked without it
            data = json.loads(payload)
            layout = data.pop("layout")
            assert self.layout.setdefault("layout", layout) == layout, f"{where}: the layout changed"
            payload = json.dumps(data)
        forbidden = self.forbidden(state, seat)
        self.checked_hidden += len(forbidden)
        leaked = sorted(n for n in forbidden if _mentions(payload, n))
        assert leaked == [], f"{where}: seat {seat} was sent hidden cards {leaked} (the deal's seed: {self.seed})"


def _secrecy_run(client: Any, spec: str, players: int, seed: int, steps: int) -> SecrecyCheck:
    import interpreter

    links = start(client, spec=spec, players=players, seats=["human"] * players)
    tokens = [s["token"] for s in links["seats"]]
    table = settle(client, links["match"])
    game = interpreter.load_game(str(GAMES / f"{spec}.yaml"), players=players)
    check = SecrecyCheck(game)
    check.seed = inspect(client, table)["seed"]  # the server's deal, named when a check fails
    rng = random.Random(seed)
    for token in tokens:
        client.get(f"/api/t/{token}")  # this client claims every seat
    sockets = [client.websocket_connect(f"/ws/{t}") for t in tokens]
    sessions = [s.__enter__() for s in sockets]
    try:
        state = game.state_from_json(inspect(client, table)["state"])
        for seat, token in enumerate(tokens):
            check.check(state, seat, client.get(f"/t/{token}").text, "the table page")
        for step in range(steps):
            state = game.state_from_json(inspect(client, table)["state"])
            for seat in range(players):
                check.learn(state, seat)
            for seat, token in enumerate(tokens):
                check.check(state, seat, client.get(f"/api/t/{token}").text, f"step {step}: GET")
                frame = sessions[seat].receive_text()
                while json.loads(frame)["version"] < table.status["version"]:
                    check.check(state, seat, frame, f"step {step}: an older WebSocket frame")
                    frame = sessions[seat].receive_text()
                check.check(state, seat, frame, f"step {step}: WebSocket")
            if state.is_terminal():
                break
            current = state.current_player()
            action = rng.choice(state.legal_actions())
            r = client.post(f"/api/t/{tokens[current]}/act", json={"action": action})
            assert r.status_code == 200, r.text
            table = settle(client, links["match"])
            if not hasattr(table, "room"):
                break  # the match ended (the deal is the server's: some end early)
            after = game.state_from_json(inspect(client, table)["state"])
            check.learn(after, current)
            check.check(after, current, r.text, f"step {step}: the answer to an action")
    finally:
        for s in sockets:
            s.__exit__(None, None, None)
    return check


@pytest.mark.parametrize("spec, players, seed", [("highjack", 3, 1), ("highjack", 2, 7), ("highhand", 4, 2)])
def test_nothing_sent_to_a_seat_names_another_seats_hidden_cards(client, spec, players, seed):
    check = _secrecy_run(client, spec, players, seed, steps=30)
    assert check.checked_hidden > 0  # there were hidden cards to leak


def test_the_secrecy_check_catches_a_leak():
    """The check has teeth: the omniscient picture of a state names cards a seat may not see."""
    import interpreter
    from interpreter.views import render_text

    game = interpreter.load_game(str(GAMES / "highjack.yaml"), players=2)
    state = game.new_initial_state(1)
    check = SecrecyCheck(game)
    check.learn(state, 0)
    with pytest.raises(AssertionError, match="hidden cards"):
        check.check(state, 0, render_text(state, None), "omniscient")


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
    assert not server_of(client).replays  # a refused log holds no slot


def _with_first_action(lines: list[str], action: int) -> list[str]:
    out = list(lines)
    record = json.loads(out[1])
    out[1] = json.dumps({**record, "action": action})
    return out


# ---------------------------------------------------------------------- simulate


def test_simulate_a_spec_and_a_variant(client):
    from interpreter.analysis.simulate import simulate
    from interpreter.analysis.summary import summarize

    r = client.post("/api/simulate", json={"spec": "highhand", "players": 2, "games": 2, "seed": 3,
                                           "options": {"rounds": 1}, "variant": {"rounds": 2}})
    assert r.status_code == 200, r.text
    data = r.json()
    a, b = data["summaries"]
    assert a["options"]["rounds"] == 1 and b["options"]["rounds"] == 2 and a["games"] == 2
    expected = summarize(simulate(str(GAMES / "highhand.yaml"), 2, ["random"], 2, {"rounds": 1}, 3))
    assert [s["wins"] for s in a["seats"]] == [s["wins"] for s in expected["seats"]]
    assert a["spec"] == "highhand.yaml" and data["comparison"] and "stopped" not in data
    for body in ({"spec": "highhand", "games": 10**6}, {"spec": "highhand", "agents": ["human"]},
                 {"spec": "highhand", "variant": {"rounds": 0}}, {"spec": "highhand", "variant": [1]}):
        r = client.post("/api/simulate", json=body)
        assert r.status_code == 400 and set(r.json()) == {"error"}, body


def test_simulate_compares_a_variant_that_changes_the_players(client):
    """A listed variant may change the player count: B is played with it (it was compared with A itself)."""
    r = client.post("/api/simulate", json={"spec": "highhand", "players": 2, "games": 2, "options": {"rounds": 1},
                                           "variant": {}, "variant_players": 4})
    assert r.status_code == 200, r.text
    a, b = r.json()["summaries"]
    assert (a["players"], b["players"]) == (2, 4)
    r = client.post("/api/simulate", json={"spec": "highhand", "players": 2, "games": 2, "variant": {},
                                           "variant_players": 2})
    assert r.status_code == 400 and "nothing to compare" in r.json()["error"]


def test_a_simulation_stops_at_its_cpu_budget_and_says_so(testclient):
    with testclient(app_of(sim_cpu=0.1), raise_server_exceptions=False) as c:
        r = c.post("/api/simulate", json={"spec": "highjack", "players": 4, "games": 200, "agents": ["greedy"]})
        assert r.status_code == 200, r.text
        data = r.json()
        played = data["summaries"][0]["games"]
        assert 1 <= played < 200
        assert data["stopped"] == (f"stopped after {played} of 200 matches: this server gives a simulation 0.1 s of "
                                   "CPU (--sim-cpu)")


# ---------------------------------------------------------------------- the command line


def test_serve_without_the_extra_is_one_line_exit_2(monkeypatch):
    import interpreter.serve
    from interpreter.cli import main

    monkeypatch.setattr(interpreter.serve, "missing_extra", lambda: "starlette")
    out, err = io.StringIO(), io.StringIO()
    assert main(["serve", str(GAMES / "highhand.yaml")], out, err) == 2
    assert err.getvalue() == "rulespec: error: rulespec serve needs starlette: pip install 'rulespec[serve]'\n"


def test_serve_refuses_a_missing_spec_a_bad_port_and_a_bad_limit():
    from interpreter.cli import main

    err = io.StringIO()
    assert main(["serve", "no/such.yaml"], io.StringIO(), err) == 2
    assert err.getvalue() == "rulespec: error: no such file: no/such.yaml\n"
    err = io.StringIO()
    assert main(["serve", "--port", "70000"], io.StringIO(), err) == 2
    assert "the port must be from 0 to 65535" in err.getvalue()
    for option, message in (("--bot-seconds=0", "bot seconds must be from 0.01 to 3600, not 0"),
                            ("--max-tables=1.5", "max tables must be a whole number, not '1.5'"),
                            ("--request-cpu=nan", "request cpu must be a number, not 'nan'")):
        err = io.StringIO()
        assert main(["serve", option], io.StringIO(), err) == 2
        assert message in err.getvalue(), err.getvalue()


def test_serve_prints_its_url_and_passes_its_limits(monkeypatch):
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
    argv = ["serve", str(GAMES / "highhand.yaml"), "--port", "0", "--bot-seconds", "0.5", "--bot-delay", "100",
            "--max-matches", "7", "--origin", "https://games.example.org"]
    assert main(argv, out, io.StringIO()) == 0
    assert out.getvalue().startswith(f"rulespec playground: http://127.0.0.1:{seen['port']}/")
    server = seen["app"].state.server
    assert list(server.catalog.specs) == ["highhand"]
    assert (server.limits.bot_seconds, server.limits.bot_delay, server.limits.max_tables) == (0.5, 0.1, 7)
    assert server.origins == {"https://games.example.org"}


def test_serving_two_different_files_of_one_name_is_refused(tmp_path):
    from interpreter.cli import main

    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        text = (GAMES / "highhand.yaml").read_text(encoding="utf-8").replace("High Hand", f"Hand {folder}")
        (tmp_path / folder / "game.yaml").write_text(text, encoding="utf-8")
    err = io.StringIO()
    assert main(["serve", str(tmp_path / "a" / "game.yaml"), str(tmp_path / "b" / "game.yaml")],
                io.StringIO(), err) == 2
    assert "two different files named game.yaml would be served" in err.getvalue()
