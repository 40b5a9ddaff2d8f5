"""Malleable configurations ``(nodes x cores per node)`` of a job, from its base ``(n x C)``.

The paper (section 4) uses, for 16-core nodes and base ``(n x 16)``:
``(4n x 4), (2n x 8), (n x 16), (2n x 4), (n x 8), (n/2 x 16), (n/2 x 8)``; the last four
are *degraded* (fewer total cores than the base). Generalised to any ``C`` as node
multipliers and core fractions: ``(4, 1/4), (2, 1/2), (1, 1), (2, 1/4), (1, 1/2),
(1/2, 1), (1/2, 1/2)``. A shape whose node count or cores per node is not a whole
number (``n/2`` for odd ``n``, ``C/4`` for ``C`` not divisible by 4) is left out rather
than rounded, since rounding would change its total cores; so is one needing more nodes
than the machine has.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from cosched.errors import ConfigError

__all__ = ["PAPER_SHAPES", "Configuration", "configurations"]

#: (node multiplier, core fraction) in the paper's order.
PAPER_SHAPES: tuple[tuple[Fraction, Fraction], ...] = (
    (Fraction(4), Fraction(1, 4)),
    (Fraction(2), Fraction(1, 2)),
    (Fraction(1), Fraction(1)),
    (Fraction(2), Fraction(1, 4)),
    (Fraction(1), Fraction(1, 2)),
    (Fraction(1, 2), Fraction(1)),
    (Fraction(1, 2), Fraction(1, 2)),
)


@dataclass(frozen=True, slots=True)
class Configuration:
    """One way to run a job.

    Attributes:
        nodes: nodes used.
        cores: cores used on each node.
        node_ratio: nodes / base nodes.
        fraction: cores / cores per node of the machine.
        halvings: log2(base total cores / total cores); 0 unless degraded.
        shape: position in :data:`PAPER_SHAPES`.
    """

    nodes: int
    cores: int
    node_ratio: float
    fraction: float
    halvings: float
    shape: int

    @property
    def degraded(self) -> bool:
        """Whether the configuration has fewer total cores than the base."""
        return self.halvings > 0

    def label(self) -> str:
        """The paper's notation, e.g. ``(2n x 8)``."""
        m = PAPER_SHAPES[self.shape][0]
        n = "n" if m == 1 else (f"{m}n" if m.denominator == 1 else f"n/{m.denominator}")
        return f"({n} x {self.cores})"


def configurations(
    base_nodes: int, cores: int, *, max_nodes: int, degraded: bool = True
) -> tuple[Configuration, ...]:
    """The configurations of a job of base ``(base_nodes x cores)``, in the paper's order.

    Args:
        base_nodes: ``n`` of the base configuration (>= 1).
        cores: cores per node ``C`` (>= 1).
        max_nodes: nodes in the machine; larger configurations are left out.
        degraded: include the degraded configurations.

    Raises:
        ConfigError: a count below 1.
    """
    for name, v in (("base_nodes", base_nodes), ("cores", cores), ("max_nodes", max_nodes)):
        if v < 1:
            raise ConfigError(f"{name} must be >= 1, got {v!r}")
    out = []
    for k, (mult, frac) in enumerate(PAPER_SHAPES):
        nodes, per = mult * base_nodes, frac * cores
        if nodes.denominator != 1 or per.denominator != 1 or per < 1 or nodes > max_nodes:
            continue
        halvings = math.log2(base_nodes * cores / float(nodes * per))
        if halvings > 1e-12 and not degraded:
            continue
        out.append(
            Configuration(
                nodes=int(nodes),
                cores=int(per),
                node_ratio=float(mult),
                fraction=float(frac),
                halvings=max(halvings, 0.0),
                shape=k,
            )
        )
    return tuple(out)
