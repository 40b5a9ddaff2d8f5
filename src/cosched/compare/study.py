"""``cosched compare``: the baselines and the coscheduling families on one trace.

An *arm* is one policy with fixed parameters under a label (``easy``,
``nodeshare-easy(window=50)``, ``nodeshare-easy@2`` in the robustness sweep).
:func:`plan` turns the user's trace, machine and policy list into arms; :func:`run`
executes them through the experiment framework (a resumable store under ``DIR/store``;
the deterministic arms once, the randomised ones over several seeds); and
:func:`build_report` rebuilds every number, figure and the verdict from ``DIR/plan.json``
and that store alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from cosched.errors import ConfigError
from cosched.metrics.summary import JobClasses
from cosched.policies.base import parse_params, policy_class
from cosched.policies.requirements import MachineFlags, build_platform

__all__ = [
    "BASELINES",
    "DEFAULT_POLICIES",
    "STRENGTHS",
    "Arm",
    "Comparison",
    "build_report",
    "load_store",
    "parse_arm",
    "plan",
    "run",
]

#: The space-sharing baselines (deterministic: one run each).
BASELINES = ("fcfs", "easy", "conservative")
#: What ``compare`` runs by default: the baselines and every coscheduling family with a
#: job-level model (node sharing alone and with EASY, LOMARC pairing with L-U1, gang
#: time slicing with two rows).
DEFAULT_POLICIES = (*BASELINES, "nodeshare", "nodeshare-easy", "lomarc", "gang")
#: Multipliers of the node-sharing victim weights (how much co-located jobs slow each
#: other) in the robustness sweep; 1 is the preset in force, 0 no interference at all.
STRENGTHS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)
VICTIMS = ("victim_low", "victim_moderate", "victim_high")
_ARM = re.compile(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class Arm:
    """One policy with fixed parameters, under a label.

    Attributes:
        label: how the report names it.
        policy: the policy name (or ``file.py:Class`` reference).
        params: its parameters.
        random: whether it draws profiles at random (run over several seeds).
        role: ``main`` (compared), ``robustness`` (the interference sweep), ``mix``
            (LOMARC under another job-type mix) or ``reference`` (the log's recorded
            schedule, shown but never a candidate).
        strength: the interference strength of a robustness arm.
        profile_params: parameters of the family's annotator (LOMARC's ``mixture``).
    """

    label: str
    policy: str
    params: dict[str, Any] = field(default_factory=dict)
    random: bool = False
    role: str = "main"
    strength: float | None = None
    profile_params: dict[str, Any] = field(default_factory=dict)


def parse_arm(text: str) -> Arm:
    """``name`` or ``name(key=value, ...)`` (values converted and checked as ``-P``)."""
    m = _ARM.match(text)
    if m is None:
        raise ConfigError(f"policy {text!r}: expected NAME or NAME(key=value,...)")
    name, inner = m.group(1), m.group(2)
    pairs = [p.strip() for p in (inner or "").split(",") if p.strip()]
    params = parse_params(name, pairs)
    req = policy_class(name).requires
    label = name if not params else f"{name}({','.join(f'{k}={v}' for k, v in params.items())})"
    return Arm(label, name, params, random=bool(req.profile_columns) and req.random_profiles)


@dataclass
class Comparison:
    """What ``compare`` runs (see :func:`plan`)."""

    workload: dict[str, Any]
    arms: list[Arm]
    seeds: int
    flags: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: ``(start, end)`` in seconds of the Gantt chart (None: the busiest day).
    gantt_window: tuple[float, float] | None = None

    @property
    def main(self) -> list[Arm]:
        return [a for a in self.arms if a.role == "main"]

    @property
    def robustness(self) -> list[Arm]:
        return [a for a in self.arms if a.role == "robustness"]

    def specs(self) -> list[dict[str, Any]]:
        """The sweep specs: deterministic arms once, randomised ones over the seeds, one
        spec per set of annotator parameters."""
        out = []
        groups: dict[tuple[bool, str], list[Arm]] = {}
        for a in self.arms:
            groups.setdefault((a.random, json.dumps(a.profile_params, sort_keys=True)), [])
            groups[(a.random, json.dumps(a.profile_params, sort_keys=True))].append(a)
        for (random, params), arms in sorted(groups.items()):
            workload = dict(self.workload)
            if json.loads(params):
                workload["profile_params"] = json.loads(params)
            spec: dict[str, Any] = {"name": "compare", "workloads": [workload]}
            if self.flags:
                spec["platform"] = dict(self.flags)
            spec["policies"] = [_entry(a) for a in _unique(arms)]
            if random:
                spec["seeds"] = list(range(self.seeds))
            out.append(spec)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "workload": self.workload,
            "arms": [asdict(a) for a in self.arms],
            "seeds": self.seeds,
            "flags": self.flags,
            "notes": self.notes,
            "gantt_window": list(self.gantt_window) if self.gantt_window else None,
            "specs": self.specs(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Comparison:
        return cls(
            workload=data["workload"],
            arms=[Arm(**a) for a in data["arms"]],
            seeds=int(data["seeds"]),
            flags=dict(data["flags"]),
            notes=list(data["notes"]),
            gantt_window=tuple(data["gantt_window"]) if data.get("gantt_window") else None,
        )


def _entry(arm: Arm) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": arm.policy}
    if arm.params:
        entry["params"] = dict(arm.params)
    return entry


def _unique(arms: Sequence[Arm]) -> list[Arm]:
    seen, out = set(), []
    for a in arms:
        key = (a.policy, json.dumps(a.params, sort_keys=True))
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


def plan(
    workload: dict[str, Any],
    *,
    policies: Sequence[str] | None,
    seeds: int,
    flags: MachineFlags | None,
    probe: Any = None,
) -> Comparison:
    """What to run on ``workload``.

    Args:
        workload: a sweep workload entry (``{"kind": "swf", "path": ...}``).
        policies: ``NAME`` or ``NAME(key=value,...)`` to compare (None:
            :data:`DEFAULT_POLICIES`, keeping those whose machine can be built).
        seeds: runs of each randomised arm (profiles drawn by an annotator).
        flags: what the user said about the machine.
        probe: the loaded workload, to check each policy's machine before any run.

    Raises:
        ConfigError: an unknown policy or parameter, a named policy whose machine cannot
            be built, no baseline, or ``seeds`` < 1: all before any simulation.
    """
    if seeds < 1:
        raise ConfigError(f"--seeds must be >= 1, got {seeds}")
    chosen = list(policies) if policies is not None else list(DEFAULT_POLICIES)
    notes: list[str] = []
    arms = []
    for text in chosen:
        arm = parse_arm(text)
        try:
            build_platform(policy_class(arm.policy).requires, flags or MachineFlags(), probe)
        except ConfigError as exc:
            if policies is not None:
                raise ConfigError(f"policy {arm.policy!r}: {exc}") from None
            notes.append(f"left out {arm.policy}: {exc}")
            continue
        arms.append(arm)
    if not any(a.policy in BASELINES for a in arms):
        raise ConfigError("compare needs at least one baseline (fcfs, easy or conservative)")
    if _has_recorded_starts(probe):
        # The log's own schedule as a reference row: does the simulated baseline look
        # like the machine (docs/operator-logs.md)?
        arms.append(Arm("recorded", "recorded", role="reference"))
    swept = [a for p in ("nodeshare-easy", "nodeshare") for a in arms if a.policy == p]
    sweep = swept[0] if swept else None
    if sweep is not None:
        preset = {k: getattr(policy_class(sweep.policy)(**sweep.params), k) for k in VICTIMS}
        for s in STRENGTHS:
            params = {**sweep.params, **{k: v * s for k, v in preset.items()}}
            if s == 1.0:
                params = dict(sweep.params)
            arms.append(Arm(f"{sweep.label}@{s:g}", sweep.policy, params, True, "robustness", s))
    mixed = next((a for a in arms if a.policy.startswith("lomarc") and a.role == "main"), None)
    if mixed is not None:
        # LOMARC's answer depends on the job-type mix no log records: the paper's three.
        import inspect

        from cosched.workload.profiles.lomarc import MIXTURES, annotate_lomarc

        default = inspect.signature(annotate_lomarc).parameters["mixture"].default
        for mix in (m for m in MIXTURES if m != default):  # the main arm runs the default
            arms.append(
                Arm(f"{mixed.label}@{mix}", mixed.policy, dict(mixed.params), True, "mix",
                    None, {"mixture": mix})
            )  # fmt: skip
    given = {} if flags is None else {k: v for k, v in vars(flags).items() if v is not None}
    return Comparison(workload, arms, seeds, given, notes)


def _has_recorded_starts(probe: Any) -> bool:
    """Whether most jobs of a loaded trace carry their logged wait (SWF field 3)."""
    table = getattr(probe, "table", None)
    if table is None or "wait_time" not in table:
        return False
    return bool(table["wait_time"].notna().mean() >= 0.5)


def run(
    comparison: Comparison,
    out: Path,
    *,
    workers: int = 1,
    dask: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Run every cell not yet in ``out/store`` (locally or on Dask), then write
    ``out/results.parquet``: one row per arm and seed. ``out/plan.json`` is written
    first, so an interrupted comparison resumes from it."""
    from cosched.experiments.sweep import cells, run_sweep, spec_from_dict

    (out / "plan.json").write_text(json.dumps(comparison.to_json(), indent=2) + "\n")
    specs = [spec_from_dict(s, source="compare") for s in comparison.specs()]
    total = sum(len(cells(s)) for s in specs)
    offset = 0
    for spec in specs:

        def step(finished: int, n: int, before: int = offset) -> None:
            if progress is not None:
                progress(before + finished, total)

        run_sweep(
            spec,
            out / "store",
            workers=workers,
            dask=dask,
            progress=step,
            command="cosched compare",
            report=False,
        )
        offset += len(cells(spec))
    _, table, _ = load_store(out)
    table.to_parquet(out / "results.parquet", index=False)


# -- from the store to the numbers --------------------------------------------------------


def _key(
    policy: str, params: dict[str, Any], profile: dict[str, Any] | None = None
) -> tuple[str, str, str]:
    return policy, json.dumps(params, sort_keys=True), json.dumps(profile or {}, sort_keys=True)


def _stored(out: Path, key: str) -> dict[str, Any] | None:
    """The stored row of a finished cell (None if it has not finished)."""
    import pyarrow.parquet as pq

    path = out / "store" / "cells" / f"{key}.parquet"
    if not path.is_file():
        return None
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows[0]


def load_store(out: Path) -> tuple[Comparison, pd.DataFrame, dict[str, list[pd.DataFrame]]]:
    """The plan; one results row per arm and finished run (an arm's label, policy,
    seed, platform and metrics); the per-job tables by arm label, in seed order."""
    from cosched.experiments.sweep import cells, spec_from_dict

    path = out / "plan.json"
    if not path.is_file():
        raise ConfigError(f"{out} holds no comparison (no plan.json)")
    comparison = Comparison.from_json(json.loads(path.read_text()))
    labels: dict[tuple[str, str, str], list[str]] = {}
    for a in comparison.arms:
        labels.setdefault(_key(a.policy, a.params, a.profile_params), []).append(a.label)
    skip = {"key", "workload", "policy", "params", "estimates", "tau", "seed", "status", "error"}
    rows = []
    jobs: dict[str, list[pd.DataFrame]] = {}
    for s in comparison.specs():
        for c in sorted(cells(spec_from_dict(s, source="compare")), key=lambda c: c.seed):
            stored = _stored(out, c.key)
            if stored is None:
                continue
            metrics = {k: v for k, v in stored.items() if k not in skip and k[:6] != "param_"}
            table = pd.read_parquet(out / "store" / "jobs" / f"{c.key}.parquet")
            profile = dict(c.workload.profile_params or ())
            for label in labels.get(_key(c.policy, dict(c.params), profile), []):
                rows.append({"arm": label, "policy": c.policy, "seed": c.seed} | metrics)
                jobs.setdefault(label, []).append(table)
    order = {a.label: k for k, a in enumerate(comparison.arms)}
    frame = pd.DataFrame(rows)
    if len(frame):
        frame = frame.sort_values(
            ["arm", "seed"],
            key=lambda col: col.map(order) if col.name == "arm" else col,
            kind="stable",
        ).reset_index(drop=True)
    return comparison, frame, jobs


def build_report(out: Path, *, classes: JobClasses | None = None) -> Path:
    """Rebuild ``out/report.md`` and ``out/report.html`` from the store alone."""
    from cosched.compare.render import write_report

    comparison, table, jobs = load_store(out)
    return write_report(out, comparison, table, jobs, classes=classes or JobClasses())
