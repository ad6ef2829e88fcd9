"""`rulespec serve [FILE...]`: the browser playground (interpreter.serve; needs the serve extra)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .args import whole_number
from .common import EXIT_OK, CliError, check_file


def _port(text: str) -> int:
    return whole_number(text, "the port", 0, 65535)


def add_serve_parser(sub: Any) -> None:
    from ..serve.limits import add_limit_options

    serve = sub.add_parser("serve", help="the browser playground: edit, play with friends and bots, replay, simulate",
                           description="Serve a playground in the browser: an editor that checks a spec as you "
                                       "type, tables to play the served specs (one URL per seat, or hot seat) with "
                                       "bots, a replay of match logs and bot simulations. Only the specs named "
                                       "here, and the files they extend, are read (once, at the start); the "
                                       "editor's text may extend them by name and nothing else. Every engine call "
                                       "runs in a worker process under the limits below. Needs the extra: "
                                       "pip install 'rulespec[serve]'.",
                           epilog="docs/playground.md explains every limit; docs/security.md the server's threat "
                                  "model.")
    serve.add_argument("files", nargs="*", metavar="FILE", help="spec files to serve (YAML)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this "
                                                           "machine only)")
    serve.add_argument("--port", type=_port, default=8000, help="the port (default 8000; 0 picks a free one)")
    serve.add_argument("--origin", action="append", default=[], metavar="URL",
                       help="another origin whose pages may use this server (the URL people open, as "
                            "https://games.example.org, when a proxy serves it under another name); repeatable")
    serve.add_argument("--proxy", action="append", default=[], metavar="IP",
                       help="the address of a reverse proxy whose X-Forwarded-For names the client (per-client "
                            "limits then count each client apart); repeatable")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="a name people reach this server by (requests naming any other host are refused, "
                            "against DNS rebinding; this machine's own names and addresses are allowed already); "
                            "repeatable")
    add_limit_options(serve)


def cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from ..serve import missing_extra

    missing = missing_extra()
    if missing is not None:
        raise CliError(f"rulespec serve needs {missing}: pip install 'rulespec[serve]'")
    for path in args.files:
        check_file(path)
    from ..serve.catalog import CatalogError
    from ..serve.limits import limits_from_args
    from ..serve.run import run_server

    try:
        run_server(args.files, args.host, args.port, out, limits_from_args(args), args.origin, args.proxy,
                   args.allowed_host)
    except CatalogError as exc:
        raise CliError(str(exc)) from None
    return EXIT_OK
