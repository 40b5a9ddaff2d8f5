"""The job-level discrete-event engine and the view policies see."""

from cosched.engine.decisions import Decision, Hold, Release, Start, WakeUp, on_nodes
from cosched.engine.ledger import NodeLedger, Placement
from cosched.engine.simulation import RateModel, Simulation, SimulationResult, simulate
from cosched.engine.view import SystemView

__all__ = [
    "Decision",
    "Hold",
    "NodeLedger",
    "Placement",
    "RateModel",
    "Release",
    "Simulation",
    "SimulationResult",
    "Start",
    "SystemView",
    "WakeUp",
    "on_nodes",
    "simulate",
]
