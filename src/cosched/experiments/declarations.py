"""Prose records declared as data: a family's calibrations and causes in TOML files.

A family declares its :class:`~cosched.experiments.calibration.Calibration` records in
``calibrations.toml`` and its :class:`~cosched.experiments.fidelity.Cause` records in
``causes.toml``, beside its package's modules (shipped as package data). Each file is
an array of tables named after the record (``[[calibration]]``, ``[[cause]]``) whose
keys are the record's fields; :func:`read` checks every entry against the record's
fields (an unknown key, a missing field or a value of the wrong type is a
:class:`~cosched.errors.ConfigError` naming the file, the entry's line and the key) and
returns them in the file's order, for the record's own loader
(:func:`~cosched.experiments.calibration.declared_calibrations`,
:func:`~cosched.experiments.fidelity.declared_causes`) to build.

A passage of prose that several entries share is declared once, in the file's
``[passages]`` table, and a text field names it: a text field is a string or an array
whose parts (strings, or ``{ passage = "NAME" }``) are joined without separator.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Literal

from cosched.errors import ConfigError

__all__ = ["Entry", "Kind", "check", "read"]

#: How a field's value is written: ``text`` (a string, or parts joined, see the module
#: docstring), ``name`` (a plain string), ``names`` (an array of strings), ``tables``
#: (an array of tables, checked by the record's loader).
Kind = Literal["text", "name", "names", "tables"]


@dataclass(frozen=True)
class Entry:
    """One table of a declarations file, checked.

    Attributes:
        values: the entry's fields: text and names as ``str``, names arrays as tuples,
            tables as tuples of mappings.
        where: ``FILE:LINE`` of the entry's header, for the record's loader's errors.
    """

    values: Mapping[str, object]
    where: str


def _text(value: object, passages: Mapping[str, str], where: str, key: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and set(part) == {"passage"}:
                name = part["passage"]
                if not isinstance(name, str) or name not in passages:
                    raise ConfigError(
                        f"{where}: {key}: no passage {name!r} in [passages] "
                        f"(declared: {', '.join(sorted(passages)) or 'none'})"
                    )
                parts.append(passages[name])
            else:
                raise ConfigError(
                    f"{where}: {key}: a part is a string or {{ passage = NAME }}, not {part!r}"
                )
        return "".join(parts)
    raise ConfigError(f"{where}: {key}: expected a string or an array of parts, got {value!r}")


def check(
    raw: Mapping[str, object],
    fields: Mapping[str, Kind],
    required: frozenset[str],
    where: str,
    passages: Mapping[str, str] | None = None,
) -> dict[str, object]:
    """One entry's values checked against ``fields`` (every key of ``required`` present,
    no other key than ``fields``', each value of its kind)."""
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(fields)})")
    missing = sorted(required - set(raw))
    if missing:
        raise ConfigError(f"{where}: missing field {missing[0]!r}")
    out: dict[str, object] = {}
    for key, value in raw.items():
        kind = fields[key]
        if kind == "text":
            out[key] = _text(value, passages or {}, where, key)
        elif kind == "name":
            if not isinstance(value, str):
                raise ConfigError(f"{where}: {key}: expected a string, got {value!r}")
            out[key] = value
        elif kind == "names":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: {key}: expected an array of strings, got {value!r}")
            out[key] = tuple(value)
        else:
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ConfigError(f"{where}: {key}: expected an array of tables, got {value!r}")
            out[key] = tuple(value)
    return out


def _lines(text: str, header: str) -> list[int]:
    """The 1-based line of each ``[[header]]`` table in ``text``."""
    return [
        n
        for n, line in enumerate(text.splitlines(), start=1)
        if line.strip().replace(" ", "") == f"[[{header}]]"
    ]


def read(
    package: str,
    filename: str,
    table: str,
    fields: Mapping[str, Kind],
    required: frozenset[str],
) -> tuple[Entry, ...]:
    """The entries of ``package``'s data file ``filename``: its ``[[table]]`` array, each
    checked by its fields.

    Args:
        package: the package the file sits in (``cosched.lomarc``).
        filename: the file's name (``causes.toml``).
        table: the array of tables holding the entries (``cause``).
        fields: each key an entry may hold, and its kind.
        required: the keys every entry must hold.

    Raises:
        ConfigError: a file that is missing or not TOML, a top-level key other than
            ``table`` and ``passages``, or an entry that fails :func:`check`.
    """
    resource = files(package) / filename
    name = f"{package.replace('.', '/')}/{filename}"
    try:
        text = resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{name}: no such declarations file") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{name}: {e}") from None
    extra = sorted(set(doc) - {table, "passages"})
    if extra:
        raise ConfigError(f"{name}: unknown key {extra[0]!r} (known: {table}, passages)")
    passages = doc.get("passages", {})
    if not isinstance(passages, dict) or not all(isinstance(v, str) for v in passages.values()):
        raise ConfigError(f"{name}: passages: expected a table of strings")
    entries = doc.get(table, [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{name}: {table}: expected an array of tables ([[{table}]])")
    lines = _lines(text, table)
    out = []
    for i, raw in enumerate(entries):
        where = f"{name}:{lines[i]}" if i < len(lines) else f"{name}: {table} {i + 1}"
        out.append(Entry(check(raw, fields, required, where, passages), where))
    return tuple(out)
