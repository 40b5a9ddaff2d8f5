"""What a policy needs of the machine and the workload, and building both from that.

Each policy class declares ``requires: ClassVar[Requirements]``. The command line and
the experiment runner read it to build the machine the family needs from the trace
header and the user's flags (:func:`build_platform`), and to supply the per-job profile
columns it reads (:func:`supply_profiles`): from a given file, the sidecar beside the
trace, or the family's default annotator seeded by the caller. Every assumption made on
the user's behalf comes back as a note, so it can be printed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from cosched.errors import ConfigError
from cosched.platform import Allocation, Platform
from cosched.workload.job import Workload

__all__ = [
    "EXCLUSIVE_KEY",
    "MachineFlags",
    "Requirements",
    "build_platform",
    "exclusive_site",
    "fit_workload",
    "supply_profiles",
]

#: The trace-header key that says the site gives each job whole nodes
#: (``; NodeAllocation: exclusive``, written by ``cosched trace import --exclusive``).
EXCLUSIVE_KEY = "NodeAllocation"


@dataclass(frozen=True)
class Requirements:
    """What a policy needs; the default (all unset) is any machine, no profile.

    Attributes:
        allocation: the allocation mode the family runs in (None: any, default cores).
        cores_per_node: cores a node must have (LOMARC's single-CPU nodes: 1).
        default_cores: cores per node assumed when neither the flags nor the trace
            header say (with ``default_cores_source``, the evidence, in the note).
        default_cores_source: where ``default_cores`` comes from.
        mpl: slots per core (hardware threads or time shares) the family needs, at least.
        max_jobs_per_node: the job cap per node the family runs with (None: no sharing).
        profile_columns: per-job columns the policy reads from ``job.extra``.
        annotator: the profile (a name of :data:`cosched.workload.profiles.PROFILES`)
            that supplies ``profile_columns`` by default.
        per_processor_nodes: each processor of the trace becomes a node (the trace's
            processor count is the node count; LOMARC's machine).
        random_profiles: whether the annotator draws the profiles at random (then a
            comparison runs the policy over several seeds); False for one that reads
            them from the trace itself (``recorded``).
    """

    allocation: Allocation | None = None
    cores_per_node: int | None = None
    default_cores: int | None = None
    default_cores_source: str = ""
    mpl: int = 1
    max_jobs_per_node: int | None = None
    profile_columns: tuple[str, ...] = ()
    annotator: str | None = None
    per_processor_nodes: bool = False
    random_profiles: bool = True

    @property
    def shared(self) -> bool:
        """Whether the family places several jobs on a node."""
        return self.mpl > 1 or self.max_jobs_per_node is not None

    def problems(self, platform: Platform) -> list[str]:
        """Why ``platform`` does not meet these requirements (empty: it does)."""
        out = []
        if self.allocation is not None and platform.allocation is not self.allocation:
            out.append(f"{self.allocation.value} allocation")
        if self.cores_per_node is not None and platform.cores != self.cores_per_node:
            out.append(f"{self.cores_per_node} core(s) per node")
        if platform.mpl < self.mpl:
            out.append(f"mpl >= {self.mpl}")
        if self.max_jobs_per_node is not None and platform.max_jobs_per_node is None:
            out.append(f"a job cap per node (max_jobs_per_node, default {self.max_jobs_per_node})")
        return out


@dataclass(frozen=True)
class MachineFlags:
    """What the user said about the machine (None: not said)."""

    procs: int | None = None
    nodes: int | None = None
    cores: int | None = None
    allocation: str | None = None
    mpl: int | None = None
    max_jobs_per_node: int | None = None
    #: The site gives each job whole nodes (``compare --exclusive``; None: as the trace
    #: header says, :data:`EXCLUSIVE_KEY`).
    exclusive: bool | None = None
    #: Capacity removed for a while, ``(start, end, units)`` each
    #: (:attr:`Platform.unavailable <cosched.platform.machine.Platform.unavailable>`;
    #: ``compare --baseline fitted``: the outages the fit read from the log).
    unavailable: tuple[tuple[float, float, int], ...] | None = None
    #: The machine in partitions that share no nodes, ``(partition, processors)`` each
    #: (the partition an SWF field 16 value, -1 for jobs without one): each partition is
    #: its own machine of the same node shape (:mod:`cosched.engine.partitions`;
    #: ``compare --baseline fitted``: the partitions the fit chose). ``build_platform``
    #: builds the node shape; the run splits it.
    partitions: tuple[tuple[float, int], ...] | None = None

    def said(self) -> bool:
        """Whether any flag was given."""
        return any(v is not None for v in vars(self).values())


def _header_int(value: object) -> int | None:
    try:
        v = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return None
    return v if v > 0 else None


def _cores(
    req: Requirements, f: MachineFlags, procs: int | None, nodes: int | None
) -> tuple[int, str | None]:
    """Cores per node, with a note when it was inferred or assumed."""
    if req.cores_per_node is not None:
        if f.cores is not None and f.cores != req.cores_per_node:
            raise ConfigError(
                f"needs {req.cores_per_node} core(s) per node, --cores {f.cores} given"
            )
        return req.cores_per_node, None
    if f.cores is not None:
        return f.cores, None
    if not req.shared and req.allocation is None:
        return 1, None
    if procs and nodes and procs % nodes == 0:
        c = procs // nodes
        return c, f"{c} core(s) per node (header MaxProcs {procs} / MaxNodes {nodes})"
    if req.default_cores is not None:
        src = f" ({req.default_cores_source})" if req.default_cores_source else ""
        return req.default_cores, (
            f"assumed {req.default_cores} cores per node{src}; the trace header does not say "
            "(pass --cores)"
        )
    return 1, None


def exclusive_site(flags: MachineFlags, workload: Workload | None) -> str | None:
    """Who says the site gives each job whole nodes (the flag, else the trace header),
    or None when nobody does."""
    if flags.exclusive is not None:
        return "--exclusive" if flags.exclusive else None
    header = getattr(workload, "header", None) or {}
    value = str(header.get(EXCLUSIVE_KEY, "")).strip().split(" ")[0].lower()
    return f"the trace header's {EXCLUSIVE_KEY}" if value == "exclusive" else None


def _whole_nodes(req: Requirements, flags: MachineFlags, workload: Workload | None) -> str | None:
    """Why a plain space-sharing family (no allocation, sharing or node shape of its own)
    allocates whole nodes here, or None."""
    plain = (
        req.allocation is None
        and not req.shared
        and not req.per_processor_nodes
        and req.cores_per_node is None
    )
    if not plain or flags.allocation is not None:
        return None
    return exclusive_site(flags, workload)


def build_platform(
    req: Requirements, flags: MachineFlags, workload: Workload | None = None
) -> tuple[Platform, list[str]]:
    """The machine for a policy with ``req``, from the flags and the trace header.

    Args:
        req: the policy's requirements.
        flags: what the user said (each flag overrides what the family would choose).
        workload: the loaded workload, for its header's MaxProcs / MaxNodes.

    Returns:
        The platform and notes on what was inferred or assumed.

    Raises:
        ConfigError: the flags contradict each other or the requirements, or nothing
            says how large the machine is.
    """
    if flags.procs is not None and flags.nodes is not None:
        raise ConfigError("give either --procs or --nodes/--cores, not both")
    notes: list[str] = []
    whole = _whole_nodes(req, flags, workload)
    if whole is not None:
        # The site's nodes, each given whole to one job: the family's pool of
        # processors becomes whole-node allocation on the stated shape.
        req = replace(req, allocation=Allocation.NODES)
    h_procs = _header_int(workload.max_procs) if workload is not None else None
    h_nodes = _header_int(workload.max_nodes) if workload is not None else None
    if req.per_processor_nodes and h_procs is None:
        h_procs = h_nodes
    cores, note = _cores(req, flags, h_procs, h_nodes)
    if note:
        notes.append(note)
    nodes = flags.nodes
    if nodes is None and flags.procs is not None:
        if flags.procs % cores:
            raise ConfigError(f"--procs {flags.procs} is not a multiple of {cores} cores per node")
        nodes = flags.procs // cores
    if nodes is None:
        procs = h_procs or h_nodes
        if procs is None:
            name = workload.name if workload is not None else "the workload"
            raise ConfigError(f"{name}: the trace header gives no MaxProcs; pass --procs N")
        if cores > 1 and h_nodes and h_procs and h_nodes * cores == h_procs:
            nodes = h_nodes
        else:
            nodes = -(-procs // cores)
            if cores > 1:
                notes.append(f"{nodes} nodes = MaxProcs {procs} / {cores} cores, rounded up")
        if req.per_processor_nodes:
            notes.append(f"each of the trace's {procs} processors is a single-CPU node")
    allocation = (
        Allocation(flags.allocation) if flags.allocation else req.allocation or Allocation.CORES
    )
    mpl = flags.mpl if flags.mpl is not None else req.mpl
    cap = flags.max_jobs_per_node if flags.max_jobs_per_node is not None else req.max_jobs_per_node
    gone = flags.unavailable or ()
    platform = Platform(nodes, cores, allocation, mpl=mpl, max_jobs_per_node=cap, unavailable=gone)
    if whole is not None:
        notes.append(
            f"whole nodes to each job ({whole}: the site allocates nodes exclusively); "
            f"{platform.describe()}"
            + (
                ""
                if cores > 1
                else ": a node of one core, as nothing gives the cores per node (give them "
                "with --machine nodes=N,cores=C or the import's --cores)"
            )
        )
    missing = req.problems(platform)
    if missing:
        raise ConfigError(f"needs {', '.join(missing)}; got {platform.describe()}")
    return platform, notes


def supply_profiles(
    req: Requirements,
    workload: Workload,
    *,
    profiles: str | os.PathLike[str] | None = None,
    seed: int = 0,
    annotator_params: Mapping[str, Any] | None = None,
) -> tuple[Workload, list[str]]:
    """``workload`` with the profile columns ``req`` asks for, and notes on their source.

    ``annotator_params`` go to the family's annotator (e.g. LOMARC's ``mixture``).

    Order: columns the workload already has (e.g. from the sidecar that
    :func:`~cosched.workload.sources.open_workload` joins), then ``profiles`` (a sidecar
    Parquet file), then the family's default annotator seeded with ``seed``.

    Raises:
        ConfigError: columns are missing and no annotator is declared, or the given
            file lacks them.
    """
    from cosched.workload.sidecar import attach_profiles, read_sidecar

    need = [c for c in req.profile_columns if c not in workload.columns]
    if not need:
        return workload, []
    if profiles is not None:
        w = attach_profiles(workload, read_sidecar(profiles))
        still = [c for c in req.profile_columns if c not in w.columns]
        if still:
            raise ConfigError(f"{os.fspath(profiles)}: no column(s) {', '.join(still)}")
        return w, [f"profiles from {Path(profiles).name}"]
    if req.annotator is None:
        raise ConfigError(f"the workload lacks the column(s) {', '.join(need)}")
    from cosched.workload.profiles import annotate

    params = dict(annotator_params or {})
    try:
        w = annotate(req.annotator, workload, rng=np.random.default_rng(seed), **params)
    except TypeError as exc:
        raise ConfigError(f"annotator {req.annotator!r}: {exc}") from None
    if params:
        shown = ", ".join(f"{k}={v}" for k, v in sorted(params.items()))
        return w, [f"profiles drawn by the {req.annotator!r} annotator with {shown}, seed {seed}"]
    if not req.random_profiles:
        return w, [
            f"column(s) {', '.join(need)} taken from the trace by the {req.annotator!r} "
            "annotator (nothing drawn at random)"
        ]
    return w, [
        f"profiles drawn by the {req.annotator!r} annotator with its default parameters, "
        f"seed {seed} (pass --profiles FILE, or run `cosched annotate`, to choose)"
    ]


def fit_workload(
    req: Requirements,
    workload: Workload,
    flags: MachineFlags,
    *,
    profiles: str | os.PathLike[str] | None = None,
    seed: int = 0,
    annotator_params: Mapping[str, Any] | None = None,
) -> tuple[Workload, Platform, list[str]]:
    """The machine and the profile columns a policy with ``req`` needs, for ``workload``.

    Returns:
        The workload (with profile columns supplied), the platform, and the notes of
        every assumption made (cores per node, annotator and seed, ...).

    Raises:
        ConfigError: a requirement that cannot be met, naming what is missing.
    """
    platform, notes = build_platform(req, flags, workload)
    workload, more = supply_profiles(
        req, workload, profiles=profiles, seed=seed, annotator_params=annotator_params
    )
    return workload, platform, notes + more
