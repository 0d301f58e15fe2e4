"""``python -m suspension_sim`` runs the CLI."""

import sys

from suspension_sim.cli import main

sys.exit(main())
