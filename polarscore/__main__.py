"""``python -m polarscore`` runs the command line."""

import sys

from polarscore.cli import main

sys.exit(main())
