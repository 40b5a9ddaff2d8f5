"""Contention at the network interface is the dynamic coscheduling reproduction's default:
its paper's simulator models it ("do not consider network contention though the
contention at the interface is modeled", lines 552-553 of its text), and the reading
``dyncosched-no-nic`` turns it off (docs/design/families.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosched.experiments.model import load_experiment
from cosched.experiments.reproductions import spec
from cosched.families import readings
from cosched.timesharing.experiment import ts_params

#: Table 3: a 4,096-byte message takes 185.48 us one way, all of it the bytes' time
#: through the interface (the linear model's fixed part is 0), so the interface moves
#: 4096 / 185.48e-6 = 22,083,243.48 bytes a second (by hand: 4096 / 185.48 =
#: 22.08324348 bytes per us).
TABLE_3_BANDWIDTH = 22_083_243.48
TWENTY_SEEDS = Path(__file__).resolve().parents[2] / "docs" / "claims" / "dyncosched-20seeds.toml"


def _tasks() -> list[dict]:
    """Every cell of the reproduction (full and quick grids) and of its 20-seed spec."""
    runs = [spec("dyncosched"), spec("dyncosched", quick=True), load_experiment(TWENTY_SEEDS)]
    return [dict(t.columns) for run in runs for t in run.tasks()]


def _reading(name: str) -> dict[str, str]:
    (m,) = [m for m in readings("dyncosched") if m.name == name]
    assert not m.default
    return dict(kv.split("=") for kv in m.reading.split(","))


def test_every_cell_of_the_reproduction_runs_nic_contention_at_table_3s_bandwidth() -> None:
    cells = _tasks()
    assert len(cells) > 1000
    for cell in cells:
        ts = ts_params(cell)
        # Whole bytes per second: within one of Table 3's, never below it (a message
        # may not hold the interface longer than its latency).
        assert TABLE_3_BANDWIDTH <= ts.nic_bandwidth < TABLE_3_BANDWIDTH + 1
        # One 4,096-byte message holds the interface for the whole latency.
        assert ts.msg_size == 4096.0
        assert ts.nic_occupancy == pytest.approx(185.48e-6, rel=1e-7)
        assert ts.nic_occupancy <= ts.latency


def test_the_no_nic_readings_turn_it_off() -> None:
    cells = spec("dyncosched", quick=True).tasks()
    off = _reading("dyncosched-no-nic")
    assert off == {"nic_bandwidth": "0"}
    io = _reading("dyncosched-io-no-nic")
    assert io == {"nic_bandwidth": "0", "io_holds_cpu": "1"}
    for task in cells:
        ts = ts_params({**task.columns, **off})
        assert ts.nic_bandwidth == 0.0 and ts.nic_occupancy == 0.0
        assert ts_params({**task.columns, **io}).nic_occupancy == 0.0
    # NIC contention is no longer a reading of its own: it is the default.
    assert "dyncosched-nic" not in {m.name for m in readings("dyncosched")}
