"""``rulespec`` (and ``python -m interpreter``): the command line, loaded so that a Ctrl-C
while Python is still importing the engine ends quietly too (exit 130)."""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        print("rulespec: interrupted", file=sys.stderr)
        return 130
    return run()


if __name__ == "__main__":
    sys.exit(main())
