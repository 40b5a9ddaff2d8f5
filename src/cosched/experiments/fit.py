"""The simple batch scheduler that best reproduces a log's recorded schedule, held out.

``cosched validate TRACE --fit`` searches a declared space of baseline configurations
(:func:`space`): the policy (FCFS, EASY, conservative), EASY's backfill window, the
queue order (submit, SJF, WFP, per-queue priority), partitions on or off, and the run-time
estimates the scheduler sees (the users' requests or the exact run times). Every
configuration is simulated on the whole log, so that the queue at the split is the one
the earlier jobs left, and scored against the logged starts twice: on the *fit* part (the
first ``split`` share of the jobs by submit time) and on the *held-out* rest. The fit
part is cut again: its *search* segment (the first two thirds) ranks the search, its
*validation* segment (the last third) chooses (:func:`choose`); the held-out score is
what the report trusts, and no choice reads it.

The score (:func:`score_of`, lower is better, 0 to 2) is the Kolmogorov-Smirnov statistic
between the simulated and the logged waits plus the mean, over the job classes of
:class:`~cosched.metrics.JobClasses` that hold jobs, of the relative error of the class's
mean wait, ``|sim - log| / max(sim, log)`` (0 when both are 0): the KS statistic grades
the shape of the waits, the class errors whether the right jobs wait.

The configurations, and the input they run on with the readings it declares (partitions,
queue priority), are :mod:`cosched.experiments.fit_space`'s; the report's lines on what the
log lacks are :mod:`cosched.experiments.fit_report`'s. Both are re-exported here.

**Successive halving.** Each stage (the declared space, the outage stage, the site
stage) runs its configurations first on the log's first :data:`FIRST_RUNG` jobs alone,
scored on the search segment's jobs among them, keeps the best third (at least :data:`KEEP`;
plain EASY always, the report's reference), runs those on three times as many jobs, and
so on while the prefix is shorter than the fit part; the survivors run on the whole log,
and only they are chosen from. A prefix is simulated alone, so its last jobs meet fewer
competitors than in the whole log: the prefix ranks, the whole log chooses. On a log
whose fit part is no longer than the first prefix every configuration runs whole.

Each configuration is one cell of the experiments runner
(:func:`cosched.experiments.runner.run_tasks`): the store folder keeps finished cells,
so an interrupted fit resumes, and the cells run on ``--workers`` processes or Dask.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cosched.errors import ConfigError
from cosched.experiments.executors import Executor
from cosched.experiments.fit_report import lacks
from cosched.experiments.fit_space import (
    FEATURES,
    PLAIN_EASY,
    SPLIT,
    Baseline,
    FitInput,
    partition_procs,
    prepare,
    site_space,
    space,
    user_peaks,
)
from cosched.experiments.model import CellEnv, CellTask, canonical
from cosched.experiments.runner import run_tasks
from cosched.experiments.store import CellResult, atomic
from cosched.metrics.summary import JobClasses
from cosched.metrics.validate import ScheduleComparison, compare_schedules
from cosched.platform.machine import Platform
from cosched.workload.job import Workload

__all__ = [
    "FEATURES",
    "PLAIN_EASY",
    "SPLIT",
    "Baseline",
    "FitInput",
    "FitResult",
    "choose",
    "lacks",
    "partition_procs",
    "prepare",
    "run_fit",
    "score_of",
    "simulate_baseline",
    "site_space",
    "space",
    "user_peaks",
]

#: The later share of the fit part the choice is made on (the *validation* segment);
#: the earlier rest (the *search* segment) ranks the successive halving.
VALIDATION = 1.0 / 3.0
#: The two-sample Kolmogorov-Smirnov critical value at 5 %, ``c * sqrt(2 / m)`` for ``m``
#: jobs on each side: the margin by which a configuration must beat a simpler one on the
#: validation segment to be chosen over it.
KS_CRITICAL = 1.358
#: Successive halving: the jobs of the first (shortest) prefix a stage's configurations
#: run on, and the fewest that go on to the next prefix.
FIRST_RUNG = 4000
KEEP = 3
#: How many of the best FCFS or EASY configurations (by search score, one pool) the outage
#: stage replays with the unavailability read from the log, beside plain EASY.
OUTAGE_BASES = 3
_CELL = "cosched.experiments.fit:fit_cell"
_VERSION = 2  # part of every cell's identity: a change of the scoring starts afresh


# -- one configuration ------------------------------------------------------------------


def simulate_baseline(inp: FitInput, b: Baseline, seed: int = 0) -> np.ndarray:
    """Each job's simulated start under configuration ``b`` (in the workload's order)."""
    from cosched.engine.simulation import simulate
    from cosched.policies.base import make_policy

    w, p = inp.workload, inp.platform
    if b.outages and inp.unavailable and not b.partitions:
        p = replace(p, unavailable=inp.unavailable)
    if not (b.partitions and inp.sizes):
        return _starts(simulate, make_policy, w, p, b, seed)
    from cosched.engine.partitions import simulate_partitioned

    group = np.asarray(w.columns["partition"], dtype=np.int64)
    result = simulate_partitioned(
        w,
        p,
        lambda: make_policy(b.policy, **b.params()),
        group,
        inp.sizes,
        estimates=b.estimates,
        rng=np.random.default_rng(seed),
    )
    return _checked_starts(w, result)


def _starts(
    simulate: Callable[..., Any],
    make_policy: Callable[..., Any],
    w: Workload,
    p: Platform,
    b: Baseline,
    seed: int,
) -> np.ndarray:
    policy = make_policy(b.policy, **b.params())
    result = simulate(w, p, policy, estimates=b.estimates, rng=np.random.default_rng(seed))
    return _checked_starts(w, result)


def _checked_starts(w: Workload, result: Any) -> np.ndarray:
    jobs = result.jobs
    if not np.array_equal(jobs["job_id"].to_numpy(), np.asarray(w.columns["job_id"])):
        raise ConfigError(f"the simulation of {w.name} did not keep the jobs' order")
    return jobs["start_time"].to_numpy(dtype=np.float64)


def _table(inp: FitInput, start: np.ndarray) -> pd.DataFrame:
    t = inp.workload.columns
    run = np.asarray(t["run_time"], dtype=np.float64)
    return pd.DataFrame(
        {
            "job_id": t["job_id"],
            "submit_time": t["submit_time"],
            "start_time": start,
            "end_time": start + run,
            "procs": t["procs"],
            "size": inp.platform.units_array(np.asarray(t["procs"])),
            "run_time": run,
        }
    )


def _compare(inp: FitInput, sim: np.ndarray, rows: slice, within: float) -> ScheduleComparison:
    logged = np.asarray(inp.workload.columns["recorded_start"], dtype=np.float64)
    p = inp.platform
    return compare_schedules(
        _table(inp, logged).iloc[rows],
        _table(inp, sim).iloc[rows],
        capacity=p.capacity,
        capacity_procs=p.procs,
        within=within,
    )


def score_of(cmp: ScheduleComparison) -> dict[str, float]:
    """The declared score of a comparison (see the module): ``ks``, ``class_error``,
    ``score`` (their sum) and ``within`` (the share started within the tolerance)."""
    errors = []
    for d in JobClasses().duration_names():
        for wd in ("narrow", "wide"):
            key = f"{d}_{wd}_mean_wait"
            a, b = cmp.recorded.get(key, math.nan), cmp.simulated.get(key, math.nan)
            if math.isfinite(a) and math.isfinite(b):
                top = max(a, b)
                errors.append(abs(a - b) / top if top > 0 else 0.0)
    err = float(np.mean(errors)) if errors else 0.0
    return {
        "ks": cmp.ks_statistic,
        "class_error": err,
        "score": cmp.ks_statistic + err,
        "within": cmp.within_share,
        "mean_wait_sim": cmp.simulated["mean_wait"],
        "mean_wait_log": cmp.recorded["mean_wait"],
    }


def segments(k: int) -> int:
    """The search segment's jobs of a fit part of ``k`` jobs: the first ``k`` minus the
    validation segment's ``ceil(k * VALIDATION)`` (at least one job in each)."""
    return max(1, min(k - 1, k - math.ceil(k * VALIDATION))) if k > 1 else k


def evaluate(
    inp: FitInput, b: Baseline, seed: int, within: float, jobs: int | None = None
) -> dict[str, float]:
    """Fit, search, validation and held-out scores of configuration ``b`` (``fit.*``:
    the fit part; ``search.*`` and ``val.*``: its earlier and later segments,
    :func:`segments`; ``held.*``); with ``jobs`` shorter than the log, the scores of
    the first ``jobs`` jobs simulated alone (the ones of each part among them; NaN for a
    part with none of them) and no held-out scores."""
    n, k = len(inp.workload), inp.fit_jobs
    s = segments(k)
    if jobs is not None and jobs < n:
        head = np.arange(n) < jobs
        part = replace(inp, workload=inp.workload.rows(head, f"first {jobs} jobs"))
        sim = simulate_baseline(part, b, seed)
        parts = {"fit": slice(0, min(jobs, k)), "search": slice(0, min(jobs, s))}
        if jobs > s:
            parts["val"] = slice(s, min(jobs, k))
        out = {p: score_of(_compare(part, sim, r, within)) for p, r in parts.items()}
        names = list(out["fit"])
        nan = dict.fromkeys(names, math.nan)
        return {f"{p}.{m}": out.get(p, nan)[m] for p in _PARTS for m in names}
    sim = simulate_baseline(inp, b, seed)
    rows = {"fit": slice(0, k), "search": slice(0, s), "val": slice(s, k), "held": slice(k, None)}
    out = {p: score_of(_compare(inp, sim, rows[p], within)) for p in _PARTS}
    return {f"{p}.{m}": v for p in _PARTS for m, v in out[p].items()}


# -- the cells ----------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _load(path: str, digest: str) -> FitInput:
    """The input a parent wrote (:func:`_write_input`), read once per worker process."""
    meta = json.loads(Path(path).with_suffix(".json").read_text())
    table = pd.read_parquet(path)
    w = Workload.from_table(table, name=meta["name"])
    p = Platform(nodes=meta["nodes"], cores=meta["cores"], allocation=meta["allocation"])
    gone = tuple((float(a), float(b), int(u)) for a, b, u in meta.get("unavailable", []))
    return FitInput(w, p, meta["fit_jobs"], tuple(meta["sizes"]), meta["queues"], (), None, gone)


def fit_cell(payload: tuple[str, str, dict[str, Any], int, float, int], env: CellEnv) -> CellResult:
    """One configuration: its fit and held-out scores (on the first ``jobs`` jobs: the
    fit scores of that prefix only)."""
    path, digest, config, seed, within, jobs = payload
    inp = _load(path, digest)
    b = Baseline(**config)
    started = time.perf_counter()
    metrics = evaluate(inp, b, seed, within, jobs)
    return CellResult(metrics, info={"seconds": time.perf_counter() - started})


def _digest(inp: FitInput) -> str:
    h = hashlib.sha256()
    t = inp.workload.columns
    for name in t:
        h.update(name.encode())
        h.update(np.ascontiguousarray(t[name], dtype=np.float64).tobytes())
    p = inp.platform
    h.update(canonical([p.nodes, p.cores, p.allocation.value, inp.fit_jobs, inp.sizes]).encode())
    if inp.unavailable:
        h.update(canonical([list(x) for x in inp.unavailable]).encode())
    return h.hexdigest()[:20]


def _write_input(inp: FitInput, out: Path, digest: str) -> str:
    path = out / f"fit-input-{digest}.parquet"
    if not path.exists():  # written last, and whole: its presence says both files are
        p = inp.platform
        meta = {
            "name": inp.workload.name,
            "nodes": p.nodes,
            "cores": p.cores,
            "allocation": p.allocation.value,
            "fit_jobs": inp.fit_jobs,
            "sizes": list(inp.sizes),
            "queues": inp.queues,
            "unavailable": [list(x) for x in inp.unavailable],
        }
        with atomic(path.with_suffix(".json")) as tmp:
            tmp.write_text(canonical(meta) + "\n")
        with atomic(path) as tmp:
            inp.workload.table.to_parquet(tmp, index=False)
    return str(path)


# -- the fit ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FitResult:
    """The fitted baseline.

    Attributes:
        table: one row per configuration (in the order searched): its features, the
            jobs of its longest run (``jobs``: the whole log, or the prefix on which the
            halving left it) and that run's scores (held-out ones NaN on a prefix).
        chosen: the configuration :func:`choose` chooses (the ``nested`` rule).
        seconds: wall time of the fit, cells already stored included at no cost.
        input: what the configurations ran on.
        within: the tolerance (s) of the ``within`` share.
        configs: the configurations of the table's rows, in order.
    """

    table: pd.DataFrame
    chosen: Baseline
    seconds: float
    input: FitInput
    within: float
    configs: tuple[Baseline, ...]

    def whole(self) -> np.ndarray:
        """Which rows ran on the whole log (the others stopped on a prefix)."""
        return np.asarray(self.table["jobs"].to_numpy() >= len(self.input.workload))

    def row(self, b: Baseline) -> pd.Series:
        """The scores of configuration ``b``."""
        return self.table.loc[self.table["config"] == b.label()].iloc[0]

    def contributions(self) -> list[tuple[str, str, float]]:
        """Per feature where the chosen configuration differs from plain EASY: the feature,
        the change, and how much the held-out score worsens when that feature alone is
        reset to plain EASY's value (positive: the feature helps)."""
        c, out = self.chosen, []
        base = float(self.row(c)["held.score"])
        for f in FEATURES:
            if getattr(c, f) == getattr(PLAIN_EASY, f):
                continue
            other = replace(c, **{f: getattr(PLAIN_EASY, f)})
            if other.policy != "easy":
                other = replace(other, window=None)
            if other.order != "fairshare":
                other = replace(other, half_life=None)
            rows = self.table["config"] == other.label()
            if not rows.any() or not np.isfinite(self.table.loc[rows, "held.score"].iloc[0]):
                continue  # not searched, or left on a prefix by the halving
            value = float(self.table.loc[rows, "held.score"].iloc[0]) - base
            change = f"{_shown(f, getattr(c, f))} (plain EASY: {_shown(f, getattr(PLAIN_EASY, f))})"
            out.append((f, change, value))
        return out


def _shown(feature: str, value: Any) -> str:
    if feature == "partitions":
        return "on" if value else "off"
    if feature == "window" and value is None:
        return "whole queue"
    if feature == "outages":
        return "on" if value else "off"
    if feature.startswith("max_") and value is None:
        return "none"
    return str(value)


def unrunnable(b: Baseline) -> list[str]:
    """What of ``b`` ``cosched compare``'s arms do not run, each with why (empty: ``b``
    runs as an arm). The outages read from the log they run: each arm whose machine is
    counted in units takes them, and the partitions each arm whose machine can be cut
    into them (:func:`cosched.compare.site.with_site`)."""
    out = []
    if b.estimates != "requested":
        out.append("exact estimates (compare's arms see the users' requests)")
    if b.order == "queue":
        out.append("learned queue ranks (compare's arms read the log's queue numbers)")
    return out


def runnable(b: Baseline) -> bool:
    """Whether ``cosched compare`` can run ``b`` as an arm (:func:`unrunnable`)."""
    return not unrunnable(b)


def best_runnable(result: FitResult) -> Baseline:
    """The configuration :func:`choose` chooses among those :func:`runnable` (plain EASY
    is one)."""
    return choose(result, keep=runnable)


def complexity(b: Baseline) -> int:
    """How many of :data:`FEATURES` ``b`` sets otherwise than plain EASY (a fair-share
    half-life is part of its order)."""
    return sum(getattr(b, f) != getattr(PLAIN_EASY, f) for f in FEATURES)


def ks_noise(result: FitResult) -> float:
    """The margin of :func:`choose`: the two-sample KS critical value at 5 % for the
    validation segment's jobs (:data:`KS_CRITICAL`)."""
    k = result.input.fit_jobs
    m = max(1, k - segments(k))
    return KS_CRITICAL * math.sqrt(2.0 / m)


#: The selection rules :func:`choose` knows: the fit's (``nested``) first, then the
#: alternatives docs/validate.md measures beside it.
RULES = ("nested", "fit", "val", "margin")


def choose(
    result: FitResult,
    rule: str = "nested",
    keep: Callable[[Baseline], bool] | None = None,
) -> Baseline:
    """The configuration chosen among those run on the whole log (and kept by ``keep``).

    ``nested`` (the fit's rule): the lowest score on the fit part's validation segment
    (its later :data:`VALIDATION` share) among plain EASY and the configurations that
    beat plain EASY's score on both the search segment (the earlier rest, which also
    ranked the halving) and the validation segment; ties by the declared order. A
    configuration that matches the first segment better and the second worse is not
    chosen over the simplest one. The held-out part is not read.

    The alternatives (:data:`RULES`, measured in docs/validate.md): ``fit``, the lowest
    score on the whole fit part; ``val``, the lowest validation score; ``margin``, the
    simplest configuration (:func:`complexity`) whose validation score is within
    :func:`ks_noise` of the lowest."""
    if rule not in RULES:
        raise ConfigError(f"unknown selection rule {rule!r}; one of {', '.join(RULES)}")
    ok = result.whole() & np.array([keep is None or keep(b) for b in result.configs])
    if not ok.any():
        raise ConfigError("no configuration of the fit ran on the whole log")
    t = result.table

    def column(name: str) -> np.ndarray:
        values = np.where(ok, t[name].to_numpy(dtype=np.float64), np.inf)
        return np.where(np.isnan(values), np.inf, values)

    val = column("val.score")
    if rule == "fit":
        return result.configs[int(np.argmin(column("fit.score")))]
    if rule == "val":
        return result.configs[int(np.argmin(val))]
    if rule == "margin":
        best = float(val.min())
        near = [i for i in range(len(val)) if val[i] <= best + ks_noise(result)]
        pick = min(near, key=lambda i: (complexity(result.configs[i]), val[i], i))
        return result.configs[pick]
    search = column("search.score")
    base = result.configs.index(PLAIN_EASY) if PLAIN_EASY in result.configs else None
    if base is not None and ok[base]:
        beat = (search < search[base]) & (val < val[base])
        beat[base] = True
        val = np.where(beat, val, np.inf)
    return result.configs[int(np.argmin(val))]


def run_fit(
    inp: FitInput,
    out: str | Path,
    *,
    seed: int = 0,
    within: float = 3600.0,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    argv: Sequence[str] | None = None,
    first_rung: int = FIRST_RUNG,
    outages: bool = True,
) -> FitResult:
    """Run the configurations of :func:`space` and of the outage and site stages into
    store ``out`` and choose.

    Each stage is searched by successive halving (see the module): its configurations
    run on the first ``first_rung`` jobs, the best third by the search segment's score
    (at least :data:`KEEP`, plain EASY always) on three times as many, and so on while
    the prefix is shorter than the fit part; the survivors run on the whole log.
    :func:`choose` chooses among the whole-log runs (rule ``nested``). ``outages=False`` leaves out
    the outage stage (with ``first_rung`` past the fit part, the search as it was before
    the outage stage and the halving: the docs' tables compare the two).
    """
    started = time.perf_counter()
    out = Path(out)
    digest = _digest(inp)
    path = _write_input(inp, out, digest)
    n, k = len(inp.workload), inp.fit_jobs
    configs: list[Baseline] = []
    tasks: list[CellTask] = []
    deepest: dict[Baseline, CellTask] = {}  # each configuration's longest run
    meta = {"experiment": "validate-fit", "input": digest, "seed": seed, "within": within}
    results = pd.DataFrame()

    def task(b: Baseline, jobs: int) -> CellTask:
        ident: dict[str, Any] = {"fit": _VERSION, "input": digest, "config": asdict(b),
                                 "seed": seed, "within": within}  # fmt: skip
        if jobs < n:
            ident["jobs"] = jobs
        key = hashlib.sha256(canonical(ident).encode()).hexdigest()[:16]
        cols = {f: (str(v) if v is not None else None) for f, v in asdict(b).items()}
        payload = (path, digest, asdict(b), seed, within, jobs)
        label = b.label() if jobs >= n else f"{b.label()} (first {jobs} jobs)"
        return CellTask(key, cols | {"seed": seed, "jobs": jobs}, _CELL, payload, label)

    def run(batch: Sequence[Baseline], jobs: int) -> None:
        nonlocal results
        more = [task(b, jobs) for b in batch]
        for b, t in zip(batch, more, strict=True):
            if b not in deepest:
                configs.append(b)
            deepest[b] = t
        tasks.extend(t for t in more if t.key not in {x.key for x in tasks})
        results = run_tasks(
            tasks, out, meta=meta, executor=executor, progress=progress, argv=argv
        ).set_index("key")

    def score(b: Baseline) -> float:
        return float(results.loc[deepest[b].key, "search.score"])

    def stage(batch: Sequence[Baseline]) -> None:
        alive = [b for b in dict.fromkeys(batch) if b not in deepest]
        jobs = first_rung
        while jobs < k and len(alive) > KEEP:
            run(alive, jobs)
            ranked = sorted(alive, key=lambda b: (score(b), alive.index(b)))
            keep = ranked[: max(KEEP, math.ceil(len(alive) / 3))]
            alive = [b for b in alive if b in keep or b == PLAIN_EASY]
            jobs *= 3
        if alive:
            run(alive, n)

    def whole(keep: Callable[[Baseline], bool]) -> list[Baseline]:
        """The configurations run on the whole log that ``keep`` keeps, best fit first."""
        done = [b for b in configs if keep(b) and deepest[b].payload[-1] >= n]
        return sorted(done, key=lambda b: (score(b), configs.index(b)))

    stage(space(queues=inp.queues, partitions=bool(inp.sizes)))
    # The outage stage: the unavailability read from the log replayed under plain EASY
    # and under the best FCFS or EASY configurations so far that run one pool (their
    # compiled pass replays it; conservative's does not, and its general loop under
    # thousands of intervals costs tens of times what EASY does: docs/validate.md).
    gone = outages and bool(inp.unavailable)
    if gone:
        bests = whole(lambda b: not b.partitions and b.policy in ("fcfs", "easy"))
        bests = bests[:OUTAGE_BASES]
        stage([replace(b, outages=True) for b in [PLAIN_EASY, *bests]])
    # The site stage: user limits and fair-share around plain EASY (with the outages too,
    # when read; in the partitions, when the log has them) and around the best FCFS or
    # EASY configuration by the search segment's score (ties: the earlier one).
    simple = whole(lambda b: b.policy in ("fcfs", "easy"))
    bases = [PLAIN_EASY, *([replace(PLAIN_EASY, outages=True)] if gone else [])]
    bases += [replace(PLAIN_EASY, partitions=True)] if inp.sizes else []
    bases += simple[:1]
    stage([b for base in bases for b in site_space(inp, base)])
    rows = []
    for b in configs:
        r = results.loc[deepest[b].key]
        rows.append(
            {"config": b.label(), **asdict(b), "jobs": deepest[b].payload[-1],
             **{c: r[c] for c in _SCORES}}
        )  # fmt: skip
    table = pd.DataFrame(rows)
    result = FitResult(table, PLAIN_EASY, 0.0, inp, within, tuple(configs))
    chosen = choose(result)
    seconds = time.perf_counter() - started
    return FitResult(table, chosen, seconds, inp, within, tuple(configs))


_PARTS = ("fit", "search", "val", "held")
_SCORES = [f"{part}.{n}" for part in _PARTS for n in
           ("ks", "class_error", "score", "within", "mean_wait_sim", "mean_wait_log")]  # fmt: skip
