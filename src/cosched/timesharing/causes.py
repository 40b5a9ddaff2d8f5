"""FCS and dynamic coscheduling: why some claims of its reproductions are not reproduced (its
``Family.causes``, gathered in :data:`cosched.experiments.fidelity.CAUSES`), declared in
causes.toml beside this module."""

from cosched.experiments.fidelity import declared_causes

CAUSES = declared_causes("cosched.timesharing")
