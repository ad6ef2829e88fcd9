"""Run the playground with uvicorn: bind first, print the URL, then serve until Ctrl-C."""

from __future__ import annotations

import socket
from typing import TextIO
from urllib.parse import urlsplit

from .limits import ServerLimits

__all__ = ["run_server", "bind", "LOOPBACK_NAMES", "allowed_hosts"]

LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1"]
MAX_CONNECTIONS = 2000  # connections and requests at once, in all (then 503)


def allowed_hosts(host: str, extra: list[str] | None = None) -> list[str]:
    """The names a request may give as its Host (any other is refused: a page of a name the
    attacker controls, resolved to this machine, is DNS rebinding): on loopback, loopback's;
    otherwise also the address listened on, this machine's names and addresses, and ``extra``."""
    names = set(LOOPBACK_NAMES) | set(extra or ())
    if host not in LOOPBACK_NAMES:
        if host not in ("0.0.0.0", "::", ""):
            names.add(host)
        hostname = socket.gethostname()
        names |= {hostname, socket.getfqdn(), f"{hostname}.local"}
        try:
            names |= {str(info[4][0]) for info in socket.getaddrinfo(hostname, None)}
        except OSError:
            pass
    return sorted(n.lower() for n in names if n)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (port 0: a free one); OSError when it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: a response's headers and body, written apart, are not held
    # back by Nagle's algorithm until the browser's delayed ACK (40 ms a request)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else (f"[{host}]" if ":" in host else host)
    return f"http://{shown}:{port}/"


def run_server(specs: list[str], host: str, port: int, out: TextIO, limits: ServerLimits | None = None,
               origins: list[str] | None = None, proxies: list[str] | None = None,
               hosts: list[str] | None = None) -> None:
    """Serve until Ctrl-C. The specs are read (and checked) before the port is bound."""
    import uvicorn

    from .app import create_app

    loopback = host in LOOPBACK_NAMES
    names = list(hosts or []) + [urlsplit(o).hostname or "" for o in origins or []]  # an origin's host is one too
    app = create_app(specs, limits, allowed_hosts=allowed_hosts(host, names), origins=origins, proxies=proxies)
    sock = bind(host, port)
    print(f"rulespec playground: {url_of(sock, host)}  (Ctrl-C stops it)", file=out, flush=True)
    if not loopback:
        print("note: listening beyond this machine; seat links are the only key to a seat, and the limits of "
              "rulespec serve --help hold for every client", file=out, flush=True)
    config = uvicorn.Config(app, log_level="warning", ws_max_size=1 << 20, timeout_graceful_shutdown=2,
                            timeout_keep_alive=30, limit_concurrency=MAX_CONNECTIONS)
    uvicorn.Server(config).run(sockets=[sock])
