"""What an installed package declares in one of cosched's entry-point groups, loaded
with a one-line error naming the entry point when it cannot be (never a traceback)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosched.errors import ConfigError

if TYPE_CHECKING:
    import importlib.metadata

__all__ = ["load"]


def load(ep: importlib.metadata.EntryPoint, kind: str) -> object:
    """The object ``ep`` names, or a ConfigError: ``KIND entry point NAME (VALUE) failed
    to load: ...``."""
    try:
        return ep.load()
    except Exception as exc:  # a broken plugin is named, never a traceback
        raise ConfigError(
            f"{kind} entry point {ep.name!r} ({ep.value}) failed to load: {exc}"
        ) from exc
