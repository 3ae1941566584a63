"""``python -m abilities.mathlas ...``: the mathlas CLI."""

import sys

from abilities.mathlas.cli import main

raise SystemExit(main(sys.argv[1:]))
