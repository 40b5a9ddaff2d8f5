"""Synthetic workload models (currently the Lublin-Feitelson 2003 model): the names
:mod:`cosched.workload.models.lublin` exports."""

from cosched.workload.models.lublin import *  # noqa: F403
from cosched.workload.models.lublin import __all__ as __all__
