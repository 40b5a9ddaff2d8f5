"""Classic scheduling heuristics as agents: callables from an observation to an action.

Each reads only the observation (:mod:`cosched.gym.observation`) and returns the slot of
the visible job it would run next, so that learned and classic schedulers run through
the same interface on identical trajectories (the environment, or ``cosched run
--policy learned -P agent=cosched.gym.agents:sjf``). Ties go to the lowest slot, which
is the earliest submitted job, since slots are in submit order.

* :func:`fcfs`: the earliest submitted job.
* :func:`sjf`: the shortest estimate.
* :func:`wfp3`: the largest ``(wait / estimate) ** 3 * size`` (Tang et al.'s WFP3, the
  utility Cobalt uses; cosched's ``wfp`` queue order).
* :func:`f1`: the smallest ``log10(r) * n + 870 * log10(s)`` with ``r`` the estimate and
  ``s`` the submit time in seconds and ``n`` the units (Carastan-Santos and de Camargo,
  SC'17; RLScheduler's F1, which takes 0.1 for a non-positive ``r`` or ``s``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cosched.gym.observation import JOB_FEATURES

__all__ = ["AGENTS", "f1", "fcfs", "sjf", "wfp3"]

Observation = Mapping[str, np.ndarray]

_SIZE, _EST, _WAIT, _USER, _SUBMIT, _FITS = range(len(JOB_FEATURES))


def _valid(obs: Observation) -> np.ndarray:
    return np.asarray(obs["action_mask"], dtype=bool)


def _best(score: np.ndarray, valid: np.ndarray) -> int:
    """The lowest slot with the smallest score among the valid ones."""
    masked = np.where(valid, score, np.inf)
    return int(np.argmin(masked))


def fcfs(obs: Observation) -> int:
    """The earliest submitted visible job (slot 0 when any job is visible)."""
    return int(np.argmax(_valid(obs)))


def sjf(obs: Observation) -> int:
    """The visible job with the shortest estimate."""
    jobs = np.asarray(obs["jobs"], dtype=np.float64)
    return _best(jobs[:, _EST], _valid(obs))


def wfp3(obs: Observation) -> int:
    """The visible job with the largest ``(wait / estimate) ** 3 * size``."""
    jobs = np.asarray(obs["jobs"], dtype=np.float64)
    valid = _valid(obs)
    est = np.where(valid, jobs[:, _EST], 1.0)
    return _best(-((jobs[:, _WAIT] / est) ** 3) * jobs[:, _SIZE], valid)


def f1(obs: Observation) -> int:
    """The visible job with the smallest F1 score ``log10(r) * n + 870 * log10(s)``."""
    jobs = np.asarray(obs["jobs"], dtype=np.float64)
    units, scale = (float(x) for x in obs["scales"])
    r = jobs[:, _EST] * scale
    s = jobs[:, _SUBMIT] * scale
    n = np.rint(jobs[:, _SIZE] * units)  # units are whole: the float32 ratio rounds back
    r = np.where(r > 0, r, 0.1)
    s = np.where(s > 0, s, 0.1)
    return _best(np.log10(r) * n + 870.0 * np.log10(s), _valid(obs))


#: The agents by name.
AGENTS = {"fcfs": fcfs, "sjf": sjf, "wfp3": wfp3, "f1": f1}
