"""The exception tree of cosched.

Every error the library raises on bad input or a bad decision derives from
:class:`CoschedError`, and each class also subclasses the matching built-in
(``ValueError``, ``KeyError``, ``RuntimeError``) so that callers who do not know
cosched can still catch it the ordinary way.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ConfigError",
    "CoschedError",
    "InvariantError",
    "PolicyDecisionError",
    "UnknownNameError",
    "UnknownPolicyError",
    "WorkloadError",
    "WorkloadFormatError",
]


class CoschedError(Exception):
    """Root of every error raised by cosched."""


class ConfigError(CoschedError, ValueError):
    """A parameter, option or machine description is invalid."""


class WorkloadError(CoschedError, ValueError):
    """A workload cannot be used as asked (for example a job wider than the machine)."""


class WorkloadFormatError(WorkloadError):
    """A trace file is malformed; names the file, line and field.

    Attributes:
        path: the file that was read.
        line: 1-based line number in that file (None when not known).
        field: the SWF field name (None for whole-line problems).
        value: the offending text.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str,
        line: int | None = None,
        field: str | None = None,
        value: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.value = value
        where = path if line is None else f"{path}:{line}"
        what = "" if field is None else f" field '{field}'"
        got = "" if value is None else f" (got {value!r})"
        super().__init__(f"{where}:{what} {message}{got}".replace(":  ", ": "))


class UnknownNameError(CoschedError, KeyError):
    """A name (policy, order, metric, profile) is not registered; lists close matches."""

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        known = sorted(known)
        import difflib  # only for the message (1 ms of every process otherwise)

        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        self.kind = kind
        self.name = name
        self.known = known
        self.message = f"unknown {kind} {name!r}{hint} (known: {', '.join(known)})"
        super().__init__(self.message)

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.message


class UnknownPolicyError(UnknownNameError):
    """The policy name is not registered."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        super().__init__("policy", name, known)


class PolicyDecisionError(CoschedError, RuntimeError):
    """A policy returned a decision the engine cannot carry out."""

    def __init__(self, policy: str, time: float, job_id: int | None, reason: str) -> None:
        self.policy = policy
        self.time = time
        self.job_id = job_id
        job = "" if job_id is None else f" job {job_id}:"
        super().__init__(f"policy {policy!r} at t={time:g}:{job} {reason}")


class InvariantError(CoschedError, AssertionError):
    """A schedule breaks one of the engine's invariants (a bug in a policy or the engine)."""
