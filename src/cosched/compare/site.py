"""The fitted baseline's site rules on ``cosched compare``'s arms.

``compare --baseline fitted`` hands every arm the site rules the fit chose
(:mod:`cosched.experiments.fit`): :func:`with_site` gives each arm the per-user limits
and fair-share order its policy takes (:data:`SITE_RULES`), the outages read from the log
where its machine counts the same units, and the partitions where its machine can be cut
into them, and says in notes which arms run without which rule and why (a note the
verdict repeats starts with :data:`FIT_WARNING`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cosched.errors import ConfigError
from cosched.policies.base import policy_class
from cosched.policies.requirements import MachineFlags, build_platform

if TYPE_CHECKING:
    from cosched.compare.study import Arm
    from cosched.platform.machine import Platform
    from cosched.workload.job import Workload

__all__ = ["FIT_WARNING", "SITE_RULES", "with_site"]

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
