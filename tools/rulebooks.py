"""Regenerate the rulebooks in docs/rulebooks/ (Markdown and HTML) from the specs in games/.

    python tools/rulebooks.py           # rewrite every rulebook
    python tools/rulebooks.py --check   # exit 1, naming the files, when one is not current

tests/test_rulebook_docs.py runs the check. Each rulebook is `rulespec rulebook games/GAME.yaml`
(its scoring example is a round the engine simulates with a fixed seed).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.cli.rulebook import rulebook_text  # noqa: E402

GAMES = ("highjack", "highhand", "goofspiel", "pig", "tictactoe", "kalah")  # the two seeds first
FOLDER = ROOT / "docs" / "rulebooks"


def expected() -> dict[Path, str]:
    """Every rulebook file and the text it should hold."""
    out: dict[Path, str] = {}
    for game in GAMES:
        spec = str(ROOT / "games" / f"{game}.yaml")
        for fmt in ("md", "html"):
            out[FOLDER / f"{game}.{fmt}"] = rulebook_text(spec, fmt)
    return out


def main(argv: list[str]) -> int:
    stale = []
    for path, text in expected().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if "--check" not in argv:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if "--check" in argv and stale:
        print("not current (run python tools/rulebooks.py): " + ", ".join(str(p.relative_to(ROOT)) for p in stale))
        return 1
    for path in stale:
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
