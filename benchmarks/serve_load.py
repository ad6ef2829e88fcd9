"""Load test of `rulespec serve` (not a test of the suite): concurrent seats playing random moves.

    python benchmarks/serve_load.py                       # 50 seats, 60 s
    python benchmarks/serve_load.py --seats 10 --seconds 10
    python benchmarks/serve_load.py --think 1             # each seat thinks 0-2 s before a move
    python benchmarks/serve_load.py --hostile --seats 40 --seconds 60 --think 0.5
        # 20 ordinary tables play for 60 s alone, then 60 s more while a hostile tenant runs the
        # label bomb (a posted spec whose every view costs ~30 s of CPU) and the bot bomb (tables of
        # the strongest bots it may ask for, thinking all the time); the ordinary tables' p95 in both
        # phases, their ratio (the target: at most 2) and their errors (the target: 0)

Starts the server in a subprocess on 127.0.0.1 (loopback only, a free port), then runs
``seats / 2`` tables of two people each (High Hand and Highjack in turn, 2 players, no bots):
each seat listens on its WebSocket and, when its view offers actions, posts a random one;
a table whose match ends starts another. Counted: requests, errors (any status but 2xx;
a 409 "not your turn" from a stale view is counted apart), the response times of every HTTP
request (p50, p95, max), and leaks: every view a seat receives must be of its own seat and
match (its game, its seat number, and an action log that only ever extends what the seat saw
before; another match's log would differ), and must show the other seat's hand as a count.
Every seat is a client of its own (its own address, by X-Forwarded-For, which the server
trusts from loopback with ``--proxy``, and its own cookies: the seat's claim). Needs the extra
serve (uvicorn, websockets). Bounded: at most 200 seats, 600 s a phase.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPECS = [("highhand", "games/highhand.yaml"), ("highjack", "games/highjack.yaml")]
LABEL_BOMB = (ROOT / "tests" / "serve_specs" / "label_bomb.yaml").read_text(encoding="utf-8")


@dataclass
class Figures:
    times: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    stale: int = 0
    leaks: list[str] = field(default_factory=list)
    actions: int = 0
    matches_done: int = 0
    frames: int = 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Client:
    """A minimal HTTP/1.1 keep-alive client: one connection, each request written in one piece
    (a client writing headers and body apart meets Nagle's algorithm and delayed ACKs, 40 ms a
    request, which would be measured as the server's time). It has an address of its own
    (``who``, sent as X-Forwarded-For) and keeps its cookies, as a browser would."""

    def __init__(self, base: str, who: str = "10.0.0.1"):
        self.host, port = base.removeprefix("http://").split(":")
        self.port = int(port)
        self.who = who
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    def headers(self) -> dict[str, str]:
        out = {"X-Forwarded-For": self.who}
        if self.cookies:
            out["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return out

    async def request(self, method: str, path: str, json_body: Any = None) -> tuple[int, bytes]:
        try:
            return await self._request(method, path, json_body)
        except (ConnectionResetError, BrokenPipeError, IndexError):
            # the server closed an idle connection before reading this request: once more, anew
            self.writer = None
            return await self._request(method, path, json_body)

    async def _request(self, method: str, path: str, json_body: Any = None) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        body = b"" if json_body is None else json.dumps(json_body).encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in self.headers().items())
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Length: {len(body)}\r\n"
                f"Content-Type: application/json\r\n{extra}\r\n").encode()
        self.writer.write(head + body)
        await self.writer.drain()
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "set-cookie":
                key, _, rest = value.strip().partition("=")
                self.cookies[key] = rest.split(";")[0]
        return status, await self.reader.readexactly(length)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def _request(client: Client, figures: Figures, method: str, path: str, json_body: Any = None) -> Any:
    start = time.perf_counter()
    try:
        status, body = await client.request(method, path, json_body)
    except Exception as exc:  # a refused or dropped connection is an error of the run
        figures.errors.append(f"{method} {path}: {type(exc).__name__}")
        client.writer = None
        return None
    figures.times.append(time.perf_counter() - start)
    if status == 409:
        figures.stale += 1
        return None
    if not 200 <= status < 300:
        figures.errors.append(f"{method} {path}: {status} {body[:200]!r}")
        return None
    return json.loads(body)


def _check_view(view: dict[str, Any], seat: int, game: str, seen_log: dict[int, str], figures: Figures) -> None:
    where = f"seat {seat} of a {game} match"
    if view["you"] != seat or view["layout"]["game"] != game:
        figures.leaks.append(f"{where}: got the view of seat {view['you']} of {view['layout']['game']}")
    for line in view["log"]:
        known = seen_log.setdefault(line["n"], line["text"])
        if known != line["text"]:
            figures.leaks.append(f"{where}: log line {line['n']} changed: {known!r} -> {line['text']!r}")
    hand = view["view"]["zones"].get("hand")
    if isinstance(hand, list):
        for p, zone in enumerate(hand):
            if p != seat and not (isinstance(zone, dict) and set(zone) == {"count"}):
                figures.leaks.append(f"{where}: the hand of seat {p} is shown: {zone}")


async def _seat(base: str, token: str, seat: int, game: str, rng: random.Random, figures: Figures,
                stop: float, think: float, who: str) -> None:
    import websockets

    seen_log: dict[int, str] = {}
    client = Client(base, who)
    first = await _request(client, figures, "GET", f"/api/t/{token}")  # opens the seat: claims it
    if first is None:
        return
    ws_url = base.replace("http://", "ws://") + f"/ws/{token}"
    async with websockets.connect(ws_url, max_size=1 << 22, additional_headers=client.headers()) as ws:
        while time.monotonic() < stop:
            try:
                frame = await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop - time.monotonic()))
            except TimeoutError:
                return
            figures.frames += 1
            view = json.loads(frame)
            _check_view(view, seat, game, seen_log, figures)
            if view["over"] or view.get("error"):
                return
            if view["actions"]:
                action = rng.choice(view["actions"])["id"]
                if think:
                    await asyncio.sleep(rng.uniform(0, 2 * think))
                answer = await _request(client, figures, "POST", f"/api/t/{token}/act", {"action": action})
                if answer is not None:
                    figures.actions += 1
                    _check_view(answer, seat, game, seen_log, figures)
    await client.close()


async def _table(base: str, index: int, figures: Figures, stop: float, think: float) -> None:
    rng = random.Random(index)
    client = Client(base, f"10.1.{index // 250}.{index % 250}")
    k = 0
    while time.monotonic() < stop:
        spec, _ = SPECS[(index + k) % len(SPECS)]
        k += 1
        body = {"spec": spec, "players": 2, "seats": ["human", "human"],
                "options": {"rounds": 1} if spec == "highhand" else {"max_rounds": 1}}
        links = await _request(client, figures, "POST", "/api/matches", body)
        if links is None:
            await asyncio.sleep(0.5)
            continue
        game = {"highhand": "High Hand", "highjack": "Highjack"}[spec]
        await asyncio.gather(*(_seat(base, s["token"], s["seat"], game, random.Random(rng.random()),
                                     figures, stop, think, f"10.2.{index}.{s['seat']}") for s in links["seats"]))
        if time.monotonic() >= stop:  # the people leave: the host closes the table
            await client.request("POST", f"/api/t/{links['host']}/close", {})
        else:
            figures.matches_done += 1


async def _run(base: str, seats: int, seconds: float, think: float) -> Figures:
    figures = Figures()
    stop = time.monotonic() + seconds
    await asyncio.gather(*(_table(base, i, figures, stop, think) for i in range(seats // 2)))
    return figures


@dataclass
class Hostile:
    """What the hostile tenant managed: requests made, refused (429/503: its budgets), and answered."""

    requests: int = 0
    refused: int = 0
    bomb_views: int = 0  # views of a label bomb that ended in the budget's error
    bot_tables: int = 0
    statuses: dict[int, int] = field(default_factory=dict)

    def answered(self, status: int, requests: int = 1) -> bool:
        """Count an answer (and the requests it took); whether it was a success."""
        self.requests += requests
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.refused += status in (429, 503)
        return 200 <= status < 300


async def _label_bomb(base: str, stop: float, hostile: Hostile) -> None:
    """Post the label bomb as editor text and open its deciding seat, again and again."""
    client = Client(base, "10.66.0.1")
    while time.monotonic() < stop:
        status, body = await client.request("POST", "/api/matches", {"text": LABEL_BOMB, "players": 2,
                                                                      "seats": ["human", "human"]})
        if not hostile.answered(status):
            await asyncio.sleep(1.0)
            continue
        links = json.loads(body)
        _, spectator = await client.request("GET", f"/api/t/{links['spectator']}")
        deciding = json.loads(spectator).get("deciding", 0)
        status, _ = await client.request("GET", f"/api/t/{links['seats'][deciding]['token']}")
        hostile.answered(status, 2)
        hostile.bomb_views += status == 422


async def _bot_bomb(base: str, stop: float, hostile: Hostile) -> None:
    """Tables of the strongest bots this tenant may ask for (four mcts seats of Highjack each),
    as many as it may have, watched so that they stay open."""
    import websockets

    client = Client(base, "10.66.0.2")
    watching: list[Any] = []
    while time.monotonic() < stop:
        status, body = await client.request("POST", "/api/matches", {"spec": "highjack", "players": 4,
                                                                      "seats": ["mcts:3600s"] * 4})
        if status == 400:  # the server caps a bot's time: the most it allows
            status, body = await client.request("POST", "/api/matches", {"spec": "highjack", "players": 4,
                                                                          "seats": ["mcts"] * 4})
        if not hostile.answered(status):
            await asyncio.sleep(1.0)
            continue
        hostile.bot_tables += 1
        links = json.loads(body)
        ws_url = base.replace("http://", "ws://") + f"/ws/{links['spectator']}"
        watching.append(await websockets.connect(ws_url, max_size=1 << 22, additional_headers=client.headers()))
    for ws in watching:
        await ws.close()


async def _hostile_run(base: str, seats: int, seconds: float, think: float) -> tuple[Figures, Hostile]:
    hostile = Hostile()
    stop = time.monotonic() + seconds
    figures, *_ = await asyncio.gather(_run(base, seats, seconds, think), _label_bomb(base, stop, hostile),
                                       _bot_bomb(base, stop, hostile))
    return figures, hostile


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _report(title: str, figures: Figures, elapsed: float) -> None:
    times = figures.times
    print(f"{title}: {len(times)} requests ({len(times) / max(elapsed, 1e-9):.0f}/s), {figures.actions} actions, "
          f"{figures.frames} WebSocket frames, {figures.matches_done} matches finished")
    if times:
        print(f"  response time: p50 {1000 * statistics.median(times):.1f} ms, "
              f"p95 {1000 * _percentile(times, 0.95):.1f} ms, max {1000 * max(times):.1f} ms")
    print(f"  errors: {len(figures.errors)}; stale views (409 not your turn): {figures.stale}; "
          f"leaks between seats or matches: {len(figures.leaks)}")
    for message in (figures.errors + figures.leaks)[:10]:
        print("    " + message)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=0.0, metavar="S",
                        help="a seat waits a random 0 to 2*S seconds before each move, as a person would "
                             "(default 0: every seat moves at once, the server saturated)")
    parser.add_argument("--hostile", action="store_true",
                        help="play twice, alone then beside a hostile tenant's label bomb and bot bomb, and "
                             "compare the ordinary tables' p95")
    args = parser.parse_args(argv)
    if not 2 <= args.seats <= 200 or not 1 <= args.seconds <= 600 or not 0 <= args.think <= 60:
        parser.error("--seats from 2 to 200, --seconds from 1 to 600, --think from 0 to 60")
    port = _free_port()
    command = [sys.executable, "-m", "interpreter", "serve", *(p for _, p in SPECS), "--host", "127.0.0.1",
               "--port", str(port), "--proxy", "127.0.0.1", "--max-tables", str(args.seats * 2),
               "--idle", "120"]
    log = tempfile.TemporaryFile(mode="w+")  # the server's log (a pipe nobody reads would fill and stop it)
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if "http://" not in line:
            log.seek(0)
            print(f"the server did not start: {line}{log.read()}", file=sys.stderr)
            return 1
        base = f"http://127.0.0.1:{port}"
        print(f"{args.seats} seats ({args.seats // 2} tables of two people), think {args.think:g} s, "
              f"{args.seconds:g} s a phase, {os.cpu_count()} cores")
        alone = asyncio.run(_run(base, args.seats, args.seconds, args.think))
        _report("ordinary tables alone", alone, args.seconds)
        if args.hostile:
            beside, hostile = asyncio.run(_hostile_run(base, args.seats, args.seconds, args.think))
            _report("ordinary tables beside the hostile tenant", beside, args.seconds)
            print(f"  the hostile tenant: {hostile.requests} requests, {hostile.refused} refused by its limits, "
                  f"{hostile.bomb_views} label-bomb views stopped at the request budget, {hostile.bot_tables} "
                  f"tables of bots; statuses {dict(sorted(hostile.statuses.items()))}")
            ratio = _percentile(beside.times, 0.95) / max(_percentile(alone.times, 0.95), 1e-9)
            print(f"p95 beside the hostile tenant / p95 alone: {ratio:.2f} (target at most 2)")
            return 1 if beside.errors or beside.leaks or alone.errors or ratio > 2 else 0
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.seek(0)
        written = log.read()
        if written.strip():
            print(f"the server's log ({len(written.splitlines())} lines), its end:\n{written[-3000:]}")
        log.close()
    return 1 if alone.errors or alone.leaks else 0


if __name__ == "__main__":
    sys.exit(main())
