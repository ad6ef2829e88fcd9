"""`rulespec schema`: the JSON Schema of a spec, for editors and other tools."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from rulespec import schema_text

from .common import EXIT_OK


def add_schema_parser(sub: Any) -> None:
    sub.add_parser("schema", help="print the JSON Schema (draft 2020-12) of a spec",
                   description="Print the JSON Schema of a spec, for editors and other tools.")


def cmd_schema(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    out.write(schema_text())
    return EXIT_OK
