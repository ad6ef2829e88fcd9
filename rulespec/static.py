"""Evaluate the few expressions that must be known before a game starts (option defaults,
copies, decks, pieces per player, limits, board sizes, action ranges): only constants,
`num_players`, `option.NAME` and, where the caller passes them, the spec's defines made of
those (`size: option.rows * option.cols`, `cells_of(n): n * n`). The one constant folder
(``rulespec.fold``) with its ``STATIC`` policy does it; what it cannot know is a
``StaticEvalError`` in the user's words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import ast as A
from .fold import MAX_INT, STATIC, Defines, FoldEnv, StaticCell, StaticEvalError, StaticSeat, fold

__all__ = ["evaluate_static", "StaticEvalError", "static_defines", "StaticCell", "StaticSeat", "MAX_INT", "Defines"]


def static_defines(defines: Any) -> Defines:
    """The spec's defines (``DefineDef``s) as the ``defines`` of ``evaluate_static``, without
    those that call themselves, directly or not (or use one that does): the checker refuses
    them, and they must not run before it says so."""
    found = {d.name: (tuple(d.params), d.body) for d in defines if d.body is not None}
    uses: dict[str, set[str]] = {}
    for name, (params, body) in found.items():
        uses[name] = {n.id if isinstance(n, A.Name) else n.func for n in A.walk(body)
                      if (isinstance(n, A.Name) and n.id not in params) or isinstance(n, A.Call)} & found.keys()
    # peel off the defines that use only peeled ones: what is left calls itself somewhere
    users: dict[str, list[str]] = {}
    for name, used in uses.items():
        for u in used:
            users.setdefault(u, []).append(name)
    waiting = {name: len(used) for name, used in uses.items()}
    ready = [name for name, n in waiting.items() if n == 0]
    done = set()
    while ready:
        name = ready.pop()
        done.add(name)
        for user in users.get(name, ()):
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    return {name: found[name] for name in done}


def evaluate_static(node: Any, options: Mapping[str, Any], num_players: int | None,
                    names: Mapping[str, Any] | None = None, defines: Defines | None = None) -> Any:
    """The value of ``node``; ``names`` are extra known values (a card's own attributes);
    ``defines`` the spec's defines it may use."""
    return fold(node, FoldEnv(STATIC, options, num_players, names or {}, defines or {}))
