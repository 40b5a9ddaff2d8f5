"""``cosched annotate``: add a paper's per-job profile to an SWF workload.

The output is ``OUT.swf`` plus the sidecar ``OUT.profile.parquet`` holding the profile
columns (see :mod:`cosched.workload.sidecar`). Annotator parameters are given as
``--param name=value``; values are Python literals (``0.1``, ``(0.7,0.25,0.05)`` or
``0.7,0.25,0.05``, ``None``), anything else is a string (``mixture=M2``).
"""

from __future__ import annotations

import argparse
import ast
import sys
from typing import Any

from cosched.cli._parser import Handler
from cosched.errors import ConfigError, CoschedError

__all__ = ["PARSERS", "parse_params"]


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("profile", metavar="PROFILE", help="profile name")
    p.add_argument("input", metavar="IN.swf", help="workload to annotate")
    p.add_argument("--seed", type=int, required=True, help="random seed")
    p.add_argument(
        "--param", action="append", default=[], metavar="K=V", help="annotator parameter"
    )
    p.add_argument("-o", "--output", required=True, help="annotated SWF file to write")
    p.add_argument("--other", help="coupled: the other machine's workload")
    p.add_argument("--other-out", help="coupled: where to write the other annotated workload")


def _value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_params(items: list[str]) -> dict[str, Any]:
    """``["k=v", ...]`` as a dict, each value read as a Python literal when it is one.

    Raises:
        ConfigError: an item without ``=`` or with an empty name.
    """
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--param must look like name=value (got {item!r})")
        params[key.strip()] = _value(text.strip())
    return params


def _run(args: argparse.Namespace) -> str:
    import numpy as np

    from cosched.workload.profiles import annotate
    from cosched.workload.profiles.coupled import pair_workloads
    from cosched.workload.sidecar import write_annotated
    from cosched.workload.sources import open_workload

    params = parse_params(args.param)
    rng = np.random.default_rng(args.seed)
    w = open_workload(args.input, seed=args.seed)
    if args.profile != "coupled":
        out = annotate(args.profile, w, rng=rng, **params)
        write_annotated(out, args.output)
        return f"wrote {len(out)} jobs with {args.profile} profile to {args.output}"
    if not args.other:
        raise ConfigError("the coupled profile needs --other OTHER.swf")
    a, b = pair_workloads(w, open_workload(args.other, seed=args.seed), rng=rng, **params)
    write_annotated(a, args.output)
    if args.other_out:
        write_annotated(b, args.other_out)
    mates = int((a.table["coupled_mate"] >= 0).sum())
    return f"wrote {len(a)} jobs ({mates} with a mate) to {args.output}"


def run_annotate(args: argparse.Namespace) -> int:
    """Handle ``annotate``: load, annotate, write SWF + sidecar, print a summary."""
    try:
        message = _run(args)
    except (CoschedError, OSError, TypeError) as exc:
        # TypeError: a --param the annotator does not take.
        print(f"cosched annotate: {exc}", file=sys.stderr)
        return 2
    print(message)
    return 0


#: ``cosched annotate`` (its texts: :mod:`cosched.cli.commands`).
PARSERS = {"annotate": Handler(run_annotate, _arguments)}
