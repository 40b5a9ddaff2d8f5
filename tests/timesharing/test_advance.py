"""``TimeSharingSim.advance``: a run stepped through its kernel ends as the same run in
one call, bit for bit (the schemes whose result folds the nodes' accounts included)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cosched.timesharing.experiment import cell_simulation

CELL = {"workload": "WL7", "load": 1.2, "skew": 0.2, "mpl": 5, "n_jobs": 12, "msg_factor": 1}


@pytest.mark.parametrize("scheme", ["SB", "PB", "GS"])
def test_a_stepped_run_ends_as_the_same_run(scheme: str) -> None:
    cell = CELL | {"scheme": scheme}
    whole, _, horizon = cell_simulation(cell, 7)
    one = whole.run(horizon)
    stepped, w, _ = cell_simulation(cell, 7)
    last = float(w.table["submit_time"].max())
    for t in np.linspace(last / 5, last, 5):
        stepped.advance(float(t))
    two = stepped.run(horizon)
    pd.testing.assert_frame_equal(one.jobs, two.jobs, check_exact=True)
    pd.testing.assert_frame_equal(one.nodes, two.nodes, check_exact=True)
