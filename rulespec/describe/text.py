"""The words ``describe`` writes with: values, names, possessives, subjects and verbs that agree."""

from __future__ import annotations

import json
from typing import Any

from .. import ast as A

__all__ = ["VISIBILITY", "POSSESSIVE", "ABSOLUTE", "value_text", "is_literal", "words", "local_text", "subject",
           "agree", "possessive", "owned_by", "range_text", "table_cell"]

VISIBILITY = {
    "public": "everyone sees its cards",
    "owner": "only its owner sees its cards; the others see how many there are",
    "hidden": "nobody sees its cards, only how many there are",
    "top": "everyone sees the top card only, and how many cards there are",
}


def value_text(value: Any) -> str:
    """A plain YAML value (option default, card attribute) as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    return json.dumps(value)


def is_literal(node: Any, value: Any) -> bool:
    return isinstance(node, A.Const) and node.value == value and not isinstance(node.value, bool)


def words(name: str) -> str:
    return name.replace("_", " ")


# a name that reads as an English word of its own is written as code: "the square at `at`"
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "at", "in", "on", "of", "to", "by", "for", "from", "with", "into", "onto", "over", "under",
    "and", "or", "not", "is", "be", "if", "it", "as", "all", "any", "each", "every", "no", "none", "some", "then",
})
# the possessive of a pronoun, and a pronoun as the subject of a verb
POSSESSIVE = {"me": "my", "i": "my", "you": "your", "us": "our", "we": "our", "them": "their", "they": "their",
               "him": "his", "he": "his", "her": "her", "she": "her", "it": "its"}
ABSOLUTE = {"my": "mine", "his": "his", "its": "its"}  # "a mark of mine"; the others add an s: "yours"
_SUBJECT = {"me": "I", "us": "we", "them": "they", "him": "he", "her": "she"}
_PLURAL_SUBJECTS = frozenset({"I", "you", "we", "they"})


def local_text(name: str) -> str:
    return f"`{name}`" if name.lower() in _FUNCTION_WORDS else name


def subject(who: str) -> str:
    """``who`` as the subject of a sentence: "me chooses" reads "I choose"."""
    return _SUBJECT.get(who, who)


def agree(subject: str, verb: str) -> str:
    """The verb (given in the third person singular) agreeing with its subject: "you choose"."""
    if subject not in _PLURAL_SUBJECTS:
        return verb
    if verb == "has":
        return "have"
    return verb[:-2] if verb.endswith(("sses", "shes", "ches", "xes")) else verb[:-1]


def possessive(who: str, thing: str) -> str:
    """ "their next turn" for a player p, "your next turn" for you."""
    mine = POSSESSIVE.get(who.lower())
    return f"{mine} {thing}" if mine else f"their {thing}"


def owned_by(owner: str, thing: str) -> str:
    """ "p's hand", "the current player's hand", "my hand", or "the hand of the player to the left of p"."""
    mine = POSSESSIVE.get(owner.lower()) if owner != "I" else "my"
    if mine:
        return f"{mine} {thing}"
    simple = " " not in owner or (owner.startswith("the ") and owner.count(" ") <= 2 and " of " not in owner) \
        or owner in ("a player", "every player", "each player")
    if simple and not owner.startswith("("):
        return f"{owner}'s {thing}"
    return f"the {thing} of {owner}"


def range_text(values: tuple[Any, ...]) -> str:
    if len(values) > 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values) and \
            list(values) == list(range(values[0], values[0] + len(values))):
        return f"{values[0]} to {values[-1]}"
    if len(values) > 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values) and \
            list(values) == list(range(values[0], values[0] - len(values), -1)):
        return f"{values[0]} down to {values[-1]}"
    return ", ".join(value_text(v) for v in values)


def table_cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")
