"""cosched: simulate parallel-job scheduling and coscheduling on HPC clusters."""

from cosched.errors import CoschedError
from cosched.platform import Allocation, Platform
from cosched.workload import Job, Workload

__version__ = "0.1.0"

__all__ = ["Allocation", "CoschedError", "Job", "Platform", "Workload", "__version__"]
