"""``Game``: a spec bound to a player count and options, in the OpenSpiel shape.

    game = load_game("games/mygame.yaml", players=4, options={"rounds": 5})
    state = game.new_initial_state(seed=7)
    while not state.is_terminal():
        state.apply_action(random.choice(state.legal_actions()))
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from rulespec import compile_file, compile_text
from rulespec.check import option_bound_error, option_value_error
from rulespec.compiler import GameDef, path_text
from rulespec.errors import did_you_mean
from rulespec.static import StaticEvalError, static_defines

from . import flow
from .actions import Action, decode_action, param_name
from .budget import start_step
from .errors import OptionError, RuleError, StateError
from .limits import DEFAULT_LIMITS, RunLimits
from .link import Link
from .rng import seed_state
from .state import CHANCE, Pending, State, action_id
from .state_check import load_state, parse_state_text
from .static import evaluate_static
from .views import observe, render_text

__all__ = ["Game", "load_game", "game_from_text"]


class Game:
    """An immutable game: rules linked for ``num_players`` and ``options``."""

    def __init__(self, gamedef: GameDef, players: int | None = None, options: Mapping[str, Any] | None = None,
                 explicit_chance: bool = False, limits: RunLimits | None = None):
        self.gamedef = gamedef
        model = gamedef.model
        if limits is None:
            limits = DEFAULT_LIMITS
        elif not isinstance(limits, RunLimits):
            raise OptionError(f"limits must be an interpreter.RunLimits, not {type(limits).__name__}")
        self.limits = limits
        self.step_ops = limits.step_ops  # read when every step starts
        self.num_players = _check_players(model, players)
        self.options = resolve_options(gamedef, dict(options or {}), self.num_players)
        self.explicit_chance = bool(explicit_chance)
        self.max_actions_span = model.max_actions_span
        spec_length = _spec_game_length(model, self.options, self.num_players)
        self.max_game_length = min(spec_length, limits.max_actions)
        self.length_capped = spec_length > limits.max_actions
        link = Link(gamedef, self.num_players, self.options, self.explicit_chance, limits=limits)
        self.link = link
        self.watched_zones = link.end_watch.zones  # moving a card in or out of these marks a state dirty
        self.codes = link.codes
        self.ends_at = link.ends_at  # (the run loop reads these two every step)
        self.end_check = link.end_check
        self.cards = link.cards
        self.board = link.board
        self.zone_face = link.zone_face
        self.num_distinct_actions = max(1, link.actions.size)
        self.max_chance_outcomes = link.max_chance_outcomes
        self.min_utility, self.max_utility, self.utility_sum = link.utility_bounds
        self.resolve = flow.resolve  # carries out a chosen option (a plain function: the hot path)
        self._labels: dict[int, list[Any]] = {}  # label templates, compiled when first shown
        # the state after the setup, when the setup draws nothing at random (new_initial_state)
        self._start: Callable[[], State] | None = None  # a new copy of the setup's state (State.detacher)
        self._start_known = False

    # ------------------------------------------------------------------ metadata
    @property
    def name(self) -> str:
        return self.gamedef.model.name

    @property
    def short_name(self) -> str:
        import re

        return re.sub(r"[^a-z0-9]+", "_", self.name.lower()).strip("_")

    @property
    def seat_names(self) -> list[str]:
        return list(self.link.seat_names)

    def fingerprint(self) -> str:
        options = json.dumps(self.options, sort_keys=True, separators=(",", ":"))
        chance = "explicit" if self.explicit_chance else "implicit"
        return f"{self.name}|{self.num_players}|{options}|{chance}"

    def __repr__(self) -> str:
        return f"<Game {self.name} players={self.num_players} options={self.options}>"

    def length_message(self) -> str:
        """Why a match may take no more actions (the spec's bound, or the engine's when smaller)."""
        bound = "RunLimits.max_actions" if self.length_capped else "game.limits.actions"
        return f"the match took more than {self.max_game_length} actions ({bound}): the rules do not end it"

    def heuristic(self, state: State, player: int) -> float:
        """The spec's `heuristic:` for ``player`` (default: total + this round's score)."""
        start_step(state)
        return float(self.link.heuristic(state, {"p": player}))

    def heuristics(self, state: State) -> list[float]:
        """``heuristic(state, p)`` of every seat, in seat order (a search scores every seat at once)."""
        ops = self.step_ops  # each seat's a new step (``start_step``), in line: a search scores every iteration
        every = self.link.heuristics
        if every is not None:
            values = every(state, ops)
            if values is not None:
                return values
        heuristic = self.link.heuristic
        values = []
        for player in range(self.num_players):
            state.ops = ops
            values.append(float(heuristic(state, {"p": player})))
        return values

    def check_invariants(self, state: State) -> list[str]:
        """Messages of the spec's `invariants:` that do not hold in ``state`` (empty when all hold)."""
        return [f"{message} ({why})" if why else f"{message} ({span})"
                for message, span, why in self.broken_invariants(state)]

    def broken_invariants(self, state: State) -> list[tuple[str, Any, str]]:
        """(message, position, why it could not be evaluated or "") of each invariant failing in
        ``state``; checking leaves the state as it was (a match plays on the same)."""
        failed = []
        saved = state.ops
        start_step(state)
        try:
            for message, check, span in self.link.invariants:
                try:
                    if not check(state, {}):
                        failed.append((message, span, ""))
                except RuleError as exc:
                    failed.append((message, span, f"could not be evaluated: {exc}"))
        finally:
            state.ops = saved
        return failed

    @property
    def variants(self) -> list[dict[str, Any]]:
        """The player counts and option sets the spec lists for tools to exercise."""
        return [{"name": v.name, "players": v.players, "options": dict(v.options)} for v in self.gamedef.model.variants]

    # ------------------------------------------------------------------ states
    def new_initial_state(self, seed: int = 0) -> State:
        """The state after the setup, with its random generator seeded by ``seed``.

        A setup that draws nothing at random (it may still mark a pile shuffled: its cards are
        drawn at random later) leaves the same state whatever the seed but the generator: that
        state is worked out once and each new one is a copy of it sharing nothing, reseeded."""
        start = self._start
        if start is not None:
            state = start()
            state.rng = seed_state(seed)
            return state
        state = self.link.new_state(seed)
        state.game = self
        start_step(state)
        self.link.initial_values(state)
        flow.run(state)
        if not self._start_known:
            self._start_known = True
            if state.rng == seed_state(seed):
                self._start = state.detached().detacher()
        return state

    def state_from_json(self, text: str | bytes) -> State:
        """A state saved with ``to_json()``, checked against this game: ``StateError`` when the
        text is not JSON, is too large or too deep, belongs to another game, or holds anything a
        match of this game could not have reached."""
        return load_state(self, parse_state_text(text))

    def state_from_data(self, data: Any) -> State:
        """A state from ``to_dict()`` data, checked like ``state_from_json``; the data is copied."""
        try:  # a private copy, as plain JSON data (cycles, odd types and deep nesting refused here)
            text = json.dumps(data, allow_nan=True)
        except (TypeError, ValueError, RecursionError) as exc:
            raise StateError(f"a saved state is plain JSON data: {str(exc)[:160]}") from None
        return load_state(self, parse_state_text(text))

    def deserialize_state(self, text: str) -> State:
        return self.state_from_json(text)

    # ------------------------------------------------------------------ views
    def observe(self, state: State, player: int, events: bool = True) -> dict[str, Any]:
        """What ``player`` may see of ``state`` (``State.observation``)."""
        return observe(state, player, events)

    def render_text(self, state: State, player: int | None) -> str:
        return render_text(state, player)

    # ------------------------------------------------------------------ actions
    def describe_action(self, action: int, chance: bool = False) -> str:
        """A readable name for any action id, legal or not (no state needed)."""
        if type(action) is not int:
            action = action_id(action)  # IllegalActionError for what is not an id
        if chance:
            return f"chance outcome {action}"
        spec = self.link.actions.find(action)
        if spec is None:
            return f"unknown action {action} (this game has ids 0 to {self.num_distinct_actions - 1})"
        digits = spec.decode(action)
        parts = [spec.name]
        for (var, t), digit, lits in zip(spec.params, digits, spec.literals):
            parts.append(f"{var}={param_name(self.link, t, digit, lits)}")
        return " ".join(parts)

    def action_params(self, action: int, state: State | None = None) -> Action | None:
        """The structure of any action id, legal or not: the spec's action name and each
        parameter's value (card kind and attributes, seat, cell, piece, literal); None for an
        id that is no action of this game (a chance outcome, say). With ``state``, a piece's
        owner, kind and cell are read there."""
        if type(action) is not int:
            action = action_id(action)  # IllegalActionError for what is not an id
        return decode_action(self.link, action, state)

    def action_label(self, state: State, action: int) -> str:
        """The label of ``action`` in ``state``: the spec's label when it is legal there."""
        if type(action) is not int:
            action = action_id(action)  # IllegalActionError for what is not an id
        pending = state.pending
        if pending is not None and not state.over and action in pending.legal:
            index = pending.legal.index(action)
            code = self.codes[pending.code]
            if pending.player == CHANCE:
                return self._chance_label(code, pending, index)
            alt, env = code.option_env(state, pending, index)
            if alt.label is not None:
                return self._render_label(alt.label, state, env)
        return self.describe_action(action, pending is not None and pending.player == CHANCE)

    def _render_label(self, template: Any, state: State, env: dict) -> str:
        from .expressions import compile_expr

        cache = self._labels
        parts = cache.get(id(template))
        if parts is None:
            parts = []
            for part in template.parts:
                if isinstance(part, str):
                    parts.append(part)
                else:
                    parts.append((compile_expr(part, self.link), _text_of(part, self.link)))
            cache[id(template)] = parts
        out = []
        start_step(state)  # a label is evaluated on its own budget, whatever ran before
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            else:
                fn, text = part
                out.append(text(state, fn(state, env)))
        return "".join(out)

    def _chance_label(self, code: Any, pending: Pending, index: int) -> str:
        outcome = pending.legal[index]
        payload = pending.payload
        if isinstance(payload, dict):
            value = payload[str(outcome)]
            shown = getattr(code, "shown", None)  # a random `let`: its value as a label shows it
            return f"chance: {shown(None, value) if shown is not None else self.render_value(value)}"
        if outcome < self.cards.kinds:
            return f"chance: {self.cards.kind_names[outcome]}"
        return f"chance: {outcome}"

    def render_value(self, value: Any) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)


def _text_of(node: Any, link: Link) -> Any:
    from .expressions import text_of_type, type_of

    return text_of_type(type_of(node, link), link)


def _spec_game_length(model: Any, options: dict[str, Any], num_players: int) -> int:
    """The spec's `game.limits.actions`, evaluated."""
    where = model.max_actions_span
    try:
        value = evaluate_static(model.max_actions, options, num_players, defines=static_defines(model.defines))
    except RuleError as exc:
        raise OptionError(f"{where}: game.limits.actions: {exc.detail}") from None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if type(value) is not int or value < 1:
        raise OptionError(f"{where}: game.limits.actions must be a positive whole number, not {value!r}")
    return value


def _check_players(model: Any, players: int | None) -> int:
    allowed = model.players
    if players is None:
        return allowed[0]
    if not isinstance(players, int) or isinstance(players, bool) or players not in allowed:
        if len(allowed) > 2 and allowed == tuple(range(allowed[0], allowed[-1] + 1)):
            text = f"{allowed[0]} to {allowed[-1]}"
        else:
            text = " or ".join(str(p) for p in allowed)
        raise OptionError(f"{model.name} is played by {text} players, not {players!r}")
    return players


def resolve_options(gamedef: GameDef, given: dict[str, Any], num_players: int) -> dict[str, Any]:
    """Defaults filled in, overrides checked against each option's type and bounds."""
    defs = {o.name: o for o in gamedef.model.options}
    for name, value in given.items():
        if name not in defs:
            hint = did_you_mean(name, defs)
            known = ", ".join(defs) or "none"
            raise OptionError(f"{gamedef.name} has no option '{name}'" + (f" ({hint})" if hint else "")
                              + f"; options: {known}")
        if value == "auto" and defs[name].auto is not None:
            continue
        error = option_value_error(defs[name], value)
        if error:
            raise OptionError(f"option '{name}': {error}")
    values: dict[str, Any] = {}
    pending_auto = []
    for name, opt in defs.items():
        value = given.get(name, opt.default)
        if value == "auto" and opt.auto is not None:
            pending_auto.append(opt)
        else:
            values[name] = value
    for opt in pending_auto:
        try:
            value = evaluate_static(opt.auto, values, num_players)
        except RuleError as exc:
            raise OptionError(f"option '{opt.name}': {exc}") from None
        if opt.type == "int" and isinstance(value, float) and value.is_integer():
            value = int(value)
        values[opt.name] = value
    # bounds written as expressions of num_players and other options, now that all are known
    for name, opt in defs.items():
        if opt.min_rule is None and opt.max_rule is None:
            continue
        try:
            error = option_bound_error(opt, values[name], values, num_players)
        except StaticEvalError as exc:
            raise OptionError(f"option '{name}': {exc.message}") from None
        if error:
            if name in given and given[name] != "auto":
                what = ""
            elif opt in pending_auto:
                what = "the auto value "
            else:
                what = "the default "
            raise OptionError(f"option '{name}': {what}{error}")
    defines = static_defines(gamedef.model.defines) if gamedef.model.requires else {}
    for cond, message, span in gamedef.model.requires:
        try:
            ok = evaluate_static(cond, values, num_players, defines=defines)
        except RuleError as exc:
            raise OptionError(f"{span}: game.requires: {exc.detail}") from None
        if not ok:
            shown = ", ".join(f"{k}={v!r}" for k, v in values.items())
            raise OptionError(f"{message} ({num_players} players{', ' + shown if shown else ''})")
    return values


def load_game(path: str | os.PathLike[str], players: int | None = None, options: Mapping[str, Any] | None = None,
              explicit_chance: bool = False, limits: RunLimits | None = None,
              root: str | os.PathLike[str] | None = None) -> Game:
    """Compile the spec at ``path`` (text or a ``pathlib.Path``) and bind it to a player count
    and options.

    ``root``: the folder `extends:` may read below (default: the spec's own folder);
    ``limits``: the run-time budget (default ``DEFAULT_LIMITS``).
    """
    return Game(_cached_compile(path_text(path), None if root is None else path_text(root)), players, options,
                explicit_chance, limits)


def game_from_text(text: str, players: int | None = None, options: Mapping[str, Any] | None = None,
                   explicit_chance: bool = False, path: str = "<string>", limits: RunLimits | None = None) -> Game:
    return Game(compile_text(text, path), players, options, explicit_chance, limits)


_COMPILED: dict[tuple[str, float, int, str | None], GameDef] = {}


def _compile(path: str, root: str | None) -> GameDef:
    if root is None:
        return compile_file(path)
    return compile_file(path, root=root)  # type: ignore[call-arg]  # `root` lands with the path sandbox


def _cached_compile(path: str, root: str | None = None) -> GameDef:
    try:
        stat = os.stat(path)
        key = (os.path.realpath(path), stat.st_mtime, stat.st_size,
               None if root is None else os.path.realpath(root))
    except OSError:
        return _compile(path, root)
    hit = _COMPILED.get(key)
    if hit is None:
        hit = _compile(path, root)
        _COMPILED[key] = hit
    return hit
