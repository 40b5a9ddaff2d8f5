"""cosched: simulate parallel-job scheduling and coscheduling on HPC clusters."""

from importlib.metadata import PackageNotFoundError, version

from cosched.errors import CoschedError
from cosched.platform import Allocation, Platform
from cosched.workload import Job, Workload

try:
    __version__ = version("cosched")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = ["Allocation", "CoschedError", "Job", "Platform", "Workload", "__version__", "simulate"]


def __getattr__(name: str) -> object:
    # ``cosched.simulate`` loads the engine and the policy registry on first use only,
    # so ``import cosched`` stays cheap.
    if name == "simulate":
        from cosched.api import simulate

        return simulate
    raise AttributeError(f"module 'cosched' has no attribute {name!r}")
