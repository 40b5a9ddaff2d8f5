"""MkDocs hook: where each family's reproduction stands, from its claim table.

At every build, :func:`on_page_markdown` puts under the title of each family page a
note generated from the claim tables kept in ``docs/claims/NAME.csv`` (written by
``scripts/readme_status.py`` from a reproduction's store): the verdict counts and the
agreement figure (``cosched.experiments.claims.agreement``, the figure the README and
[Fidelity](../fidelity.md) give), the command whose run the numbers come from, and a
link to the paper's section of the fidelity page. The pages never carry these numbers
by hand, so they cannot disagree with the tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: Family page -> the claim tables (``docs/claims/<name>.csv``) of its papers.
TABLES: dict[str, tuple[str, ...]] = {
    "lomarc.md": ("lomarc",),
    "nodeshare.md": ("nodeshare",),
    "timesharing.md": ("dyncosched", "fcs"),
    "coupled.md": ("coupled",),
}


def status_lines(name: str, table: Any, anchor: str) -> list[str]:
    """The note's lines for one paper's claim table (a DataFrame of the CSV)."""
    from cosched.experiments.claims import agreement

    tally = agreement(table)
    commands = ", ".join(f"`{c}`" for c in sorted(set(table["command"])))
    return [
        f"    **{name}**: of the paper's {len(table)} declared claims, {tally.text()}.",
        f"    Numbers from {commands}; each claim, its verdict and the cause of each gap:",
        f"    [Fidelity](fidelity.md#{anchor}).",
    ]


def _anchor(fidelity: str, name: str) -> str:
    """The slug of the fidelity page's section on ``name`` (``## name (paper)``)."""
    for line in fidelity.splitlines():
        if line.startswith(f"## {name} ("):
            words = line[3:].replace("(", "").replace(")", "").split()
            return "-".join(w.lower() for w in words)
    return name


def status_block(page: str, docs: Path) -> list[str]:
    """The admonition for a family page, or nothing for another page."""
    import pandas as pd

    names = TABLES.get(page)
    if not names:
        return []
    fidelity = (docs / "fidelity.md").read_text(encoding="utf-8")
    lines = ['!!! note "Where the reproduction stands"', ""]
    for name in names:
        table = pd.read_csv(docs / "claims" / f"{name}.csv")
        lines += [*status_lines(name, table, _anchor(fidelity, name)), ""]
    return lines


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: the note, right under the page's title."""
    block = status_block(page.file.src_uri, Path(config["docs_dir"]))
    if not block:
        return markdown
    head, _, rest = markdown.partition("\n")
    return "\n".join([head, "", *block, rest])
