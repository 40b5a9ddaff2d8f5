"""Scheduling policies, one file each, found by name.

Adding a policy: write one module with a ``@dataclass(kw_only=True)`` subclass of
:class:`Policy` that sets ``name`` and implements ``schedule``. Run it with
``--policy path/to/file.py:ClassName``, or declare it in the ``cosched.policies``
entry-point group of your package's ``pyproject.toml`` to select it by name everywhere
(see docs/writing-a-policy.md). This package imports no coscheduling family: the
families are found through their entry points when a name is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cosched.policies.base import (
    REGISTRY,
    Policy,
    all_policies,
    make_policy,
    parse_params,
    policy_class,
)
from cosched.policies.requirements import Requirements

if TYPE_CHECKING:
    from cosched.policies.conservative import ConservativeBackfilling
    from cosched.policies.easy import EasyBackfilling
    from cosched.policies.fcfs import Fcfs
    from cosched.policies.orders import ORDERS

# Loaded on first use: conservative's compiled kernels load numba, which FCFS and EASY
# do not need.
_LAZY = {
    "ConservativeBackfilling": "cosched.policies.conservative",
    "EasyBackfilling": "cosched.policies.easy",
    "Fcfs": "cosched.policies.fcfs",
    "ORDERS": "cosched.policies.orders",
}

__all__ = [
    "ORDERS",
    "REGISTRY",
    "ConservativeBackfilling",
    "EasyBackfilling",
    "Fcfs",
    "Policy",
    "Requirements",
    "all_policies",
    "make_policy",
    "parse_params",
    "policy_class",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cosched.policies' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
