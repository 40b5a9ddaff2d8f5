"""``cosched compare``: the baselines and the coscheduling families on one trace.

An *arm* is one policy with fixed parameters under a label (``easy``,
``nodeshare-easy(window=50)``, ``nodeshare-easy@2`` in the robustness sweep).
:func:`plan` turns the user's trace, machine and policy list into arms; :func:`run`
executes them through the experiment framework (a resumable store under ``DIR/store``;
the deterministic arms once, the randomised ones over several seeds); and
:func:`build_report` rebuilds every number, figure and the verdict from ``DIR/plan.json``
and that store alone. :func:`cosched.compare.cost.cost` says beforehand what will run and
about how long it takes; :func:`cosched.compare.site.with_site` puts a fitted baseline's
site rules on the arms. The robustness sweeps (interference strength, gang's switch
cost, LOMARC's job-type mixes: each family's :attr:`Family.sweeps
<cosched.families.Family.sweeps>`) are optional (``robustness=False``: ``--quick``,
``--no-robustness``).
A family whose mechanism cannot act on the machine (node sharing on single-core nodes)
is left out of the default run and named in :attr:`Comparison.not_applicable`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from cosched.compare.site import with_site
from cosched.errors import ConfigError
from cosched.families import Control, by_verdict, families, family
from cosched.metrics.summary import JobClasses
from cosched.policies.base import parse_params, policy_class
from cosched.policies.requirements import MachineFlags, build_platform, exclusive_site

if TYPE_CHECKING:
    from cosched.experiments.sweep import Cell
    from cosched.platform.machine import Platform
    from cosched.workload.job import Workload

__all__ = [
    "BASELINES",
    "Arm",
    "Comparison",
    "build_report",
    "control_steps",
    "default_policies",
    "load_store",
    "parse_arm",
    "plan",
    "run",
]

#: The space-sharing baselines (deterministic: one run each).
BASELINES = ("fcfs", "easy", "conservative")


def default_policies() -> tuple[str, ...]:
    """What ``compare`` runs by default: the baselines and the policies each family
    declares (:attr:`cosched.families.Family.compare`), in the families' order."""
    return (*BASELINES, *(p for f in families() for p in f.compare))


def control_steps(family_name: str) -> tuple[Control, ...]:
    """What the family's control runs turn off, in order (:attr:`Family.controls
    <cosched.families.Family.controls>`; none for a family that declares none): the
    assumptions first, then the mechanism itself; a step already off in the main arm
    (rigid jobs, a standard CPU, no speedup) is no step. The baselines with and without
    backfilling complete the chain (:func:`_baseline_controls`)."""
    f = family(family_name)
    return () if f is None else f.controls


_ARM = re.compile(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class Arm:
    """One policy with fixed parameters, under a label.

    Attributes:
        label: how the report names it.
        policy: the policy name (or ``file.py:Class`` reference).
        params: its parameters.
        random: whether it draws profiles at random (run over several seeds).
        role: ``main`` (compared), ``robustness`` (the interference sweep),
            ``efficiency`` (gang's switch-cost sweep), ``mix`` (LOMARC under another
            job-type mix) or ``reference`` (the log's recorded schedule, shown but never
            a candidate).
        strength: the interference strength of a robustness arm, the efficiency of a
            time-sliced job in an ``efficiency`` arm.
        profile_params: parameters of the family's annotator (LOMARC's ``mixture``).
        control_of: a ``control`` arm's main arm (None for a baseline control: a
            baseline with or without backfilling).
        off: what a ``control`` arm turns off of its main arm, in the order turned off
            (each control turns off its own and every earlier one): :func:`control_steps`.
        machine: machine flags this arm runs with over the comparison's
            (``max_jobs_per_node=1``: node sharing's scheduler without sharing;
            ``unavailable``: the fitted outages, :func:`with_site`).
    """

    label: str
    policy: str
    params: dict[str, Any] = field(default_factory=dict)
    random: bool = False
    role: str = "main"
    strength: float | None = None
    profile_params: dict[str, Any] = field(default_factory=dict)
    control_of: str | None = None
    off: list[str] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)


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
    #: Families left out because their mechanism cannot act on this machine, and why.
    not_applicable: dict[str, str] = field(default_factory=dict)
    #: What the operator said of the jobs and the hardware (``smt``, ``malleable``) and
    #: what ``--quick`` left out (``quick``): the assumptions the report states.
    assumptions: dict[str, Any] = field(default_factory=dict)

    @property
    def main(self) -> list[Arm]:
        return [a for a in self.arms if a.role == "main"]

    @property
    def robustness(self) -> list[Arm]:
        return [a for a in self.arms if a.role == "robustness"]

    @property
    def controls(self) -> list[Arm]:
        return [a for a in self.arms if a.role == "control"]

    def platform_of(self, arm: Arm) -> dict[str, Any]:
        """The machine flags ``arm`` runs with (the comparison's, then its own)."""
        return {**self.flags, **arm.machine}

    def specs(self) -> list[dict[str, Any]]:
        """The sweep specs: deterministic arms once, randomised ones over the seeds, one
        spec per set of annotator parameters."""
        out = []
        groups: dict[tuple[bool, str, str], list[Arm]] = {}
        for a in self.arms:
            group = (
                a.random,
                json.dumps(a.profile_params, sort_keys=True),
                json.dumps(a.machine, sort_keys=True),
            )
            groups.setdefault(group, []).append(a)
        for (random, params, machine), arms in sorted(groups.items()):
            workload = dict(self.workload)
            if json.loads(params):
                workload["profile_params"] = json.loads(params)
            spec: dict[str, Any] = {"name": "compare", "workloads": [workload]}
            flags = {**self.flags, **json.loads(machine)}
            if flags:
                spec["platform"] = flags
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
            "not_applicable": self.not_applicable,
            "assumptions": self.assumptions,
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
            not_applicable=dict(data.get("not_applicable") or {}),
            assumptions=dict(data.get("assumptions") or {}),
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
    probe: Workload | None = None,
    robustness: bool = True,
    baseline: str | None = None,
    smt: bool = False,
    malleable: bool = False,
    controls: bool = True,
    site: dict[str, Any] | None = None,
) -> Comparison:
    """What to run on ``workload``.

    Args:
        workload: a sweep workload entry (``{"kind": "swf", "path": ...}``).
        policies: ``NAME`` or ``NAME(key=value,...)`` to compare (None:
            :func:`default_policies`, keeping those whose machine can be built and
            whose mechanism can act on it).
        seeds: runs of each randomised arm (profiles drawn by an annotator).
        flags: what the user said about the machine.
        probe: the loaded workload, to check each policy's machine before any run.
        robustness: add the robustness sweeps (interference, gang's switch cost,
            LOMARC's job-type mixes).
        baseline: the one baseline (``NAME`` or ``NAME(key=value,...)`` of fcfs, easy or
            conservative) the others are measured against, in place of the baselines
            among ``policies`` (``compare --baseline``).
        smt: the default LOMARC arm pairs jobs on hyperthreaded (SMT) processors (else
            on standard ones, :data:`NO_SMT`).
        malleable: the default node-sharing arms may shrink jobs onto fewer processors
            than they asked for (else the jobs are rigid, :data:`RIGID`).
        controls: add each coscheduling arm's control runs (:func:`control_steps`) and
            the baselines with and without backfilling, which attribute its gain.
        site: the site's rules fitted to the log (``max_jobs_per_user``,
            ``max_procs_per_user``, ``order=fairshare`` with ``fairshare_half_life``,
            ``unavailable``: the outages the fitted baseline replays):
            every arm whose policy takes a rule runs under it, and a note names the arms
            that do not and why (:func:`with_site`).

    Raises:
        ConfigError: an empty trace, an unknown policy or parameter, a named policy
            whose machine cannot be built, a job wider than a machine, no baseline, or
            ``seeds`` < 1: all before any simulation.
    """
    if seeds < 1:
        raise ConfigError(f"--seeds must be >= 1, got {seeds}")
    if probe is not None and len(probe) == 0:
        where = Path(str(workload.get("path") or workload.get("name", "the trace"))).name
        raise ConfigError(f"{where}: the trace has no jobs")
    chosen = list(policies) if policies is not None else list(default_policies())
    said = {"smt": smt, "malleable": malleable}
    notes: list[str] = []
    skipped: dict[str, str] = {}
    arms = []
    for text in chosen:
        arm = conservative_arm(parse_arm(text), said)
        cls = policy_class(arm.policy)
        try:
            platform, _ = build_platform(cls.requires, flags or MachineFlags(), probe)
        except ConfigError as exc:
            why = machine_flags(str(exc))
            if policies is not None:
                raise ConfigError(f"policy {arm.policy!r}: {why}") from None
            notes.append(f"left out {arm.policy}: {why}")
            continue
        _check_width(probe, platform, arm.policy)
        declared = family(cls.family)
        if policies is None and declared and declared.single_core and platform.cores == 1:
            skipped[cls.family] = declared.single_core
            continue
        arms.append(arm)
    notes += [f"left out {f}: not applicable: {why}" for f, why in skipped.items()]
    if baseline is not None:
        base = _baseline_arm(baseline, flags, probe)
        arms = [base, *(a for a in arms if a.policy not in BASELINES)]
        notes.append(f"the reference baseline is {arms[0].label} (--baseline)")
    if not any(a.policy in BASELINES for a in arms):
        raise ConfigError("compare needs at least one baseline (fcfs, easy or conservative)")
    check = machine_check(probe, flags)
    if check is not None:
        notes.insert(0, check)
    whole = exclusive_site(flags or MachineFlags(), probe)
    if whole is not None:
        notes.append(
            f"whole nodes: the baselines give each job whole nodes ({whole}: the site "
            "allocates nodes exclusively); the coscheduling policies place jobs on the same "
            "nodes by their own rules"
        )
    counts = getattr(probe, "header", {}).get("ImportCounts")
    if counts:
        notes.append(f"imported from the site's accounting log: {counts} (the trace header)")
    if _has_recorded_starts(probe):
        # The log's own schedule as a reference row: does the simulated baseline look
        # like the machine (docs/operator-logs.md)?
        arms.append(Arm("recorded", "recorded", role="reference"))
    if controls:
        arms += _baseline_controls(arms) + [c for a in list(arms) for c in control_arms(a)]
    if robustness:
        arms += [s for f in by_verdict() if f.sweeps is not None for s in f.sweeps(arms)]
    if site:
        arms, site_notes = with_site(arms, site, flags, probe)
        notes += site_notes
    given = {} if flags is None else {k: v for k, v in vars(flags).items() if v is not None}
    assumptions: dict[str, Any] = {
        "smt": smt, "malleable": malleable, "robustness": robustness, "seeds": seeds
    }  # fmt: skip
    return Comparison(
        workload, arms, seeds, given, notes, not_applicable=skipped, assumptions=assumptions
    )


def conservative_arm(arm: Arm, said: dict[str, bool]) -> Arm:
    """``arm`` with its family's conservative parameter (:attr:`Family.conservative
    <cosched.families.Family.conservative>`) unless the operator said otherwise
    (``said``: ``smt``, ``malleable``) or named the parameter."""
    declared = family(policy_class(arm.policy).family)
    rule = None if declared is None else declared.conservative
    if rule is None or said.get(rule[2]) or rule[0] in arm.params:
        return arm
    key, value, _ = rule
    if getattr(policy_class(arm.policy)(**arm.params), key) == value:
        return arm  # already so by default (lomarc-n)
    params = {**arm.params, key: value}
    label = f"{arm.policy}({','.join(f'{k}={v}' for k, v in params.items())})"
    return replace(arm, label=label, params=params)


def control_arms(arm: Arm) -> list[Arm]:
    """The control runs of a main coscheduling arm: the same scheduler with each of
    :func:`control_steps` turned off in turn (each keeping the earlier ones off)."""
    if arm.role != "main":
        return []
    cls = policy_class(arm.policy)
    steps = control_steps(cls.family)
    if not steps:
        return []
    policy = cls(**arm.params)
    out: list[Arm] = []
    params = dict(arm.params)
    machine: dict[str, Any] = {}
    off: list[str] = []
    for what, _, change, flags in steps:
        if change and all(getattr(policy, k, None) == v for k, v in change.items()):
            continue  # already off in the main arm
        params, machine, off = {**params, **change}, {**machine, **flags}, [*off, what]
        label = f"{arm.label} without {', '.join(off)}"
        out.append(Arm(label, arm.policy, params, arm.random, "control", None,
                       dict(arm.profile_params), arm.label, list(off), dict(machine)))  # fmt: skip
    return out


def _baseline_controls(arms: Sequence[Arm]) -> list[Arm]:
    """EASY (with backfilling) and FCFS (without) beside the baselines compared, where
    they are not among them (``--baseline``): what backfilling alone gives."""
    have = {a.label for a in arms}
    if not any(control_steps(policy_class(a.policy).family) for a in arms):
        return []  # nothing to attribute
    return [
        Arm(name, name, role="control", off=[] if name == "easy" else ["backfilling"])
        for name in ("easy", "fcfs")
        if name not in have
    ]


#: How a note of :func:`machine_check` starts (the report puts it beside the verdict).
MACHINE_CHECK = "machine check: "


def held_procs(table: pd.DataFrame) -> pd.Series:
    """The processors each job held in the logged schedule: SWF field 5 (allocated)
    where the log gives it (a job without it held none: a cancelled job the log still
    dates), else the processors the job asks for."""
    if "allocated_procs" in table and table["allocated_procs"].notna().any():
        return table["allocated_procs"]
    return table["procs"]


def machine_check(probe: Workload | None, flags: MachineFlags | None) -> str | None:
    """The logged schedule against the baselines' machine: a note when the log never
    uses a large share of its processors or uses more than it has (None otherwise)."""
    from cosched.metrics.validate import log_machine

    table = getattr(probe, "table", None)
    if table is None or "wait_time" not in table or not len(table):
        return None
    platform, _ = build_platform(policy_class("easy").requires, flags or MachineFlags(), probe)
    m = log_machine(table["submit_time"], table["wait_time"], table["run_time"],
                    held_procs(table), platform.procs)  # fmt: skip
    cores = flags.cores if flags is not None and flags.cores else None
    if cores is None and probe is not None and probe.max_nodes and probe.max_procs:
        cores = int(probe.max_procs) // int(probe.max_nodes)
    text = m.warning("--machine nodes=N,cores=C, or the --nodes and --cores of the import", cores)
    return None if text is None else MACHINE_CHECK + text


def _baseline_arm(text: str, flags: MachineFlags | None, probe: Workload | None) -> Arm:
    """The arm ``--baseline`` names, its machine and job widths checked."""
    arm = parse_arm(text)
    if arm.policy not in BASELINES:
        raise ConfigError(
            f"--baseline {text!r}: the baseline must be one of {', '.join(BASELINES)} "
            "(with parameters, e.g. easy(order=sjf,window=20)), or fitted"
        )
    platform, _ = build_platform(policy_class(arm.policy).requires, flags or MachineFlags(), probe)
    _check_width(probe, platform, arm.policy)
    return arm


def machine_flags(text: str) -> str:
    """A machine error in ``compare``'s words: ``run``'s ``--procs N`` / ``--cores C``
    are ``compare``'s ``--machine procs=N`` / ``--machine cores=C``."""
    return _RUN_FLAG.sub(lambda m: f"--machine {m[1]}={m[2] or m[1][0].upper()}", text)


_RUN_FLAG = re.compile(r"--(procs|nodes|cores)\b(?: ([0-9]+|[A-Z])\b)?")


def _check_width(probe: Workload | None, platform: Platform, policy: str) -> None:
    """A job wider than the machine is an error naming compare's flag, before any run."""
    table = getattr(probe, "table", None)
    if table is None or not len(table):
        return
    k = int(table["procs"].to_numpy().argmax())
    procs = int(table["procs"].iloc[k])
    if procs > platform.procs:
        raise ConfigError(
            f"job {table['job_id'].iloc[k]} asks for {procs} processors but {policy}'s "
            f"machine ({platform.describe()}) has {platform.procs}; give the machine's "
            "size with --machine nodes=N,cores=C"
        )


def _has_recorded_starts(probe: Workload | None) -> bool:
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
    from cosched.experiments.sweep import cells, spec_from_dict

    (out / "plan.json").write_text(json.dumps(comparison.to_json(), indent=2) + "\n")
    later = _later_efficiency_arms(comparison)
    first = replace(comparison, arms=[a for a in comparison.arms if a not in later])
    total = sum(len(cells(spec_from_dict(s, source="compare"))) for s in comparison.specs())
    done = _run_specs(first, out, total, 0, workers=workers, dask=dask, progress=progress)
    # Gang's lower efficiencies, highest first, each only while gang still beats the best
    # baseline at the one before: past the break-even a dearer switch only slows its
    # time-sliced jobs further, and these are its slowest runs.
    for arm in later:
        if not _still_ahead(out, comparison, arm):
            break
        one = replace(comparison, arms=[arm])
        done = _run_specs(one, out, total, done, workers=workers, dask=dask, progress=progress)
    _, table, _ = load_store(out)
    table.to_parquet(out / "results.parquet", index=False)


def _swept_efficiencies(comparison: Comparison) -> list[Arm]:
    """Gang's switch-cost arms, highest efficiency first."""
    return sorted(
        (a for a in comparison.arms if a.role == "efficiency" and a.strength is not None),
        key=lambda a: -float(a.strength or 0.0),
    )


def _later_efficiency_arms(comparison: Comparison) -> list[Arm]:
    """The switch-cost arms after the first (highest efficiency), highest first."""
    return _swept_efficiencies(comparison)[1:]


def _still_ahead(out: Path, comparison: Comparison, arm: Arm) -> bool:
    """Whether gang, at the efficiency just above ``arm``'s, has a lower mean turnaround
    than every baseline (the level of the verdict's break-even)."""
    _, table, _ = load_store(out)
    if table.empty:
        return True
    means = table.groupby("arm")["mean_turnaround"].mean()
    baselines = [a.label for a in comparison.main if a.policy in BASELINES]
    effs = _swept_efficiencies(comparison)
    above = effs[effs.index(arm) - 1]
    if above.label not in means or not any(b in means for b in baselines):
        return True  # nothing to judge by: run it
    return bool(means[above.label] < min(means[b] for b in baselines if b in means))


def _run_specs(
    comparison: Comparison,
    out: Path,
    total: int,
    done: int,
    *,
    workers: int,
    dask: str | None,
    progress: Callable[[int, int], None] | None,
) -> int:
    """Run ``comparison``'s cells not yet stored; the runs counted so far, after."""
    from cosched.experiments.store import Store
    from cosched.experiments.sweep import SweepError, cells, run_sweep, spec_from_dict

    specs = [spec_from_dict(s, source="compare") for s in comparison.specs()]
    store = Store(out / "store")
    stored = [sum(store.done(c.key) for c in cells(s)) for s in specs]
    # Stored runs are counted at once, before any run, so that a resumed comparison's
    # progress (and its ETA) moves only with the runs it does.
    fresh = done
    for spec, before in zip(specs, stored, strict=True):

        def step(finished: int, n: int, base: int = fresh, had: int = before) -> None:
            if progress is not None:
                progress(min(sum(stored) + base + max(finished - had, 0), total), total)

        try:
            run_sweep(
                spec,
                out / "store",
                workers=workers,
                dask=dask,
                progress=step,
                command="cosched compare",
                report=False,
            )
        except SweepError as exc:
            exc.args = (_failed_runs(exc.failed, total),)
            raise
        fresh += len(cells(spec)) - before
    return fresh + sum(stored)


def _failed_runs(failed: Sequence[tuple[str, str, str]], total: int) -> str:
    """The failed runs of a comparison, each distinct error once."""
    by_error: dict[str, list[str]] = {}
    for _, label, error in failed:
        by_error.setdefault(error, []).append(label)
    lines = [
        f"{len(failed)} of {total} runs failed (the others are stored; the same command "
        "runs these again):"
    ]
    for error, labels in by_error.items():
        more = f" and {len(labels) - 1} more" if len(labels) > 1 else ""
        lines.append(f"  {error} ({labels[0]}{more})")
    return "\n".join(lines)


# -- from the store to the numbers --------------------------------------------------------


def _key(
    policy: str,
    params: dict[str, Any],
    profile: dict[str, Any] | None = None,
    platform: dict[str, Any] | None = None,
) -> tuple[str, str, str, str]:
    return (
        policy,
        json.dumps(params, sort_keys=True),
        json.dumps(profile or {}, sort_keys=True),
        json.dumps(platform or {}, sort_keys=True),
    )


def _arm_key(comparison: Comparison, a: Arm) -> tuple[str, str, str, str]:
    """The run an arm names: policy, parameters, annotator parameters and machine."""
    return _key(a.policy, a.params, a.profile_params, comparison.platform_of(a))


def _cell_key(c: Cell) -> tuple[str, str, str, str]:
    """:func:`_arm_key` of a sweep cell."""
    from cosched.experiments.sweep import _platform_dict

    profile = dict(c.workload.profile_params or ())
    return _key(c.policy, dict(c.params), profile, _platform_dict(c.platform))


def load_store(out: Path) -> tuple[Comparison, pd.DataFrame, dict[str, list[pd.DataFrame]]]:
    """The plan; one results row per arm and finished run (an arm's label, policy,
    seed, platform and metrics); the per-job tables by arm label, in seed order."""
    from cosched.experiments.store import Store
    from cosched.experiments.sweep import cells, spec_from_dict

    path = out / "plan.json"
    if not path.is_file():
        raise ConfigError(f"{out} holds no comparison (no plan.json)")
    comparison = Comparison.from_json(json.loads(path.read_text()))
    labels: dict[tuple[str, str, str, str], list[str]] = {}
    for a in comparison.arms:
        labels.setdefault(_arm_key(comparison, a), []).append(a.label)
    skip = {"key", "workload", "policy", "params", "estimates", "tau", "seed", "status", "error"}
    rows = []
    jobs: dict[str, list[pd.DataFrame]] = {}
    store = Store(out / "store")
    for s in comparison.specs():
        for c in sorted(cells(spec_from_dict(s, source="compare")), key=lambda c: c.seed):
            stored = store.finished(c.key)
            if stored is None:
                continue
            metrics = {k: v for k, v in stored.items() if k not in skip and k[:6] != "param_"}
            table = store.table("jobs", c.key)
            for label in labels.get(_cell_key(c), []):
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


# -- what each arm's scheduler does beside its mechanism ------------------------------------


def scheduling(policy: str, params: dict[str, Any]) -> tuple[bool, str]:
    """``(backfills, description)`` of an arm's scheduler: its backfilling and queue
    order, the features a fitted baseline chooses (``compare --baseline``)."""
    cls = policy_class(policy)
    p = cls(**params)
    window = getattr(p, "window", None)
    within = f" (window {window})" if window is not None else ""
    backfill = {
        "fcfs": "",
        "easy": f"EASY backfilling{within}",
        "conservative": "conservative backfilling",
    }.get(cls.name)
    fam = family(cls.family)
    if backfill is None:
        told = fam.backfilling if fam is not None else None
        backfill = told(p, within) if told is not None else "its own backfilling, if any"
    order = getattr(p, "order", None)
    order_text = (fam.order if fam is not None else None) or f"{order or 'submit'} order"
    if order == "fairshare":
        order_text += f" (half-life {getattr(p, 'fairshare_half_life', 0.0):g} s)"
    caps = [
        f"{v} {what}"
        for v, what in (
            (getattr(p, "max_jobs_per_user", None), "running jobs"),
            (getattr(p, "max_procs_per_user", None), "processors"),
        )
        if v is not None
    ]
    limits = f", at most {' and '.join(caps)} per user" if caps else ""
    return bool(backfill), f"{backfill or 'no backfilling'}, {order_text}{limits}"


def differences(comparison: Comparison, base: str) -> list[str]:
    """Per main arm, how its scheduler differs from the baseline ``base`` in
    backfilling and order (empty when none differs)."""
    arms = {a.label: a for a in comparison.main}
    if base not in arms:
        return []
    b_fills, b_text = scheduling(arms[base].policy, arms[base].params)
    out = []
    for a in comparison.main:
        if a.label == base or a.policy in BASELINES:
            continue
        fills, text = scheduling(a.policy, a.params)
        if text != b_text:
            what = "backfills where the baseline does not" if fills and not b_fills else (
                "does not backfill where the baseline does" if b_fills and not fills
                else "differs in its order or backfilling"
            )  # fmt: skip
            out.append(f"`{a.label}` {what} ({text})")
    if not out:
        return []
    return [
        f"`{base}` schedules with {b_text}; " + "; ".join(out) + ". The first step of each "
        "family's chain in *Where the gain comes from* (the same scheduler with its "
        "mechanism off, against the baseline) measures what that difference gives."
    ]
