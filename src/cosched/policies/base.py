"""The policy interface and the registry of policies by name.

A policy is one dataclass with keyword-only parameters (checked in
``__post_init__``, errors naming the parameter) and one required method,
:meth:`Policy.schedule`, which looks at a read-only :class:`SystemView` and returns
decisions. Subclassing with a ``name`` registers the policy, so adding a file under
``cosched/policies`` (or importing your own module) is enough to make it selectable.
"""

from __future__ import annotations

import abc
import dataclasses
import types
import typing
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from cosched.engine.decisions import Decision
from cosched.engine.view import SystemView
from cosched.errors import ConfigError, UnknownPolicyError
from cosched.platform import Platform
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.engine.simulation import RateModel

__all__ = ["REGISTRY", "Parameter", "Policy", "make_policy", "parse_params", "policy_class"]

REGISTRY: dict[str, type[Policy]] = {}


class Policy(abc.ABC):
    """Base class of every scheduling policy.

    Subclasses are ``@dataclass(kw_only=True)`` classes whose fields are the policy's
    parameters, with a class attribute ``name`` (the registry key) and a one-line
    docstring summary shown by ``cosched policies``. One instance serves one
    simulation: it may keep per-run state in private attributes.
    """

    name: ClassVar[str] = ""
    #: Whether ``schedule`` must also run at instants when the queue is empty. A policy
    #: that only ever starts, holds or releases queued jobs can say False and save the
    #: engine those passes (the baselines do); one that samples statistics or asks for
    #: wake-ups on every pass keeps True.
    idle_passes: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("name"):
            if cls.name in REGISTRY and REGISTRY[cls.name].__qualname__ != cls.__qualname__:
                raise ConfigError(f"two policies are named {cls.name!r}")
            REGISTRY[cls.name] = cls

    @abc.abstractmethod
    def schedule(self, view: SystemView) -> Sequence[Decision]:
        """Decide what starts now; called once per instant at which anything happened."""

    def on_submit(self, job: Job, view: SystemView) -> None:  # noqa: B027 (optional hook)
        """Called for each job as it arrives, before the scheduling pass."""

    def on_finish(self, job: Job, view: SystemView) -> None:  # noqa: B027 (optional hook)
        """Called for each job as it ends, before the scheduling pass."""

    def rate_model(self) -> RateModel | None:
        """The co-location model this policy's family runs with (None: rates stay 1)."""
        return None

    def check_platform(self, platform: Platform) -> None:  # noqa: B027 (optional hook)
        """Raise ConfigError if the policy cannot run on ``platform``."""

    def params(self) -> dict[str, Any]:
        """The policy's parameters as a plain dict."""
        if not dataclasses.is_dataclass(self):
            return {}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}


@dataclasses.dataclass(frozen=True)
class Parameter:
    """A policy parameter as shown to users."""

    name: str
    type: str
    default: Any
    choices: tuple[str, ...] = ()


def _ensure_loaded() -> None:
    import cosched.policies  # noqa: F401  (registers the built-in policies)


def policy_class(name: str) -> type[Policy]:
    """The registered policy class called ``name``."""
    _ensure_loaded()
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownPolicyError(name, REGISTRY) from None


def _fields(cls: type[Policy]) -> list[dataclasses.Field[Any]]:
    if not dataclasses.is_dataclass(cls):
        return []
    return [f for f in dataclasses.fields(cls) if f.init]


def describe_parameters(cls: type[Policy]) -> list[Parameter]:
    """The parameters of a policy class with their types, defaults and choices."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in _fields(cls):
        hint = hints.get(f.name, Any)
        choices = _literal_choices(hint)
        default = f.default if f.default is not dataclasses.MISSING else None
        out.append(Parameter(f.name, _type_name(hint), default, choices))
    return out


def make_policy(name: str, **params: Any) -> Policy:
    """A fresh instance of the policy ``name`` with ``params``.

    Raises:
        UnknownPolicyError: no such policy (the message lists close names).
        ConfigError: an unknown or invalid parameter (named in the message).
    """
    cls = policy_class(name)
    known = {f.name for f in _fields(cls)}
    for key in params:
        if key not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise ConfigError(f"policy {name!r} has no parameter {key!r} (parameters: {listed})")
    try:
        return cls(**params)
    except TypeError as exc:
        raise ConfigError(f"policy {name!r}: {exc}") from None


def parse_params(name: str, pairs: Sequence[str]) -> dict[str, Any]:
    """Turn ``["window=150", "order=sjf"]`` into typed keyword arguments for ``name``."""
    cls = policy_class(name)
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in _fields(cls)}
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep:
            raise ConfigError(f"policy parameter {pair!r} must look like name=value")
        if key not in fields:
            listed = ", ".join(sorted(fields)) or "none"
            raise ConfigError(f"policy {name!r} has no parameter {key!r} (parameters: {listed})")
        out[key] = _convert(name, key, text.strip(), hints.get(key, str))
    return out


def _convert(policy: str, key: str, text: str, hint: Any) -> Any:
    if text.lower() in ("none", "null") and _allows_none(hint):
        return None
    base = _strip_none(hint)
    try:
        if base is bool:
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if base is int:
            return int(text)
        if base is float:
            return float(text)
    except ValueError:
        raise ConfigError(
            f"policy {policy!r} parameter {key!r} must be {_type_name(hint)}, got {text!r}"
        ) from None
    return text


def _allows_none(hint: Any) -> bool:
    return type(None) in typing.get_args(hint)


def _strip_none(hint: Any) -> Any:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else hint
    return hint


def _literal_choices(hint: Any) -> tuple[str, ...]:
    base = _strip_none(hint)
    if typing.get_origin(base) is typing.Literal:
        return tuple(str(a) for a in typing.get_args(base))
    return ()


def _type_name(hint: Any) -> str:
    base = _strip_none(hint)
    name = "choice" if _literal_choices(hint) else getattr(base, "__name__", str(base))
    return f"{name} or None" if _allows_none(hint) else name


def check_choice(policy: str, key: str, value: Any, choices: Sequence[str]) -> None:
    """Raise a ConfigError naming ``key`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ConfigError(
            f"policy {policy!r} parameter {key!r} must be one of {', '.join(choices)}, "
            f"got {value!r}"
        )


def check_range(
    policy: str, key: str, value: Any, *, low: float | None = None, integer: bool = False
) -> None:
    """Raise a ConfigError naming ``key`` unless ``value`` is a number >= ``low``."""
    ok_type = isinstance(value, int) if integer else isinstance(value, int | float)
    if isinstance(value, bool) or not ok_type or (low is not None and value < low):
        kind = "an integer" if integer else "a number"
        bound = "" if low is None else f" >= {low:g}"
        raise ConfigError(
            f"policy {policy!r} parameter {key!r} must be {kind}{bound}, got {value!r}"
        )
