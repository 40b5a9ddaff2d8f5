"""The pairwise maximum-slowdown model of LOMARC (paper section 4.1).

A job's run time splits into fractions on the CPU, the network and the disk
(``cpu + net + disk = 1``). When two jobs A and B share a node, the worst case is that
their shared parts on each resource are serialized: on resource ``r`` the overlap is
``m_r = min(f_A,r, f_B,r)``, and that overlap costs ``c_r`` times its length instead of
once. Counting each job's unshared time as well, the individual-execution slowdown
``sl_AB = T_AB / T_A`` is (the ``overlap`` reading below)::

    sl_AB = sum_r [(f_A,r - m_r) + c_r * m_r] = 1 + sum_r (c_r - 1) * m_r

with ``c_net = c_disk = 2`` (serialized on the network interface / the disk) and, for
the CPU, ``c_cpu = 2 * f_competing + f_different = 1 + f_competing``: 2 on a standard
CPU (time sharing), and on a hyperthreaded CPU the pair's CPU slowdown (1.4 when the
two CPU parts go well together, 2 when they compete; section 6.1). The slowdown is the
same for A and B because the overlaps are symmetric, and it is at most 2 while the two
jobs fit in memory together (the overlaps sum to at most 1).

Two readings of the overall formula, both named options (``formula``):

* ``overlap`` (the default): each job's own time plus the extra cost of its shared
  parts, the form written out above, with ``max(sl_AB, sl_mem)`` for a pair that pages
  (section 4.2 measured 2.5 as a whole pair's slowdown). It is the reading the paper's
  own worked example needs: it reproduces every estimate of section 4.2's Table 2
  (2 (1.4), 2 (1.6), and 1.8 (1.4) for the mixed pair of f_comm 0.4 with f_comm 0.6:
  ``1 + (2 - 1) 0.4 + (2 - 1) 0.4 = 1.8``, and 1.4 with no CPU slowdown), where the
  printed form gives 1.6 (1.2). Where the text and section 6's results pull apart, the
  default follows the text.
* ``printed`` (a named preset, reported beside the default): section 4.1's overall
  formula as printed, every term, ``sl_AB = c_cpu m_cpu + sl_mem + 2 m_net + 2
  m_disk``: the shared parts only, plus ``sl_mem`` (2.5, section 6.1) when the two
  memory needs sum above 1 and 0 otherwise, bounded below by 1 (a paired job never
  runs faster than alone). Section 6's numbers move the paper's way under it on some
  claims (L-R's gains on W1, AC against PSS); docs/lomarc.md gives both readings' claim
  tables side by side.

How the memory slowdown combines with the shared parts is a reading of its own: every
line that names ``sl_A,B,mem`` writes it as a summand (section 4.1, lines 474-475 and 501-502),
and section 4.2 measured it as a whole pair's slowdown ("The slowdown is 2.5 in the
former and 2.2 in the latter case", lines 843-844). The overlap form takes three
named readings of it, values of the same option (they differ only for a pair whose
memory needs sum above 1, which only AC forms):

* ``overlap`` (the default): ``max(sl_AB, sl_mem)``, sl_mem being section 4.2's
  measured slowdown of a whole paging pair;
* ``overlap-add``: ``sl_AB + sl_mem``, the printed ``+ sl_A,B,mem`` added to the
  overlap form as it stands;
* ``overlap-excess``: ``sl_AB + (sl_mem - 1)``, sl_mem read as a slowdown whose extra
  time (beyond the job's own) adds to the shared parts' extra cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cosched.errors import ConfigError, WorkloadError

__all__ = [
    "CLASS_CPU",
    "CLASS_DISK",
    "CLASS_NET",
    "FORMULAS",
    "MAX_SLOWDOWN",
    "OVERLAP",
    "OVERLAP_ADD",
    "OVERLAP_EXCESS",
    "PRINTED",
    "Profile",
    "SlowdownModel",
    "pair_ends",
    "pair_slowdown",
    "pair_value",
    "profile_of",
    "shared_cost",
]

CLASS_CPU, CLASS_NET, CLASS_DISK = 0, 1, 2
#: The paper's MAX_SLOWDOWN (section 6.2).
MAX_SLOWDOWN = 1.6
#: Serialization factor of overlapping network or disk use (section 4.1).
SERIAL = 2.0
#: Readings of section 4.1's overall formula and of how its memory term combines (see
#: :func:`pair_slowdown`); the first is the default (the reading Table 2's worked example
#: and section 4.2's paging measurement need). A reading's code is its index.
FORMULAS = ("overlap", "printed", "overlap-add", "overlap-excess")
OVERLAP, PRINTED, OVERLAP_ADD, OVERLAP_EXCESS = range(len(FORMULAS))


@dataclass(frozen=True, slots=True)
class Profile:
    """What the slowdown model knows about one job.

    Attributes:
        index: the job's index (decides whose CPU draw a pair uses).
        cls: 0 CPU-bound, 1 network-bound, 2 disk-bound.
        cpu: fraction of time on the CPU.
        net: fraction of time on the network.
        disk: fraction of time on the disk.
        mem: memory need as a fraction of a node's memory.
        cpu_slowdown: CPU slowdown of a pair on a hyperthreaded CPU (1.4 or 2).
    """

    index: int
    cls: int
    cpu: float
    net: float
    disk: float
    mem: float
    cpu_slowdown: float = 2.0


_COLUMNS = ("lomarc_class", "lomarc_cpu", "lomarc_net", "lomarc_disk", "lomarc_mem")


def profile_of(index: int, extra: Mapping[str, Any]) -> Profile:
    """The profile from a job's ``extra`` fields (the ``lomarc_*`` annotation columns).

    Raises:
        WorkloadError: a column is missing (annotate with ``annotate_lomarc`` first).
    """
    missing = [c for c in _COLUMNS if c not in extra]
    if missing:
        raise WorkloadError(
            f"job index {index} lacks the LOMARC profile columns {missing}; annotate the "
            "workload with cosched.workload.profiles.lomarc.annotate_lomarc"
        )
    return Profile(
        index=index,
        cls=int(extra["lomarc_class"]),
        cpu=float(extra["lomarc_cpu"]),
        net=float(extra["lomarc_net"]),
        disk=float(extra["lomarc_disk"]),
        mem=float(extra["lomarc_mem"]),
        cpu_slowdown=float(extra.get("lomarc_cpu_slowdown", 2.0)),
    )


def shared_cost(
    cpu_factor: Any, m_cpu: Any, m_io: Any, printed: bool, serial: float = SERIAL
) -> Any:
    """The formula's terms before the memory rule, for numbers or numpy arrays alike:
    ``c_cpu m_cpu + serial m_io`` (``printed``: the ``printed`` reading) or ``1 + (c_cpu
    - 1) m_cpu + (serial - 1) m_io`` (the ``overlap`` reading), where ``m_io`` is the
    network and disk overlaps summed. The reading is a flag, not its name, so the
    compiled pass compares no strings per pair."""
    if printed:
        return cpu_factor * m_cpu + serial * m_io
    return 1.0 + (cpu_factor - 1.0) * m_cpu + (serial - 1.0) * m_io


def pair_slowdown(
    a: Profile,
    b: Profile,
    *,
    cpu_factor: float,
    mem_slowdown: float = 2.5,
    serial: float = SERIAL,
    formula: str = "overlap",
) -> float:
    """``sl_AB`` for two profiles with a given CPU overlap factor ``c_cpu``.

    Args:
        a: one job.
        b: the other job.
        cpu_factor: ``1 + f_competing`` (2 on a standard CPU).
        mem_slowdown: the pair's slowdown when it does not fit in memory.
        serial: cost factor of overlapping network or disk time.
        formula: ``overlap`` (the default, Table 2's reading: each job's own time plus
            the extra cost of the shared parts; ``max(sl, mem_slowdown)`` when it pages),
            ``printed`` (section 4.1's overall formula as printed: ``c_cpu m_cpu + 2
            m_net + 2 m_disk``, plus ``mem_slowdown`` when the pair pages, bounded
            below by 1), ``overlap-add`` (the overlap form, ``+ mem_slowdown`` when it
            pages) or ``overlap-excess`` (the overlap form, ``+ mem_slowdown - 1``
            when it pages).
    """
    return pair_value(
        cpu_factor,
        min(a.cpu, b.cpu),
        min(a.net, b.net) + min(a.disk, b.disk),
        a.mem + b.mem > 1.0,
        mem_slowdown,
        FORMULAS.index(formula),
        serial,
    )


def pair_value(
    cpu_factor: float,
    m_cpu: float,
    m_io: float,
    over: bool,
    mem_slowdown: float,
    formula: int,
    serial: float = SERIAL,
) -> float:
    """``sl_AB`` from the pair's overlaps: :func:`shared_cost` plus the memory rule.

    ``over``: the two memory needs sum above 1; ``formula``: the reading's code (its
    index in :data:`FORMULAS`). Plain arithmetic on numbers, so the compiled LOMARC loop
    (:mod:`cosched.lomarc._kernel`) calls this same function.
    """
    printed = formula == PRINTED
    sl = shared_cost(cpu_factor, m_cpu, m_io, printed, serial)
    if printed:
        if over:
            sl += mem_slowdown
        return max(1.0, sl)
    if over:
        if formula == OVERLAP_ADD:
            sl += mem_slowdown
        elif formula == OVERLAP_EXCESS:
            sl += mem_slowdown - 1.0
        else:
            sl = max(sl, mem_slowdown)
    return sl


@dataclass(frozen=True, slots=True)
class SlowdownModel:
    """The slowdown of pairs on one kind of CPU.

    Attributes:
        hyperthreaded: True for hyperthreaded CPUs (the pair's drawn CPU slowdown),
            False for standard CPUs (time sharing: CPU overlap costs 2).
        mem_slowdown: slowdown of a pair whose memory needs sum above 1 (2.5, sec. 6.1).
        standard_cpu_factor: CPU overlap cost on a standard CPU (2: time slicing).
        formula: one of :data:`FORMULAS`, ``overlap`` the default (see
            :func:`pair_slowdown`).
    """

    hyperthreaded: bool = True
    mem_slowdown: float = 2.5
    standard_cpu_factor: float = 2.0
    formula: str = "overlap"

    def __post_init__(self) -> None:
        if self.formula not in FORMULAS:
            raise ConfigError(
                f"slowdown model formula must be one of {', '.join(FORMULAS)}, got {self.formula!r}"
            )
        for name in ("mem_slowdown", "standard_cpu_factor"):
            v = getattr(self, name)
            if not isinstance(v, int | float) or isinstance(v, bool) or not v >= 1.0:
                raise ConfigError(f"slowdown model {name} must be a number >= 1, got {v!r}")

    def cpu_factor(self, a: Profile, b: Profile) -> float:
        """``c_cpu`` of the pair: the later job's draw on hyperthreaded CPUs.

        The annotation carries one draw per job; the pair uses the draw of the job with
        the larger index (the later submission), so each pairing sees one independent
        good (0.33) or poor (0.67) outcome and the value is symmetric in A and B.
        """
        if not self.hyperthreaded:
            return self.standard_cpu_factor
        return (a if a.index > b.index else b).cpu_slowdown

    def slowdown(self, a: Profile, b: Profile) -> float:
        """The pair's maximum slowdown ``sl_AB = sl_BA``."""
        return pair_slowdown(
            a,
            b,
            cpu_factor=self.cpu_factor(a, b),
            mem_slowdown=self.mem_slowdown,
            formula=self.formula,
        )


def pair_ends(ta: float, tb: float, sl: float) -> tuple[float, float]:
    """Run times of two jobs paired from now at slowdown ``sl`` (a then b).

    Both run at ``1 / sl`` until the shorter ends (after ``min * sl``); the longer
    then runs alone at full speed: ``min * (sl - 1) + max`` in all.
    """
    short = min(ta, tb) * sl
    long = min(ta, tb) * (sl - 1.0) + max(ta, tb)
    return (short, long) if ta <= tb else (long, short)
