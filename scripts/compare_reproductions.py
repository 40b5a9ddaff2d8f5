"""Compare two runs of a reproduction value by value (e.g. before and after a refactor).

    python scripts/compare_reproductions.py BEFORE/summary.json AFTER/summary.json \\
        [--rename utilization=node_busy_utilization ...]

Every number of BEFORE is looked up in AFTER at the same place (records in the same
order, metric under its name, or under its new name after ``--rename old=new``) and must
be equal bit for bit (NaN equals NaN). Timings (keys with ``elapsed``, ``seconds`` or
``_ns``) are skipped. Prints what differs, what is missing and the metric names only
AFTER has; exits 1 if anything differs or is missing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from typing import Any

SKIP = ("elapsed", "seconds", "_ns")


def leaves(x: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, (*path, str(k)))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from leaves(v, (*path, f"[{i}]"))
    else:
        yield path, x


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--rename", action="append", default=[], metavar="OLD=NEW")
    args = p.parse_args()
    rename = dict(r.split("=", 1) for r in args.rename)
    with open(args.before) as fa, open(args.after) as fb:
        before = dict(leaves(json.load(fa)))
        after = dict(leaves(json.load(fb)))
    compared = differ = missing = 0
    for path, value in before.items():
        if any(s in path[-1] for s in SKIP):
            continue
        new = (*path[:-1], rename.get(path[-1], path[-1]))
        if new not in after:
            missing += 1
            print("missing ", "/".join(path))
            continue
        compared += 1
        if not same(value, after[new]):
            differ += 1
            print("differs ", "/".join(path), value, after[new])
    old_names = {rename.get(p[-1], p[-1]) for p in before}
    added = sorted({p[-1] for p in after} - old_names)
    print(f"compared {compared} values: {differ} differ, {missing} missing")
    print(f"names only in {args.after}: {', '.join(added) or 'none'}")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.exit(main())
