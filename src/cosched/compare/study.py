"""``cosched compare``: the baselines and the coscheduling families on one trace.

An *arm* is one policy with fixed parameters under a label (``easy``,
``nodeshare-easy(window=50)``, ``nodeshare-easy@2`` in the robustness sweep).
:func:`plan` turns the user's trace, machine and policy list into arms; :func:`run`
executes them through the experiment framework (a resumable store under ``DIR/store``;
the deterministic arms once, the randomised ones over several seeds); and
:func:`build_report` rebuilds every number, figure and the verdict from ``DIR/plan.json``
and that store alone. :func:`cost` says beforehand what will run and about how long it
takes. The robustness sweeps (interference strength, gang's switch cost, LOMARC's
job-type mixes: each family's :attr:`Family.sweeps <cosched.families.Family.sweeps>`)
are optional (``robustness=False``: ``--quick``, ``--no-robustness``).
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


#: How a note of :func:`with_site` that the verdict repeats starts (an arm run without a
#: rule of the fitted baseline): :data:`cosched.compare.render.FIT_WARNING`.
FIT_WARNING = "the fit: "

#: The site rules a fitted baseline carries, by the parameter a policy must have to take it.
SITE_RULES = {
    "max_jobs_per_user": "max_jobs_per_user",
    "max_procs_per_user": "max_procs_per_user",
    "order": "fairshare_half_life",
    "fairshare_half_life": "fairshare_half_life",
}


def with_site(
    arms: Sequence[Arm],
    site: dict[str, Any],
    flags: MachineFlags | None = None,
    probe: Workload | None = None,
) -> tuple[list[Arm], list[str]]:
    """``arms`` each under the rules of ``site`` its policy takes (:data:`SITE_RULES`;
    the log's own schedule is left as logged), and the notes: which arms run under which
    rules, and which arms do not take which rule, with why.

    The outages (``site["unavailable"]``, ``[start, end, units]`` each, read on the
    machine of ``flags`` and ``probe`` as EASY builds it) go on each arm's machine
    (:attr:`Arm.machine`, as ``[platform].unavailable``) when that machine is counted in
    the same units: an arm whose jobs share nodes, or whose machine counts other units,
    runs without them and the note says why (:func:`_outage_misfit`)."""
    import dataclasses

    gone = site.get("unavailable") or []
    parts = site.get("partitions") or []
    if gone and parts:
        raise ConfigError("a fitted baseline replays outages or partitions, not both")
    site = {k: v for k, v in site.items() if k not in ("unavailable", "partitions")}
    out: list[Arm] = []
    took: list[str] = []
    lacking: list[str] = []
    for arm in arms:
        if arm.policy == "recorded":
            out.append(arm)
            continue
        cls = policy_class(arm.policy)
        fields: set[str] = set()
        if dataclasses.is_dataclass(cls):
            fields = {f.name for f in dataclasses.fields(cls)}
        taken = {k: v for k, v in site.items() if SITE_RULES.get(k, k) in fields}
        missing = [k for k in site if k not in taken]
        if taken:
            out.append(replace(arm, params={**arm.params, **taken}))
            took.append(arm.label)
        else:
            out.append(arm)
        if missing:
            lacking.append(f"{arm.label} ({', '.join(missing)})")
    notes = []
    if site:
        rules = ", ".join(f"{k}={v}" for k, v in site.items())
        notes.append(f"fitted site rules {rules}: every arm runs under those its scheduler takes")
        if took:
            notes[0] += f" ({', '.join(took)})"
    if lacking:
        notes.append(
            f"{FIT_WARNING}run without some fitted site rules, which their schedulers do not "
            f"have (no per-user limits or fair-share order in their policy): "
            f"{'; '.join(lacking)}; their difference from the baseline includes those rules"
        )
    if gone:
        out, more = _with_outages(out, [list(x) for x in gone], flags, probe)
        notes += more
    if parts:
        out, more = _with_partitions(out, [list(x) for x in parts], flags, probe)
        notes += more
    return out, notes


def _with_partitions(
    arms: list[Arm], parts: list[list[Any]], flags: MachineFlags | None, probe: Workload | None
) -> tuple[list[Arm], list[str]]:
    """:func:`with_site`'s partitions (``[partition, processors]`` each): each arm whose
    machine can be cut into them runs each partition's jobs on its own nodes
    (:mod:`cosched.engine.partitions`); the others run one machine, named with why."""
    out, took, without = _with_machine(
        arms, "partitions", parts, lambda mine: _partition_misfit(mine, parts), flags, probe
    )
    shown = ", ".join(f"{'none' if float(v) < 0 else f'{float(v):g}'}: {n}" for v, n in parts)
    notes = [
        f"fitted partitions: {len(parts)} partitions (SWF field 16: processors {shown}), each "
        "its own machine running its own jobs (the fit assumes they share no nodes): every "
        f"arm whose machine can be cut into them runs so ({', '.join(took) or 'none'})"
    ]
    for why, labels in without.items():
        notes.append(
            f"{FIT_WARNING}{', '.join(labels)} run on one machine without the fitted "
            f"partitions, {why}: their difference from the baseline, which runs in them, "
            "includes the partitions"
        )
    return out, notes


def _with_machine(
    arms: list[Arm],
    key: str,
    value: Any,
    misfit: Callable[[Platform], str | None],
    flags: MachineFlags | None,
    probe: Workload | None,
) -> tuple[list[Arm], list[str], dict[str, list[str]]]:
    """``arms`` with ``key: value`` on the machine of each (the log's own schedule left
    as logged) whose machine ``misfit`` finds nothing against; the labels of those that
    took it, and of the others by why."""
    out: list[Arm] = []
    took: list[str] = []
    without: dict[str, list[str]] = {}
    given = {k: v for k, v in vars(flags or MachineFlags()).items() if v is not None}
    for arm in arms:
        if arm.policy == "recorded":
            out.append(arm)
            continue
        try:
            mine, _ = build_platform(
                policy_class(arm.policy).requires, MachineFlags(**{**given, **arm.machine}), probe
            )
            why = misfit(mine)
        except ConfigError as exc:
            why = f"as its machine cannot be built ({exc})"
        if why is None:
            out.append(replace(arm, machine={**arm.machine, key: value}))
            took.append(arm.label)
        else:
            out.append(arm)
            without.setdefault(why, []).append(arm.label)
    return out, took, without


def _partition_misfit(mine: Platform, parts: list[list[Any]]) -> str | None:
    """Why machine ``mine`` cannot be cut into ``parts`` (None: it can)."""
    for _, procs in parts:
        if int(procs) % mine.cores:
            return (
                f"as a partition of {int(procs)} processors is not whole nodes of its "
                f"{mine.cores} cores"
            )
        try:
            replace(mine, nodes=int(procs) // mine.cores)
        except ConfigError as exc:
            return f"as its machine cannot be cut at {int(procs)} processors ({exc})"
    return None


def _with_outages(
    arms: list[Arm], gone: list[list[Any]], flags: MachineFlags | None, probe: Workload | None
) -> tuple[list[Arm], list[str]]:
    """:func:`with_site`'s outages: each arm that can take them runs under them."""
    ref, _ = build_platform(policy_class("easy").requires, flags or MachineFlags(), probe)
    out, took, without = _with_machine(
        arms, "unavailable", gone, lambda mine: _outage_misfit(mine, ref), flags, probe
    )
    hours = sum((float(b) - float(a)) * int(u) for a, b, u in gone) / 3600.0
    notes = [
        f"fitted outages: {len(gone)} unavailability intervals the fitted baseline replays "
        f"({hours:.0f} unit-hours of {ref.describe()}), each a drain: every arm whose "
        f"machine counts the same units runs under them ({', '.join(took) or 'none'})"
    ]
    for why, labels in without.items():
        notes.append(
            f"{FIT_WARNING}{', '.join(labels)} run without the fitted outages, {why}: their "
            "difference from the baseline, which runs under them, includes the capacity "
            "the outages remove"
        )
    return out, notes


def _outage_misfit(mine: Platform, ref: Platform) -> str | None:
    """Why an arm on machine ``mine`` cannot run under outages read on machine ``ref``
    (None: it can)."""
    if mine.shared:
        return (
            "as their jobs share nodes, placed on named nodes, which a drain of capacity "
            "counted in units does not reach"
        )
    if (mine.capacity, mine.allocation) != (ref.capacity, ref.allocation):
        return (
            f"as their machine counts {mine.capacity} units by {mine.allocation.value}, the "
            f"outages were read on {ref.capacity} units by {ref.allocation.value}"
        )
    return None


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


# -- what it costs ------------------------------------------------------------------------

#: Jobs per CPU second of one run of a batch policy: the sweep's cell function
#: (annotation, simulation, summary) on the whole KTH-SP2 log (28,467 jobs, its 100
#: single-core nodes), ``time.process_time`` of the second cell in one process, on the
#: development machine (a 2-core VM): fcfs and EASY over 500,000, conservative 215,000,
#: rounded down. Each family declares its own (:attr:`Family.jobs_per_second
#: <cosched.families.Family.jobs_per_second>`). Drawing the report is not in it.
BATCH_JOBS_PER_SECOND = 200_000.0
#: CPU seconds of a run beyond its jobs (the store's files, the summary): EASY and
#: node sharing over the 300-job example through the sweep took 0.05-0.11 s a run.
RUN_OVERHEAD = 0.1
#: CPU seconds of drawing the report (and of the process's imports), about the same
#: for any trace: ``cosched report`` on the bundled example's comparison and on
#: KTH-SP2's took 15.2 and 15.5 s.
REPORT_SECONDS = 15.0


def jobs_per_second() -> dict[str, float]:
    """Jobs per CPU second of one run, by family: ``batch`` and each family that
    declares its speed."""
    declared = {f.name: f.jobs_per_second for f in families() if f.jobs_per_second}
    return {"batch": BATCH_JOBS_PER_SECOND, **declared}


#: How the plan names the runs of each arm role (main arms go by their family).
_ROLE_NAMES = {
    "robustness": "interference sweep",
    "efficiency": "switch-cost sweep up to",
    "mix": "job-type mixes",
    "reference": "recorded schedule",
    "control": "control runs",
}


@dataclass(frozen=True)
class Cost:
    """What a comparison will run.

    Attributes:
        runs: simulations in all.
        stored: those already in the store (a resumed comparison).
        todo: simulations still to do: the main arms by family (``nodeshare``), the
            others by what they are (``interference sweep``).
        cpu_seconds: estimated CPU time of those, from :func:`jobs_per_second` (the
            slowest for a family that declares none: a user's policy).
        compiling: families whose numba kernels are not cached yet.
        later_seconds: the part of ``cpu_seconds`` in gang's lower efficiencies, which
            run only while gang beats the best baseline (:func:`run`).
    """

    runs: int
    stored: int
    todo: dict[str, int]
    cpu_seconds: float
    compiling: list[str]
    later_seconds: float = 0.0


def cost(comparison: Comparison, out: Path, jobs: int) -> Cost:
    """The runs of ``comparison`` not yet in ``out/store``, and their estimated time on a
    trace of ``jobs`` jobs."""
    from cosched.experiments.store import Store
    from cosched.experiments.sweep import cells, spec_from_dict

    store = Store(out / "store") if (out / "store").is_dir() else None
    roles: dict[tuple[str, str, str, str], str] = {}
    for a in comparison.arms:  # a run shared by a main arm and a sweep counts as main
        roles.setdefault(_arm_key(comparison, a), a.role)
    later = {_arm_key(comparison, a) for a in _later_efficiency_arms(comparison)}
    runs = stored = 0
    todo: dict[str, int] = {}
    seconds = later_seconds = 0.0
    speeds = jobs_per_second()
    slowest = min(speeds.values())
    compiled: set[tuple[str, str]] = set()
    for s in comparison.specs():
        for c in cells(spec_from_dict(s, source="compare")):
            runs += 1
            if store is not None and store.done(c.key):
                stored += 1
                continue
            name = policy_class(c.policy).family
            compiled.add((name, c.policy))
            key = _cell_key(c)
            what = _ROLE_NAMES.get(roles.get(key) or "main", name)
            todo[what] = todo.get(what, 0) + 1
            one = RUN_OVERHEAD + jobs / speeds.get(name, slowest)
            seconds += one
            if key in later:
                later_seconds += one
    compiling = sorted({f for f, p in compiled if _compiles(p)})
    return Cost(runs, stored, todo, seconds, compiling, later_seconds)


def _compiles(policy: str) -> bool:
    """Whether the policy's first run compiles: its compiled pass's loop, or a group of
    kernels compiled ahead of time that the pass calls, is not built yet."""
    from cosched.engine import aot

    spec = policy_class(policy).compiled_pass()
    return spec is not None and bool(aot.unbuilt(spec))


def workload_jobs(workload: dict[str, Any], probe: Workload | None) -> int:
    """Jobs in the comparison's trace (the loaded probe, else the generator's count)."""
    if probe is not None:
        return len(probe)
    return int(workload.get("jobs") or 0)


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
