"""The paper reproductions run by ``cosched reproduce NAME``: specs shipped with the package.

Each reproduction is an experiment spec, ``cosched/experiments/specs/NAME.toml``, run by
the one runner (:func:`cosched.experiments.runner.run_experiment`): its family gives a
cell function and a report section, the spec gives the grid and the seeds. A user copies
one with ``cosched reproduce NAME --print-spec > mine.toml`` and runs the copy with
``cosched sweep mine.toml``.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

from cosched.errors import UnknownNameError

if TYPE_CHECKING:
    from cosched.experiments.model import Experiment

__all__ = ["names", "spec", "spec_text"]


def names() -> list[str]:
    """The reproductions shipped as specs, sorted."""
    folder = resources.files("cosched.experiments") / "specs"
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def spec_text(name: str) -> str:
    """The TOML text of reproduction ``name``.

    Raises:
        UnknownNameError: no such reproduction.
    """
    if name not in names():
        raise UnknownNameError("reproduction", name, names())
    res = resources.files("cosched.experiments") / "specs" / f"{name}.toml"
    return res.read_text(encoding="utf-8")


def spec(name: str, *, quick: bool = False) -> Experiment:
    """Reproduction ``name`` as an :class:`Experiment` (``quick``: its ``[quick]`` grid)."""
    import tomllib

    from cosched.experiments.model import experiment_from_dict

    data = tomllib.loads(spec_text(name))
    return experiment_from_dict(data, source=f"cosched/experiments/specs/{name}.toml", quick=quick)
