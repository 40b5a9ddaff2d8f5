"""Scheduling policies, one file each, registered by name.

Adding a policy: write one module with a ``@dataclass(kw_only=True)`` subclass of
:class:`Policy` that sets ``name`` and implements ``schedule``; import it here (or in
your own code) and it is selectable by name everywhere.
"""

from cosched.policies.base import REGISTRY, Policy, make_policy, parse_params, policy_class
from cosched.policies.conservative import ConservativeBackfilling
from cosched.policies.easy import EasyBackfilling
from cosched.policies.fcfs import Fcfs
from cosched.policies.orders import ORDERS

# isort: split
# The coscheduling families register their policies when imported (after the
# built-ins, which they import from cosched.policies.base / .easy / ...).
import cosched.coupled
import cosched.lomarc
import cosched.nodeshare  # noqa: F401

__all__ = [
    "ORDERS",
    "REGISTRY",
    "ConservativeBackfilling",
    "EasyBackfilling",
    "Fcfs",
    "Policy",
    "make_policy",
    "parse_params",
    "policy_class",
]
