"""What each client of the server may still use: CPU, table creations, live tables, jobs.

A client is the address a request comes from (``--proxy`` names a reverse proxy whose
``X-Forwarded-For`` is believed instead). Its CPU and its creations are token buckets: full
at first, spent by each request (and by its tables' bots), refilled at the rate the limits
give per minute. A request finding its client's bucket empty gets 429 and when to try again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .errors import ServeError
from .limits import ServerLimits

__all__ = ["Bucket", "Client", "Clients"]


@dataclass
class Bucket:
    """At most ``capacity``, refilled at ``rate`` per second; may go below zero (work is paid after it is done)."""

    capacity: float
    rate: float
    level: float = math.nan
    stamp: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if math.isnan(self.level):
            self.level = self.capacity

    def refill(self, now: float) -> float:
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.level

    def spend(self, amount: float, now: float) -> None:
        self.refill(now)
        self.level -= amount

    def wait(self, now: float, need: float = 0.0) -> float:
        """Seconds until the level is above ``need`` (0 when it is now)."""
        level = self.refill(now)
        return 0.0 if level > need else (need - level) / self.rate + 1e-3


@dataclass
class Client:
    cpu: Bucket
    creations: Bucket
    tables: int = 0  # live tables it created
    replays: int = 0
    jobs: int = 0  # checks of editor text, running or waiting
    simulations: int = 0  # running or waiting
    sockets: int = 0  # open WebSockets
    working: int = 0  # its requests being worked on
    seen: float = field(default_factory=time.monotonic)


class Clients:
    def __init__(self, limits: ServerLimits):
        self.limits = limits
        self.items: dict[str, Client] = {}

    def get(self, key: str) -> Client:
        client = self.items.get(key)
        if client is None:
            limits = self.limits
            client = Client(Bucket(limits.client_cpu, limits.client_cpu / 60),
                            Bucket(limits.create_per_minute, limits.create_per_minute / 60))
            self.items[key] = client
        client.seen = time.monotonic()
        return client

    def charge(self, key: str, cpu: float) -> None:
        if cpu > 0:
            self.get(key).cpu.spend(cpu, time.monotonic())

    def check_cpu(self, key: str) -> None:
        """A 429 when the client has used its CPU for now."""
        wait = self.get(key).cpu.wait(time.monotonic())
        if wait > 0:
            raise ServeError(f"you have used the {self.limits.client_cpu:g} s of CPU this server gives a client per "
                             f"minute; try again in {math.ceil(wait)} s", 429)

    @contextmanager
    def busy(self, key: str) -> Iterator[None]:
        """A request of the client being worked on: a 429 when it has as many as it may."""
        client = self.get(key)
        if client.working >= self.limits.requests_per_client:
            raise ServeError(f"you have {client.working} requests being worked on, the most this server allows "
                             "one client; wait for their answers", 429)
        client.working += 1
        try:
            yield
        finally:
            client.working -= 1

    def cpu_wait(self, key: str) -> float:
        return self.get(key).cpu.wait(time.monotonic())

    def check_create(self, key: str) -> Client:
        """The client, when it may create a table now (else a 429 saying why)."""
        client = self.get(key)
        limits = self.limits
        if client.tables >= limits.tables_per_client:
            raise ServeError(f"you have {client.tables} live tables, the most this server allows one client; "
                             "finish or close one first", 429)
        wait = client.creations.wait(time.monotonic(), 1.0 - 1e-9)
        if wait > 0:
            raise ServeError(f"you may create {limits.create_per_minute} tables a minute on this server; try again "
                             f"in {math.ceil(wait)} s", 429)
        self.check_cpu(key)
        return client

    def forget_idle(self, older_than: float) -> None:
        """Drop clients with nothing live, full buckets and no visit for a while (no debt is forgiven)."""
        now = time.monotonic()
        for key in [k for k, c in self.items.items()
                    if now - c.seen > older_than and not (c.tables or c.replays or c.jobs or c.simulations
                                                           or c.sockets or c.working)
                    and c.cpu.refill(now) >= c.cpu.capacity]:
            del self.items[key]
