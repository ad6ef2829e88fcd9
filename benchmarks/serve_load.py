"""Load test of `rulespec serve` (not a test of the suite): concurrent seats playing random moves.

    python benchmarks/serve_load.py                       # 50 seats, 60 s
    python benchmarks/serve_load.py --seats 10 --seconds 10
    python benchmarks/serve_load.py --think 1             # each seat thinks 0-2 s before a move

Starts the server in a subprocess on 127.0.0.1 (loopback only, a free port), then runs
``seats / 2`` tables of two people each (High Hand and Highjack in turn, 2 players, no bots):
each seat listens on its WebSocket and, when its view offers actions, posts a random one;
a table whose match ends starts another. Counted: requests, errors (any status but 2xx;
a 409 "not your turn" from a stale view is counted apart), the response times of every HTTP
request (p50, p95, max), and leaks: every view a seat receives must be of its own seat and
match (its game, its seat number, and an action log that only ever extends what the seat saw
before; another match's log would differ), and must show the other seat's hand as a count.
Needs the extra serve (uvicorn, websockets). Bounded: at most 200 seats, 600 s.
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
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPECS = [("highhand", "games/highhand.yaml"), ("highjack", "games/highjack.yaml")]


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
    request, which would be measured as the server's time)."""

    def __init__(self, base: str):
        self.host, port = base.removeprefix("http://").split(":")
        self.port = int(port)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

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
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Length: {len(body)}\r\n"
                "Content-Type: application/json\r\n\r\n").encode()
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
                stop: float, think: float) -> None:
    import websockets

    seen_log: dict[int, str] = {}
    client = Client(base)
    ws_url = base.replace("http://", "ws://") + f"/ws/{token}"
    async with websockets.connect(ws_url, max_size=1 << 22) as ws:
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
    client = Client(base)
    k = 0
    while time.monotonic() < stop:
        spec, _ = SPECS[(index + k) % len(SPECS)]
        k += 1
        body = {"spec": spec, "players": 2, "seats": ["human", "human"], "seed": rng.randrange(2**32),
                "options": {"rounds": 1} if spec == "highhand" else {"max_rounds": 1}}
        links = await _request(client, figures, "POST", "/api/matches", body)
        if links is None:
            await asyncio.sleep(0.5)
            continue
        first = await _request(client, figures, "GET", f"/api/t/{links['seats'][0]['token']}")
        game = first["layout"]["game"] if first else "?"
        await asyncio.gather(*(_seat(base, s["token"], s["seat"], game, random.Random(rng.random()),
                                     figures, stop, think) for s in links["seats"]))
        figures.matches_done += 1


async def _run(base: str, seats: int, seconds: float, think: float) -> Figures:
    figures = Figures()
    stop = time.monotonic() + seconds
    await asyncio.gather(*(_table(base, i, figures, stop, think) for i in range(seats // 2)))
    return figures


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=0.0, metavar="S",
                        help="a seat waits a random 0 to 2*S seconds before each move, as a person would "
                             "(default 0: every seat moves at once, the server saturated)")
    args = parser.parse_args(argv)
    if not 2 <= args.seats <= 200 or not 1 <= args.seconds <= 600 or not 0 <= args.think <= 60:
        parser.error("--seats from 2 to 200, --seconds from 1 to 600, --think from 0 to 60")
    port = _free_port()
    command = [sys.executable, "-m", "interpreter", "serve", *(p for _, p in SPECS), "--host", "127.0.0.1",
               "--port", str(port), "--bot-delay", "0", "--max-matches", str(args.seats * 4), "--idle", "120"]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if "http://" not in line:
            print(f"the server did not start: {line}{server.stdout.read()}", file=sys.stderr)
            return 1
        base = f"http://127.0.0.1:{port}"
        started = time.monotonic()
        figures = asyncio.run(_run(base, args.seats, args.seconds, args.think))
        elapsed = time.monotonic() - started
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    times = figures.times
    print(f"{args.seats} seats (think {args.think:g} s) for {elapsed:.0f} s on {os.cpu_count()} cores: "
          f"{len(times)} requests "
          f"({len(times) / elapsed:.0f}/s), {figures.actions} actions, {figures.frames} WebSocket frames, "
          f"{figures.matches_done} matches finished")
    if times:
        print(f"response time: p50 {1000 * statistics.median(times):.1f} ms, "
              f"p95 {1000 * _percentile(times, 0.95):.1f} ms, max {1000 * max(times):.1f} ms")
    print(f"errors: {len(figures.errors)}; stale views (409 not your turn): {figures.stale}; "
          f"leaks between seats or matches: {len(figures.leaks)}")
    for message in (figures.errors + figures.leaks)[:10]:
        print("  " + message)
    return 1 if figures.errors or figures.leaks else 0


if __name__ == "__main__":
    sys.exit(main())
