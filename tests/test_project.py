"""Project-wide guards: the engine knows no game, the public API is explicit, the code is lint-clean."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import interpreter
import rulespec
from tests.conftest import ROOT, require

# names of games, cards and game-only rules from the seed rulebooks and games/
GAME_WORDS = [
    "highjack", "high hand", "highhand", "toker", "stash", "ashtray", "stoner", "spark it", "session",
    "rolling papers", "lighter", "grinder", "bong", "munchies", "bogart", "buzzkill", "paranoia",
    "puff puff", "roach", "hotbox", "declaring player", "blocker", "taker", "pawn", "tic-tac-toe",
    "tictactoe", "goofspiel", "reversi", "othello", "purple", "chronic", "one hitter",
    "pig", "dots and boxes", "dots_and_boxes",
    "kalah", "mancala",
    "hexagon", "pie rule",  # Hex: "hex" itself occurs in the engine (hexdigest)
    "battleship", "fleet", "shoot", "sunk", "loss_multiplier", "num_shots",
    "checkers", "draughts", "crown",
    "oh hell", "oh_hell", "ohhell", "off_bid", "made_bid", "num_tricks", "trump",
    "hearts", "shoot the moon", "queen of spades", "jack of diamonds", "jd_bonus", "pass_cards",
    "backgammon", "gammon", "bear off", "bearing off", "borne", "doublet", "blot", "pips",
    "scoring_type", "winloss", "max_player_turns",
    "castling", "castle", "en passant", "checkmate", "stalemate", "kiwipete", "perft",  # chess: "chess" itself
    "knight", "bishop", "rook", "queen", "promotion",  # occurs in the engine (cells named like a chess board)
]


def _engine_files():
    for package in ("rulespec", "interpreter"):
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix in (".py", ".lark", ".json") and "__pycache__" not in path.parts:
                yield path


def test_the_engine_names_no_game_card_or_game_rule():
    offenders = []
    for path in _engine_files():
        text = path.read_text(encoding="utf-8").lower()
        for word in GAME_WORDS:
            for match in re.finditer(re.escape(word), text):
                line = text.count("\n", 0, match.start()) + 1
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {word}")
    assert offenders == []


def test_no_eval_exec_or_unsafe_yaml_in_the_engine():
    """No eval, no unsafe YAML, no pickle; ``exec`` only once, in the module that verifies
    generated code against its allow-list first (interpreter/pycode.py)."""
    pattern = re.compile(r"(^|[^.\w])(eval|exec|compile)\(|yaml\.load\(|yaml\.unsafe_load|pickle\.loads?\(")
    hits = [f"{p.relative_to(ROOT)}: {line.strip()}" for p in _engine_files() if p.suffix == ".py"
            for line in p.read_text(encoding="utf-8").splitlines() if pattern.search(line)]
    assert [h for h in hits if not h.startswith("interpreter/pycode.py: ")] == []
    in_pycode = [h.split(": ", 1)[1] for h in hits if h.startswith("interpreter/pycode.py: ")]
    assert [h.split("(")[0] for h in in_pycode] == ["code = compile", "exec"]
    source = (ROOT / "interpreter" / "pycode.py").read_text(encoding="utf-8")
    assert source.index("verify(source, namespace)") < source.index("code = compile(")


def test_public_api_is_explicit():
    assert sorted(rulespec.__all__) == sorted([
        "GameDef", "compile_file", "compile_text", "SpecError", "YamlSyntaxError", "LimitError", "SchemaError",
        "LanguageError", "SemanticError", "VariantError", "Diagnostic", "SourceSpan", "schema", "schema_text",
    ])
    assert sorted(interpreter.__all__) == sorted([
        "load_game", "game_from_text", "Game", "State", "CHANCE", "TERMINAL", "IllegalActionError",
        "OptionError", "RuleError", "GameLengthError", "InterpreterError", "StateError", "BudgetError", "RunLimits",
    ])
    for module in (rulespec, interpreter):
        for name in module.__all__:
            assert hasattr(module, name), name


def test_openspiel_constants():
    assert interpreter.CHANCE == -1 and interpreter.TERMINAL == -4


def test_ruff_is_clean():
    require("ruff")
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "rulespec", "interpreter", "tests", "benchmarks"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean():
    require("mypy")
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports, anywhere in the file (functions and
    TYPE_CHECKING blocks included)."""
    import ast

    modules = {}
    for package in ("rulespec", "interpreter"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name != "__init__.py":
                modules[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        parts = module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = parts[: len(parts) - node.level + 1] if node.level else []
                target = ".".join(base + (node.module.split(".") if node.module else []))
                for name in [target] + [f"{target}.{alias.name}" for alias in node.names]:
                    if name in graph and name != module:
                        graph[module].add(name)
    return graph


def test_no_import_cycle():
    graph = _import_graph()
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(graph[module]):
            assert state.get(other) != 1, "import cycle: " + " -> ".join(path[path.index(other):] + [other]) \
                if other in path else f"import cycle through {other}"
            if other not in state:
                visit(other, path + [other])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_the_cycle_check_finds_a_cycle(monkeypatch):
    import tests.test_project as me

    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    monkeypatch.setattr(me, "_import_graph", lambda: graph)
    with pytest.raises(AssertionError, match="a -> b -> c -> a"):
        me.test_no_import_cycle()
