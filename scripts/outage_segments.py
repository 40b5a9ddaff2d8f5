"""The fit part's blocked segments on archive logs: how many the outage rule reads, how
long they last and what share of the unit-seconds they remove, before and after they
are joined into pieces of at least ``MIN_SEGMENT`` (docs/validate.md, "The outage rule's
pieces").

    python scripts/outage_segments.py KTH-SP2-1996-2.1 SDSC-SP2-1998-4.2
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import numpy as np

TRACES = Path(os.environ.get("COSCHED_TRACES", "/work/shared/traces"))


def main() -> int:
    from cosched.experiments import unavailability as u
    from cosched.experiments.fit import prepare
    from cosched.policies.base import policy_class
    from cosched.policies.recorded import Recorded
    from cosched.policies.requirements import MachineFlags, fit_workload
    from cosched.workload.loader import load_workload

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+", help="trace names in the traces folder")
    args = ap.parse_args()
    seen: dict[str, Any] = {}
    pieces = u.pieces

    def spy(run: list[tuple[float, float, int]]) -> list[tuple[float, float, int]]:
        seen.setdefault("segments", []).extend(run)
        return pieces(run)

    u.pieces = spy  # type: ignore[assignment]
    print("| log | segments | shorter than a minute: share of segments / of unit-seconds "
          "| intervals, both parts: segments kept | joined into pieces |")  # fmt: skip
    print("|---|---|---|---|---|")
    for name in args.logs:
        seen.clear()
        w = load_workload(TRACES / f"{name}-cln.swf.gz")
        w_rec, _, _ = fit_workload(Recorded.requires, w, MachineFlags())
        _, platform, _ = fit_workload(policy_class("easy").requires, w_rec, MachineFlags())
        inp = prepare(w_rec, platform)
        segs = np.array(seen.get("segments", []), dtype=np.float64).reshape(-1, 3)
        dur = segs[:, 1] - segs[:, 0]
        us = dur * segs[:, 2]
        short = dur < u.MIN_SEGMENT
        joined = len(inp.unavailable)  # both parts' intervals
        minimum, u.MIN_SEGMENT = u.MIN_SEGMENT, 0.0  # segments kept as they are
        unjoined = len(prepare(w_rec, platform).unavailable)
        u.MIN_SEGMENT = minimum
        print(
            f"| {name} | {len(segs)} | {short.mean():.1%} / {us[short].sum() / us.sum():.1%} "
            f"| {unjoined} | {joined} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
