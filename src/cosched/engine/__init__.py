"""The job-level discrete-event engine and the view policies see."""

from cosched.engine.decisions import Decision, Start, WakeUp
from cosched.engine.simulation import RateModel, Simulation, SimulationResult, simulate
from cosched.engine.view import SystemView

__all__ = [
    "Decision",
    "RateModel",
    "Simulation",
    "SimulationResult",
    "Start",
    "SystemView",
    "WakeUp",
    "simulate",
]
