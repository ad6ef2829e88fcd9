"""interpreter: run any compiled rulespec game, in the shape of OpenSpiel's API.

    import interpreter
    game = interpreter.load_game("games/mygame.yaml", players=4)
    state = game.new_initial_state(seed=7)
    state.legal_actions(); state.apply_action(a); state.observation(0)
"""

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
