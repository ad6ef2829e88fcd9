"""``python -m interpreter.cli``: the command line, as ``rulespec`` runs it."""

import sys

from . import main

sys.exit(main())
