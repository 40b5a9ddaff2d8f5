"""``python -m cosched``: the same as the ``cosched`` command."""

from cosched.cli.main import entry

entry()
