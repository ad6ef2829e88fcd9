"""The one error type of the playground: a request refused, with the message a person reads
and an HTTP status. Raised in the server and in its workers (a worker sends it back as JSON)."""

from __future__ import annotations

__all__ = ["ServeError"]


class ServeError(Exception):
    """A request the server refuses: the message for the browser and an HTTP status.

    ``fatal``: raised in a worker, the worker cannot go on (its table is closed)."""

    def __init__(self, message: str, status: int = 400, fatal: bool = False):
        super().__init__(message)
        self.status = status
        self.fatal = fatal
