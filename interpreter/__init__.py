"""interpreter: run any compiled rulespec game, in the shape of OpenSpiel's API.

    import interpreter
    game = interpreter.load_game("games/mygame.yaml", players=4)
    state = game.new_initial_state(seed=7)
    state.legal_actions(); state.apply_action(a); state.observation(0)

The names below are imported when first used (PEP 562), so that ``import interpreter``
is cheap and the command line can catch a Ctrl-C while the engine is still loading.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "load_game",
    "game_from_text",
    "Game",
    "State",
    "CHANCE",
    "TERMINAL",
    "IllegalActionError",
    "OptionError",
    "RuleError",
    "GameLengthError",
    "BudgetError",
    "StateError",
    "InterpreterError",
    "RunLimits",
]

_HOME = {
    "load_game": "game", "game_from_text": "game", "Game": "game", "State": "state", "CHANCE": "state",
    "TERMINAL": "state", "IllegalActionError": "errors", "OptionError": "errors", "RuleError": "errors",
    "GameLengthError": "errors", "BudgetError": "errors", "StateError": "errors", "InterpreterError": "errors",
    "RunLimits": "limits",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'interpreter' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from .errors import (
        BudgetError,
        GameLengthError,
        IllegalActionError,
        InterpreterError,
        OptionError,
        RuleError,
        StateError,
    )
    from .game import Game, game_from_text, load_game
    from .limits import RunLimits
    from .state import CHANCE, TERMINAL, State
