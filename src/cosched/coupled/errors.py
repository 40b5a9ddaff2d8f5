"""Errors of the coupled-machines family."""

from __future__ import annotations

from cosched.errors import CoschedError

__all__ = ["CoupledDeadlockError", "CoupledError"]


class CoupledError(CoschedError, RuntimeError):
    """A coupled run cannot go on (a protocol violation, a stall, a broken sync)."""


class CoupledDeadlockError(CoupledError):
    """Holding jobs wait for each other's mates and nothing else can ever change.

    Attributes:
        time: the simulated time at which the deadlock was found.
        waits: one line per holding job: what it holds and which mate it waits for.
    """

    def __init__(self, time: float, waits: list[str], hint: str) -> None:
        self.time = time
        self.waits = waits
        lines = "; ".join(waits) if waits else "no job holds units"
        super().__init__(f"coscheduling deadlock at t={time:g}: {lines}. {hint}")
