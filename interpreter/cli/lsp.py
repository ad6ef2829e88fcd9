"""`rulespec lsp`: a language server for editors on stdin/stdout (interpreter.lsp; needs the lsp
extra)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .args import add_root, whole_number
from .common import CliError, root_folder


def _debounce(text: str) -> int:
    return whole_number(text, "the debounce delay", 0, 60_000)


def add_lsp_parser(sub: Any) -> None:
    lsp = sub.add_parser("lsp", help="a language server for editors (stdio; needs the lsp extra)",
                         description="Speak the Language Server Protocol on standard input and output: "
                                     "the problems of `rulespec validate` as you type, completion, hover, go to "
                                     "definition, find references and an outline of each spec. Needs "
                                     "pip install 'rulespec[lsp]'.")
    lsp.add_argument("--debounce", type=_debounce, default=100, metavar="MS",
                     help="changes closer together than this are checked once, after the last (default 100)")
    add_root(lsp, "`extends:`")


def cmd_lsp(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    root = root_folder(args)
    try:
        from ..lsp.server import serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs"):
            raise
        raise CliError("rulespec lsp needs pygls and lsprotocol: pip install 'rulespec[lsp]'") from None
    return serve(root=root, debounce=args.debounce / 1000)
