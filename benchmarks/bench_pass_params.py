"""How a compiled pass may read its parameters: a numbered int64 vector
(``iparams[k]``, the pass contract before named parameters), a named tuple, or a numba
``structref``; CPU seconds of a loop that reads six parameters at each of ``--n``
steps, best of ``--repeat`` calls after one that compiles it.

    python benchmarks/bench_pass_params.py --n 20000000 --repeat 5

The loop is the shape of a pass's inner loop (a branch on a code, a comparison with a
threshold, a sum). Each form is read two ways: in the loop itself (passed once per call,
as a pass receives its store), and by a step inlined into the loop that takes the
parameters at every step (``inline="always"``, as a pass's named steps would: numba
counts a reference to an array or a structref handed to it, not to a tuple of numbers).
"""

from __future__ import annotations

import argparse
import time
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.experimental import structref


class Params(NamedTuple):
    heuristic: int
    search: int
    window: int
    predict: bool
    bound: float
    spare: float


@structref.register
class _ParamsType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class StructParams(structref.StructRefProxy):
    def __new__(cls, heuristic, search, window, predict, bound, spare):
        return structref.StructRefProxy.__new__(
            cls, heuristic, search, window, predict, bound, spare
        )


structref.define_proxy(
    StructParams, _ParamsType, ["heuristic", "search", "window", "predict", "bound", "spare"]
)


@njit(inline="always")
def _step_vector(ip: np.ndarray, fp: np.ndarray, v: float, i: int) -> float:
    if ip[0] == 2 and ip[3] != 0:
        return v * fp[0]
    if ip[1] == 1 and i % (ip[2] + 1) == 0:
        return min(v, fp[1])
    return -v


@njit(inline="always")
def _step_params(p, v: float, i: int) -> float:
    if p.heuristic == 2 and p.predict:
        return v * p.bound
    if p.search == 1 and i % (p.window + 1) == 0:
        return min(v, p.spare)
    return -v


@njit(cache=False)
def steps_vector(ip: np.ndarray, fp: np.ndarray, x: np.ndarray) -> float:
    s = 0.0
    for i in range(x.shape[0]):
        s += _step_vector(ip, fp, x[i], i)
    return s


@njit(cache=False)
def steps_params(p, x: np.ndarray) -> float:
    s = 0.0
    for i in range(x.shape[0]):
        s += _step_params(p, x[i], i)
    return s


@njit(cache=False)
def by_vector(ip: np.ndarray, fp: np.ndarray, x: np.ndarray) -> float:
    s = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if ip[0] == 2 and ip[3] != 0:
            s += v * fp[0]
        elif ip[1] == 1 and i % (ip[2] + 1) == 0:
            s += min(v, fp[1])
        else:
            s -= v
    return s


@njit(cache=False)
def by_record(p, x: np.ndarray) -> float:
    """The loop reading a named tuple or a structref (numba compiles it for each)."""
    s = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if p.heuristic == 2 and p.predict:
            s += v * p.bound
        elif p.search == 1 and i % (p.window + 1) == 0:
            s += min(v, p.spare)
        else:
            s -= v
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    x = np.random.default_rng(0).random(args.n)
    ip = np.array([1, 1, 3, 0], dtype=np.int64)
    fp = np.array([60.0, 0.5])
    nt = Params(1, 1, 3, False, 60.0, 0.5)
    sr = StructParams(1, 1, 3, False, 60.0, 0.5)
    forms = {
        "vector": lambda: by_vector(ip, fp, x),
        "named tuple": lambda: by_record(nt, x),
        "structref": lambda: by_record(sr, x),
        "vector, a step": lambda: steps_vector(ip, fp, x),
        "named tuple, a step": lambda: steps_params(nt, x),
        "structref, a step": lambda: steps_params(sr, x),
    }
    results = {name: f() for name, f in forms.items()}  # compile, and the same sum
    if len(set(results.values())) != 1:
        raise SystemExit(f"the forms disagree: {results}")
    for name, f in forms.items():
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.process_time()
            f()
            best = min(best, time.process_time() - t0)
        print(f"{name:20s} {best:.4f} s  ({best / args.n * 1e9:.2f} ns a step)")


if __name__ == "__main__":
    main()
