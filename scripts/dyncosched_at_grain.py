"""Run the dyncosched reproduction at another message size (grain sensitivity).

``cosched reproduce dyncosched`` uses messages of ``msg_factor`` x 4,096 bytes, a
parameter of its spec (1 by default: the paper's own 4,096 bytes; see
docs/timesharing.md, "Time scale of the reproduction"). This script runs the same spec
with another ``msg_factor``, e.g. 16 (64 KiB, a coarser grain than the paper's) (the same
as copying the spec with ``--print-spec``, editing ``msg_factor`` and running the copy
with ``cosched sweep``). Usage::

    python scripts/dyncosched_at_grain.py --msg-factor 16 --quick --out DIR --workers 2
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path


def main() -> None:
    """Command line entry."""
    from cosched.experiments.executors import make_executor
    from cosched.experiments.model import experiment_from_dict
    from cosched.experiments.reproductions import spec_text
    from cosched.experiments.runner import run_experiment

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--msg-factor", type=int, required=True, help="x 4,096 bytes")
    ap.add_argument("--out", type=Path, required=True, help="the store folder")
    ap.add_argument("--quick", action="store_true", help="the spec's [quick] grid")
    ap.add_argument("--workers", type=int, default=1, help="local processes")
    args = ap.parse_args()
    if args.msg_factor < 1:
        ap.error("--msg-factor must be >= 1")
    data = tomllib.loads(spec_text("dyncosched"))
    data["params"]["msg_factor"] = args.msg_factor
    exp = experiment_from_dict(data, source="dyncosched.toml", quick=args.quick)
    command = f"python scripts/dyncosched_at_grain.py --msg-factor {args.msg_factor}"
    run_experiment(
        exp,
        args.out,
        executor=make_executor(args.workers),
        command=command + (" --quick" if args.quick else ""),
    )
    print(args.out / "report.md")


if __name__ == "__main__":
    main()
