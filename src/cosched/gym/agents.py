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
* :func:`unicep`: the largest ``(wait + 1e-15) / (log2(n + 1e-15) * estimate)`` with
  ``n`` the units (Tang et al.'s UNICEP, with RLScheduler's guards against a zero wait
  and a one-unit job: a waiting one-unit job comes first).
* :func:`wfp3_rlscheduler`, :func:`unicep_rlscheduler`: the same two scores as
  RLScheduler computes them, which is how its published WFP3 and UNICEP columns were
  made: its ``wfp_score`` and ``uni_score`` (``HPCSimPickJobs.py``) read a queued job's
  wait as ``scheduled_time - submit_time`` while ``scheduled_time`` is still -1, so the
  wait is ``-1 - submit``. The scores no longer change with time: WFP3 becomes the
  smallest ``((1 + submit) / estimate) ** 3 * n``, UNICEP the smallest ``(1 + submit -
  1e-15) / (log2(n + 1e-15) * estimate)`` (submit time and estimate in seconds).
* :func:`f1`: the smallest ``log10(r) * n + 870 * log10(s)`` with ``r`` the estimate and
  ``s`` the submit time in seconds and ``n`` the units (Carastan-Santos and de Camargo,
  SC'17; RLScheduler's F1, which takes 0.1 for a non-positive ``r`` or ``s``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cosched.gym.observation import JOB_FEATURES

__all__ = [
    "AGENTS",
    "f1",
    "fcfs",
    "sjf",
    "unicep",
    "unicep_rlscheduler",
    "wfp3",
    "wfp3_rlscheduler",
]

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


#: RLScheduler's guard against a zero wait and a zero ``log2`` (a one-unit job).
_EPS = 1e-15


def _seconds(obs: Observation) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The visible jobs' units, estimate, wait and submit time in seconds."""
    jobs = np.asarray(obs["jobs"], dtype=np.float64)
    units, scale = (float(x) for x in obs["scales"])
    n = np.rint(jobs[:, _SIZE] * units)  # units are whole: the float32 ratio rounds back
    return n, jobs[:, _EST] * scale, jobs[:, _WAIT] * scale, jobs[:, _SUBMIT] * scale


def _best_finite(score: np.ndarray, valid: np.ndarray) -> int:
    """:func:`_best`, with a score that is not a number (an estimate of 0) last."""
    return _best(np.where(np.isnan(score), np.inf, score), valid)


def _unicep(n: np.ndarray, r: np.ndarray, wait: np.ndarray, valid: np.ndarray) -> int:
    with np.errstate(divide="ignore", invalid="ignore"):
        return _best_finite(-(wait + _EPS) / (np.log2(n + _EPS) * r), valid)


def _wfp3(n: np.ndarray, r: np.ndarray, wait: np.ndarray, valid: np.ndarray) -> int:
    with np.errstate(divide="ignore", invalid="ignore"):
        return _best_finite(-np.power(wait / r, 3) * n, valid)


def unicep(obs: Observation) -> int:
    """The visible job with the largest ``(wait + 1e-15) / (log2(n + 1e-15) * estimate)``."""
    n, r, wait, _ = _seconds(obs)
    return _unicep(n, r, wait, _valid(obs))


def wfp3_rlscheduler(obs: Observation) -> int:
    """WFP3 as RLScheduler scores it: the wait of a queued job is ``-1 - submit``."""
    n, r, _, submit = _seconds(obs)
    return _wfp3(n, r, -1.0 - submit, _valid(obs))


def unicep_rlscheduler(obs: Observation) -> int:
    """UNICEP as RLScheduler scores it: the wait of a queued job is ``-1 - submit``."""
    n, r, _, submit = _seconds(obs)
    return _unicep(n, r, -1.0 - submit, _valid(obs))


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
AGENTS = {
    "fcfs": fcfs,
    "sjf": sjf,
    "wfp3": wfp3,
    "unicep": unicep,
    "f1": f1,
    "wfp3-rlscheduler": wfp3_rlscheduler,
    "unicep-rlscheduler": unicep_rlscheduler,
}
