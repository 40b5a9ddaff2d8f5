"""FCS and dynamic coscheduling: the parameters its reproductions fit to a paper's output (its
``Family.calibrations``, gathered in :data:`cosched.experiments.calibration.CALIBRATIONS`),
declared in calibrations.toml beside this module."""

from cosched.experiments.calibration import declared_calibrations

CALIBRATIONS = declared_calibrations("cosched.timesharing")
