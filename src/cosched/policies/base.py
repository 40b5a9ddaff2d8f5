"""The policy interface and the registry of policies by name.

A policy is one dataclass with keyword-only parameters (checked in
``__post_init__``, errors naming the parameter) and one required method,
:meth:`Policy.schedule`, which looks at a read-only :class:`SystemView` and returns
decisions. Subclassing with a ``name`` registers the policy. Policies are found by
name through the ``cosched.policies`` entry-point group (the built-in families declare
theirs in cosched's own ``pyproject.toml``, a third-party package in its own), loaded
only when a name is asked for; ``path/to/file.py:ClassName`` and
``package.module:ClassName`` name a policy that is not registered at all.
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import importlib
import importlib.util
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from cosched.engine.decisions import Decision
from cosched.engine.view import SystemView
from cosched.errors import ConfigError, UnknownPolicyError
from cosched.platform import Platform
from cosched.policies.requirements import Requirements
from cosched.workload.job import Job

if TYPE_CHECKING:
    import importlib.metadata

    from cosched.engine.compiled import CompiledPass
    from cosched.engine.simulation import RateModel

__all__ = [
    "ENTRY_POINT_GROUP",
    "REGISTRY",
    "OwnRates",
    "Parameter",
    "Policy",
    "all_policies",
    "make_policy",
    "parse_params",
    "policy_class",
    "policy_ref",
]

#: The entry-point group in which packages declare policies (``name = "module:Class"``).
ENTRY_POINT_GROUP = "cosched.policies"

#: A parameter's value as the command line gives it (:func:`parse_params`).
ParamValue = bool | int | float | str | None

#: Policies registered so far, by name (subclassing with a ``name`` adds one).
REGISTRY: dict[str, type[Policy]] = {}


def default_hook(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a base-class hook, so the engine can skip hooks a policy does not override."""
    fn.__cosched_default_hook__ = True  # type: ignore[attr-defined]
    return fn


class Policy(abc.ABC):
    """Base class of every scheduling policy.

    Subclasses are ``@dataclass(kw_only=True)`` classes whose fields are the policy's
    parameters, with a class attribute ``name`` (the registry key) and a one-line
    docstring summary shown by ``cosched policies``. One instance serves one
    simulation: it may keep per-run state in private attributes.
    """

    name: ClassVar[str] = ""
    #: What the policy needs of the machine and the workload (see
    #: :class:`~cosched.policies.requirements.Requirements`); the default is any
    #: machine and no profile columns.
    requires: ClassVar[Requirements] = Requirements()
    #: The family shown by ``cosched policies`` (e.g. ``batch``, ``lomarc``).
    family: ClassVar[str] = "batch"
    #: Whether ``schedule`` must also run at instants when the queue is empty. A policy
    #: that only ever starts, holds or releases queued jobs can say False and save the
    #: engine those passes (the baselines do); one that samples statistics or asks for
    #: wake-ups on every pass keeps True.
    idle_passes: ClassVar[bool] = True

    def __init_subclass__(cls, *, register: bool = True, **kwargs: Any) -> None:
        # ``class Mine(Policy, register=False)`` keeps a named class out of the registry
        # (a test double, or a base meant only for subclassing).
        super().__init_subclass__(**kwargs)
        if register and cls.__dict__.get("name"):
            if cls.name in REGISTRY and REGISTRY[cls.name].__qualname__ != cls.__qualname__:
                raise ConfigError(f"two policies are named {cls.name!r}")
            REGISTRY[cls.name] = cls

    @abc.abstractmethod
    def schedule(self, view: SystemView) -> Sequence[Decision]:
        """Decide what starts now; called once per instant at which anything happened."""

    @default_hook  # noqa: B027 (an optional hook, empty on purpose)
    def on_submit(self, job: Job, view: SystemView) -> None:
        """Called for each job as it arrives, before the scheduling pass."""

    @default_hook  # noqa: B027 (an optional hook, empty on purpose)
    def on_finish(self, job: Job, view: SystemView) -> None:
        """Called for each job as it ends, before the scheduling pass."""

    def rate_model(self) -> RateModel | None:
        """The co-location model this policy's family runs with (None: rates stay 1)."""
        return None

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """The class's scheduling pass in compiled form, run by the engine's compiled
        event loop (:mod:`cosched.engine.loop`), or None (the default): the general
        loop calls :meth:`schedule`. A class returns its pass only for itself, not for
        subclasses, whose ``schedule`` may differ."""
        return None

    def check_platform(self, platform: Platform) -> None:
        """Raise ConfigError if the policy cannot run on ``platform``.

        The default checks :attr:`requires`; a family with further constraints
        overrides it (and calls ``super().check_platform``).
        """
        missing = self.requires.problems(platform)
        if missing:
            raise ConfigError(
                f"policy {self.name!r} needs {', '.join(missing)}; got {platform.describe()}"
            )

    def diagnostics(self) -> Mapping[str, float]:
        """Counters of the finished run the family reports (merged into the result)."""
        return {}

    def assumptions(self) -> list[str]:
        """Modelling assumptions in force with these parameters, as notes for the user."""
        return []

    def params(self) -> dict[str, Any]:
        """The policy's parameters as a plain dict."""
        if not dataclasses.is_dataclass(self):
            return {}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}


class KeepsRates(typing.Protocol):
    """A policy that keeps its running jobs' rates itself (gang's rows, node sharing's
    factors)."""

    def own_rates(
        self, view: SystemView, started: Sequence[Job], finished: Sequence[Job]
    ) -> Mapping[int, float]: ...


class OwnRates:
    """The rate model of a policy that keeps its jobs' rates itself
    (:class:`~cosched.engine.simulation.RateModel`): :meth:`update` is the policy's
    ``own_rates``. A compiled pass that computes the same rates checks that a run's
    model is one of these, of the policy it runs (``policy``)."""

    def __init__(self, policy: KeepsRates) -> None:
        self.policy = policy

    def update(
        self, view: SystemView, started: Sequence[Job], finished: Sequence[Job]
    ) -> Mapping[int, float]:
        return self.policy.own_rates(view, started, finished)


@dataclasses.dataclass(frozen=True)
class Parameter:
    """A policy parameter as shown to users."""

    name: str
    type: str
    default: object
    choices: tuple[str, ...] = ()


_LOADED_ALL = False

#: The modules of the core batch policies, which ``pyproject.toml`` also declares as
#: entry points: :func:`policy_class` imports them by name without reading every
#: installed package's entry points (importlib.metadata and the scan cost a ``cosched
#: run`` some 10-25 ms of CPU), even when cosched is run from a source tree. A built-in
#: family's policies are found in cosched's own declared entry points
#: (:func:`cosched.plugins.own`), without the scan. ``tests/conformance/test_plugins.py``
#: holds this table to the declared entry points.
CORE_MODULES = {
    "conservative": "cosched.policies.conservative",
    "easy": "cosched.policies.easy",
    "fcfs": "cosched.policies.fcfs",
    "recorded": "cosched.policies.recorded",
}


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    import importlib.metadata  # ~10 ms: only when a name is not in CORE_MODULES

    return sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)


def _load_entry_point(ep: importlib.metadata.EntryPoint) -> None:
    from cosched import plugins

    cls = plugins.load(ep, "policy")
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise ConfigError(f"policy entry point {ep.name!r} ({ep.value}) is not a Policy class")
    if cls.name != ep.name:
        raise ConfigError(
            f"policy entry point {ep.name!r} ({ep.value}) names a class registered as {cls.name!r}"
        )


def all_policies() -> dict[str, type[Policy]]:
    """Every policy: those declared as entry points and those registered in-process."""
    global _LOADED_ALL
    if not _LOADED_ALL:
        for ep in _entry_points():
            if ep.name not in REGISTRY:
                _load_entry_point(ep)
        _LOADED_ALL = True
    return dict(sorted(REGISTRY.items()))


def load_module(where: str, what: str = "policy") -> types.ModuleType:
    """The module named by ``path/to/file.py`` or ``package.module`` (the part of a
    ``where:name`` reference before the colon); errors name it as ``what``'s."""
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where)
        if not path.is_file():
            raise ConfigError(f"{what} file {where!r} does not exist")
        mod_name = "cosched_user_" + "".join(c if c.isalnum() else "_" for c in str(path.resolve()))
        module = sys.modules.get(mod_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(mod_name, path)
            if spec is None or spec.loader is None:
                raise ConfigError(f"{what} file {where!r} cannot be imported")
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module  # pickling finds classes through sys.modules
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                del sys.modules[mod_name]
                raise ConfigError(f"{what} file {where!r} failed to import: {exc}") from exc
        return module
    try:
        return importlib.import_module(where)
    except ImportError as exc:
        raise ConfigError(f"{what} module {where!r} cannot be imported: {exc}") from None


def _load_ref(ref: str) -> type[Policy]:
    """The class named by ``path/to/file.py:Class`` or ``package.module:Class``."""
    where, _, attr = ref.rpartition(":")
    module = load_module(where)
    cls = getattr(module, attr, None)
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise ConfigError(f"{ref!r}: {attr!r} is not a Policy class in {where!r}")
    if not cls.name:
        raise ConfigError(f"{ref!r}: the policy class has no name")
    return cls


def policy_class(name: str) -> type[Policy]:
    """The policy class called ``name``, or named by ``file.py:Class`` / ``module:Class``.

    Raises:
        UnknownPolicyError: no such policy (the message lists close names).
        ConfigError: a file or module reference that cannot be loaded.
    """
    if ":" in name:
        return _load_ref(name)
    if name not in REGISTRY:
        from cosched import plugins

        # a core or built-in family's policy: its module imported by name, which
        # registers it as its entry point would, without reading every package's
        module = CORE_MODULES.get(name) or plugins.own(ENTRY_POINT_GROUP).get(name, "")
        if module:
            # a module that cannot be imported (an optional dependency missing) is named
            # by its entry point's one-line error below
            with contextlib.suppress(ImportError):
                importlib.import_module(module.partition(":")[0])
    if name in REGISTRY:
        return REGISTRY[name]
    for ep in _entry_points():
        if ep.name == name:
            _load_entry_point(ep)
            return REGISTRY[name]
    raise UnknownPolicyError(name, all_policies())


def policy_ref(cls: type[Policy]) -> str:
    """How a worker process finds ``cls`` again: its name if an entry point declares it,
    else ``module:Class`` (``file.py:Class`` for a class loaded from a file)."""
    if any(ep.name == cls.name for ep in _entry_points()):
        return cls.name
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    if cls.__module__.startswith("cosched_user_") and file:
        return f"{file}:{cls.__qualname__}"
    return f"{cls.__module__}:{cls.__qualname__}"


def _fields(cls: type[Policy]) -> list[dataclasses.Field[Any]]:
    if not dataclasses.is_dataclass(cls):
        return []
    return [f for f in dataclasses.fields(cls) if f.init]


def describe_parameters(cls: type[Policy]) -> list[Parameter]:
    """The parameters of a policy class with their types, defaults and choices."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in _fields(cls):
        hint: object = hints.get(f.name, object)
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


def parse_params(name: str, pairs: Sequence[str]) -> dict[str, ParamValue]:
    """Turn ``["window=150", "order=sjf"]`` into typed keyword arguments for ``name``."""
    cls = policy_class(name)
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in _fields(cls)}
    out: dict[str, ParamValue] = {}
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


def _convert(policy: str, key: str, text: str, hint: object) -> ParamValue:
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


def _allows_none(hint: object) -> bool:
    return type(None) in typing.get_args(hint)


def _strip_none(hint: object) -> object:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else hint
    return hint


def _literal_choices(hint: object) -> tuple[str, ...]:
    base = _strip_none(hint)
    if typing.get_origin(base) is typing.Literal:
        return tuple(str(a) for a in typing.get_args(base))
    return ()


def _type_name(hint: object) -> str:
    base = _strip_none(hint)
    name = "choice" if _literal_choices(hint) else getattr(base, "__name__", str(base))
    return f"{name} or None" if _allows_none(hint) else name


def check_choice(policy: str, key: str, value: object, choices: Sequence[str]) -> None:
    """Raise a ConfigError naming ``key`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ConfigError(
            f"policy {policy!r} parameter {key!r} must be one of {', '.join(choices)}, "
            f"got {value!r}"
        )


def check_range(
    policy: str, key: str, value: object, *, low: float | None = None, integer: bool = False
) -> None:
    """Raise a ConfigError naming ``key`` unless ``value`` is a number >= ``low``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (integer and not isinstance(value, int))
        or (low is not None and value < low)
    ):
        kind = "an integer" if integer else "a number"
        bound = "" if low is None else f" >= {low:g}"
        raise ConfigError(
            f"policy {policy!r} parameter {key!r} must be {kind}{bound}, got {value!r}"
        )
