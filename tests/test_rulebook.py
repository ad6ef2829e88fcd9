"""`rulespec rulebook`: every rule of the two seed rulebooks appears in the generated text, the main
text is at most 1.5 times the seed's length, a changed number or condition in a spec shows in the
rulebook, no engine internals show, and the CLI writes Markdown, HTML and PDF."""

from __future__ import annotations

import re
import shutil

import pytest

from interpreter.cli.rulebook import rulebook_text, simulated_round
from rulespec import compile_file, compile_text
from rulespec.rulebook import build, main_text, to_html, to_markdown
from tests.conftest import GAMES, ROOT
from tests.support import run

HIGHJACK = GAMES / "highjack.yaml"
HIGHHAND = GAMES / "highhand.yaml"
SEEDS = {"highjack": ROOT.parent / "shared" / "seeds" / "000_f93607a7072dcdf6.txt",
         "highhand": ROOT.parent / "shared" / "seeds" / "002_0c977d44fca94654.txt"}
# the seed rulebooks' lengths in characters (the files live outside the repository: their
# lengths are kept here, measured with len(open(seed).read()))
SEED_LENGTHS = {"highjack": 3106, "highhand": 12799}

# every rule of the Highjack seed rulebook -> phrases of the generated rulebook that teach it
HIGHJACK_RULES = {
    "2-4 Tokers per deck, up to 8 with two decks": ["For 2 to 8 players", "a deck seats 2 to 4 Tokers"],
    "deal 4 cards to each Toker": ["Deal 4 cards from the Take a Hit pile to each player's hand"],
    "the rest face down as the Take a Hit pile": ["Shuffle all the cards into the Take a Hit pile face down"],
    "play starts left of the dealer": ["Choose a dealer", "The player to the dealer's left plays first"],
    "a turn: take a hit, then play one card": ["Draw a card from the Take a Hit pile to your hand",
                                               "Play one card from your hand"],
    "Stash Box cards into your Stash Box; duplicates stack and score":
        ["A Stash Box card goes face up into your Stash Box",
         "a duplicate goes on top of the matching card and scores"],
    "Action cards face up to the Ashtray; follow the instruction":
        ["An Action card goes face up onto the Ashtray; do what it says"],
    "the player of an Action picks the Opponent": ['You choose which other Toker is the "Opponent"'],
    "call Session": ['Call "Session"'],
    "everybody joins with a Session card face down": ["Every other Toker, in turn order, joins with a Session card"],
    "out of Session cards: take hits until one is found or the cards are gone":
        ["takes hits until they draw one or the pile is empty"],
    "1, 2, 3, Highjack, flip": ['Say "1, 2, 3"; everybody calls "Highjack"'],
    "highest card wins; the winning order": ["The highest card wins", "1 lowest, then 2 to 10, Highjack highest"],
    "no call or no Session card: forfeit and spark it up": ['must "spark it up"', 'forgets to call "Highjack"'],
    "the winner performs the Win Action": ["The winner performs the Win Action"],
    "winning card on top into the Session Pile": ["to their Session Pile, winning card on top"],
    "Stoner's Quarrel": ["Stoner's Quarrel: if two or more Tokers tie for the highest card", "its owner takes all"],
    "a round ends when the Take a Hit pile is drawn":
        ["at the end of a turn if, by then, the Take a Hit pile is empty"],
    "or when a Toker completes their Stash Box": ["or at once when"],
    "completed Stash Box: all Stash Box cards and a Session card":
        ["a player completes their Stash Box, that is: at least one card is in the player's Session Pile and the "
         "player's Stash Box holds at least one of each of the 4 Stash Box cards"],
    "bonus 50": ["50 if you are one of the Tokers who completed their Stash Box"],
    "One Hitter Quitter": ["one hitter quitter (short game): points are not counted, the first Toker to earn the "
                           "bonus wins"],
    "Chronic: first to 420": ["the highest total is at least 420"],
    "a tie: highest score wins": ["If several players share the highest total, nobody has won yet"],
    "points 5-20 on each card": ["| card | copies | type | points |", "| Bong | 3 | stash | 20 |"],
    "Stash Box, Session cards and bonus added": ["The total points of the cards in your Stash Box",
                                                 "The total points of the cards in your Session Pile"],
    "cards in hand subtracted": ["| minus | The total points of the cards in your hand |"],
    "0 is the lowest round score": ["A round score is never below 0"],
    "round totals add up": ["Round scores add up to each player's total"],
}

# every rule of the High Hand seed rulebook -> phrases of the generated rulebook that teach it
HIGHHAND_RULES = {
    "object: the highest-ranking five-card hand": ["Score the most points by forming the highest-ranking five-card"],
    "contents: board, pawns, 52 cards": ["A deck of 52 cards", "The board (6 by 6)"],
    "36 cards face up on the board": ["Deal 1 card face up from the deck onto every space of the board"],
    "the rest is the unused deck": ["Shuffle the cards left in the deck into the unused deck"],
    "a pawn on each corner": ["pawns start on player 1: a6; player 2: f6; player 3: f1; player 4: a1"],
    "highest draw plays first, then to the left": ["the highest number plays first",
                                                   "then play passes to the left"],
    "move horizontally or vertically any number of spaces": ["any number of spaces horizontally or vertically"],
    "land on a card: pick it up, one card a turn": ["If a card lies where it stops, pick it up", "one card a turn"],
    "first turn: not the corner card":
        ["On your first turn of each round the taker may not stop on one of your starting corners"],
    "no diagonal, no change of direction": ["never diagonally, never changing direction"],
    "no two pawns on a space, no jumping": ["never onto or over another pawn"],
    "a blocked pawn loses its turn": ["If you cannot make any move (your pieces are blocked), you lose your turn"],
    "the deck: four colours, 1 to 13": ["colour: Purple, Red, Blue, Green; number: 1 to 13"],
    "declaring a partner": ["name another player as your partner for this round"],
    "the partner cannot refuse": ["they cannot refuse"],
    "the Undeclared Team": ["**Undeclared Team**: The two other players, partners for the round"],
    "the Declaring Player cannot win": ["you cannot win the round yourself (if you hold the high hand, nobody scores)"],
    "a round ends by concession": ["give up the round for their team; the other team wins it"],
    "or when the board is empty": ["the number of cards on the board is 0"],
    "hand ranks A to G and a pair": ["Five in sequence of one colour", "Four of a number", "Three plus two",
                                     "Five of one colour", "Five in sequence", "Three of a number", "Two pairs",
                                     "One pair"],
    "ties: compare the cards": ["the higher group of 2 wins, then the next group, then the remaining cards",
                                "the higher top card wins, then the next, and so on"],
    "ties: the unused cards": ["the cards beyond the hand (a player's unused cards) decide"],
    "scoring: the Declared Team": ["the Declaring Player's Partner: 100; the Declaring Player: 50"],
    "scoring: the Undeclared Team": ["that player: 50; that player's partner: 25"],
    "five rounds": ["The game ends after round 5"],
    "most points wins": ["The player with the highest total wins"],
    "2 players: two pawns on your corners": ["player 1: a1, f1; player 2: a6, f6"],
    "2 players: blocker first, then taker": ["First move your blocker", "Then move your taker"],
    "2 players: choose which is which each turn": ["You choose which pawn is which each turn"],
    "2 players: one pawn blocked": ["move your other pawn once, as either a blocker or a taker, not as both"],
    "2 players: 100 to the winner": ["| With 2 players | each player with the high hand: 100 |"],
}


@pytest.fixture(scope="module")
def books() -> dict[str, str]:
    return {"highjack": rulebook_text(str(HIGHJACK), "md"), "highhand": rulebook_text(str(HIGHHAND), "md")}


@pytest.mark.parametrize("game, rules", [("highjack", HIGHJACK_RULES), ("highhand", HIGHHAND_RULES)])
def test_every_rule_of_the_seed_rulebook_is_taught(books, game, rules):
    text = books[game]
    missing = [f"{rule}: {phrase!r}" for rule, phrases in rules.items() for phrase in phrases if phrase not in text]
    assert not missing, "rules the rulebook does not teach:\n" + "\n".join(missing)


@pytest.mark.parametrize("game, spec", [("highjack", HIGHJACK), ("highhand", HIGHHAND)])
def test_the_main_text_is_at_most_one_and_a_half_times_the_seed(game, spec):
    seed = SEEDS[game]
    if seed.exists():
        assert len(seed.read_text(encoding="utf-8")) == SEED_LENGTHS[game]
    book = build(compile_file(spec), simulated_round(str(spec), None, {}))
    main = main_text(book)
    assert len(main) <= 1.5 * SEED_LENGTHS[game], f"{game}: {len(main)} characters"
    assert "Quick reference" not in main and "Components" not in main


def _changed(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_a_changed_number_and_condition_show_in_the_rulebook():
    text = HIGHJACK.read_text(encoding="utf-8")
    before = to_markdown(build(compile_text(text, str(HIGHJACK))))
    assert "Deal 4 cards" in before and "the highest total is at least 420" in before
    text = _changed(text, "    - deal 4 from pile to hand\n", "    - deal 6 from pile to hand\n")  # hand size
    text = _changed(text, "    default: 420\n", "    default: 300\n")  # target score
    text = _changed(text, "max(p.total for p in players) >= option.target",
                    "max(p.total for p in players) > option.target")  # the condition
    after = to_markdown(build(compile_text(text, str(HIGHJACK))))
    assert "Deal 6 cards from the Take a Hit pile to each player's hand" in after and "Deal 4 cards" not in after
    assert "the highest total is more than 300" in after and "420" not in after
    assert "**Target**, default 300" in after


def test_a_changed_option_value_shows_in_the_rulebook():
    book = to_markdown(build(compile_file(HIGHJACK), options={"target": 250}))
    assert "the highest total is at least 250" in book


@pytest.mark.parametrize("spec", [HIGHJACK, HIGHHAND])
def test_no_engine_internals(books, spec):
    text = books[spec.stem]
    model = compile_file(spec).model
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), re.findall(r"\b[a-z]+_[a-z_]+\b", text)
    assert not re.search(r"\bset \w+ to\b", text, flags=re.I)
    assert not re.search(r"\(R\d+", text)
    assert "let " not in text.lower().replace("letter", "")
    spoken = " ".join(t for _, t in model.abouts).lower()
    for var in model.variables:
        if var.name.lower() not in spoken:
            assert not re.search(rf"\b{re.escape(var.name)}\b", text), f"variable {var.name} named"
    for d in model.defines:
        assert f"{d.name}(" not in text, f"helper {d.name} named"
    assert "Details" not in text and "Terms" not in text


def test_a_guard_is_said_once_as_a_guard(books):
    text = books["highhand"]
    assert text.count("Not a rule, only a limit so that play always ends") == 1
    assert "the number of turns (lost too) since a card was last taken is at least 100" in text


def test_the_scoring_example_comes_from_a_simulated_round():
    from interpreter import load_game

    example = simulated_round(str(HIGHJACK), None, {})
    assert example is not None and len(example.seats) == 2
    table = load_game(str(HIGHJACK), players=2).cards
    points = dict(zip(table.names, table.attrs["points"]))  # the deck's points, read from the spec
    for seat in example.seats:
        for zone in ("Stash Box", "Session Pile", "hand"):
            assert all(points[name] == p for name, p in seat.zones[zone])
        counted = sum(p for _, p in seat.zones["Stash Box"]) + sum(p for _, p in seat.zones["Session Pile"]) \
            - sum(p for _, p in seat.zones["hand"])
        assert seat.score in (max(0, counted), max(0, counted + 50))  # the engine's score, by the table
    text = to_markdown(build(compile_file(HIGHJACK), example))
    assert "An example round (2 players). At the end of round 1:" in text
    assert all(f"| {s.name} |" in text and f"| {s.score} |" in text for s in example.seats)


def test_html_is_self_contained_with_print_styles():
    html = to_html(build(compile_file(HIGHHAND)))
    assert html.startswith("<!DOCTYPE html>") and "@media print" in html
    assert "<svg" in html and 'class="board"' in html and 'class="cards"' in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert 'id="quick"' in html


def test_cli_writes_markdown_and_html(tmp_path):
    status, out, err = run("rulebook", str(HIGHJACK), "--no-example")
    assert status == 0, err
    assert out.startswith("# Highjack") and "## Quick reference" in out
    target = tmp_path / "book.html"
    status, _, err = run("rulebook", str(HIGHHAND), "-o", str(target), "--no-example")
    assert status == 0, err
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_cli_a_named_variant_and_options(tmp_path):
    status, out, err = run("rulebook", str(HIGHJACK), "4 players one hitter quitter", "--no-example")
    assert status == 0, err
    assert "Rules for 4 players one hitter quitter" in out
    status, out, err = run("rulebook", str(HIGHJACK), "-O", "target=500", "--no-example")
    assert status == 0, err
    assert "the highest total is at least 500" in out
    status, _, err = run("rulebook", str(HIGHJACK), "no such variant")
    assert status == 2 and "no variant named 'no such variant'" in err


def test_cli_prints_a_pdf_with_chromium(tmp_path):
    if not any(shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome", "chrome")):
        pytest.fail("no chromium on this machine: the PDF rulebook needs headless Chromium")
    target = tmp_path / "highjack.pdf"
    status, _, err = run("rulebook", str(HIGHJACK), "--format", "pdf", "-o", str(target), "--no-example")
    assert status == 0, err
    assert target.read_bytes().startswith(b"%PDF")


def test_cli_pdf_without_chromium_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    status, _, err = run("rulebook", str(HIGHJACK), "-f", "pdf", "-o", str(tmp_path / "x.pdf"), "--no-example")
    assert status == 2 and "needs headless Chromium" in err


def test_the_tie_examples_of_the_hand_ranking_hold_in_the_engine(books):
    """Each "(A beats B)" example of the ranking section, dealt as real cards, is ranked by the
    engine in the category it illustrates, A above B."""
    from interpreter import load_game

    game = load_game(str(HIGHHAND), players=2)
    ranking = game.link.rankings["poker"]
    names = list(game.cards.names)
    colours = ["Purple", "Red", "Blue", "Green"]
    found = re.findall(r"^- ([^:]+): .*\(([\d, ]+) beats ([\d, ]+)\)$", books["highhand"], flags=re.M)
    assert len(found) == 9
    for category, better, worse in found:
        hands = []
        for numbers in (better, worse):
            same = "one colour" in category
            cards = [f"{colours[0 if same else i % 4]} {n.strip()}" for i, n in enumerate(numbers.split(","))]
            assert len(set(cards)) == len(cards), cards
            value, _, name = ranking.evaluate([names.index(c) for c in cards])
            assert name == category.lower(), (category, cards, name)
            hands.append(value)
        assert hands[0] > hands[1], (category, better, worse)
