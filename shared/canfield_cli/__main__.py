"""``python -m canfield_cli`` runs the ``canfield-race`` console script."""

import sys

from canfield_cli.main import main

sys.exit(main())
