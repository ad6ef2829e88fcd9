"""Messages between the server and its worker processes: a JSON header and raw byte blobs.

    frame = !II (header length, blob count) + header (a UTF-8 JSON object)
            + for each blob: !I (its length) + its bytes

JSON only, never pickle: nothing a worker sends can make the server run code, and the bodies
of requests pass through the server as blobs, unparsed (the worker reads them). Views travel
back as blobs too, so the server sends them on without decoding or encoding them again.
Every size is bounded on both sides.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import Sequence
from typing import Any

__all__ = ["WireError", "encode", "read_frame", "read_frame_async", "MAX_HEADER", "MAX_BLOB", "MAX_BLOBS"]

MAX_HEADER = 1 << 20  # bytes of one header
MAX_BLOB = 64 << 20  # bytes of one blob
MAX_BLOBS = 1024  # blobs of one message
_HEAD = struct.Struct("!II")
_SIZE = struct.Struct("!I")

Frame = tuple[dict[str, Any], list[bytes]]


class WireError(Exception):
    """A frame that breaks the format or its bounds."""


def encode(header: dict[str, Any], blobs: Sequence[bytes] = ()) -> bytes:
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    if len(head) > MAX_HEADER or len(blobs) > MAX_BLOBS:
        raise WireError("a message is too large")
    parts = [_HEAD.pack(len(head), len(blobs)), head]
    for blob in blobs:
        if len(blob) > MAX_BLOB:
            raise WireError("a message is too large")
        parts += [_SIZE.pack(len(blob)), blob]
    return b"".join(parts)


def _header(raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WireError("a header is not JSON") from None
    if not isinstance(header, dict):
        raise WireError("a header is not a JSON object")
    return header


def _check(size: int, bound: int) -> int:
    if size > bound:
        raise WireError("a message is too large")
    return size


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_frame(sock: socket.socket) -> Frame:
    """The next message on a blocking socket (a worker's side); EOFError when it is closed."""
    head_size, count = _HEAD.unpack(_exactly(sock, _HEAD.size))
    header = _header(_exactly(sock, _check(head_size, MAX_HEADER)))
    blobs = []
    for _ in range(_check(count, MAX_BLOBS)):
        (size,) = _SIZE.unpack(_exactly(sock, _SIZE.size))
        blobs.append(_exactly(sock, _check(size, MAX_BLOB)))
    return header, blobs


async def read_frame_async(reader: asyncio.StreamReader) -> Frame:
    """The next message on a stream (the server's side); EOFError when it is closed."""
    try:
        head_size, count = _HEAD.unpack(await reader.readexactly(_HEAD.size))
        header = _header(await reader.readexactly(_check(head_size, MAX_HEADER)))
        blobs = []
        for _ in range(_check(count, MAX_BLOBS)):
            (size,) = _SIZE.unpack(await reader.readexactly(_SIZE.size))
            blobs.append(await reader.readexactly(_check(size, MAX_BLOB)))
    except asyncio.IncompleteReadError:
        raise EOFError from None
    return header, blobs
