"""``python -m cosched``: the same as the ``cosched`` command."""

import sys

from cosched.cli.main import main

sys.exit(main())
