"""A compiled pass's function named by its module and name (:class:`Deferred`): the
module is imported only to compile the pass's loop or run it as plain Python, not when
the loop built ahead of time is loaded (docs/design/engine.md)."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import TypeVar, cast

__all__ = ["Deferred", "deferred"]

F = TypeVar("F", bound=Callable[..., object])


class Deferred:
    """``module.name``, imported when first resolved or called; its source file found
    without importing it (:attr:`file`, which names the built loop)."""

    __slots__ = ("_function", "module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name
        self._function: Callable[..., object] | None = None

    def resolve(self) -> Callable[..., object]:
        """The function (its module imported the first time)."""
        if self._function is None:
            self._function = getattr(importlib.import_module(self.module), self.name)
        return self._function

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Deferred({self.module!r}, {self.name!r})"

    @property
    def file(self) -> str:
        """The module's source file."""
        found = importlib.util.find_spec(self.module)
        if found is None or found.origin is None:
            raise ImportError(f"no module {self.module!r} (a pass's function {self.name!r})")
        return found.origin


def deferred(module: str, name: str, checked: F | None) -> F:
    """A :class:`Deferred` typed as the function it names: ``checked`` is that function
    where mypy reads it and None at run time (``K.f if TYPE_CHECKING else None``), so
    that mypy checks a pass's hooks against each other without the run importing them."""
    return cast(F, Deferred(module, name))
