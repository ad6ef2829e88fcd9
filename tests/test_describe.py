"""rulespec describe: the rules as Markdown generated from any spec's model."""

from __future__ import annotations

import glob

import pytest

from rulespec import SpecError, compile_file, compile_text
from rulespec.describe import describe
from tests.conftest import GAMES, ROOT

EVERYTHING = """\
rulespec: 1
game:
  name: Everything
  description: A spec that uses every statement.
  players: {min: 2, max: 3}
  seat_names: [north, south, east]
options:
  rounds: {type: int, default: 2, min: 1, max: 9, description: Rounds to play.}
  fast: {type: bool, default: false}
cards:
  name: "{colour} {number}"
  list:
    - family: {colour: [red, blue], number: "1..4"}
      copies: 2
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
  table: {visibility: top}
  spot: {per: cell}
board: {rows: 2, cols: 3}
pieces:
  stone: {per_player: 1}
variables:
  passes: {type: int, initial: 0, reset: round}
  leader: {type: player, initial: none}
define:
  big(c): c.number >= 3
procedures:
  bump(p):
    - p.score += 1
actions:
  play:
    for: card in hand(current) if big(card) or option.fast
    label: "play {card}"
    do:
      - move card to table face up
      - flip card face down
      - call bump(current)
  wait:
    label: wait
    do:
      - passes += 1
      - skip left(current)
      - end turn
round:
  setup:
    - move all cards to deck
    - shuffle deck
    - deal 2 from deck to hand
    - draw 1 from deck to table face up
    - move top deck to spot(cell('a1'))
    - move bottom deck to hand(current) at bottom
    - repeat:
        - draw from deck to table
      until: count(table) >= 2
      max: 5
    - while: count(deck) > 20
      max: 30
      do: [move random deck to table]
    - place stone of current at cell(1, 1)
    - remove first(pieces(current))
  turn:
    - let n = count(hand(current))
    - if: n == 0
      then: [end round]
    - choose: [play, wait]
      prompt: your move
    - emit moved(player=current, left=n - 1) to current
  end_when: passes > 3
  scoring:
    - for: p in players
      do:
        - p.score -= count(hand(p))
    - leader = first(argmax(p.score for p in players))
match:
  end_when: round >= option.rounds
"""

EVERYTHING_MD = """\
# Everything

A spec that uses every statement.

**Players:** 2 or 3.

**Seats:** north, south, east (in seat order).

## Options

| option | type | default | allowed | meaning |
|---|---|---|---|---|
| `rounds` | int | 2 | 1 to 9 | Rounds to play. |
| `fast` | bool | false | true, false |  |

## Cards

Cards are named "{colour} {number}".

| cards | copies | attributes |
|---|---|---|
| one for each colour red, blue and each number 1 to 4 (8 kinds) | 2 | - |

Deck (default options): 16 cards, 2 of each: red 1, red 2, red 3, red 4, blue 1, blue 2, blue 3, blue 4.

## Zones

| zone | one per | who sees the cards | cards lie | shown as |
|---|---|---|---|---|
| `deck` | table (one) | nobody sees its cards, only how many there are | face down | deck |
| `hand` | player | only its owner sees its cards; the others see how many there are | face up | hand |
| `table` | table (one) | everyone sees the top card only, and how many cards there are | face up | table |
| `spot` | board cell | everyone sees its cards | face up | spot |

## Board

A board of 2 rows and 3 columns; cells are named by column (a to c) and row (1 to 2), from a1 to c2.

**stone** pieces: 1 per player.

## Variables

| variable | type | one per | starts as | reset |
|---|---|---|---|---|
| `passes` | int | game | 0 | at each round |
| `leader` | player | game | none | never |

## Definitions

- **big(c)** is c's number is at least 3.

## The match

**End:** the match ends after a round when any of these holds:

- the round number is at least option rounds

**Winners:** the players with the highest total score (ties share the win).

## Each round

**Setup:**

- move all cards to the deck
- shuffle the deck
- deal 2 cards from the deck to each player's hand
- draw a card from the deck to the table face up
- move the top card of the deck to the spot at cell 'a1'
- move the bottom card of the deck to the current player's hand at the bottom
- repeat (at most 5 times):
  - draw a card from the deck to the table
  until the number of cards in the table is at least 2
- while the number of cards in the deck is more than 20 (at most 30 times):
  - move a random card of the deck to the table
- place a stone of the current player on the cell at row 1, column 1
- take the first of the current player's pieces off the board

**Turns:** the player left of the dealer plays first; then play passes to the left (to the next seat).

**A turn:**

- let n be the number of cards in the current player's hand
- if n is 0:
  - the round ends
- the current player chooses one of ("your move"):
  - the action **play** (see Actions)
  - the action **wait** (see Actions)
- announce moved (player = the current player, left = n - 1), to the current player only

**The round also ends** at once when any of these holds:

- passes is more than 3

**Scoring** (at the end of each round):

- for each p in the players:
  - subtract the number of cards in p's hand from p's score
- set leader to the first of the p in the players with the highest p's score (all of them if tied)

## Actions

### play

- **Choice:** any card in the current player's hand where big(card) or option fast
- **Shown as:** "play {card}"
- **Effect:**
  - move card to the table face up
  - turn card face down
  - do bump(the current player) (see Procedures)

### wait

- **Shown as:** "wait"
- **Effect:**
  - add 1 to passes
  - the player to the left of the current player skips their next turn
  - the turn ends

## Procedures

### bump(p)

- add 1 to p's score
"""

TICTACTOE_MD = "\n".join([
    '# Tic-tac-toe',
    '',
    'Three in a row on a 3x3 grid.',
    '',
    '**Players:** 2.',
    '',
    '**Seats:** x, o (in seat order).',
    '',
    '## Board',
    '',
    'A board of 3 rows and 3 columns; cells are named by column (a to c) and row (1 to 3), from a1 to c3.',
    '',
    '**mark** pieces: 5 per player.',
    '',
    '## The match',
    '',
    '**End:** when the rules say the match ends.',
    '',
    '**Winners:** the players with the highest total score (ties share the win).',
    '',
    '**Result of each player p** (from -1 to 1, summing to 0): 0 if the number of winners is'
    ' not 1, otherwise (1 if p is in winners, otherwise -1).',
    '',
    '## Each round',
    '',
    '**Turns:** the player in seat 0 plays first; then play passes to the left (to the next seat).',
    '',
    '**A turn:**',
    '',
    '- the current player chooses:',
    '  - **mark**:',
    '    - **Choice:** any c in the empty cells',
    '    - **Shown as:** "{the current player\'s name}({c\'s row},{c\'s col})"',
    '    - **Effect:**',
    '      - place a mark of the current player on c',
    '      - if the current player has 3 pieces in a straight line:',
    "        - set the current player's score to 1",
    '        - the match ends',
    '      - if the number of the empty cells is 0:',
    '        - the match ends',
    '',
    '## Variants to test',
    '',
    '- 2p: 2 players',
    '',
])


def test_every_construct_renders_as_english():
    assert describe(compile_text(EVERYTHING, "everything.yaml")) == EVERYTHING_MD


def test_tictactoe_exactly():
    assert describe(compile_file(str(GAMES / "tictactoe.yaml"))) == TICTACTOE_MD


def test_card_game_sentences():
    text = describe(compile_file(str(GAMES / "highjack.yaml")))
    for sentence in [
        "- draw 2 cards from the pile to opp's hand",
        "| `pile` | table (one) | nobody sees its cards, only how many there are | face down | Take a Hit pile |",
        "| `hand` | player | only its owner sees its cards; the others see how many there are | face up | hand |",
        "| `target` | int | 420 | 1 to 100000 |",
        "- deal 4 cards from the pile to each player's hand",
        "**Turns:** the player left of the dealer plays first; then play passes to the left (to the next seat).",
        "- move all cards of p's passing to the hand of the player to the left of p",
        "- the round number is at least option max_rounds",
    ]:
        assert sentence in text


def test_board_game_sentences():
    text = describe(compile_file(str(GAMES / "highhand.yaml")))
    model = compile_file(str(GAMES / "highhand.yaml")).model
    for action in model.actions:
        assert f"\n### {action.action}\n" in text
    for option in model.options:
        assert f"| `{option.name}` |" in text
    for zone in model.zones:
        assert f"| `{zone.name}` |" in text
    assert "A board of 6 rows and 6 columns" in text
    assert "- **Allowed when:** not both_can_move" in text


SPECS = sorted(glob.glob(str(GAMES / "*.yaml")) + glob.glob(str(ROOT / "tests/specs/valid/**/*.yaml"), recursive=True))


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.rsplit("/", 1)[-1])
def test_describe_works_for_any_valid_spec(path):
    try:
        gamedef = compile_file(path)
    except SpecError:
        pytest.skip("not a complete spec on its own")
    text = describe(gamedef)
    assert text.startswith(f"# {gamedef.model.name}\n") and text.endswith("\n")
    assert "<rulespec" not in text and "object at 0x" not in text  # every node rendered as words
    for procedure in gamedef.model.procedures:
        assert f"### {procedure.name}" in text
