"""``cosched generate``: write a synthetic workload as an SWF file."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from cosched.errors import CoschedError

if TYPE_CHECKING:
    import pandas as pd

from cosched.cli._parser import Handler

__all__ = ["PARSERS"]


def _lublin_arguments(p: argparse.ArgumentParser) -> None:
    from cosched.cli._checks import MAX_SIZE, count

    p.add_argument("--nodes", type=count(1, MAX_SIZE), required=True, help="machine size in nodes")
    p.add_argument("--jobs", type=count(0), required=True, help="number of jobs")
    p.add_argument("--seed", type=count(0), required=True, help="random seed")
    p.add_argument("--typeless", action="store_true", help="single-class model (queue 0)")
    rate = p.add_mutually_exclusive_group()
    rate.add_argument("--alpha", type=float, help="shape of the inter-arrival gamma")
    rate.add_argument("--load", type=float, help="target offered load (scales arrivals)")
    p.add_argument("-o", "--output", required=True, help="SWF file to write (.swf or .swf.gz)")


def run_lublin(args: argparse.Namespace) -> int:
    """Handle ``generate lublin``: generate and write in chunks, print a one-line summary.

    Memory stays at a few chunks of jobs whatever ``--jobs``; the file is the same, byte
    for byte, as writing :func:`~cosched.workload.models.generate_lublin`'s workload.
    """
    import numpy as np

    from cosched.cli._checks import check_writable
    from cosched.workload.models import lublin_chunks
    from cosched.workload.swf_write import swf_table, write_swf_chunks

    check_writable(Path(args.output), flags=("-o/--output",))
    totals = {"work": 0.0, "first": float("nan"), "last": float("nan")}

    def tables() -> Iterator[pd.DataFrame]:
        totals.update(work=0.0, first=float("nan"))
        for t in gen:
            sub = t["submit_time"].to_numpy()
            totals["work"] += float(np.dot(t["run_time"].to_numpy(), t["procs"].to_numpy(float)))
            totals["first"] = sub[0] if totals["first"] != totals["first"] else totals["first"]
            totals["last"] = float(sub[-1])
            yield swf_table(t)

    try:
        gen = lublin_chunks(
            args.jobs,
            nodes=args.nodes,
            rng=np.random.default_rng(args.seed),
            typeless=args.typeless,
            alpha=args.alpha,
            load=args.load,
        )
        head = {**gen.header, "MaxNodes": str(args.nodes), "MaxProcs": str(args.nodes)}
        write_swf_chunks(tables, args.output, head)
    except (CoschedError, OSError) as exc:
        print(f"cosched generate: {exc}", file=sys.stderr)
        return 2
    span = totals["last"] - totals["first"]
    # offered_load's definition: sum(run_time x procs) / (nodes x submit span).
    load = ""
    if gen.n > 1 and span > 0:
        load = f", offered load {totals['work'] / (args.nodes * span):.3f}"
    print(f"wrote {gen.n} jobs ({gen.name}, {args.nodes} nodes{load}) to {args.output}")
    return 0


#: ``cosched generate lublin`` (its texts: :mod:`cosched.cli.commands`).
PARSERS = {"generate lublin": Handler(run_lublin, _lublin_arguments)}
