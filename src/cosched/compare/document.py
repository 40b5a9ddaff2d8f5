"""The comparison's report as a document: Markdown lines, each figure saved as PNG and
SVG, and the self-contained HTML page (figures inline as SVG) written from the lines.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Document", "write_html"]


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.find("<svg") :]


def _save(out: Path, name: str, fig: Figure, svgs: dict[str, str]) -> str:
    """Write the figure as PNG and SVG under ``out/figures``; keep its SVG for the HTML."""
    import matplotlib.pyplot as plt

    (out / "figures").mkdir(exist_ok=True)
    try:
        fig.savefig(out / "figures" / f"{name}.png", dpi=150, metadata={"Software": None})
        svgs[name] = _svg(fig)
        (out / "figures" / f"{name}.svg").write_text(svgs[name])
    finally:
        plt.close(fig)
    return f"figures/{name}.png"


def _md_table(frame: pd.DataFrame) -> list[str]:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return lines


@dataclass
class Document:
    """The report as Markdown lines plus the SVG of each figure (for the HTML), and
    the figures that could not be drawn (``(name, error)``)."""

    out: Path
    md: list[str] = field(default_factory=list)
    svgs: dict[str, str] = field(default_factory=dict)
    failed: list[tuple[str, str]] = field(default_factory=list)

    def add(self, *lines: str) -> None:
        self.md.extend(lines)

    def table(self, frame: pd.DataFrame) -> None:
        self.md.extend([*_md_table(frame), ""])

    def figure(self, name: str, draw: Callable[[], Figure]) -> None:
        """Draw one figure on its own: any error it meets (in its numbers or in
        matplotlib) leaves a note in its place and the rest of the report intact."""
        try:
            link = _save(self.out, name, draw(), self.svgs)
        except Exception as exc:  # a figure, whatever its error, never costs the report
            error = " ".join(f"{type(exc).__name__}: {exc}".split())  # one Markdown line
            self.failed.append((name, error))
            for suffix in ("png", "svg"):  # no earlier report's figure left as if current
                (self.out / "figures" / f"{name}.{suffix}").unlink(missing_ok=True)
            self.md.extend([f"> **Figure `{name}` could not be drawn** ({error}).", ""])
            return
        self.md.extend([f"![{name}]({link})", ""])


def write_html(path: Path, md: list[str], svgs: Mapping[str, str]) -> None:
    body: list[str] = []
    in_table = False
    for line in md:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not in_table:
                body.append(
                    "<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cells) + "</tr>"
                )
                in_table = True
            elif not set(line) <= set("|-"):
                body.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
            continue
        if in_table:
            body.append("</table>")
            in_table = False
        if line.startswith("!["):
            name = line.split("figures/")[1].split(".png")[0]
            body.append(f"<figure>{svgs[name]}</figure>")
        elif line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("> "):
            body.append(f"<p class='note'>{_inline(line[2:])}</p>")
        elif line.startswith("- "):
            body.append(f"<li>{_inline(line[2:])}</li>")
        elif line:
            body.append(f"<p>{_inline(line)}</p>")
    if in_table:
        body.append("</table>")
    style = (
        "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;font-size:0.85em}td,th{border:1px solid #ccc;"
        "padding:0.2em 0.5em;text-align:right;white-space:nowrap}th{background:#f3f3f3;"
        "white-space:normal}figure{margin:1em 0}.note{border-left:4px solid #D55E00;"
        "padding-left:0.6em}"
        "svg{max-width:100%;height:auto}"
    )
    path.write_text(
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(next((t[2:] for t in md if t.startswith('# ')), 'cosched'))}</title>"
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _inline(text: str) -> str:
    out = html.escape(text)
    while "**" in out:
        out = out.replace("**", "<strong>", 1).replace("**", "</strong>", 1)
    while "`" in out:
        out = out.replace("`", "<code>", 1).replace("`", "</code>", 1)
    return _EMPHASIS.sub(r"<em>\1</em>", out)


#: Markdown's ``*words*`` (after ``**`` is taken): no space just inside either star.
_EMPHASIS = re.compile(r"\*([^*\s](?:[^*]*[^*\s])?)\*")
