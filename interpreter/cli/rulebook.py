"""`rulespec rulebook SPEC [VARIANT]`: a rulebook to print (rulespec.rulebook), with a worked scoring
example taken from a round the engine plays with random moves and a fixed seed."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import tempfile
from typing import Any, TextIO

from rulespec import ast as A
from rulespec import compile_file

from .args import add_root, parse_options
from .common import EXIT_OK, CliError, check_file, check_output, root_folder, write_file

FORMATS = ("md", "html", "pdf")
EXAMPLE_SEEDS = range(1, 9)  # the scoring example shows the fullest first round of these seeds
_MAX_EXAMPLE_ACTIONS = 200_000


def add_rulebook_parser(sub: Any) -> None:
    p = sub.add_parser(
        "rulebook", help="a rulebook to print: Markdown, HTML or PDF",
        description="Write the rules as a publisher would print them: the goal, the components (with pictures of "
                    "the cards and the board), setup and a turn as numbered steps, the special cases, scoring with "
                    "an example from a simulated round, the end, options, a glossary and a one-page quick "
                    "reference. VARIANT is a variant spec file (one with `extends:`) or the name of one of the "
                    "spec's `variants:`.")
    p.add_argument("file", metavar="SPEC", help="the spec file (YAML)")
    p.add_argument("variant", metavar="VARIANT", nargs="?", help="a variant spec file, or a variant's name")
    p.add_argument("--players", type=int, metavar="N", help="write the rules for N players only")
    p.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                   help="set a spec option (repeatable); the rules are written with its value")
    p.add_argument("--format", "-f", choices=FORMATS, default=None,
                   help="md (default), html (one self-contained page with print styles) or pdf (the HTML printed "
                        "by headless Chromium); default: from the --output file's extension, else md")
    p.add_argument("--output", "-o", metavar="FILE", help="write to a file instead of the screen (pdf needs one)")
    p.add_argument("--no-example", action="store_true", help="leave out the scoring example (no simulated round)")
    add_root(p, "`extends:`")


def cmd_rulebook(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    root = root_folder(args)
    path = check_file(args.file)
    check_output(args.output, "--output")
    fmt = args.format or (os.path.splitext(args.output)[1].lstrip(".").lower() if args.output else "md")
    if fmt not in FORMATS:
        fmt = "md"
    if fmt == "pdf" and not args.output:
        raise CliError("--format pdf needs --output FILE.pdf")
    options = parse_options(args.option)
    players = args.players
    name = ""
    if args.variant:
        if os.path.isfile(args.variant):
            base = compile_file(path, root=root).model.name
            path, name = args.variant, f"a variant of {base}"
        else:
            gamedef = compile_file(path, root=root)
            found = [v for v in gamedef.model.variants if v.name == args.variant]
            if not found:
                names = ", ".join(repr(v.name) for v in gamedef.model.variants if v.name) or "none"
                raise CliError(f"no variant named {args.variant!r} in {args.file} (its variants: {names})")
            name = found[0].name
            players = players or found[0].players
            options = {**dict(found[0].options), **options}
    text = rulebook_text(path, fmt if fmt != "pdf" else "html", players, options, name, root,
                         example=not args.no_example)
    if fmt == "pdf":
        print_pdf(text, args.output)
    elif args.output:
        write_file(args.output, text)
    else:
        out.write(text)
    return EXIT_OK


def rulebook_text(path: str, fmt: str, players: int | None = None, options: dict[str, Any] | None = None,
                  variant: str = "", root: str | None = None, example: bool = True) -> str:
    """The rulebook of the spec at ``path`` as Markdown (``fmt="md"``) or HTML."""
    from rulespec.rulebook import build, to_html, to_markdown

    gamedef = compile_file(path, root=root)
    worked = simulated_round(path, players, options or {}, root) if example else None
    book = build(gamedef, worked, players=players, options=options, variant=variant)
    return to_html(book) if fmt == "html" else to_markdown(book)


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def print_pdf(html: str, output: str) -> None:
    browser = chromium()
    if browser is None:
        raise CliError("--format pdf needs headless Chromium (chromium, chromium-browser or google-chrome on PATH); "
                       "write --format html and print it from a browser instead")
    with tempfile.TemporaryDirectory() as folder:
        page = os.path.join(folder, "rulebook.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(html)
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                   f"--user-data-dir={os.path.join(folder, 'profile')}",
                   f"--print-to-pdf={os.path.abspath(output)}", "file://" + page]
        try:
            done = subprocess.run(command, capture_output=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CliError(f"Chromium could not print the PDF: {exc}", 1) from exc
        if done.returncode != 0 or not os.path.exists(output):
            raise CliError(f"Chromium could not print the PDF (exit {done.returncode})", 1)


# ---------------------------------------------------------------------- the worked example
def simulated_round(path: str, players: int | None, options: dict[str, Any], root: str | None = None) -> Any:
    """The fullest first round (the most cards in the zones the scoring reads) of the matches the
    engine plays with random moves and the seeds ``EXAMPLE_SEEDS`` (with ``players``, default the
    spec's smallest count): for each player, the cards of every per-player zone the scoring reads, the best hand when a
    ranking scores it, and the round's score. None when the spec scores nothing."""
    from interpreter import load_game
    from rulespec.rulebook import PlayerRound, RoundExample, Speaker, score_zones

    game = load_game(path, players=players, options=options or None, root=root) if root else \
        load_game(path, players=players, options=options or None)
    gamedef = game.gamedef
    sp = Speaker(gamedef)
    zones = score_zones(sp)
    if not gamedef.model.round.scoring.stmts:
        return None
    round_code = next((c for c in game.codes if hasattr(c, "end_round") and hasattr(c, "phases")), None)
    if round_code is None:
        return None
    best: tuple[int, int, Any] | None = None  # (cards in the scored zones, -seed, what was captured)
    for seed in EXAMPLE_SEEDS:  # the fullest first round of a few seeds: the most to count
        captured = _first_round(game, round_code, seed)
        if captured is None:
            continue
        views = captured[0]
        cards_held = sum(len(_own(v, z, p)) for p, v in enumerate(views) for z in zones)
        if best is None or cards_held > best[0]:
            best = (cards_held, -seed, captured)
    if best is None:
        return None
    seed = -best[1]
    views, scores, report = best[2]
    summed = _summed_attribute(sp)
    names = game.cards.names
    fields = {n: {a: game.cards.attrs[a][i] for a in game.cards.attrs} for i, n in enumerate(names)}
    ranking = _scoring_ranking(sp, game)
    seats = []
    for p, view in enumerate(views):
        held: dict[str, list[tuple[str, Any]]] = {}
        category = ""
        for z in zones:
            mine = _own(view, z, p)
            label = sp.zones[z].label
            held[label] = [(c, fields.get(c, {}).get(summed, "") if summed else "") for c in mine if c]
            if ranking is not None and mine:
                ids = [names.index(c) for c in mine if c in names]
                _, used, category = ranking.evaluate(ids)
                category = f"{category}: {', '.join(names[i] for i in used)}"
        seats.append(PlayerRound(f"Player {p + 1}", held, scores[p], category))
    return RoundExample(seed, game.num_players, dict(options), 1, seats, report=report)


def _own(view: dict[str, Any], zone: str, p: int) -> list[Any]:
    """The cards of player ``p``'s ``zone`` in ``p``'s own view."""
    cards = view["zones"].get(zone, [])
    mine = cards[p] if isinstance(cards, list) and p < len(cards) else []
    return mine if isinstance(mine, list) else (mine or {}).get("cards", [])


def _first_round(game: Any, round_code: Any, seed: int) -> tuple[list[Any], list[Any], dict[str, Any]] | None:
    """Every seat's view when the first round of a random match (``seed``) ends, the round's
    scores and the round report."""
    captured: list[Any] = []
    original = round_code.end_round

    def capture(s: Any) -> None:
        if captured:
            original(s)
            return
        views = [game.observe(s, p, events=False) for p in range(game.num_players)]
        scores = list(s.score)
        original(s)
        event = s.events[-1] if s.events else {}
        report = {k: v for k, v in event.items() if k not in ("type", "round", "scores", "totals")}
        captured.append((views, scores, report))

    round_code.end_round = capture
    try:
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        steps = 0
        while not captured and not state.is_terminal() and steps < _MAX_EXAMPLE_ACTIONS:
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    finally:
        round_code.end_round = original
    return captured[0] if captured else None


def _summed_attribute(sp: Any) -> str | None:
    """The card attribute the scoring adds up (``sum(c.points for c in ...)``), if any."""
    seen: list[Any] = [sp.model.round.scoring]
    for node_root in seen:
        for node in A.walk(node_root):
            if isinstance(node, A.Agg) and node.func == "sum" and isinstance(node.comp.elt, A.Attr):
                return node.comp.elt.name
            if isinstance(node, A.Call) and node.func in sp.defines and sp.defines[node.func].body not in seen:
                seen.append(sp.defines[node.func].body)
            if isinstance(node, A.CallProc) and isinstance(node.target, A.Name) and node.target.id in sp.procs:
                body = sp.procs[node.target.id].body
                if body not in seen:
                    seen.append(body)
    return None


def _scoring_ranking(sp: Any, game: Any) -> Any:
    for node in A.walk(sp.model.round.scoring):
        if isinstance(node, A.Call) and node.args and isinstance(node.args[0], A.Name) \
                and node.args[0].id in game.link.rankings:
            return game.link.rankings[node.args[0].id]
    return None
