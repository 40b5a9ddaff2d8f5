"""gang's pass shortcuts against the rules written out in full.

The policy walks the running jobs once for every row's reservation and stops early,
skips backfill candidates that a smaller one showed cannot fit, reuses a placement
between two starts, and hands the engine only the rates that change. The reference
below is the same policy with each rule applied in full (a walk per row over all of its
jobs, a fit for every candidate, every rate handed over, every matrix mask recomputed
from the cells); both must give the same schedule, bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine.decisions import Decision
from cosched.engine.simulation import Simulation
from cosched.engine.view import SystemView
from cosched.gang import Gang
from cosched.gang.matrix import Matrix
from cosched.platform import Platform
from cosched.policies.reservation import Reservation, ShadowWalk
from cosched.workload.job import Job
from tests.strategies import gang_settings, workloads


class _NeverGiven(dict):  # type: ignore[type-arg]
    """A record of rates handed over that never holds one: every rate is handed over."""

    def get(self, key, default=None):  # type: ignore[no-untyped-def]
        return float("nan")


def _masks(m: Matrix) -> dict[int, int]:
    """Each job's mask recomputed from the cells: its own row, and every row idle under
    all of its columns."""
    out = {}
    for idx, row in m.row.items():
        bits = 1 << row
        for r in range(m.rows):
            if (m.occ[r, m.cols[idx]] < 0).all():
                bits |= 1 << r
        out[idx] = bits
    return out


class _Reference(Gang):
    name = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._given = _NeverGiven()

    def _reserve(self, view, m, need, started) -> None:  # type: ignore[no-untyped-def]
        by_row = {r: list(e) for r, e in started.items()}
        for end, idx, _ in view.releases():
            by_row.setdefault(m.row[idx], []).append((end, len(m.cols[idx])))
        best = None
        for r in range(m.rows):
            walk = ShadowWalk(m.free[r], need, view.now)
            for end, units in sorted(by_row.get(r, [])):
                if not walk.add(end, units):
                    break
            if walk.shadow is None:
                continue
            shadow, extra = walk.result()
            if best is None or shadow < best[0]:
                best = (shadow, extra, r)
        assert best is not None
        self._res = Reservation(best[0], best[1])
        self._res_row = best[2]

    def _backfill(self, view: SystemView, m: Matrix, cand: Sequence[Job]) -> list[Decision]:
        res = self._res
        assert res is not None
        out: list[Decision] = []
        for job in cand:
            size, mem = view.size(job), self.memory(job)
            spot = m.fit(size, mem)
            if spot is None:
                continue
            row, cols = spot
            if row == self._res_row:
                rows = bin(m.used | 1 << row).count("1")
                if not res.admit(view.now + view.estimate(job) * rows, len(cols)):
                    continue
            out.append(self._start(job, view, row, cols, mem))
        return out

    def _new_rates(self, now, started):  # type: ignore[no-untyped-def]
        assert self._m is not None and self._m.mask == _masks(self._m)
        return super()._new_rates(now, started)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    **gang_settings,
    window=st.sampled_from([None, 0, 2]),
    memory_limit=st.sampled_from([None, 1.0, 1.5]),
    switch_cost=st.sampled_from([0.0, 1.0]),
)
def test_shortcuts_schedule_as_the_full_rules(
    data, mpl, packing, alternate, backfill, window, memory_limit, switch_cost
) -> None:
    procs = data.draw(st.integers(1, 8))
    w = data.draw(workloads(max_procs=procs, max_jobs=25))
    params = dict(
        mpl=mpl, packing=packing, alternate=alternate, backfill=backfill, window=window,
        quantum=10.0, switch_cost=switch_cost, memory_limit=memory_limit, job_memory=1.0,
    )  # fmt: skip
    runs = []
    for cls in (_Reference, Gang):
        policy = cls(**params)
        sim = Simulation(w, Platform(procs, 1, mpl=mpl), policy, check=True, placement=True)
        runs.append((sim.run(), policy))
    (a, pa), (b, pb) = runs
    for col in ("start_time", "end_time"):
        assert a.jobs[col].to_numpy().tobytes() == b.jobs[col].to_numpy().tobytes()
    assert a.placements == b.placements
    assert pa.row_of == pb.row_of
    assert pa.suspended == pb.suspended and pa.switches == pb.switches
    # The engine counts only rates that change: handing over the unchanged ones too
    # changes nothing there.
    assert a.stats == b.stats
    assert np.isfinite(b.jobs["end_time"]).all()
