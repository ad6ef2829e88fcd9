"""Every spec the tests hold, built as far as it builds, and the expression nodes of each.

The corpus: the seed games (``games/``), the valid and invalid specs (``tests/specs/``) and the
hostile specs (``tests/hostile/specs/``, a directory case through its ``main.yaml``). A spec
that fails to load or is not schema-valid has no model; one with rule text that does not parse
or does not check still has one (the nodes that parsed), which is what passes over the AST
meet in the invalid corpus.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interpreter.state_check import _roots
from rulespec import ast as A
from rulespec.builder import build_model
from rulespec.errors import Diagnostics, SpecError
from rulespec.model import SpecModel
from rulespec.schema import validate_structure
from rulespec.variants import load_with_variants

ROOT = Path(__file__).resolve().parent.parent
EXPRESSION_CLASSES = (A.Const, A.Name, A.Attr, A.Index, A.Call, A.Agg, A.ListLit, A.ListComp, A.BinOp, A.Unary,
                      A.Cond)


def spec_files() -> list[Path]:
    """The corpus's specs, relative to the repository's root, in a fixed order."""
    found = sorted((ROOT / "games").glob("*.yaml")) + sorted((ROOT / "tests/specs/valid").glob("*.yaml"))
    found += sorted((ROOT / "tests/specs/invalid").rglob("*.yaml"))
    hostile = ROOT / "tests/hostile/specs"
    for case in sorted(hostile.iterdir()):
        if case.suffix == ".yaml":
            found.append(case)
        elif (case / "main.yaml").is_file():
            found.append(case / "main.yaml")
    return [p.relative_to(ROOT) for p in found]


def built_model(path: Path) -> SpecModel | None:
    """The model of the spec at ``path`` (relative to the root), problems or not; None when it
    does not get that far."""
    diags = Diagnostics()
    text = str(ROOT / path)
    try:
        data = load_with_variants(text, diags, root=str(ROOT))
        if diags:
            return None
        validate_structure(data, diags, text)
        return build_model(data, text, diags)
    except (SpecError, RecursionError, OSError):
        return None


def expression_nodes(model: SpecModel) -> list[Any]:
    """Every expression node the model holds (inside its rules too), each once, in a fixed order
    (the walk a saved state's check makes of the model)."""
    out: list[Any] = []
    seen: set[int] = set()
    for root in _roots(model):
        for node in A.walk(root):
            if isinstance(node, EXPRESSION_CLASSES) and id(node) not in seen:
                seen.add(id(node))
                out.append(node)
    return out

