"""Operators' own accounting logs as SWF: Slurm ``sacct`` dumps and PBS records.

:func:`import_log` reads a log of either format (named or recognised from the
content) into an :class:`~cosched.workload.swf.SwfTrace` plus conversion notes;
``cosched trace import`` writes that trace with the project's SWF writer, and every
command taking a trace reads these logs directly through
:func:`cosched.workload.sources.open_workload`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from cosched._lazy import lazy_getattr
from cosched.errors import WorkloadFormatError
from cosched.workload.importers.detect import detect_file, sniff_text

if TYPE_CHECKING:
    from cosched.workload.importers._common import ImportOptions, ImportResult, read_ids
    from cosched.workload.importers.pbs import import_pbs
    from cosched.workload.importers.slurm import SACCT_COMMAND, STATE_STATUS, import_slurm

__all__ = [
    "FORMATS",
    "SACCT_COMMAND",
    "STATE_STATUS",
    "ImportOptions",
    "ImportResult",
    "detect_file",
    "import_log",
    "import_pbs",
    "import_slurm",
    "read_ids",
    "sniff_text",
]

#: The accounting formats cosched reads.
FORMATS = ("slurm", "pbs")

#: The names loaded on first use (PEP 562): recognising a file's format
#: (:func:`detect_file`, what every ``cosched run`` of a trace does) loads only the light
#: ``detect`` module, not the importers (about 7 ms; docs/performance.md, "The fixed cost
#: of a run").
_LAZY = {
    "ImportOptions": "._common",
    "ImportResult": "._common",
    "read_ids": "._common",
    "import_pbs": ".pbs",
    "SACCT_COMMAND": ".slurm",
    "STATE_STATUS": ".slurm",
    "import_slurm": ".slurm",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


def import_log(
    fmt: str | None,
    paths: Iterable[str | os.PathLike[str]],
    opts: ImportOptions | None = None,
) -> ImportResult:
    """Read a Slurm or PBS log (``fmt`` None: recognised from the first file).

    Raises:
        WorkloadFormatError: the format cannot be recognised, or a file is malformed.
    """
    files = [os.fspath(p) for p in paths]
    if fmt is None:
        found = detect_file(files[0]) if files and os.path.isfile(files[0]) else None
        if found not in FORMATS:
            raise WorkloadFormatError(
                "not a Slurm sacct dump nor a PBS accounting file (use --format slurm|pbs)",
                path=files[0] if files else "",
            )
        fmt = found
    if fmt == "slurm":
        from cosched.workload.importers.slurm import import_slurm

        return import_slurm(files, opts)
    if fmt == "pbs":
        from cosched.workload.importers.pbs import import_pbs

        return import_pbs(files, opts)
    raise WorkloadFormatError(f"unknown log format {fmt!r} (known: slurm, pbs)", path=files[0])
