"""The goal, hand rankings with their tie-breaks, the special cases, the end, the options, the
glossary and the quick reference."""

from __future__ import annotations

import re
from typing import Any

from .. import ast as A
from ..describe.text import value_text, words
from ..fold import UNKNOWN
from .components import card_kinds, players_text
from .document import Bullets, Para, Section, Steps, Table
from .flow import is_guard, order_text, round_ends, split_ends
from .speaker import Speaker, sentence, strip_rule_refs

__all__ = ["goal_section", "rankings_section", "special_section", "end_section", "options_section",
           "glossary_section", "quick_section", "simplify"]


def simplify(sp: Speaker, node: Any) -> Any:
    """``node`` with the parts the chosen options decide taken out."""
    if isinstance(node, A.Cond):
        test = sp.known(node.test)
        if test is not UNKNOWN:
            return simplify(sp, node.body if test else node.orelse)
    if isinstance(node, A.BinOp) and node.op == "and":
        left, right = sp.known(node.left), sp.known(node.right)
        if left is True:
            return simplify(sp, node.right)
        if right is True:
            return simplify(sp, node.left)
    return node


def _conjuncts(node: Any) -> list[Any]:
    if isinstance(node, A.BinOp) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _is_unique_best(node: Any) -> bool:
    """``count(argmax(...)) == 1``: exactly one player is ahead."""
    return bool(isinstance(node, A.BinOp) and node.op == "==" and isinstance(node.left, A.Call)
                and node.left.func == "count" and node.left.args and isinstance(node.left.args[0], A.Agg)
                and node.left.args[0].func in ("argmax", "argmin"))


def _winners_text(sp: Speaker) -> str:
    winners = sp.model.match.winners
    if winners is None:
        return "The player with the highest total wins; tied players share the win."
    node = simplify(sp, winners)
    if isinstance(node, A.Agg) and node.func == "argmax" and isinstance(node.comp.elt, A.Attr) \
            and node.comp.elt.name == "total":
        return "The player with the highest total wins."
    return sentence(f"the match is won by {sp.expr(node)}")


def goal_section(sp: Speaker) -> Section:
    section = Section("The goal", anchor="goal")
    about = sp.about("game") or sp.model.description
    section.blocks.append(Para(f"For {players_text(sp)}. {about}".strip()))
    return section


def end_section(sp: Speaker) -> Section:
    section = Section("End of a round and of the game", anchor="end")
    rules, guards = round_ends(sp)
    told = [r[len("about:"):] for r in rules if r.startswith("about:")]
    rules = [r for r in rules if not r.startswith("about:")]
    if rules:
        section.blocks.append(Para("A round ends " + "; or ".join(
            r if r.startswith("at once") else f"at the end of a turn if, by then, {r}" for r in rules) + "."))
    for text in told:
        section.blocks.append(Para(sentence(text)))
    ending = [a for a in sp.model.actions if (a.cond is None or sp.known(a.cond) is not False)
              and any(isinstance(n, A.End) and n.level == "round" for n in A.walk(a.body))]
    if ending:
        names = " or ".join(f"**{sentence(words(a.action)).rstrip('.')}**" for a in ending)
        section.blocks.append(Para(f"A round also ends at once when a player chooses {names} (see A turn); "
                                   f"it is scored as usual."))
    match_rules: list[str] = []
    tie = False
    match_guards: list[str] = []
    for cond in sp.possible(sp.model.match.end_when):
        cond = simplify(sp, cond)
        if is_guard(sp, cond):
            match_guards.append(sp.expr(cond))
            continue
        tie = tie or any(_is_unique_best(c) for c in _conjuncts(cond))
        parts = [c for c in _conjuncts(cond) if not _is_unique_best(c) and sp.known(c) is not True]
        if len(parts) == 1 and isinstance(parts[0], A.BinOp) and parts[0].op == ">=" \
                and isinstance(parts[0].left, A.Name) and parts[0].left.id == "round":
            match_rules.append(f"#after round {sp.expr(parts[0].right)}")
            continue
        match_rules.append(" and ".join(sp.expr(p) for p in parts))
    text = ""
    if "" in match_rules:
        text = "The game is a single round. "
    elif len(match_rules) == 1 and match_rules[0].startswith("#"):
        text = f"The game ends {match_rules[0][1:]}. "
    elif match_rules:
        text = "The game ends after the round in which " + "; or ".join(match_rules) + ". "
    if sp.model.round.scoring.stmts or sp.model.match.winners is None:
        text += _winners_text(sp)
    if tie:
        text += " If several players share the highest total, nobody has won yet: play another round."
    if text:
        section.blocks.append(Para(text.strip()))
    guard_texts = [f"a round also ends (and is scored as usual) when {g}" for g in guards] + \
        [f"the game also ends after the round in which {g}" for g in match_guards]
    if guard_texts:
        section.blocks.append(Para("Not a rule, only a limit so that play always ends: "
                                   + "; ".join(guard_texts) + "."))
    about = sp.about("round")
    if about:
        section.blocks.append(Para(about))
    return section


def _example_values(values: list[Any], kinds: tuple[int, ...]) -> list[Any]:
    out: list[Any] = []
    for i, k in enumerate(kinds):
        out += [values[i]] * k
    return out


def rankings_section(sp: Speaker) -> Section | None:
    if not sp.model.rankings:
        return None
    section = Section("Ranking of hands", anchor="rankings")
    for r in sp.model.rankings:
        values = _order_values(sp, r.order)
        section.blocks.append(Para(f"A hand is the best {r.size} of a player's cards, ranked by {words(r.order)}"
                                   + (f" (lowest {values[-1]}, highest {values[0]})" if values else "")
                                   + ". From highest to lowest:"))
        items = []
        for c in r.categories:
            about = sp.about(f"category:{r.name}:{c.name}")
            items.append(f"**{sentence(c.name).rstrip('.')}**: {about or _category_text(c, values)}")
        section.blocks.append(Steps([_step(t) for t in items]))
        ties = [f"{sentence(c.name).rstrip('.')}: {_tie_text(c, values, r.size)}" for c in r.categories]
        section.blocks.append(Para("**Ties.** Between hands of the same rank:"))
        section.blocks.append(Bullets(ties))
        order = words(r.order)
        notes = []
        if any(c.kind == "run" for c in r.categories):
            notes.append(f"A sequence does not wrap around (the highest {order} is not followed by the lowest).")
        same = sorted({words(str(c.same)) for c in r.categories if c.same})
        if same:
            notes.append(f"The {' and '.join(same)} never breaks a tie.")
        needs = f"a sequence{' or ' + str(r.size) + ' of one ' + same[0] if same else ''}"
        notes.append(f"A player with fewer than {r.size} cards is ranked on the cards they have (only {needs} "
                     f"needs all {r.size}); compared card by card, a card beats no card, so a short hand loses "
                     f"to a full one it otherwise equals; a player with no cards holds no hand and ranks last.")
        if r.unused:
            notes.append(f"If two hands hold the same {r.size} {order}s, the cards beyond the hand (a player's unused "
                         f"cards) decide: the highest unused card wins, then the next highest, and so on (a card "
                         f"beats no card). If these are equal too, the hands tie: each of them counts as the best "
                         f"hand.")
        section.blocks.append(Para(" ".join(notes)))
    return section


def _step(text: str) -> Any:
    from .document import Step
    return Step(text)


def _order_values(sp: Speaker, attr: str) -> list[Any]:
    found: set[Any] = set()
    for _, cards in card_kinds(sp):
        for _, fields in cards:
            if isinstance(fields.get(attr), (int, float)) and not isinstance(fields.get(attr), bool):
                found.add(fields[attr])
    return sorted(found, reverse=True)


def _category_text(c: Any, values: list[Any]) -> str:
    v = values or list(range(13, 0, -1))
    if c.kind == "run":
        example = ", ".join(str(x) for x in v[2:2 + c.run])
        return f"{c.run} cards in sequence" + (f" of the same {c.same}" if c.same else " of any kind") + \
            f", for example {example}"
    if c.kind == "same":
        return f"{c.count} cards of the same {c.same}"
    if c.kind == "kinds":
        groups = [k for k in c.kinds if k > 1]
        names = {4: "four", 3: "three", 2: "two"}
        text = " and ".join(f"{names.get(k, k)} cards of one number" if i == 0 else
                            f"{names.get(k, k)} of another" for i, k in enumerate(groups))
        example = ", ".join(str(x) for x in _example_values(v[1:], c.kinds))
        return f"{text}, for example {example}"
    return f"the highest {c.count} cards"


def _tie_text(c: Any, values: list[Any], size: int) -> str:
    v = values or list(range(13, 0, -1))
    if len(v) < 12:
        v = list(range(13, 0, -1))
    if c.kind == "run":
        top = ", ".join(str(x) for x in v[1:1 + c.run])
        lower = ", ".join(str(x) for x in v[2:2 + c.run])
        return f"the higher top card wins ({top} beats {lower})"
    if c.kind in ("same", "highest"):
        high = [v[0], v[1], v[5], v[9], v[10]][:size]
        low = high[:-1] + [v[11]]
        return (f"the higher top card wins, then the next, and so on ({', '.join(map(str, high))} beats "
                f"{', '.join(map(str, low))})")
    groups = [k for k in c.kinds if k > 1]
    order = "the higher group of " + str(groups[0]) + " wins" + (
        ", then the next group" if len(groups) > 1 else "") + (
        ", then the remaining cards, highest first" if 1 in c.kinds else "")
    if groups[0] >= 3:  # the big group decides (whatever the rest): 12, 12, 12, 1, 1 beats 11, 11, 11, 13, 13
        rest = len(c.kinds) - 1
        a = _example_values([v[1]] + v[len(v) - rest:], c.kinds)
        b = _example_values([v[2]] + v[:rest], c.kinds)
    else:  # equal groups: the last card decides
        pick = v[:len(c.kinds) + 1]
        a = _example_values(pick, c.kinds)
        b = a[:-1] + [pick[len(c.kinds)]]
    return f"{order} ({', '.join(map(str, a))} beats {', '.join(map(str, b))})"


def special_section(sp: Speaker) -> Section:
    section = Section("Special cases", anchor="special")
    items: list[str] = []
    if _moves_pieces(sp):
        items.append("If you cannot make any move (your pieces are blocked), you lose your turn: none of "
                     "its choices is open to you.")
    rnd = sp.model.round
    drawn: list[str] = []
    for phase in rnd.phases:
        keep, _ = split_ends(phase.turn)
        for node in A.walk(A.Block(phase.turn.span, tuple(keep))):
            if isinstance(node, A.Draw):
                place = sp.place(node.source)
                if place not in drawn:
                    drawn.append(place)
    for place in drawn:
        items.append(f"If {place} is empty, you draw nothing and go on with your turn.")
    empty = _chosen_from(sp)
    if empty:
        items.append(f"An instruction with nothing to choose from ({' or '.join(empty)}) does nothing.")
    if items:
        section.blocks.append(Bullets(items))
    return section


def _moves_pieces(sp: Speaker) -> bool:
    """Do the players move pieces already on the board (which other pieces may block)?"""
    roots: list[Any] = [p.body for p in sp.model.procedures] + list(sp.model.actions)
    roots += [ph.turn for ph in sp.model.round.phases]
    return any(isinstance(n, A.Move) and sp.type_of(n.what) == "piece" for r in roots for n in A.walk(r))


def _chosen_from(sp: Speaker) -> list[str]:
    """The places an instruction picks a card from (a card's effect, an action's second step),
    where an empty place leaves nothing to choose: "an empty hand"."""
    places: list[str] = []
    for proc in sp.model.procedures:
        for node in A.walk(proc.body):
            if not isinstance(node, A.Choose) or node.orelse is not None:
                continue
            for alt in node.alternatives:
                for b in (alt.bindings.items if isinstance(alt, A.Alternative) and alt.bindings else ()):
                    if isinstance(b.iter, A.Call) and b.iter.func in sp.zones and b.cond is None:
                        text = f"an empty {sp.zones[b.iter.func].label}"
                        if text not in places:
                            places.append(text)
    return places


def options_section(sp: Speaker) -> Section:
    section = Section("Options and variants", anchor="options")
    items = []
    for o in sp.model.options:
        text = sp.about(f"option:{o.name}") or strip_rule_refs(o.description)
        default = sp.expr(o.auto) if o.auto is not None else words(value_text(o.default))
        values = f" ({' or '.join(words(v) for v in o.values)})" if o.values else ""
        here = f" (these rules: {words(value_text(sp.chosen[o.name]))})" if o.name in sp.chosen else ""
        items.append(f"**{sentence(words(o.name)).rstrip('.')}**{values}, default {default}{here}: {sentence(text)}")
    if items:
        section.blocks.append(Para("The rules above use the defaults; players may agree on others."))
        section.blocks.append(Bullets(items))
    return section


def glossary_section(sp: Speaker) -> Section:
    section = Section("Words of the game", anchor="glossary")
    entries: list[tuple[str, str]] = []
    for key, text in sp.model.abouts:
        if key.startswith("word:"):
            entries.append((key[5:], strip_rule_refs(text)))
    if not entries:  # no words of its own: the places and pieces the designer explains
        for z in sp.model.zones:
            about = sp.about(f"zone:{z.name}")
            if about:
                entries.append((sentence(z.label).rstrip("."), about))
        for p in sp.model.pieces:
            about = sp.about(f"piece:{p.name}")
            if about:
                entries.append((sentence(p.label).rstrip("."), about))
    if entries:
        ordered = sorted(entries, key=lambda e: e[0].lower())
        section.blocks.append(Bullets([f"**{t}**: {sentence(m)}" for t, m in ordered]))
    return section


def _brief(step: Any, depth: int = 0) -> str:
    """A step in a few words: an action by its name, a step with sub-steps with theirs."""
    bold = re.match(r"\*\*(.+?)\*\*", step.text)
    if bold:
        return bold.group(1)
    head = re.split(r"[.:;,](?:\s|$)", step.text, maxsplit=1)[0]
    names = [re.match(r"\*\*(.+?)\*\*", c.text) for c in step.children]
    if step.children and all(names):  # a choice of actions: their names
        return f"{head.lower() if depth else head}: {', '.join(n.group(1) for n in names if n)}"
    if depth > 0 and len(head) > 1 and (head[1].islower() or head[1] == " "):
        head = head[0].lower() + head[1:]
    if not step.children or depth > 0:
        return head
    parts = [_brief(c, depth + 1) for c in step.children]
    return f"{head}: {'; '.join(parts)}"


def quick_section(sp: Speaker, setup: Section, turn: Section, scoring: Section, end: Section) -> Section:
    section = Section("Quick reference", main=False, anchor="quick")
    lines = [f"**Players**: {players_text(sp)}."]
    for s in setup.blocks:
        if isinstance(s, Steps):
            lines.append("**Setup**: " + " ".join(i.text for i in s.items))
    for phase in sp.model.round.phases:
        lines.append("**Order**: " + order_text(sp, phase))
    for s in turn.blocks:
        if isinstance(s, Steps):
            lines.append("**Your turn**: " + " ".join(f"({n}) {_brief(i)}." for n, i in enumerate(s.items, 1)))
    for s in sorted(scoring.blocks, key=lambda b: not isinstance(b, Table)):
        if isinstance(s, Table) and s.caption == "Round score":
            lines.append("**Scoring** (each round): " + "; ".join(f"{sign} {what[0].lower() + what[1:]}"
                                                                  for sign, what in s.rows) + ".")
            break
        if isinstance(s, Para) and not s.text.startswith("**Example"):
            lines.append("**Scoring**: " + s.text)
            break
    for s in end.blocks:
        if isinstance(s, Para) and not s.text.startswith("Not a rule"):  # the guard: said once, in the end
            lines.append("**End**: " + s.text)
    section.blocks.append(Bullets(lines))
    pay = [b for b in scoring.blocks if isinstance(b, Table) and b.caption == "Payouts"]
    section.blocks += pay
    return section
