"""The report builder: ``DIR/report.md`` and ``DIR/report.html`` from the store alone.

The report has the provenance (cosched version, command, seeds, traces and their
checksums, the spec), a summary table with the mean and the 95% Student-t confidence
interval of each metric over the seeds of every configuration, the failed cells, and
the experiment's own *report section*: a function named by the spec's ``report`` key,
called as ``section(results, out, meta) -> list of Markdown lines`` (it may write
figures into ``out``). A spec's ``claims`` key names the function that declares its
paper's claims (:mod:`cosched.experiments.claims`): they are judged on the results,
written to ``DIR/claims.parquet`` and shown first. ``cosched report DIR`` rebuilds all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cosched.experiments.model import resolve
from cosched.experiments.stats import Interval, mean_ci
from cosched.experiments.store import META_KEY, atomic, attach_claims, read_results

__all__ = ["ReportSection", "build_report", "ci_table", "group_intervals", "write_claims"]

ReportSection = Callable[[pd.DataFrame, Path, Mapping[str, Any]], list[str]]

_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse;font-size:90%}}td,th{{border:1px solid #ccc;padding:2px 6px}}
img{{max-width:100%}}pre{{background:#f6f6f6;padding:1em;overflow:auto}}</style>
</head><body>
{body}
</body></html>
"""


def _is_numeric(series: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(series)) and not pd.api.types.is_bool_dtype(series)


def group_intervals(
    table: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]
) -> list[tuple[tuple[Any, ...], dict[str, Interval]]]:
    """``(configuration, {metric: Interval over its seeds})`` for the finished cells.

    Configurations are the distinct values of ``by`` (nulls allowed), in sorted order.
    """
    ok = table[table["status"] == "ok"]
    if ok.empty:
        return []
    keys = ok[list(by)].astype(object).where(ok[list(by)].notna(), None)
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, row in enumerate(keys.itertuples(index=False, name=None)):
        groups.setdefault(tuple(row), []).append(i)
    out = []
    for config in sorted(groups, key=lambda c: json.dumps(c, default=str)):
        rows = ok.iloc[groups[config]]
        out.append((config, {m: mean_ci(rows[m].to_numpy(dtype=np.float64)) for m in metrics}))
    return out


def ci_table(table: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> list[str]:
    """A Markdown table: one row per configuration, ``mean ± half-width`` per metric."""
    head = [*by, "seeds", *metrics]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for config, cis in group_intervals(table, by, metrics):
        n = max((ci.n for ci in cis.values()), default=0)
        cells = ["" if v is None else f"{v:g}" if isinstance(v, float) else str(v) for v in config]
        lines.append("| " + " | ".join([*cells, str(n), *(cis[m].text() for m in metrics)]) + " |")
    return lines


def _provenance(meta: Mapping[str, Any], table: pd.DataFrame) -> list[str]:
    counts = table["status"].value_counts().to_dict()
    lines = [
        "## Provenance",
        "",
        f"- cosched version: {meta.get('cosched_version', '?')}",
        f"- command: `{meta.get('command', '?')}` (each invocation's full command line, "
        "executor and times are in `runs.jsonl`)",
        f"- seeds: {', '.join(str(s) for s in meta.get('seeds', []))}",
        f"- cells: {len(table)} ({', '.join(f'{v} {k}' for k, v in sorted(counts.items()))})",
    ]
    for name, digest in meta.get("traces", {}).items():
        lines.append(f"- trace `{name}`: SHA-256 `{digest}`")
    lines += [
        "",
        "<details><summary>The spec</summary>",
        "",
        "```json",
        json.dumps(meta.get("spec", {}), indent=1, sort_keys=True),
        "```",
        "",
        "</details>",
        "",
    ]
    return lines


def _summary(table: pd.DataFrame, meta: Mapping[str, Any]) -> list[str]:
    cols = meta.get("columns", {})
    params = [p for p in cols.get("params", []) if p in table.columns]
    wanted = meta.get("spec", {}).get("metrics") or cols.get("metrics", [])
    metrics = [m for m in wanted if m in table.columns and _is_numeric(table[m])]
    by = [p for p in params if table[p].nunique(dropna=False) > 1] or params[:1]
    lines = [
        "## Summary",
        "",
        "Mean over the seeds of each configuration, ± the half-width of the 95% "
        "Student-t confidence interval (t quantile with n-1 degrees of freedom x sample "
        "standard deviation / sqrt(n)); one seed gives no interval.",
        "",
    ]
    if not metrics or not by:
        return [*lines, "(no numeric metrics)", ""]
    return [*lines, *ci_table(table, by, metrics), ""]


def _failed(table: pd.DataFrame) -> list[str]:
    bad = table[table["status"] != "ok"]
    if bad.empty:
        return []
    lines = ["## Cells not finished", "", "| key | status | error |", "|---|---|---|"]
    for key, status, error in zip(bad["key"], bad["status"], bad["error"], strict=True):
        lines.append(f"| {key} | {status} | {str(error).replace('|', '/')} |")
    return [*lines, ""]


def write_claims(
    root: Path, table: pd.DataFrame, meta: Mapping[str, Any], target: str
) -> list[str]:
    """Judge the claims declared by ``target`` on ``table``; write ``root/claims.parquet``
    and carry the same table in ``root/results.parquet``'s metadata (``claim_table``).

    Returns:
        The claim table as Markdown lines.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cosched.experiments.claims import claims_markdown, evaluate

    declared = resolve(target)()
    # A claim on per-job outcomes (node sharing's Table 1) reads the store's per-cell
    # tables: the results frame names its store.
    table = table.copy()
    table.attrs["store"] = str(root)
    claims = evaluate(declared, table, str(meta.get("experiment", root.name)))
    blob = json.dumps(
        {"command": meta.get("command"), "claims": target, "seeds": meta.get("seeds", [])},
        sort_keys=True,
    ).encode()
    data = pa.Table.from_pandas(claims, preserve_index=False)
    data = data.replace_schema_metadata({META_KEY: blob})
    with atomic(root / "claims.parquet") as tmp:
        pq.write_table(data, tmp)
    attach_claims(root, claims)
    return claims_markdown(claims)


def build_report(out: str | os.PathLike[str]) -> Path:
    """Write ``out/report.md`` and ``out/report.html`` from ``out/results.parquet``.

    Returns:
        The path of ``report.md``.

    Raises:
        ConfigError: no results file in ``out``.
    """
    import markdown

    root = Path(out)
    table, meta = read_results(root)
    name = meta.get("experiment", root.name)
    lines = [f"# {name}", ""]
    claims = meta.get("spec", {}).get("claims")
    if claims:
        lines += write_claims(root, table, meta, claims)
    section = meta.get("spec", {}).get("report")
    if section:
        fn: ReportSection = resolve(section)
        lines += [*fn(table, root, meta), ""]
    lines += _summary(table, meta) + _failed(table) + _provenance(meta, table)
    text = "\n".join(lines).rstrip() + "\n"
    md = root / "report.md"
    with atomic(md) as tmp:
        tmp.write_text(text, encoding="utf-8")
    body = markdown.markdown(text, extensions=["tables", "fenced_code"])
    with atomic(root / "report.html") as tmp:
        tmp.write_text(_HTML.format(title=name, body=body), encoding="utf-8")
    return md
