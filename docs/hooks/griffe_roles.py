"""Griffe extension: the reStructuredText marks of docstrings, read as Markdown.

cosched's docstrings name other objects with Sphinx roles (``:class:`SystemView```,
``:func:`~cosched.metrics.outcomes```) and introduce examples with ``::``, which
Markdown would print as they are. This extension rewrites each role into a code span of
the name it shows (the last part after ``~``, the title of ``title <target>``) and a
closing ``::`` into ``:`` (the indented block after it is a code block in Markdown too),
so the reference reads as the source does.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`([^`]+)`")
LITERAL = re.compile(r"(?<=\S)::$", re.MULTILINE)


def _shown(match: re.Match[str]) -> str:
    target = match.group(1).strip()
    title = re.fullmatch(r"(.+?)\s*<(.+)>", target)
    if title:
        return f"`{title.group(1)}`"
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


def rewrite(text: str) -> str:
    """``text`` with every Sphinx role replaced by a code span, and ``::`` by ``:``."""
    return LITERAL.sub(":", ROLE.sub(_shown, text))


class SphinxRoles(griffe.Extension):
    """Rewrite the roles of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
