"""The zone-kind registry: every kind a spec may write has its static facts (rulespec.zones) and
its run-time behaviour (interpreter.zones), and the sites that differ by kind ask it."""

from __future__ import annotations

import json
import re

from interpreter import zones as runtime
from rulespec.zones import ZONE_KINDS, kind_of
from tests.conftest import ROOT


def _schema_pers() -> set[str | None]:
    schema = json.loads((ROOT / "rulespec" / "schema.json").read_text(encoding="utf-8"))
    found: set[str | None] = {None}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            per = node.get("properties", {}).get("per") if isinstance(node.get("properties"), dict) else None
            if isinstance(per, dict) and "enum" in per and "visibility" in node.get("properties", {}):
                found.update(per["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return found


def test_every_kind_the_schema_allows_is_registered_on_both_sides():
    pers = _schema_pers()
    assert len(pers) > 1, "the schema's zone `per` values were not found"
    assert set(ZONE_KINDS) == pers
    assert set(runtime._RUNTIME) == set(ZONE_KINDS.values())


def test_no_site_tests_the_zone_kind_itself():
    """Only the registry compares a zone's `per` (per-player variables have their own `per`)."""
    pattern = re.compile(r"\b(zone|z)\.per\b|(?<![\w.])per == \"(player|cell)\"")
    offenders = []
    for package in ("rulespec", "interpreter"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "zones.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_kind_of_reads_the_declaration():
    class Declared:
        per = "cell"

    assert kind_of(Declared()).needs_board and kind_of(Declared()).arg == "c"
