"""Round trip: a recorded schedule written as a sacct dump and as PBS records, read back.

The jobs of an archive trace (KTH-SP2's first 500, when ../shared is there) and of the
bundled example with an FCFS schedule (always) are written the way Slurm and PBS print
them (arrays, jobs cancelled while pending, local ISO times across a daylight-saving
change and epoch seconds, shuffled columns, an unknown column, overlapping monthly
dumps); the import must give back the same submit, wait, run, processors and requested
time for every job that ran.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest

from cosched.engine.simulation import simulate
from cosched.platform import Platform
from cosched.policies.fcfs import Fcfs
from cosched.workload.importers import ImportOptions, import_pbs, import_slurm
from cosched.workload.loader import load_workload
from cosched.workload.sources import open_workload

ROOT = Path(__file__).resolve().parents[2]
KTH = ROOT / ".." / "shared" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz"
TZ = "Europe/Stockholm"
# 12:00 local on 30 March 2024: the spring change (31 March, 02:00 -> 03:00) falls inside.
BASE = int(datetime(2024, 3, 30, 12, tzinfo=ZoneInfo(TZ)).timestamp())
COLUMNS = ["submit", "wait", "run", "procs", "req"]


def _kth() -> pd.DataFrame:
    if not KTH.is_file():
        pytest.skip(f"needs the KTH-SP2 trace at {KTH}")
    t = load_workload(KTH, limit=500).table
    return pd.DataFrame(
        {
            "submit": t["submit_time"],
            "wait": t["wait_time"],
            "run": t["run_time"],
            "procs": t["procs"],
            "req": t["requested_time"],
        }
    )


def _example() -> pd.DataFrame:
    w = open_workload("bundled:example")
    jobs = simulate(w, Platform(64, 1), Fcfs()).jobs
    return pd.DataFrame(
        {
            "submit": jobs["submit_time"],
            "wait": jobs["start_time"] - jobs["submit_time"],
            "run": jobs["run_time"],
            "procs": jobs["procs"],
            "req": jobs["requested_time"],
        }
    )


SOURCES = {"kth": _kth, "example": _example}


def _schedule(name: str) -> pd.DataFrame:
    t = SOURCES[name]().reset_index(drop=True)
    t = t[(t["run"] > 0) & (t["wait"] >= 0)].astype(np.int64).reset_index(drop=True)
    t["submit"] -= t["submit"].min()
    return t


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, ZoneInfo(TZ)).strftime("%Y-%m-%dT%H:%M:%S")


def _hms(seconds: int, days: bool) -> str:
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    clock = f"{h:02d}:{rest // 60:02d}:{rest % 60:02d}"
    if days and d:
        return f"{d}-{clock}"
    return f"{h + 24 * d:02d}:{rest // 60:02d}:{rest % 60:02d}" if not days else clock


def _sacct_rows(t: pd.DataFrame, epoch: bool) -> list[dict[str, str]]:
    stamp = str if epoch else _iso
    rows = []
    for i, r in t.iterrows():
        i = int(i)  # type: ignore[call-overload]
        sub = BASE + int(r["submit"])
        start = sub + int(r["wait"])
        jid = str(i + 1) if i % 7 else f"{9000 + i}_{i % 5}"  # every 7th an array task
        rows.append(
            {
                "JobIDRaw": str(i + 1),
                "JobID": jid,
                "User": f"u{i % 4}",
                "Partition": "batch",
                "Submit": stamp(sub),
                "Eligible": stamp(sub),
                "Start": stamp(start),
                "End": stamp(start + int(r["run"])),
                "Timelimit": _hms(int(r["req"]), days=True),
                "State": "COMPLETED" if i % 3 else "CANCELLED by 1000",
                "NNodes": "1",
                "NCPUS": str(int(r["procs"])),
                "ReqCPUS": str(int(r["procs"])),
                "Comment": "an unknown column",
            }
        )
        if i % 11 == 0:  # a job cancelled while pending, next to it
            rows.append(
                {
                    **rows[-1],
                    "JobIDRaw": str(100000 + i),
                    "JobID": str(100000 + i),
                    "Start": "None" if i % 2 else "Unknown",
                    "End": stamp(sub + 5),
                    "State": "CANCELLED by 1000",
                }
            )
    return rows


def _write_sacct(rows: list[dict[str, str]], path: Path, seed: int) -> None:
    names = list(rows[0])
    order = [names[k] for k in np.random.default_rng(seed).permutation(len(names))]
    lines = ["|".join(order)] + ["|".join(r[c] for c in order) for r in rows]
    path.write_text("\n".join(lines) + "\n")


def _imported(result: object) -> pd.DataFrame:
    t = result.trace.table  # type: ignore[attr-defined]
    return pd.DataFrame(
        {
            "submit": t["submit_time"],
            "wait": t["wait_time"],
            "run": t["run_time"],
            "procs": t["allocated_procs"],
            "req": t["requested_time"],
        }
    ).astype(np.int64)


def _same(expected: pd.DataFrame, got: pd.DataFrame) -> None:
    key = COLUMNS
    a = expected[key].sort_values(key).reset_index(drop=True)
    b = got[key].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("epoch", [False, True], ids=["iso-local", "epoch"])
def test_sacct_round_trip(source: str, epoch: bool, tmp_path: Path) -> None:
    t = _schedule(source)
    rows = _sacct_rows(t, epoch)
    half = len(rows) // 2
    feb, mar = tmp_path / "feb.txt", tmp_path / "mar.txt"
    _write_sacct(rows[: half + 20], feb, seed=1)  # the months overlap by 20 records
    _write_sacct(rows[half:], mar, seed=2)
    result = import_slurm([feb, mar], ImportOptions(tz=TZ))
    _same(t, _imported(result))
    assert result.counts["duplicates"] == 20
    assert result.counts["dropped_never_started"] == len(range(0, len(t), 11))
    # The job ids are JobIDRaw, so each job can be matched too.
    got = result.trace.table.set_index("job_id")
    assert (got.loc[t.index + 1, "wait_time"].to_numpy() == t["wait"].to_numpy()).all()


def _pbs_lines(t: pd.DataFrame) -> list[tuple[int, str]]:
    out = []
    rng = np.random.default_rng(3)
    for i, r in t.iterrows():
        i = int(i)  # type: ignore[call-overload]
        sub = BASE + int(r["submit"])
        start = sub + int(r["wait"])
        end = start + int(r["run"])
        procs = int(r["procs"])
        jid = f"{i + 1}.srv" if i % 7 else f"{5000 + i}[{i % 5}].srv"
        if i % 3 == 0:
            req = f"Resource_List.ncpus={procs} exec_host=n{i % 9}/0*{procs}"
        elif i % 3 == 1:
            req = f"Resource_List.select=1:ncpus={procs} exec_host=n{i % 9}/0*{procs}"
        else:  # Torque: one exec_host entry per CPU
            hosts = "+".join(f"n{i % 9}/{k}" for k in range(procs))
            req = f"Resource_List.nodes=1:ppn={procs} exec_host={hosts}"
        attrs = [
            f"user=u{i % 4}",
            "queue=batch",
            f"qtime={sub}",
            f"etime={sub}",
            f"start={start}",
            f"end={end}",
            f"Resource_List.walltime={_hms(int(r['req']), days=False)}",
            "Exit_status=0",
            *req.split(),
        ]
        rng.shuffle(attrs)
        out.append((end, f"{_pbs_stamp(end)};E;{jid};{' '.join(attrs)}"))
        out.append((start, f"{_pbs_stamp(start)};S;{jid};start={start}"))
        if i % 11 == 0:  # queued, then deleted before it ran
            out.append((sub, f"{_pbs_stamp(sub)};Q;{90000 + i}.srv;queue=batch"))
            out.append((sub + 5, f"{_pbs_stamp(sub + 5)};D;{90000 + i}.srv;requestor=u@h"))
    return out


def _pbs_stamp(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, ZoneInfo(TZ)).strftime("%m/%d/%Y %H:%M:%S")


@pytest.mark.parametrize("source", list(SOURCES))
def test_pbs_round_trip(source: str, tmp_path: Path) -> None:
    t = _schedule(source)
    records = sorted(_pbs_lines(t), key=lambda x: x[0])
    folder = tmp_path / "accounting"
    folder.mkdir()
    days: dict[str, list[str]] = {}
    for epoch, line in records:
        day = datetime.fromtimestamp(epoch, ZoneInfo(TZ)).strftime("%Y%m%d")
        days.setdefault(day, []).append(line)
    for day, lines in days.items():
        (folder / day).write_text("\n".join(lines) + "\n")
    result = import_pbs([folder], ImportOptions(tz=TZ))
    _same(t, _imported(result))
    assert result.counts["dropped_never_started"] == len(range(0, len(t), 11))
