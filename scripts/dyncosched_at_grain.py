"""Run the dyncosched reproduction at another message size (grain sensitivity).

``cosched reproduce dyncosched`` uses messages of ``MSG_FACTOR`` x 4,096 bytes (see
docs/timesharing.md, "Time scale of the reproduction"). This script runs the same grid
at another size, e.g. the paper's own 4,096 bytes, and writes the same report and
summary.json. Usage::

    python scripts/dyncosched_at_grain.py --msg-factor 1 --quick --out DIR --workers 2
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    """Command line entry."""
    from cosched.timesharing.reproduce import run

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--msg-factor", type=int, required=True, help="x 4,096 bytes")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    if args.msg_factor < 1:
        ap.error("--msg-factor must be >= 1")
    path = run(
        args.out,
        quick=args.quick,
        workers=args.workers,
        msg_factor=args.msg_factor,
        progress=lambda line: print(line, flush=True),
    )
    print(path)


if __name__ == "__main__":
    main()
