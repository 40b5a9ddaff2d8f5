"""LOMARC: pair coscheduling on standard and hyperthreaded nodes.

Importing this package registers the policies ``lomarc``, ``lomarc-pss``,
``lomarc-ac``, ``lomarc-am``, ``lomarc-n``, ``lomarc-u1``, ``lomarc-u2``, ``lomarc-r``
and ``lomarc-fm`` (see :mod:`cosched.lomarc.policies` and ``docs/lomarc.md``).
"""

from cosched.lomarc.policies import VARIANTS, Lomarc, lomarc_platform
from cosched.lomarc.slowdown import MAX_SLOWDOWN, SlowdownModel, pair_slowdown

__all__ = [
    "MAX_SLOWDOWN",
    "VARIANTS",
    "Lomarc",
    "SlowdownModel",
    "lomarc_platform",
    "pair_slowdown",
]
