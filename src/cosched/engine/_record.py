"""Named tuples as numba structrefs (prototype): one reference counted per call."""

from __future__ import annotations

import sys
from typing import Any

from numba.core import types
from numba.experimental import structref

_MADE: dict[type, type] = {}


def record_of(nt: type) -> type:
    """A structref proxy class with ``nt``'s fields (a module-level name, so that numba's
    cache can pickle its type)."""
    got = _MADE.get(nt)
    if got is not None:
        return got
    name = f"{nt.__module__.replace('.', '_')}_{nt.__qualname__}"
    mod = sys.modules[__name__]

    def preprocess_fields(self: Any, fields: Any) -> Any:
        return tuple((n, types.unliteral(t)) for n, t in fields)

    typ = type(f"{name}Type", (types.StructRef,), {"preprocess_fields": preprocess_fields})
    typ.__module__ = __name__
    setattr(mod, typ.__name__, typ)
    structref.register(typ)
    proxy = type(f"{name}Record", (structref.StructRefProxy,), {})
    proxy.__module__ = __name__
    setattr(mod, proxy.__name__, proxy)
    structref.define_proxy(proxy, typ, list(nt._fields))  # type: ignore[attr-defined]
    _MADE[nt] = proxy
    return proxy
