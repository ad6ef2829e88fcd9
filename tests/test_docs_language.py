"""Every example in docs/language.md is checked, so the reference cannot drift from the code.

The conventions (stated at the top of the document):

* ```yaml              a complete spec: it must compile.
* ```yaml play         a complete spec that must also play to the end (every allowed player
                       count, random legal actions, implicit and explicit chance, invariants
                       checked after every action).
* ```yaml template     the template that fragments extend (saved as template.yaml).
* ```yaml fragment     sections merged into the template (`extends: template.yaml` is appended).
* ```yaml ... error    must fail to compile; the ```text block right after it is the exact first
                       diagnostic (message line, source line, caret and hint).
* ```python            runs after the YAML example above it with `spec` (that example's text)
                       and `load(players=None, options=None, explicit_chance=False)` in scope.
* ```text              not checked by itself.

Coverage: every built-in function, built-in name, aggregate, statement kind, expression form,
schema key and schema enum value must appear in at least one example that compiles.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest

import interpreter
from rulespec import SpecError, compile_text, schema
from rulespec import ast as A
from rulespec import types as T
from rulespec.check import UNKNOWN
from rulespec.source import load_yaml
from tests.conftest import ROOT

DOC = ROOT / "docs" / "language.md"
EXAMPLE_NAME = "spec.yaml"
TEMPLATE_NAME = "template.yaml"
MAX_STEPS = 5000
SEEDS = (0, 1)


# ---------------------------------------------------------------------------------- parsing


@dataclass
class Block:
    lang: str
    tags: tuple[str, ...]
    text: str
    line: int  # line of the opening fence (1-based)
    expected: str | None = None  # for error examples: the text block after it
    previous: Block | None = None  # for python blocks: the YAML example above

    @property
    def where(self) -> str:
        return f"docs/language.md:{self.line}"

    @property
    def fragment(self) -> bool:
        return "fragment" in self.tags


_FENCE = re.compile(r"^```([A-Za-z0-9_-]*)([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
_YAML_TAGS = {"play", "fragment", "error", "template"}


def parse_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        blocks.append(Block(match.group(1), tuple(match.group(2).split()), match.group(3), line))
    out: list[Block] = []
    last_yaml: Block | None = None
    for i, block in enumerate(blocks):
        if block.lang == "yaml" and "error" in block.tags:
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            assert nxt is not None and nxt.lang == "text", f"{block.where}: no text block after it"
            block.expected = nxt.text.rstrip("\n")
        if block.lang == "python":
            block.previous = last_yaml
        if block.lang == "yaml" and "error" not in block.tags and "template" not in block.tags:
            last_yaml = block
        out.append(block)
    return out


DOC_TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = parse_blocks(DOC_TEXT)
YAML = [b for b in BLOCKS if b.lang == "yaml"]
TEMPLATES = [b for b in YAML if "template" in b.tags]
VALID = [b for b in YAML if "error" not in b.tags and "template" not in b.tags]
ERRORS = [b for b in YAML if "error" in b.tags]
PLAYED = [b for b in VALID if "play" in b.tags]
PYTHON = [b for b in BLOCKS if b.lang == "python"]


def _id(block: Block) -> str:
    return f"line{block.line}"


# ---------------------------------------------------------------------------------- compiling


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding template.yaml, where every example is compiled as spec.yaml."""
    assert len(TEMPLATES) == 1, "docs/language.md must have exactly one ```yaml template block"
    folder = tmp_path_factory.mktemp("docs")
    (folder / TEMPLATE_NAME).write_text(TEMPLATES[0].text, encoding="utf-8")
    return folder


def source_of(block: Block) -> str:
    """The text compiled for an example: fragments get `extends: template.yaml` appended (same line numbers)."""
    if block.fragment:
        return block.text.rstrip("\n") + f"\nextends: {TEMPLATE_NAME}\n"
    return block.text


_COMPILED: dict[tuple[str, str], Any] = {}


def compile_block(block: Block, folder: Path) -> Any:
    key = (str(folder), source_of(block))
    if key not in _COMPILED:
        _COMPILED[key] = compile_text(source_of(block), str(folder / EXAMPLE_NAME))
    return _COMPILED[key]


def load_block(block: Block, folder: Path, players: int | None = None, options: dict | None = None,
               explicit_chance: bool = False) -> interpreter.Game:
    return interpreter.Game(compile_block(block, folder), players, options, explicit_chance)


def play_to_end(game: interpreter.Game, seed: int) -> interpreter.State:
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    steps = 0
    while not state.is_terminal():
        assert steps < MAX_STEPS, "the match did not end"
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            legal = state.legal_actions()
            assert legal, "a player must decide but has no legal action"
            action = rng.choice(legal)
        state.apply_action(action)
        steps += 1
        assert game.check_invariants(state) == []
    assert len(state.returns()) == game.num_players
    return state


# ---------------------------------------------------------------------------------- the examples


def test_the_document_has_examples_of_every_kind():
    kinds = {b.lang for b in BLOCKS}
    assert kinds <= {"yaml", "python", "text", "sh"}, kinds
    for block in YAML:
        assert set(block.tags) <= _YAML_TAGS, f"{block.where}: unknown tags {block.tags}"
    assert VALID and ERRORS and PLAYED and PYTHON and len(TEMPLATES) == 1


def test_the_template_compiles_and_plays(workdir: Path):
    gamedef = compile_text(TEMPLATES[0].text, str(workdir / TEMPLATE_NAME))
    for players in gamedef.model.players:
        for seed in SEEDS:
            play_to_end(interpreter.Game(gamedef, players), seed)


@pytest.mark.parametrize("block", VALID, ids=_id)
def test_example_compiles(block: Block, workdir: Path):
    try:
        compile_block(block, workdir)
    except SpecError as error:
        pytest.fail(f"{block.where}: the example does not compile:\n{error}")


@pytest.mark.parametrize("block", PLAYED, ids=_id)
def test_example_plays_to_the_end(block: Block, workdir: Path):
    gamedef = compile_block(block, workdir)
    for players in gamedef.model.players:
        for explicit in (False, True):
            for seed in SEEDS:
                game = interpreter.Game(gamedef, players, None, explicit)
                try:
                    play_to_end(game, seed)
                except (AssertionError, interpreter.InterpreterError) as exc:
                    pytest.fail(f"{block.where}: {players} players, explicit_chance={explicit}, seed {seed}: {exc}")


@pytest.mark.parametrize("block", ERRORS, ids=_id)
def test_error_example_reports_exactly_this(block: Block, workdir: Path):
    with pytest.raises(SpecError) as info:
        compile_text(source_of(block), str(workdir / EXAMPLE_NAME))
    error = info.value
    first = error.diagnostics[0].format(error.sources).replace(str(workdir) + "/", "")
    assert first == block.expected, f"{block.where}"
    # the documented format: file:line:col: error: message
    assert re.match(rf"{EXAMPLE_NAME}:\d+:\d+: error: ", first)


@pytest.mark.parametrize("block", PYTHON, ids=_id)
def test_python_example_runs(block: Block, workdir: Path):
    assert block.previous is not None, f"{block.where}: a python example must follow a YAML example"
    previous = block.previous

    def load(players: int | None = None, options: dict | None = None,
             explicit_chance: bool = False) -> interpreter.Game:
        return load_block(previous, workdir, players, options, explicit_chance)

    namespace = {"spec": source_of(previous), "load": load, "__name__": "docs_example"}
    try:
        exec(compile(block.text, block.where, "exec"), namespace)  # the document's own examples
    except Exception as exc:
        lines = [tb.tb_lineno for tb in _tracebacks(exc.__traceback__) if tb.tb_frame.f_code.co_filename == block.where]
        line = lines[-1] if lines else 0
        source = block.text.splitlines()[line - 1] if line else "?"
        pytest.fail(f"docs/language.md:{block.line + line}: {type(exc).__name__}: {exc}\n    {source}")


def _tracebacks(tb: Any):
    while tb is not None:
        yield tb
        tb = tb.tb_next


# ---------------------------------------------------------------------------------- coverage


def _nodes(obj: Any, seen: set[int] | None = None):
    """Every AST node reachable from a model object (dataclasses, tuples, dicts)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, A.Node):
        for node in A.walk(obj):
            yield node
            if isinstance(node, A.Alternative):  # walk() does not enter templates of labels
                if node.label is not None:
                    yield from _nodes(node.label, seen)
        return
    if is_dataclass(obj) and not isinstance(obj, type):
        for f in fields(obj):
            yield from _nodes(getattr(obj, f.name), seen)
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            yield from _nodes(item, seen)


def _features(gamedef: Any) -> set[str]:
    out: set[str] = set()
    for node in _nodes(gamedef.model):
        kind = type(node).__name__
        ref = gamedef.info.ref(node)
        if isinstance(node, A.Call):
            out.add(f"call {node.func}" if ref.kind == "builtin" else f"call-{ref.kind}")
            if ref.kind == "builtin":
                out.add(f"function {node.func}")
            for key, _ in node.kwargs:
                out.add(f"kwarg {node.func}.{key}")
        elif isinstance(node, A.Agg):
            out.add(f"aggregate {node.func}")
            if node.comp.cond is not None:
                out.add("comprehension if")
        elif isinstance(node, A.ListComp):
            out.add("list comprehension")
            if node.comp.cond is not None:
                out.add("comprehension if")
        elif isinstance(node, A.Name):
            if ref.kind == "builtin":
                out.add(f"name {node.id}")
            if ref is not UNKNOWN:
                out.add(f"ref {ref.kind}")
        elif isinstance(node, A.Attr):
            if ref is not UNKNOWN:
                out.add(f"ref {ref.kind}")
                if ref.kind in ("player_field", "cell_field", "piece_field"):
                    out.add(f"{ref.kind} {ref.name}")
        elif isinstance(node, A.Const):
            out.add(f"literal {type(node.value).__name__}")
        elif isinstance(node, A.BinOp):
            out.add(f"operator {node.op}")
        elif isinstance(node, A.Unary):
            out.add(f"operator {node.op}")
        elif isinstance(node, A.Cond):
            out.add("conditional expression")
        elif isinstance(node, A.ListLit):
            out.add("list literal")
        elif isinstance(node, A.Index):
            out.add("index")
        elif isinstance(node, A.Move):
            what = gamedef.info.ref(node.what)
            out.add(f"move {node.selector}")
            if node.face:
                out.add(f"move face {node.face}")
            if node.bottom:
                out.add("move at bottom")
            if gamedef.info.types.get(id(node.what)) == T.PIECE:
                out.add("move piece")
            del what
        elif isinstance(node, A.Draw):
            out.add("draw" if node.count is not None else "draw one")
            if node.face:
                out.add(f"draw face {node.face}")
        elif isinstance(node, A.Deal):
            out.add("deal")
            zone = next(z for z in gamedef.model.zones if z.name == node.family)
            out.add(f"deal per {zone.per}")
            if node.face:
                out.add(f"deal face {node.face}")
        elif isinstance(node, A.Flip):
            out.add(f"flip {node.face}")
        elif isinstance(node, A.Assign):
            out.add(f"assign {node.op}")
            if isinstance(node.target, A.Attr):
                out.add("assign player variable")
        elif isinstance(node, A.Let):
            out.add("let")
            if isinstance(node.value, A.Call) and node.value.func in T.RANDOM_FUNCTIONS:
                out.add(f"let {node.value.func}")
        elif isinstance(node, A.Emit):
            out.add("emit")
            if node.fields:
                out.add("emit fields")
            if node.to is not None:
                out.add("emit to")
        elif isinstance(node, A.End):
            out.add(f"end {node.level}")
        elif isinstance(node, A.CallProc):
            static = isinstance(node.target, A.Name) and gamedef.info.ref(node.target).kind == "proc"
            out.add("call procedure" if static else "call dynamic")
            if node.args:
                out.add("call with arguments")
        elif isinstance(node, A.If):
            out.add("if")
            if node.orelse.stmts:
                out.add("if else")
        elif isinstance(node, A.Repeat):
            out.add("repeat" + (" max" if node.max else ""))
        elif isinstance(node, A.While):
            out.add("while" + (" max" if node.max else ""))
        elif isinstance(node, A.For):
            out.add("for")
            if len(node.bindings.items) > 1:
                out.add("for several bindings")
            if any(b.cond is not None for b in node.bindings.items):
                out.add("for filter")
        elif isinstance(node, A.Choose):
            out.add("choose")
            if node.by is not None:
                out.add("choose by")
            if node.orelse is not None:
                out.add("choose else")
            if len(node.alternatives) > 1:
                out.add("choose several")
            for alt in node.alternatives:
                out.add("choose named" if type(alt).__name__ == "ActionRef" else "choose inline")
        elif isinstance(node, A.Alternative):
            if node.bindings is not None:
                out.add("action for")
                if len(node.bindings.items) > 1:
                    out.add("action several bindings")
            if node.cond is not None:
                out.add("action if")
            if node.label is not None:
                out.add("action label")
        elif isinstance(node, A.Template):
            out.add("template")
        else:
            out.add(kind.lower())
    return out


def _raw_keys_and_values(data: Any, keys: set[str], values: set[Any]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            keys.add(str(key))
            _raw_keys_and_values(value, keys, values)
    elif isinstance(data, list):
        for item in data:
            _raw_keys_and_values(item, keys, values)
    else:
        values.add(data if not isinstance(data, str) else str(data))


@pytest.fixture(scope="module")
def coverage(workdir: Path) -> dict[str, set[Any]]:
    features: set[str] = set()
    keys: set[str] = set()
    values: set[Any] = set()
    raw_statements: list[Any] = []
    for block in VALID + TEMPLATES:
        if block in TEMPLATES:
            gamedef = compile_text(block.text, str(workdir / TEMPLATE_NAME))
        else:
            gamedef = compile_block(block, workdir)
        features |= _features(gamedef)
        data = load_yaml(block.text, "x.yaml")
        _raw_keys_and_values(data, keys, values)
        raw_statements.append(data)
    return {"features": features, "keys": keys, "values": values}


def _missing(wanted: list[str], have: set[str]) -> list[str]:
    return [w for w in wanted if w not in have]


def test_every_builtin_function_appears_in_a_checked_example(coverage):
    missing = _missing([f"function {f}" for f in T.FUNCTIONS], coverage["features"])
    assert not missing, f"not in any checked example: {missing}"


def test_every_aggregate_appears_in_a_checked_example(coverage):
    missing = _missing([f"aggregate {f}" for f in T.AGGREGATES], coverage["features"])
    assert not missing, f"not in any checked example: {missing}"


def test_every_builtin_name_appears_in_a_checked_example(coverage):
    missing = _missing([f"name {n}" for n in T.BUILTIN_NAMES], coverage["features"])
    assert not missing, f"not in any checked example: {missing}"


def test_every_field_of_players_cells_and_pieces_appears(coverage):
    wanted = [f"player_field {f}" for f in T.PLAYER_FIELDS] + [f"cell_field {f}" for f in T.CELL_FIELDS]
    wanted += [f"piece_field {f}" for f in T.PIECE_FIELDS]
    missing = _missing(wanted, coverage["features"])
    assert not missing, f"not in any checked example: {missing}"


def test_every_function_option_appears(coverage):
    wanted = [f"kwarg {name}.{key}" for name, sig in T.FUNCTIONS.items() for key, _ in sig.kwargs]
    missing = _missing(wanted, coverage["features"])
    assert not missing, f"not in any checked example: {missing}"


STATEMENTS = [
    "move one", "move all", "move top", "move bottom", "move random", "move face up", "move face down",
    "move at bottom", "move piece", "draw", "draw one", "draw face up", "draw face down", "deal", "deal per player",
    "deal per cell", "deal face up", "deal face down", "shuffle", "flip up", "flip down", "assign =", "assign +=",
    "assign -=", "assign player variable", "let", "let chance", "let random", "emit", "emit fields", "emit to",
    "end round", "end game", "end turn", "end phase", "skip", "place", "remove", "call procedure", "call dynamic",
    "call with arguments", "pass", "if", "if else", "for", "for several bindings", "for filter", "repeat",
    "repeat max", "while", "while max", "choose", "choose by", "choose else", "choose several", "choose named",
    "choose inline", "action for", "action several bindings", "action if", "action label",
]


def test_every_statement_kind_appears_in_a_checked_example(coverage):
    missing = _missing(STATEMENTS, coverage["features"])
    assert not missing, f"not in any checked example: {missing}"
    # every statement of the grammar's AST is covered
    kinds = {"Move", "Draw", "Deal", "Shuffle", "Flip", "Assign", "Let", "Emit", "End", "Skip", "Place", "Remove",
             "CallProc", "Pass", "If", "For", "Repeat", "While", "Choose"}
    assert kinds == {name for name in dir(A) if name in kinds}


EXPRESSIONS = [
    "literal int", "literal float", "literal str", "literal bool", "literal NoneType", "list literal", "index",
    "list comprehension", "comprehension if", "conditional expression", "operator not", "operator neg",
    "ref local", "ref var", "ref builtin", "ref zone", "ref ranking", "ref define", "ref option", "ref card_name",
    "ref card_attr", "ref pvar", "ref player_field", "ref cell_field", "ref piece_field",
    "call-family", "call-define", "template",
] + [f"operator {op}" for op in ("+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "in", "notin",
                                 "and", "or")]


def test_every_expression_form_appears_in_a_checked_example(coverage):
    missing = _missing(EXPRESSIONS, coverage["features"])
    assert not missing, f"not in any checked example: {missing}"


def _schema_properties(node: Any, out: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                out.update(value)
            _schema_properties(value, out)
    elif isinstance(node, list):
        for item in node:
            _schema_properties(item, out)


def _schema_enums(node: Any, out: set[Any]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "enum" and isinstance(value, list):
                out.update(value)
            _schema_enums(value, out)
    elif isinstance(node, list):
        for item in node:
            _schema_enums(item, out)


def test_every_schema_key_appears_in_a_checked_example(coverage):
    wanted: set[str] = set()
    _schema_properties(schema(), wanted)
    missing = sorted(wanted - coverage["keys"])
    assert not missing, f"schema keys in no checked example: {missing}"


def test_every_schema_enum_value_appears_in_a_checked_example(coverage):
    wanted: set[Any] = set()
    _schema_enums(schema(), wanted)
    missing = sorted(str(v) for v in wanted - coverage["values"])
    assert not missing, f"schema enum values in no checked example: {missing}"


def test_every_statement_mapping_form_appears(coverage):
    for key in ("if", "then", "else", "for", "do", "repeat", "until", "while", "choose", "by", "emit", "with", "to",
                "action", "prompt", "max"):
        assert key in coverage["keys"], key


def test_every_builtin_is_named_in_the_reference_text():
    """Each function, name and aggregate is described in the text, not only used."""
    for name in list(T.FUNCTIONS) + list(T.BUILTIN_NAMES) + list(T.AGGREGATES):
        assert f"`{name}" in DOC_TEXT, name


def test_the_documented_limits_are_the_codes():
    from interpreter.budget import MAX_NESTING
    from interpreter.cards import MAX_CARDS
    from interpreter.limits import DEFAULT_LIMITS as RUN
    from interpreter.link import MAX_PIECES
    from rulespec.check import MAX_ACTIONS
    from rulespec.language import MAX_DEPTH, MAX_TEXT
    from rulespec.model import DEFAULT_LOOP_LIMIT, DEFAULT_MAX_ACTIONS
    from rulespec.source import Limits
    from rulespec.variants import MAX_EXTENDS_DEPTH

    text = " ".join(DOC_TEXT.split())  # ignore line breaks
    assert Limits.max_bytes == 1_000_000
    for phrase in (
        f"`GameLengthError`. Default: {DEFAULT_MAX_ACTIONS}.",
        f"`while` iterations (default {DEFAULT_LOOP_LIMIT}).",
        f"the rules may do at most {RUN.step_ops} units of work",
        f"A list may hold {RUN.max_list} items, a text {RUN.max_text} characters, a whole number "
        f"{RUN.max_int_bits} bits; one choice may offer {RUN.max_options} options; a game may have "
        f"{RUN.max_action_ids} action ids; `game.limits.actions` may be at most {MAX_ACTIONS};",
        f"`RunLimits.max_actions` (default {RUN.max_actions})",
        f"a match's event log may hold {RUN.max_events} events and about {RUN.max_log * 16 // 1_000_000} MB",
        f"Rule texts may be {MAX_TEXT} characters long and nest {MAX_DEPTH} levels",
        f"a spec file may be 1 MB with at most {Limits.max_aliases} YAML aliases and {Limits.max_depth} levels",
        f"a game may have {MAX_CARDS} cards and {MAX_PIECES} pieces",
        f"may nest lists {MAX_NESTING} levels deep",
        f"may be up to {MAX_EXTENDS_DEPTH} files deep",
    ):
        assert phrase in text, phrase


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("name", ["language.md", "editors.md"])
def test_links_inside_the_docs_point_at_headings(name: str):
    text = (ROOT / "docs" / name).read_text(encoding="utf-8")
    outside_code = re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)
    headings = {_slug(h) for h in re.findall(r"^#+ (.+)$", outside_code, re.M)}
    for target, anchor in re.findall(r"\]\(([\w.]*)#([\w-]+)\)", outside_code):
        if target:
            other = (ROOT / "docs" / target).read_text(encoding="utf-8")
            other = re.sub(r"^```.*?^```$", "", other, flags=re.M | re.S)
            assert anchor in {_slug(h) for h in re.findall(r"^#+ (.+)$", other, re.M)}, (target, anchor)
        else:
            assert anchor in headings, anchor
