"""The paper's LOMARC variants: Lomarc with other defaults (``policies._variant``)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from cosched.errors import ConfigError
from cosched.lomarc import policies as P
from cosched.policies.base import REGISTRY

#: What each variant's docstring (the paper's section 6) changes from L-U1's defaults.
CHANGES: dict[str, dict[str, object]] = {
    "lomarc-pss": {"search": "none", "running": False},
    "lomarc-ac": {
        "heuristic": "first",
        "check_match": False,
        "medium_long_only": False,
        "weak_spare": None,
        "max_slowdown": None,
    },
    "lomarc-am": {"heuristic": "first", "search": "adjacent", "running": False},
    "lomarc-n": {"cpu": "standard"},
    "lomarc-u1": {},
    "lomarc-u2": {"heuristic": "u2"},
    "lomarc-r": {"heuristic": "response"},
    "lomarc-fm": {"heuristic": "first"},
}


def _params(policy: P.Lomarc) -> dict[str, object]:
    return {f.name: getattr(policy, f.name) for f in dataclasses.fields(policy) if f.init}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_variant_is_lomarc_with_its_own_defaults(name: str) -> None:
    cls = REGISTRY[name]
    assert issubclass(cls, P.Lomarc) and cls.name == name
    expected = {**_params(P.Lomarc()), **CHANGES[name]}
    made = cls()
    assert _params(made) == expected
    # the signature, the fields and the instance say the same defaults
    sig = {k: p.default for k, p in inspect.signature(cls).parameters.items()}
    assert sig == expected
    assert {f.name: f.default for f in dataclasses.fields(cls) if f.init} == expected
    assert repr(made).startswith(f"{cls.__name__}(") and made == cls() and made != P.Lomarc()
    # a parameter given overrides the default; Lomarc's checks run
    assert cls(bound=5.0).bound == 5.0
    assert dataclasses.replace(made, cpu="standard").cpu == "standard"
    with pytest.raises(ConfigError, match="weak_spare"):
        cls(weak_spare=1.5)
    with pytest.raises(TypeError, match=rf"{cls.__name__}\.__init__\(\).*'nodes'"):
        cls(nodes=3)  # type: ignore[call-arg]


def test_a_variant_may_only_change_defaults() -> None:
    with pytest.raises(TypeError, match="changes defaults only"):

        @P._variant
        class Wider(P.Lomarc, register=False):
            extra: int = 1


def test_a_users_subclass_of_a_variant_keeps_its_own_fields() -> None:
    @dataclasses.dataclass(kw_only=True)
    class Mine(P.LomarcU2, register=False):
        extra: int = 3

    made = Mine(extra=4)
    assert (made.extra, made.heuristic, made.search) == (4, "u2", "queue")
