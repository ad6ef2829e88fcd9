"""A match in the terminal: humans and bots at one table, each human seeing only their own view.

``TerminalMatch`` runs one match: bots move on their own; a human seat gets its own view
of the table (``state.observation``), the events addressed to it, and a numbered menu of
its legal actions. With several humans at one device, a "pass the device" screen stands
between their turns and the screen is cleared after each (on a terminal). What everybody
sees (the running log) is what every human at the table may see: events addressed to some
seats only are shown to those seats on their own turn, and an action label naming a card
some human may not see (a card played face down, a card passed secretly) is shown with
"a card" in its place. With no human at the table the log shows everything.

Input comes from any text stream (a file of scripted answers in tests); output goes to a
rich ``Console``. Every action is appended to the log file as it happens, so a match cut
short resumes from its log (``resume``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from typing import Any, TextIO

from rulespec import ast as A
from rulespec import types as T
from rulespec.zones import PER_CELL, PER_PLAYER, kind_of

from .agents import Agent, AgentError, derive_seed, make_agent
from .errors import RuleError
from .game import Game
from .replay import LogError, LoggedMatch, LogWriter, check_logged_game, check_rest, match_header, replay_match
from .state import CHANCE, State
from .visibility import visible_cards

__all__ = ["HUMAN", "TerminalMatch", "EventText", "view_lines", "play_match", "QuitMatch", "seat_agents",
           "card_colours", "player_facing_variables"]

HUMAN = "human"
DEFAULT_BOT = "mcts"  # plays the seats no agent is given for
MAX_ANSWER = 1000  # characters of one answer at the prompt; a longer line is read to its end and refused
_UNREADABLE = "\0"  # what ``read`` returns for a line that cannot be an answer


class QuitMatch(Exception):
    """A human asked to stop (or the input ended)."""


# ====================================================================== seats


def seat_agents(given: Sequence[str], players: int, bot: str = DEFAULT_BOT) -> tuple[list[str], list[int]]:
    """One agent per seat, and the seats filled with ``bot`` because no agent was given for them.

    Nothing given: a human in the first seat, ``bot`` in the others. One bot name: that bot
    everywhere. Otherwise the agents take the first seats in order and ``bot`` the rest."""
    items = [a.strip() for a in given if a.strip()]
    if not items:
        items = [HUMAN]
    elif len(items) == 1 and items[0].lower() != HUMAN:
        return items * players, []
    if len(items) > players:
        raise AgentError(f"{len(items)} agents for {players} players: give at most one agent for every seat")
    filled = list(range(len(items), players))
    return items + [bot] * len(filled), filled


# ====================================================================== what a player is shown


def card_colours(game: Game) -> dict[str, list[str]]:
    """Card names by the colour they are printed in: the first card attribute whose text values
    are all colour names ("red", "navy_blue") colours every card by its value; none, no colour."""
    from rich.color import Color, ColorParseError

    table = game.cards
    for values in table.attrs.values():
        texts = set(values)
        if len(texts) < 2 or not all(isinstance(v, str) for v in texts):
            continue
        try:
            colours = {v: Color.parse(v.lower()).name for v in texts}
        except ColorParseError:
            continue
        out: dict[str, list[str]] = {}
        for card, value in enumerate(values):
            names = out.setdefault(colours[value], [])
            if table.names[card] not in names:
                names.append(table.names[card])
        return out
    return {}


def player_facing_variables(game: Game) -> set[str]:
    """The variables a player reads about: named in an action label, an announcement or a round
    or match report, and not raw data (type ``value``). The others are the rules' own bookkeeping."""
    model = game.gamedef.model
    roots: list[Any] = [model.match.setup, model.round.setup, model.round.scoring]
    roots += [phase.turn for phase in model.round.phases] + [proc.body for proc in model.procedures]
    roots += list(model.actions)
    read: list[Any] = [expr for _, expr in model.round.report + model.match.report]
    for root in roots:
        for node in A.walk(root):
            if isinstance(node, A.Alternative) and node.label is not None:
                read.append(node.label)
            elif isinstance(node, A.Emit):
                read += [expr for _, expr in node.fields]
    names = {n.id if isinstance(n, A.Name) else n.name for expr in read for n in A.walk(expr)
             if isinstance(n, (A.Name, A.Attr))}
    return {v.name for v in model.variables if v.name in names and v.type != "value"}


# ====================================================================== rendering values and events


def _seat(game: Game, value: Any) -> str:
    names = game.seat_names
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    return "nobody" if value is None else str(value)


def render_value(game: Game, value: Any, shape: Any = None) -> str:
    """A JSON value of the rules as short text; ``shape`` (a type, or the shape of a ``dict(...)``
    or list expression) shows players by seat name."""
    if isinstance(shape, tuple) and shape[0] == "dict" and isinstance(value, dict):
        fields = shape[1]
        return "(" + "; ".join(f"{k} {render_value(game, v, fields.get(k))}" for k, v in value.items()) + ")"
    if isinstance(shape, tuple) and shape[0] == "list" and isinstance(value, list):
        return ", ".join(render_value(game, v, shape[1]) for v in value) if value else "none"
    type_ = shape if isinstance(shape, str) else None
    if type_ == T.PLAYER:
        return _seat(game, value)
    if type_ == T.list_of(T.PLAYER) and isinstance(value, list):
        return ", ".join(_seat(game, v) for v in value) if value else "nobody"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        if not value:
            return "none"
        inner = T.elem(type_) if type_ and T.is_list(type_) else None
        return ", ".join(render_value(game, v, inner) for v in value)
    if isinstance(value, dict):
        return "(" + "; ".join(f"{k} {render_value(game, v)}" for k, v in value.items()) + ")"
    return str(value)


def _shape(node: Any, types: dict[int, str]) -> Any:
    """The type of an expression, looking inside ``dict(...)`` calls and list expressions."""
    if isinstance(node, A.Call) and node.func == "dict":
        return ("dict", {k: _shape(v, types) for k, v in node.kwargs})
    if isinstance(node, A.ListComp):
        return ("list", _shape(node.comp.elt, types))
    if isinstance(node, A.ListLit) and node.items:
        return ("list", _shape(node.items[0], types))
    return types.get(id(node), T.ANY)


def _emit_types(game: Game) -> dict[str, dict[str, Any]]:
    """Per event name, the shape of each field (from the checked spec)."""
    model = game.gamedef.model
    types = game.gamedef.info.types
    out: dict[str, dict[str, Any]] = {
        "turn_skipped": {"player": T.PLAYER},
        "round_end": {"scores": T.list_of(T.NUM), "totals": T.list_of(T.NUM)},
        "match_end": {"winners": T.list_of(T.PLAYER), "totals": T.list_of(T.NUM)},
    }
    roots: list[Any] = [model.match.setup, model.round.setup, model.round.scoring]
    roots += [phase.turn for phase in model.round.phases]
    roots += [proc.body for proc in model.procedures]
    roots += list(model.actions)
    for root in roots:
        for node in A.walk(root):
            if isinstance(node, A.Emit) and node.name not in out:
                out[node.name] = {k: _shape(v, types) for k, v in node.fields}
    for key, expr in model.round.report:
        out["round_end"].setdefault(key, _shape(expr, types))
    for key, expr in model.match.report:
        out["match_end"].setdefault(key, _shape(expr, types))
    return out


class EventText:
    """Events as readable lines."""

    def __init__(self, game: Game):
        self.game = game
        self.types = _emit_types(game)

    def fields(self, event: dict[str, Any], skip: Sequence[str] = ()) -> str:
        types = self.types.get(event.get("type", ""), {})
        parts = []
        for key, value in event.items():
            if key in ("type", "to") or key in skip:
                continue
            parts.append(f"{key.replace('_', ' ')} {render_value(self.game, value, types.get(key))}")
        return ", ".join(parts)

    def line(self, event: dict[str, Any]) -> str:
        kind = str(event.get("type", "event"))
        text = kind.replace("_", " ")
        fields = self.fields(event)
        out = f"{text}: {fields}" if fields else text
        if "to" in event:
            out += f"  (seen by {render_value(self.game, event['to'], T.list_of(T.PLAYER))})"
        return out

    def scores(self, event: dict[str, Any]) -> list[str]:
        """A round_end or match_end event as lines: one per seat, then the report fields."""
        game = self.game
        lines = []
        scores = event.get("scores")
        totals = event.get("totals") or []
        for p, name in enumerate(game.seat_names):
            total = render_value(game, totals[p]) if p < len(totals) else "?"
            if scores is not None and p < len(scores):
                lines.append(f"{name:>8}  round {render_value(game, scores[p]):>6}  total {total:>6}")
            else:
                lines.append(f"{name:>8}  total {total:>6}")
        types = self.types.get(event.get("type", ""), {})
        for key, value in event.items():
            if key in ("type", "to", "round", "rounds", "scores", "totals", "winners"):
                continue
            label = key.replace("_", " ")
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                shape = types.get(key)
                inner = shape[1] if isinstance(shape, tuple) and shape[0] == "list" else None
                lines.append(f"{label}:")
                lines.extend(f"  {render_value(game, v, inner)}" for v in value)
            else:
                lines.append(f"{label}: {render_value(game, value, types.get(key))}")
        return lines


# ====================================================================== a player's view


def _zone_text(game: Game, view: Any, owner: int | None, viewer: int | None) -> str:
    if isinstance(view, dict):
        count = view.get("count", 0)
        if "top" in view:
            top = view.get("top")
            return f"{count} card{'s' if count != 1 else ''}" + (f", top {top}" if top else "")
        if "cards" in view:  # shuffled: what is seen, in no order
            seen = view["cards"]
            hidden = count - len(seen)
            parts = list(seen) + ([f"{hidden} unseen"] if hidden else [])
            return ", ".join(parts) + " (shuffled)" if parts else "empty"
        return f"{count} card{'s' if count != 1 else ''}" if count else "empty"
    if not view:
        return "empty"
    return ", ".join(name if name is not None else "(face down)" for name in view)


def view_lines(game: Game, obs: dict[str, Any], viewer: int | None, everything: bool = True) -> list[str]:
    """What ``obs`` (an observation) shows, as text lines. With ``everything`` false (a human's
    view), a zone nobody may look at shows only its count, on one line with the others, and
    only the variables a player reads about (``player_facing_variables``) are shown, and only when
    they hold something (not none, not an empty list)."""
    link = game.link
    lines: list[str] = []
    names = game.seat_names
    current = obs.get("current")
    head = f"Round {obs.get('round')}, turn {obs.get('turn')}"
    if isinstance(current, int) and 0 <= current < len(names):
        head += f", {names[current]}'s turn"
    lines.append(head)
    cell_zones: dict[str, dict[str, Any]] = {}
    unseen: list[str] = []
    for name, view in obs.get("zones", {}).items():
        zone = link.zone_defs[name]
        label = zone.label
        kind = kind_of(zone)
        if not everything and zone.visibility == "hidden" and kind is not PER_PLAYER and kind is not PER_CELL:
            count = view.get("count", 0) if isinstance(view, dict) else len(view)
            if count:
                unseen.append(f"{label} {count}")
        elif kind is PER_PLAYER:
            parts = []
            for p, pview in enumerate(view):
                who = names[p] + (" (you)" if p == viewer else "")
                parts.append(f"{who}: {_zone_text(game, pview, p, viewer)}")
            lines.append(f"  {label}: " + " | ".join(parts))
        elif kind is PER_CELL:
            cell_zones[label] = view
            if game.board is None or not view:
                shown = ", ".join(f"{c} {_zone_text(game, v, None, viewer)}" for c, v in view.items())
                lines.append(f"  {label}: {shown or 'empty'}")
        else:
            lines.append(f"  {label}: {_zone_text(game, view, None, viewer)}")
    if unseen:
        lines.append("  Face down, unseen: " + ", ".join(unseen))
    if game.board is not None:
        lines.extend(_board_lines(game, obs, cell_zones))
    facing = None if everything else player_facing_variables(game)
    score_parts = []
    for entry in obs.get("players", []):
        extra = {k: v for k, v in entry.items() if k not in ("seat", "name", "score", "total")
                 and (facing is None or (k in facing and v not in (None, [])))}
        text = f"{entry['name']} {render_value(game, entry['score'])} (total {render_value(game, entry['total'])})"
        if extra:
            text += " [" + ", ".join(f"{k} {render_value(game, v, _var_type(game, k, True))}"
                                     for k, v in extra.items()) + "]"
        score_parts.append(text)
    lines.append("  Scores: " + " | ".join(score_parts))
    variables = {k: v for k, v in (obs.get("variables") or {}).items()
                 if facing is None or (k in facing and v not in (None, []))}
    if variables:
        lines.append("  Variables: " + ", ".join(f"{k} {render_value(game, v, _var_type(game, k, False))}"
                                                for k, v in variables.items()))
    return lines


def _var_type(game: Game, name: str, per_player: bool) -> str | None:
    for v in game.gamedef.model.variables:
        if v.name == name and (v.per == "player") == per_player:
            return {"players": T.list_of(T.PLAYER), "cards": T.list_of(T.CARD)}.get(v.type, v.type)
    return None


def _board_lines(game: Game, obs: dict[str, Any], cell_zones: dict[str, dict[str, Any]]) -> list[str]:
    """The board as a grid: a line of cell contents (cards) per row, then a line of its pieces."""
    board = game.board
    assert board is not None
    labels = game.link.piece_label
    pieces: dict[str, list[str]] = {}
    for cell, piece in (obs.get("board") or {}).items():
        x = piece.get("id")
        pieces.setdefault(cell, []).append(labels[x] if isinstance(x, int) and 0 <= x < len(labels)
                                           else str(piece.get("piece")))
    contents: dict[str, list[str]] = {}
    for view in cell_zones.values():
        for cell, zview in view.items():
            contents.setdefault(cell, []).append(_cell_text(zview))
    texts = [" ".join(v) for v in contents.values()] + [", ".join(v) for v in pieces.values()] + ["."]
    width = min(max(len(t) for t in texts), 16)

    def fit(text: str) -> str:
        return f"{text if len(text) <= width else text[: width - 1] + '~':<{width}}"

    lines = ["  Board:", "      " + " ".join(fit(chr(ord("a") + c)) for c in range(board.cols)).rstrip()]
    for r in range(board.rows):
        names = [board.names[r * board.cols + c] for c in range(board.cols)]
        row = " ".join(fit(" ".join(contents.get(name, [])) or ".") for name in names)
        lines.append(f"    {board.rows - r} {row}".rstrip())
        if any(name in pieces for name in names):
            row = " ".join(fit(", ".join(pieces.get(name, []))) for name in names)
            lines.append(f"      {row}".rstrip())
    return lines


def _cell_text(view: Any) -> str:
    if isinstance(view, list):
        if not view:
            return ""
        top = view[-1] if view[-1] is not None else "(face down)"
        return top + (f" +{len(view) - 1}" if len(view) > 1 else "")
    if isinstance(view, dict):
        count = view.get("count", 0)
        if view.get("top"):
            return str(view["top"]) + (f" +{count - 1}" if count > 1 else "")
        return f"{count} cards" if count else ""
    return str(view)


# ====================================================================== the match


def _in_colour(console: Any) -> bool:
    """Whether the console prints colours: a terminal, and neither --no-color nor NO_COLOR."""
    return bool(console.is_terminal and not console.no_color and console.color_system)


class TerminalMatch:
    """One match at the terminal. ``run()`` plays it to the end (or until a human quits)."""

    def __init__(self, game: Game, spec: str, agents: Sequence[str], seed: int, console: Any,
                 input_stream: TextIO | None = None, log_path: str | None = None, base_seed: int | None = None,
                 agent_seeds: Sequence[int] | None = None, state: State | None = None, append_log: bool = False,
                 match: int = 0, script: Sequence[dict[str, Any]] | None = None, reveal_all: bool = False,
                 filled: Sequence[int] = ()):
        self.game = game
        self.filled = list(filled)  # seats a bot plays because no agent was given for them
        self.spec = spec
        self.console = console
        self.input = input_stream
        self.seed = seed
        self.base_seed = base_seed
        n = game.num_players
        self.seat_specs = list(agents)
        self.agent_seeds = list(agent_seeds) if agent_seeds is not None else [
            derive_seed(seed, "agent", p) for p in range(n)]
        self.script = list(script) if script is not None else None
        self.script_pos = 0  # the next action of the script
        self.bots: dict[int, Agent] = {}
        self.labels = [HUMAN if s.strip().lower() == HUMAN else s for s in self.seat_specs]
        if self.script is None:
            for p, spec_text in enumerate(self.seat_specs):
                if spec_text.strip().lower() != HUMAN:
                    self.bots[p] = make_agent(spec_text, game, p, self.agent_seeds[p])
                    self.labels[p] = self.bots[p].label
        self.humans = [p for p in range(n) if self.labels[p] == HUMAN]
        # the seats whose eyes the shared log must respect (nobody's when replaying or all bots)
        self.audience = [] if reveal_all else list(self.humans)
        self.state = state if state is not None else game.new_initial_state(seed)
        self.events = EventText(game)
        self.shown_events = 0 if state is None else len(self.state.events)
        self.private_seen = {p: len(self.state.events) if state is not None else 0 for p in self.humans}
        self.viewer: int | None = None
        self.viewed_at = -1  # the number of actions when the viewer's view was last shown
        self.colours = card_colours(game) if _in_colour(console) else {}
        self.chance_rng = random.Random(derive_seed(seed, "chance", len(self.state.history)))
        self.log: LogWriter | None = None
        if log_path is not None:
            self.log = LogWriter(log_path, append=append_log)
            if not append_log:
                self.log.header(match_header(game, spec, seed, self.labels, self.agent_seeds, match, base_seed))
        names = sorted(set(game.cards.names), key=len, reverse=True)
        self.card_pattern = re.compile(
            "|".join(rf"(?<![\w]){re.escape(name)}(?![\w])" for name in names)) if names else None

    # ---------------------------------------------------------------- helpers
    def seat_label(self, p: int) -> str:
        return self.labels[p]

    def who(self, p: int) -> str:
        return f"{self.game.seat_names[p]} ({self.seat_label(p)})"

    def out(self, text: str = "", style: str | None = None) -> None:
        if self.colours:
            from rich.text import Text

            coloured = Text(text)
            for colour, names in self.colours.items():
                coloured.highlight_words(names, style=colour)
            self.console.print(coloured, style=style or "", highlight=False)
            return
        self.console.print(text, style=style, highlight=False, markup=False)

    def audience_sees(self, event: dict[str, Any]) -> bool:
        """Whether the shared log may show this event: everybody at the table may see it."""
        if "to" not in event or not self.audience:
            return True
        return all(h in event["to"] for h in self.audience)

    # ---------------------------------------------------------------- running
    def intro(self) -> None:
        game = self.game
        seed = self.base_seed if self.base_seed is not None else self.seed
        self.out(f"{game.name} - {game.num_players} players, seed {seed}", style="bold")
        self.out("Seats: " + ", ".join(self.who(p) for p in range(game.num_players)))
        if self.filled:
            seats = ", ".join(game.seat_names[p] for p in self.filled)
            self.out(f"No agent was given for {seats}: {self.seat_label(self.filled[0])} plays "
                     f"{'it' if len(self.filled) == 1 else 'them'}.")
        options = ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in game.options.items())
        self.out(f"Options: {options or 'none'}")
        if self.humans and self.script is None:
            self.out("Enter the number of an action (or a cell or card name it names); 'v' shows your view again, "
                     "'q' stops (the log can resume it).")

    def run(self) -> State:
        """Play to the end; raises QuitMatch when a human stops."""
        try:
            self.flush_events()
            state = self.state
            while not state.is_terminal():
                player = state.current_player()
                if self.viewer is not None and player != self.viewer:
                    self.hide_view()
                if self.script is not None:
                    if self.script_pos >= len(self.script):
                        break  # the log ends here
                    action = self.scripted(player)
                elif player == CHANCE:
                    action = state.sample_chance_outcome(self.chance_rng)
                elif player in self.bots:
                    action = self.bots[player].step(state)
                elif player >= 0:
                    action = self.human_turn(player)
                else:
                    raise RuleError(f"the rules stopped without a decision (player {player})")
                self.apply(player, action)
            if self.viewer is not None:
                self.hide_view()
            if self.log is not None and state.is_terminal():
                self.log.end(state)
            return state
        finally:
            if self.log is not None:
                self.log.close()

    def apply(self, player: int, action: int) -> None:
        state = self.state
        label = state.action_to_string(action)
        before = (list(state.loc), list(state.face))
        state.apply_action(action)
        if self.log is not None:
            self.log.action(player, action, label)
        if player == CHANCE:
            shown = self.public_label(label, before, None)
            self.out(f"  chance: {shown}")
        else:
            shown = self.public_label(label, before, player)
            self.out(f"  {self.who(player)}: {shown}")
        self.flush_events()

    def scripted(self, player: int) -> int:
        """The next action of the script, checked against the rules."""
        from .replay import checked_action

        assert self.script is not None
        record = self.script[self.script_pos]
        self.script_pos += 1
        return checked_action(self.state, record, f"action {self.script_pos}")

    def public_label(self, label: str, before: tuple[list[int], list[int]], actor: int | None) -> str:
        """The label with the names of cards that a human other than the actor may not see replaced."""
        others = [h for h in self.audience if h != actor]
        if not others or self.card_pattern is None:
            return label
        state = self.state
        loc, face = before
        touched = [c for c in range(len(loc)) if loc[c] != state.loc[c] or face[c] != state.face[c]]
        if not touched:
            return label
        seen = [visible_cards(state, h) for h in others]
        names = self.game.cards.names
        secret = {names[c] for c in touched if any(c not in s for s in seen)}
        if not secret:
            return label
        return self.card_pattern.sub(lambda m: "a card" if m.group(0) in secret else m.group(0), label)

    def flush_events(self) -> None:
        events = self.state.events
        while self.shown_events < len(events):
            event = events[self.shown_events]
            self.shown_events += 1
            if self.audience_sees(event):
                self.show_event(event)

    def show_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        names = self.game.seat_names
        if kind == "round_start":
            self.console.rule(f"Round {event.get('round')}", style="cyan")
        elif kind == "round_end":
            self.out(f"Round {event.get('round')} over", style="bold cyan")
            for line in self.events.scores(event):
                self.out(f"  {line}")
        elif kind == "match_end":
            winners = event.get("winners") or []
            who = ", ".join(names[w] for w in winners) if winners else "nobody"
            self.console.rule("Match over", style="bold green")
            self.out(f"After {event.get('rounds')} round(s) and {len(self.state.history)} actions. "
                     f"Winner{'s' if len(winners) != 1 else ''}: {who}", style="bold")
            for line in self.events.scores(event):
                self.out(f"  {line}")
        else:
            self.out(f"    * {self.events.line(event)}", style="dim")

    # ---------------------------------------------------------------- humans
    def read(self, prompt: str) -> str:
        self.console.print(prompt, end="", highlight=False, markup=False)
        if self.input is None:
            raise QuitMatch("no input")
        try:
            line = self.input.readline(MAX_ANSWER + 1)
            if len(line) > MAX_ANSWER and not line.endswith("\n"):
                while line and not line.endswith("\n"):  # read the rest of the overlong line, and refuse it
                    line = self.input.readline(65536)
                self.out("(too long)")
                return _UNREADABLE
        except UnicodeDecodeError:
            self.out("")
            raise QuitMatch("the input is not text") from None
        if not line:
            self.out("")
            raise QuitMatch("the input ended")
        text = line.strip()
        if not getattr(self.input, "isatty", lambda: False)():
            self.out(text if text.isprintable() else repr(text))  # echo scripted answers: the transcript reads
        return text

    def hide_view(self) -> None:
        if len(self.humans) > 1:
            if self.console.is_terminal:
                self.console.clear()
            else:
                self.out(f"(screen cleared: end of {self.game.seat_names[self.viewer or 0]}'s view)", style="dim")
        self.viewer = None

    def human_turn(self, player: int) -> int:
        name = self.game.seat_names[player]
        if self.viewer != player:
            if len(self.humans) > 1:
                self.console.rule(f"Pass the device to {name}", style="magenta")
                self.read(f"{name}, press Enter when only you can see the screen: ")
            self.viewer = player
            self.show_view(player)
        elif self.viewed_at != len(self.state.history):  # a later step of the same turn: the table changed
            self.show_view(player)
        state = self.state
        legal = state.legal_actions()
        labels = [state.action_to_string(a) for a in legal]
        self.out(f"{name}, choose an action:", style="bold")
        for i, label in enumerate(labels, 1):
            self.out(f"  {i:>3}. {label}")
        while True:
            answer = self.read(f"{name} [1-{len(legal)}, v, q]: ")
            low = answer.lower()
            if low in ("q", "quit", "exit"):
                raise QuitMatch("quit")
            if low in ("v", "view"):
                self.show_view(player)
                continue
            if re.fullmatch(r"[0-9]{1,9}", answer) and 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            if answer in labels:
                return legal[labels.index(answer)]
            fits = self.naming(answer, labels)
            if len(fits) == 1:
                return legal[fits[0]]
            if fits:
                self.out(f"  {answer} fits {len(fits)} actions; enter one of their numbers:")
                for i in fits:
                    self.out(f"  {i + 1:>3}. {labels[i]}")
                continue
            self.out(f"  not a choice: enter a number from 1 to {len(legal)}, v to view, q to stop")

    def naming(self, answer: str, labels: list[str]) -> list[int]:
        """The menu entries whose label names the cell or the card ``answer`` names (any case)."""
        wanted = answer.strip().lower()
        board = self.game.board
        cells = {name.lower() for name in board.names} if board is not None else set()
        cards = {name.lower() for name in self.game.cards.names}
        if not wanted or (wanted not in cells and wanted not in cards):
            return []
        pattern = re.compile(rf"(?<![\w]){re.escape(wanted)}(?![\w])")
        return [i for i, label in enumerate(labels) if pattern.search(label.lower())]

    def show_view(self, player: int) -> None:
        state = self.state
        obs = state.observation(player)
        name = self.game.seat_names[player]
        self.out(f"{name}'s view", style="bold magenta")
        for line in view_lines(self.game, obs, player, everything=False):
            self.out(line)
        for line in self.best_hands(player):
            self.out(line)
        self.viewed_at = len(state.history)
        events = state.events
        private = [e for e in events[self.private_seen.get(player, 0):]
                   if "to" in e and player in e["to"] and not self.audience_sees(e)]
        self.private_seen[player] = len(events)
        if private:
            self.out("  For your eyes only since your last turn:")
            for event in private:
                self.out(f"    * {self.events.line(event)}")

    def best_hands(self, player: int) -> list[str]:
        """The best hand of each of the spec's rankings among the cards the player holds (the cards
        of the player's own zones that the player sees)."""
        state = self.state
        link = self.game.link
        if not link.rankings:
            return []
        seen = visible_cards(state, player)
        own = [c for z, cards in enumerate(state.zones) if link.zone_owner[z] == player
               and kind_of(link.zone_defs[link.zone_family[z]]) is PER_PLAYER for c in cards if c in seen]
        if not own:
            return []
        names = self.game.cards.names
        lines = []
        for name, ranking in link.rankings.items():
            _, used, category = ranking.evaluate(own)
            lines.append(f"  Your best {name} hand: {category} ({', '.join(names[c] for c in used)})")
        return lines


def play_match(game: Game, spec: str, agents: Sequence[str], seed: int, console: Any,
               input_stream: TextIO | None = None, log_path: str | None = None, base_seed: int | None = None,
               agent_seeds: Sequence[int] | None = None, filled: Sequence[int] = ()) -> State:
    """Play one match at the terminal; raises QuitMatch if a human stops. ``filled``: the seats
    a bot plays because no agent was given for them (the intro says so)."""
    match = TerminalMatch(game, spec, agents, seed, console, input_stream, log_path, base_seed, agent_seeds,
                          filled=filled)
    match.intro()
    return match.run()


def resume_match(logged: LoggedMatch, game: Game, console: Any, input_stream: TextIO | None, log_path: str | None,
                 agents: Sequence[str] | None = None) -> State:
    """Continue a logged match: replay its actions (checked as ``replay`` checks them), then play on
    (appending to ``log_path``). Agents given here replace the log's; the log's are checked like a log."""
    header = logged.header
    state = replay_match(logged, game, verify_end=False)
    if agents:
        specs = list(agents)
    else:
        specs = list(header.get("agents") or [])
        if not specs:
            raise LogError(f"{logged.path}:{logged.line}: the header names no agents (give --agents)")
        seeds = header.get("agent_seeds") or [0] * len(specs)
        for p, spec_text in enumerate(specs):
            if spec_text.strip().lower() != HUMAN:
                try:
                    make_agent(spec_text, game, p, seeds[p])
                except AgentError as exc:
                    raise LogError(f"{logged.path}:{logged.line}: agent of seat {p}: {exc}") from None
    match = TerminalMatch(game, str(header["spec"]), specs, header["seed"], console, input_stream, log_path,
                          header.get("base_seed"), header.get("agent_seeds"), state=state, append_log=True,
                          match=header.get("match", 0))
    match.intro()
    match.out(f"Resumed after {len(state.history)} actions (round {state.round}, turn {state.turn}).", style="bold")
    return match.run()


def replay_to_console(logged: LoggedMatch, console: Any, quiet: bool = False, root: str | None = None,
                      game: Game | None = None) -> State:
    """Print a logged match as it is re-applied (everything shown), checking it against its log
    with the checker of ``replay_match``. The spec is found by ``load_logged_game(logged, root)``."""
    from .replay import load_logged_game

    if game is None:
        game = load_logged_game(logged, root)
    check_logged_game(logged, game)
    header = logged.header
    n = game.num_players
    agents = list(header.get("agents") or ["?"] * n)
    quiet_console = console
    if quiet:
        import io

        from rich.console import Console

        quiet_console = Console(file=io.StringIO(), width=100)
    match = TerminalMatch(game, str(header["spec"]), agents, header["seed"], quiet_console,
                          base_seed=header.get("base_seed"), agent_seeds=header.get("agent_seeds"),
                          script=logged.actions, reveal_all=True)
    match.intro()
    state = match.run()
    where = f"{logged.path} match {header.get('match', 0)}"
    check_rest(logged, state, match.script_pos, where)
    if state.is_terminal():
        winners = ", ".join(game.seat_names[w] for w in state.winners()) or "nobody"
        verdict = f"identical to the log; winners {winners}" if logged.end is not None else \
            f"the match ended (the log has no end line); winners {winners}"
    else:
        verdict = f"the log stops here, the match is not over (continue it with rulespec play --resume {logged.path})"
    console.print(f"Replayed {where}: {len(state.history)} actions, {verdict}.", highlight=False, markup=False)
    return state
