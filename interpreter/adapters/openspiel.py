"""Any rulespec game as an OpenSpiel (``pyspiel``) Python game.

    from interpreter.adapters import openspiel as rs_openspiel
    game = rs_openspiel.register("games/mygame.yaml", players=4, options={"rounds": 1})
    state = game.new_initial_state()            # a pyspiel.State
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)

``register`` binds a spec to a player count and options, registers it with OpenSpiel
under a short name made from the spec's file name, the player count and a hash of the
options (``rulespec_mygame_4p_1a2b3c4d``) and returns the loaded ``pyspiel.Game``; after
that ``pyspiel.load_game(name)`` works too, which is what OpenSpiel's own serialization
(``serialize_game_and_state``) relies on.

The interpreter runs with explicit chance: every random draw is a chance node whose
outcomes are card kinds (or the options of ``chance(p)`` / ``random(list)``).

Observations come from ``state.observation(player)`` only (see ``encoding``):

- observation string: the compact JSON of the player's current view (without events);
- observation tensor: ``ViewEncoder`` of that view;
- information state string (perfect recall): the current view, the player's own actions
  so far, and a digest chained over the player's whole observation history (every
  change of their view and every event they received, in order, interleaved with their
  actions). Two histories give the same string exactly when the player could not tell
  them apart. There is no information state tensor: a fixed-size perfect-recall tensor
  does not exist for games of unbounded length.

States serialize through OpenSpiel's usual mechanism, whose payload is the engine's
``to_json`` (and ``state_from_json`` when loading).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

try:
    import numpy as np
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "the OpenSpiel adapter needs open_spiel and numpy: pip install 'rulespec[openspiel]' "
        "(or pip install open_spiel numpy)") from exc

from ..game import Game as InterpreterGame
from ..game import load_game
from ..state import CHANCE
from ..state import State as InterpreterState
from .encoding import ViewEncoder, view_string

__all__ = ["register", "short_name_for", "RulespecGame", "RulespecState", "interpreter_state"]


@dataclass
class _Entry:
    """What a registered short name stands for."""

    path: str
    players: int
    options: dict[str, Any]
    interp: InterpreterGame
    game_type: Any
    game_info: Any
    encoder: ViewEncoder
    initial: InterpreterState


_REGISTRY: dict[str, _Entry] = {}


def short_name_for(spec_path: str, game: InterpreterGame) -> str:
    """``rulespec_<spec file name>_<players>p_<hash of the resolved options>``."""
    stem = os.path.splitext(os.path.basename(spec_path))[0]
    stem = re.sub(r"[^a-z0-9]+", "_", stem.lower()).strip("_") or "game"
    options = json.dumps(game.options, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha1(options.encode()).hexdigest()[:8]
    return f"rulespec_{stem}_{game.num_players}p_{digest}"


def register(spec_path: str, players: int | None = None, options: Mapping[str, Any] | None = None) -> Any:
    """Register the spec at ``spec_path`` for ``players`` and ``options``; return the pyspiel game.

    Registering the same spec, player count and options again returns the same game.
    """
    interp = load_game(spec_path, players=players, options=options, explicit_chance=True)
    name = short_name_for(spec_path, interp)
    known = _REGISTRY.get(name)
    if known is not None:
        if os.path.realpath(known.path) != os.path.realpath(spec_path):
            raise ValueError(f"the OpenSpiel name {name} is already registered for {known.path}; "
                             f"rename {spec_path} to register it too")
        return pyspiel.load_game(name)
    game_type, game_info = _describe(interp, name)
    entry = _Entry(spec_path, interp.num_players, dict(interp.options), interp, game_type, game_info,
                   ViewEncoder(interp), interp.new_initial_state(0))
    _REGISTRY[name] = entry
    # a class per name (not a closure): OpenSpiel keeps the factory until the process
    # exits, and a class is never freed there (freeing a function then would crash)
    factory = type(f"RulespecGame_{name}", (RulespecGame,), {"_registered_name": name})
    pyspiel.register_game(game_type, factory)
    return pyspiel.load_game(name)


def _describe(interp: InterpreterGame, name: str) -> tuple[Any, Any]:
    if interp.min_utility is None or interp.max_utility is None:
        raise ValueError(f"{interp.name}: OpenSpiel needs bounds on the returns; "
                         "give match.returns a min and a max in the spec")
    stochastic = _may_be_random(interp)
    if interp.utility_sum is None:
        utility = pyspiel.GameType.Utility.GENERAL_SUM
    elif interp.utility_sum == 0:
        utility = pyspiel.GameType.Utility.ZERO_SUM
    else:
        utility = pyspiel.GameType.Utility.CONSTANT_SUM
    perfect = _perfect_information(interp)
    options = ", ".join(f"{k}={v}" for k, v in sorted(interp.options.items()))
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"rulespec {interp.name} ({interp.num_players} players{', ' + options if options else ''})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if stochastic
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if perfect
                     else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=interp.num_players,
        min_num_players=interp.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=interp.num_distinct_actions,
        max_chance_outcomes=interp.max_chance_outcomes if stochastic else 0,
        num_players=interp.num_players,
        min_utility=float(interp.min_utility),
        max_utility=float(interp.max_utility),
        utility_sum=None if interp.utility_sum is None else float(interp.utility_sum),
        max_game_length=min(int(interp.max_game_length), 2**31 - 1),
    )
    return game_type, game_info


def _may_be_random(interp: InterpreterGame) -> bool:
    """Whether any rule may draw at random (the checker marks such statements)."""
    from rulespec.check import CHANCE as CHANCE_BIT

    info = interp.gamedef.info
    suspends = getattr(info, "suspends", None)
    if suspends is None:
        return True
    return bool(getattr(info, "random_lets", None)) or any(bits & CHANCE_BIT for bits in suspends.values())


def _perfect_information(interp: InterpreterGame) -> bool:
    """No cards and no events addressed to some players: every player sees everything."""
    if interp.cards.count:
        return False
    from rulespec import ast as A

    seen: set[int] = set()

    def targeted(node: Any) -> bool:
        if id(node) in seen:
            return False
        seen.add(id(node))
        if isinstance(node, A.Emit):
            return node.to is not None
        if isinstance(node, (list, tuple)):
            return any(targeted(x) for x in node)
        if isinstance(node, dict):
            return any(targeted(x) for x in node.values())
        fields = getattr(node, "__dataclass_fields__", None)
        if fields is None:
            return False
        return any(targeted(getattr(node, f, None)) for f in fields)

    return not targeted(interp.gamedef.model)


# ---------------------------------------------------------------------- perfect recall


class _Recall:
    """Per player: their own actions and a digest chained over everything they observed.

    Brought up to date lazily, by replaying the actions since ``checkpoint`` (a state that
    is never changed) whenever an information state is asked for.
    """

    __slots__ = ("upto", "checkpoint", "digest", "last", "own", "events_seen")
    upto: int
    checkpoint: InterpreterState
    digest: list[bytes]
    last: list[str]
    own: list[list[int]]
    events_seen: int

    def copy(self) -> _Recall:
        other = _Recall.__new__(_Recall)
        other.upto = self.upto
        other.checkpoint = self.checkpoint  # shared: never mutated
        other.digest = list(self.digest)
        other.last = list(self.last)
        other.own = [list(a) for a in self.own]
        other.events_seen = self.events_seen
        return other

    @classmethod
    def start(cls, initial: InterpreterState) -> _Recall:
        viewers = initial.game.num_players + 1  # the seats, then the public viewer
        self = cls.__new__(cls)
        self.upto = 0
        self.checkpoint = initial
        self.digest = [b""] * viewers
        self.last = [""] * viewers
        self.own = [[] for _ in range(viewers)]
        self.events_seen = 0
        self._record(initial, None, -1)
        return self

    def _feed(self, p: int, entry: str) -> None:
        self.digest[p] = hashlib.blake2b(self.digest[p] + entry.encode(), digest_size=16).digest()

    def _record(self, s: InterpreterState, actor: int | None, action: int) -> None:
        new_events = s.events[self.events_seen:]
        self.events_seen = len(s.events)
        for p in range(s.game.num_players + 1):
            if actor == p:
                self.own[p].append(action)
                self._feed(p, f"a{action}")
            for event in new_events:
                if "to" not in event or p in event["to"]:
                    self._feed(p, "e" + json.dumps(event, separators=(",", ":"), sort_keys=True))
            snap = view_string(s.observation(p, events=False))
            if snap != self.last[p]:
                self.last[p] = snap
                self._feed(p, "o" + snap)

    def catch_up(self, s: InterpreterState) -> None:
        history = s.history
        if self.upto == len(history):
            return
        work = self.checkpoint.clone()
        for action in history[self.upto:]:
            actor = work.current_player()
            work.apply_action(action)
            self._record(work, actor, action)
        if work != s:
            raise RuntimeError("replaying the history of a state did not reproduce it "
                               "(the engine is not deterministic given explicit chance outcomes)")
        self.checkpoint = work
        self.upto = len(history)

    def to_data(self) -> dict[str, Any]:
        return {"upto": self.upto, "checkpoint": self.checkpoint.to_json(),
                "digest": [d.hex() for d in self.digest], "last": list(self.last),
                "own": [list(a) for a in self.own], "events_seen": self.events_seen}

    @classmethod
    def from_data(cls, interp: InterpreterGame, data: dict[str, Any]) -> _Recall:
        self = cls.__new__(cls)
        self.upto = data["upto"]
        self.checkpoint = interp.state_from_json(data["checkpoint"])
        self.digest = [bytes.fromhex(d) for d in data["digest"]]
        self.last = list(data["last"])
        self.own = [list(a) for a in data["own"]]
        self.events_seen = data["events_seen"]
        return self


class _Inner:
    """The Python-side data of a pyspiel state: one object, so that OpenSpiel's clone
    (deepcopy of the state's attributes) and serialization (pickle of them) go through
    the engine's ``clone`` and ``to_json``/``state_from_json``."""

    __slots__ = ("key", "state", "recall")

    def __init__(self, key: str, state: InterpreterState, recall: _Recall | None = None):
        self.key = key
        self.state = state
        self.recall = recall

    def __deepcopy__(self, memo: dict) -> _Inner:
        return _Inner(self.key, self.state.clone(), None if self.recall is None else self.recall.copy())

    def __getstate__(self) -> dict[str, Any]:
        return {"key": self.key, "state": self.state.to_json(),
                "recall": None if self.recall is None else self.recall.to_data()}

    def __setstate__(self, data: dict[str, Any]) -> None:
        entry = _REGISTRY.get(data["key"])
        if entry is None:
            raise ValueError(f"{data['key']} is not registered in this process: call register() first")
        self.key = data["key"]
        self.state = entry.interp.state_from_json(data["state"])
        self.recall = None if data["recall"] is None else _Recall.from_data(entry.interp, data["recall"])


# ---------------------------------------------------------------------- game and state


class RulespecGame(pyspiel.Game):
    """A registered spec, bound to a player count and options."""

    _registered_name = ""

    def __init__(self, params: Any = None):
        name = self._registered_name
        entry = _REGISTRY[name]
        super().__init__(entry.game_type, entry.game_info, dict(params or {}))
        self._key = name

    @property
    def rulespec_game(self) -> InterpreterGame:
        """The interpreter's game (explicit chance) behind this OpenSpiel game."""
        return _REGISTRY[self._key].interp

    def new_initial_state(self, *args: Any) -> RulespecState:
        if args and args[0] is not None:
            raise TypeError("rulespec games start from their initial state only; "
                            "use deserialize_state to restore a state")
        return RulespecState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> RulespecObserver:
        if isinstance(iig_obs_type, dict):  # called as make_py_observer(params)
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        entry = _REGISTRY[self._key]
        if iig_obs_type is None:
            return RulespecObserver(entry, perfect_recall=False, public=False)
        if not iig_obs_type.public_info:
            raise ValueError("rulespec observations always include public information")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observations with every player's private information are not supported")
        return RulespecObserver(entry, perfect_recall=bool(iig_obs_type.perfect_recall),
                                public=private == pyspiel.PrivateInfoType.NONE)


class RulespecState(pyspiel.State):
    """An OpenSpiel state wrapping an interpreter state (explicit chance)."""

    def __init__(self, game: RulespecGame):
        super().__init__(game)
        key = game._key
        self._inner = _Inner(key, _REGISTRY[key].initial.clone())

    # the interpreter state, for tools that want the engine's own API
    @property
    def rulespec_state(self) -> InterpreterState:
        return self._inner.state

    def current_player(self) -> int:
        s = self._inner.state
        if s.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if s.is_chance_node():
            return pyspiel.PlayerId.CHANCE
        return s.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self._inner.state.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._inner.state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._inner.state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        s = self._inner.state
        if (player == CHANCE) != s.is_chance_node():
            return s.game.describe_action(action, chance=player == CHANCE)
        return s.action_to_string(action)  # the spec's label when legal now

    def is_terminal(self) -> bool:
        return self._inner.state.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self._inner.state.returns()]

    def __str__(self) -> str:
        s = self._inner.state
        digest = hashlib.sha1(s.to_json().encode()).hexdigest()[:16]
        return f"{s}\n  moves {len(s.history)}, state {digest}"

    # ------------------------------------------------------------------ observations
    def _recall(self) -> _Recall:
        inner = self._inner
        if inner.recall is None:
            inner.recall = _Recall.start(_REGISTRY[inner.key].initial.clone())
        inner.recall.catch_up(inner.state)
        return inner.recall


class RulespecObserver:
    """An OpenSpiel Python observer (``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(self, entry: _Entry, perfect_recall: bool, public: bool):
        self.entry = entry
        self.perfect_recall = perfect_recall
        self.public = public
        self.encoder = entry.encoder
        if perfect_recall:
            self.tensor = None
            self.dict: dict[str, Any] = {}
        else:
            self.tensor = np.zeros(self.encoder.size, np.float32)
            self.dict = self.encoder.views(self.tensor)

    def _viewer(self, player: int) -> int:
        # a seat number nobody has sees exactly the public information
        return self.entry.players if self.public else player

    def set_from(self, state: RulespecState, player: int) -> None:
        if self.tensor is None:
            return
        self.tensor.fill(0.0)
        view = state._inner.state.observation(self._viewer(player), events=False)
        self.encoder.encode(view, self.tensor)

    def string_from(self, state: RulespecState, player: int) -> str:
        s = state._inner.state
        viewer = self._viewer(player)
        view = s.observation(viewer, events=False)
        if not self.perfect_recall:
            return view_string(view)
        recall = state._recall()
        return json.dumps({"view": view, "own_actions": recall.own[viewer], "history": recall.digest[viewer].hex()},
                          separators=(",", ":"), ensure_ascii=False)


def interpreter_state(state: Any) -> InterpreterState:
    """The interpreter state inside a pyspiel state made by this adapter."""
    return state._inner.state
