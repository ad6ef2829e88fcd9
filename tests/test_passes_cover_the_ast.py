"""Every AST node class has a case in every pass (issue 12, item 5: a typed program).

The node classes come from ``rulespec/ast.py`` itself: every concrete subclass of ``Node``,
an expression if it is defined above the "statements" section of the module, a statement below
it. A class that is a part of other nodes rather than a thing dispatched on (``Block``,
``Binding``, ...) is exempt only by name here, with a reason and the functions that handle it.

The passes and how each dispatches on a node's class:

- check: ``Checker.expr_<Class>`` / ``Checker.stmt_<Class>`` (``getattr`` by class name);
- describe: ``Describer.e_<Class>`` / ``Describer.s_<Class>`` (a missing case would print the
  class name or ``str(node)`` silently, so only this test notices);
- fold: ``rulespec.fold.Folder.f_<Class>`` for expressions (a missing case would fold the class
  as unknown silently);
- run time: ``expressions._COMPILERS`` and ``effects._STATEMENTS`` (tables by class name), and
  for statements that can wait, ``flow.compile_waiting`` (an ``if kind == ...`` chain, read from
  its source here); a statement that never waits is listed in ``NEVER_WAITS`` with the reason;
- ``state_check._STATEMENTS``: the statement classes a saved frame may point at;
- the compiler backend: ``codegen._Writer.x_<Class>`` for expressions and
  ``codegen_blocks._Statements.s_<Class>`` for statements, or an entry with its reason in
  ``codegen.CLOSURE_EXPRESSIONS`` / ``codegen_blocks.CLOSURE_STATEMENTS`` (generated code calls
  that class's closure).
"""

from __future__ import annotations

import ast as pyast
import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from interpreter import codegen, codegen_blocks, effects, expressions, flow, state_check
from rulespec import ast as A
from rulespec.check import Checker
from rulespec.describe import Describer, RuleDescriber
from rulespec.fold import Folder

# Node classes that no pass dispatches on: each is a part of other nodes, handled inside their cases.
EXEMPT: dict[str, tuple[str, tuple[str, ...]]] = {
    "Comp": ("`elt for var in iter if cond`: the inside of Agg and ListComp, which handle it",
             ("rulespec.check:Checker.comp", "rulespec.describe:Describer.comp", "interpreter.expressions:_iterate")),
    "Binding": ("one `var in iter [if cond]` of a Bindings",
                ("rulespec.check:Checker.bindings", "rulespec.describe:Describer.bindings",
                 "interpreter.effects:bindings_iterator")),
    "Bindings": ("the variables of a `for` statement or of a choice's alternative, which handle them",
                 ("rulespec.check:Checker.bindings", "rulespec.describe:Describer.bindings",
                  "interpreter.effects:bindings_iterator")),
    "Template": ("a label's text with `{expr}` parts (a choice's label, a card name), not an expression",
                 ("rulespec.check:Checker.alternative", "rulespec.describe:Describer.template",
                  "interpreter.game:Game._render_label")),
    "Alternative": ("one option of a Choose, which handles it",
                    ("rulespec.check:Checker.alternative", "rulespec.describe:Describer.alternative_lines",
                     "interpreter.flow:link_alternative")),
    "Block": ("a sequence of statements (a body), not a statement",
              ("rulespec.check:Checker.block", "rulespec.describe:Describer.block",
               "interpreter.effects:compile_block_closure", "interpreter.flow:compile_block_code")),
}

# Statements flow.compile_waiting has no case for: the checker never marks them as waiting.
NEVER_WAITS: dict[str, str] = {
    "Shuffle": "a shuffle marks the zone unordered; draws from it are the chance events",
    "Flip": "runs to completion",
    "Assign": "runs to completion",
    "Emit": "runs to completion",
    "End": "unwinds the stack at once",
    "Skip": "runs to completion",
    "Next": "runs to completion",
    "Place": "runs to completion",
    "Remove": "runs to completion",
    "Pass": "does nothing",
}


# ---------------------------------------------------------------------- the node classes


def node_classes(module: ModuleType) -> tuple[list[type], list[type]]:
    """The concrete node classes of an AST module: (expressions, statements), in source order."""
    path = Path(module.__file__ or "")
    source = path.read_text()
    lines = source.splitlines()
    dividers = [i for i, line in enumerate(lines, 1) if line.startswith("# ====") and "statements" in line]
    assert len(dividers) == 1, f"{path}: one '# ==== statements' section header"
    expressions_, statements = [], []
    for stmt in pyast.parse(source).body:
        if isinstance(stmt, pyast.ClassDef):
            cls = getattr(module, stmt.name)
            if isinstance(cls, type) and issubclass(cls, module.Node) and cls is not module.Node:
                (expressions_ if stmt.lineno < dividers[0] else statements).append(cls)
    defined = {cls for cls in vars(module).values()
               if isinstance(cls, type) and issubclass(cls, module.Node) and cls is not module.Node
               and cls.__module__ == module.__name__}
    assert defined == set(expressions_) | set(statements), "every node class is defined at the top level"
    return expressions_, statements


def _string_cases(function: Any, variable: str) -> set[str]:
    """The strings ``variable`` is compared with (``==`` or ``in (...)``) in ``function``'s source."""
    tree = pyast.parse(inspect.getsource(function).replace("\r", ""))
    found: set[str] = set()
    for node in pyast.walk(tree):
        if isinstance(node, pyast.Compare) and isinstance(node.left, pyast.Name) and node.left.id == variable:
            for right in node.comparators:
                for const in pyast.walk(right):
                    if isinstance(const, pyast.Constant) and isinstance(const.value, str):
                        found.add(const.value)
    return found


WAITING = _string_cases(flow.compile_waiting, "kind")

# (pass, section, has a case for the class named ...)
PASSES: list[tuple[str, str, Any]] = [
    ("check: Checker.expr_<Class>", "expression", lambda name: hasattr(Checker, "expr_" + name)),
    ("describe: Describer.e_<Class>", "expression", lambda name: hasattr(Describer, "e_" + name)),
    ("fold: Folder.f_<Class>", "expression", lambda name: hasattr(Folder, "f_" + name)),
    ("run time: expressions._COMPILERS", "expression", lambda name: name in expressions._COMPILERS),
    ("check: Checker.stmt_<Class>", "statement", lambda name: hasattr(Checker, "stmt_" + name)),
    ("describe: Describer.s_<Class>", "statement", lambda name: hasattr(Describer, "s_" + name)),
    ("run time: effects._STATEMENTS", "statement", lambda name: name in effects._STATEMENTS),
    ("run time: flow.compile_waiting (or NEVER_WAITS)", "statement",
     lambda name: name in WAITING or name in NEVER_WAITS),
    ("state_check._STATEMENTS", "statement",
     lambda name: name in {cls.__name__ for cls in state_check._STATEMENTS}),
]


def missing_cases(expression_classes: list[type], statement_classes: list[type]) -> list[str]:
    """Each (pass, node class) that has no case, as text."""
    sections = {"expression": expression_classes, "statement": statement_classes}
    return [f"{pass_name} has no case for {section} {cls.__name__}"
            for pass_name, section, has_case in PASSES
            for cls in sections[section]
            if cls.__name__ not in EXEMPT and not has_case(cls.__name__)]


def stale_exemptions(module: ModuleType) -> list[str]:
    expressions_, statements = node_classes(module)
    names = {cls.__name__ for cls in expressions_ + statements}
    return [f"EXEMPT names {name}, which is not a node class of {module.__name__}"
            for name in EXEMPT if name not in names]


EXPRESSIONS, STATEMENTS = node_classes(A)
DISPATCHED_EXPRESSIONS = [cls.__name__ for cls in EXPRESSIONS if cls.__name__ not in EXEMPT]
DISPATCHED_STATEMENTS = [cls.__name__ for cls in STATEMENTS if cls.__name__ not in EXEMPT]


# ---------------------------------------------------------------------- the tests


def test_the_enumeration_finds_the_node_classes() -> None:
    """A sanity check of the enumeration itself (not a list to keep up to date)."""
    assert {"Const", "Name", "BinOp", "Call"} <= set(DISPATCHED_EXPRESSIONS)
    assert {"Move", "If", "Choose"} <= set(DISPATCHED_STATEMENTS)
    assert A.Block in STATEMENTS and A.Template in EXPRESSIONS and A.Node not in EXPRESSIONS


def test_every_pass_has_a_case_for_every_node_class() -> None:
    assert missing_cases(EXPRESSIONS, STATEMENTS) == []


def test_the_exemptions_are_node_classes_handled_somewhere() -> None:
    assert stale_exemptions(A) == []
    for name, (reason, handlers) in EXEMPT.items():
        assert reason and handlers, name
        for handler in handlers:
            module_name, _, attribute = handler.partition(":")
            target: Any = importlib.import_module(module_name)
            for part in attribute.split("."):
                target = getattr(target, part, None)
            assert callable(target), f"EXEMPT[{name!r}]: {handler} is gone"


def test_no_pass_has_a_case_for_a_class_that_is_gone() -> None:
    """The other way round: every case names a node class of its section."""
    expression_names, statement_names = set(DISPATCHED_EXPRESSIONS), set(DISPATCHED_STATEMENTS)
    cases = {
        "Checker.expr_": ({n[5:] for n in dir(Checker) if n.startswith("expr_")}, expression_names),
        "Checker.stmt_": ({n[5:] for n in dir(Checker) if n.startswith("stmt_")}, statement_names),
        "Describer.e_": ({n[2:] for n in dir(Describer) if n.startswith("e_")}, expression_names),
        "Describer.s_": ({n[2:] for n in dir(Describer) if n.startswith("s_")}, statement_names),
        "Folder.f_": ({n[2:] for n in dir(Folder) if n.startswith("f_")}, expression_names),
        "expressions._COMPILERS": (set(expressions._COMPILERS), expression_names),
        "effects._STATEMENTS": (set(effects._STATEMENTS), statement_names),
        "flow.compile_waiting": (WAITING, statement_names),
        "NEVER_WAITS": (set(NEVER_WAITS), statement_names),
    }
    for where, (names, known) in cases.items():
        assert names <= known, f"{where} has cases for {sorted(names - known)}, which are not node classes"
    assert not WAITING & set(NEVER_WAITS), "a statement flow.compile_waiting handles is not in NEVER_WAITS"
    assert {"Choose", "If", "CallProc"} <= WAITING  # the source reading found the chain
    assert set(state_check._STATEMENTS) == {getattr(A, n) for n in DISPATCHED_STATEMENTS} | {A.Alternative}


def _listed(lines: list[str], start: str) -> set[str]:
    """The class names a ``# An expression node: A, B or C.`` comment of ast.py lists."""
    i = next(i for i, line in enumerate(lines) if line.startswith(start))
    text = lines[i][len(start):]
    while not text.rstrip().endswith("."):
        i += 1
        text += " " + lines[i].lstrip("# ")
    return {word for word in re.split(r"[\s,.]+|\bor\b", text) if word}


def test_the_comments_of_ast_py_list_the_node_classes() -> None:
    lines = Path(A.__file__).read_text().splitlines()
    assert _listed(lines, "# An expression node:") == set(DISPATCHED_EXPRESSIONS)
    assert _listed(lines, "# A statement node:") == set(DISPATCHED_STATEMENTS)


# ---------------------------------------------------------------------- the test can fail

NEW_EXPRESSION = '''

@dataclass(frozen=True, slots=True)
class Fresh(Node):
    value: Any

'''

NEW_STATEMENT = '''

@dataclass(frozen=True, slots=True)
class Novel(Node):
    target: Expr
'''


def _load_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> ModuleType:
    """``source`` (an edited ast.py) as a module of the rulespec package."""
    path = tmp_path / "edited_ast.py"
    path.write_text(source)
    name = "rulespec._edited_ast_for_test"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


def test_a_node_class_added_without_cases_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = Path(A.__file__).read_text()
    header = next(line for line in source.splitlines() if line.startswith("# ====") and "statements" in line)
    assert source.count(header) == 1
    edited = source.replace(header, NEW_EXPRESSION + header) + NEW_STATEMENT
    edited = edited.replace("class Template(Node):", "class TextTemplate(Node):")
    module = _load_copy(tmp_path, monkeypatch, edited)

    expressions_, statements = node_classes(module)
    assert "Fresh" in [c.__name__ for c in expressions_] and "Novel" in [c.__name__ for c in statements]
    missing = missing_cases(expressions_, statements)
    for pass_name, section, _ in PASSES:
        fake, real = ("Fresh", "TextTemplate") if section == "expression" else ("Novel", None)
        assert f"{pass_name} has no case for {section} {fake}" in missing
        if real:
            assert f"{pass_name} has no case for {section} {real}" in missing
    assert len(missing) == 4 * 2 + 5  # Fresh and TextTemplate in 4 passes, Novel in 5; nothing else
    assert stale_exemptions(module) == [f"EXEMPT names Template, which is not a node class of {module.__name__}"]


def test_a_case_removed_from_a_pass_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(expressions._COMPILERS, "Cond")
    monkeypatch.delattr(RuleDescriber, "s_Pass")  # (where Describer's statement cases are)
    monkeypatch.delattr(Checker, "stmt_Skip")
    monkeypatch.delattr(Folder, "f_Agg")
    assert missing_cases(EXPRESSIONS, STATEMENTS) == [
        "fold: Folder.f_<Class> has no case for expression Agg",
        "run time: expressions._COMPILERS has no case for expression Cond",
        "check: Checker.stmt_<Class> has no case for statement Skip",
        "describe: Describer.s_<Class> has no case for statement Pass",
    ]


def test_the_compiler_backend_has_a_case_for_every_node_class():
    expressions_, statements = node_classes(A)
    missing = [c.__name__ for c in expressions_ if not hasattr(codegen._Writer, "x_" + c.__name__)
               and c.__name__ not in codegen.CLOSURE_EXPRESSIONS and c.__name__ not in EXEMPT]
    missing += [c.__name__ for c in statements if not hasattr(codegen_blocks._Statements, "s_" + c.__name__)
                and c.__name__ not in codegen_blocks.CLOSURE_STATEMENTS and c.__name__ not in EXEMPT]
    assert missing == []
    both = [name for name in codegen.CLOSURE_EXPRESSIONS if hasattr(codegen._Writer, "x_" + name)]
    both += [name for name in codegen_blocks.CLOSURE_STATEMENTS if hasattr(codegen_blocks._Statements, "s_" + name)]
    assert both == []  # a class is generated or left to its closure, not both
