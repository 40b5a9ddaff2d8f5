"""Where cells run: in this process, a local process pool, or a Dask cluster.

Every executor only *computes*: each finished cell comes back to the parent process,
which stores it (:class:`~cosched.experiments.store.Store`). So a worker that dies loses
no finished cell, and the results do not depend on the executor.

* :class:`Serial`: in this process, in order (``--workers 1``).
* :class:`ProcessPool`: ``concurrent.futures`` with ``spawn`` workers (safe with the
  threads pyarrow starts in the parent, and the same on every OS); workers ignore
  SIGINT, the parent stops them on Ctrl-C. Their locks are named POSIX semaphores,
  which multiprocessing's resource tracker unlinks; the tracker runs in a session of
  its own (:func:`tracker_apart`), so that it outlives a SIGKILL of the run's process
  group and unlinks them then too.
* :class:`DaskExecutor`: ``distributed``: ``local:N`` starts a ``LocalCluster`` of N
  single-threaded worker processes; ``tcp://HOST:PORT`` connects to a running
  scheduler. Dask reruns the tasks of a worker that dies on another worker.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import subprocess
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from cosched.errors import ConfigError
from cosched.experiments.model import CellEnv, CellTask, resolve
from cosched.experiments.store import CellOutcome, CellResult

__all__ = ["DaskExecutor", "Executor", "ProcessPool", "Serial", "execute", "make_executor"]

Done = Callable[[CellTask, CellOutcome], None]


def execute(task: CellTask, env: CellEnv) -> CellOutcome:
    """Run one cell; any exception becomes a failed outcome (exceptions may not pickle)."""
    began = time.perf_counter()
    try:
        fn = resolve(task.target)
        result = fn(task.payload, env)
        info: dict[str, Any] = {}
        if isinstance(result, CellResult):
            metrics, tables, info = dict(result.metrics), dict(result.tables), dict(result.info)
        elif isinstance(result, Mapping):
            metrics, tables = dict(result), {}
        else:
            raise TypeError(f"{task.target} returned {type(result).__name__}, not a mapping")
    except Exception as exc:
        return CellOutcome(
            error=f"{type(exc).__name__}: {exc}", info={"traceback": traceback.format_exc()}
        )
    info["elapsed_seconds"] = time.perf_counter() - began
    return CellOutcome(metrics=metrics, tables=tables, info=info)


class Executor(Protocol):
    """Runs cells and hands each finished one to ``done`` in the calling process."""

    #: How the executor is described in ``runs.jsonl`` and the report.
    description: str

    def run(self, tasks: Sequence[CellTask], env: CellEnv, done: Done) -> None:
        """Run every task; call ``done(task, outcome)`` as each one finishes."""
        ...


class Serial:
    """Cells in this process, in order."""

    description = "serial"

    def run(self, tasks: Sequence[CellTask], env: CellEnv, done: Done) -> None:
        """Run the tasks one after the other."""
        for task in tasks:
            done(task, execute(task, env))


def _quiet_worker(parent: int) -> None:
    # The parent handles Ctrl-C (and stops the workers); workers should not print tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    # A parent killed outright (SIGKILL, out of memory) cannot stop its workers: each
    # watches its parent (``parent``, the pid of the process that made the pool) and
    # exits when it is gone, rather than run on as an orphan.
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="cosched-parent-watch").start()


#: The resource tracker's process, kept so that it is never reaped by ``subprocess``.
_TRACKER: list[subprocess.Popen[bytes]] = []


def tracker_apart() -> None:
    """Start multiprocessing's resource tracker, if it is not running yet, in a
    session of its own.

    With ``spawn`` a pool's (or a local Dask cluster's) locks and semaphores are named
    POSIX semaphores (``/dev/shm/sem.mp-*``) that the tracker unlinks once every
    process of the run has closed its end of the tracker's pipe. Started the usual way
    the tracker is in the run's process group, so a SIGKILL of that group kills it too
    and the semaphores stay for good; in its own session it outlives the group, sees
    the pipe close, and unlinks them (saying so on the run's standard error).
    """
    from multiprocessing import resource_tracker, util

    real = util.spawnv_passfds

    def apart(path: Any, args: Any, passfds: Any) -> int:
        proc = subprocess.Popen(
            list(args), executable=path, pass_fds=tuple(passfds), start_new_session=True
        )
        _TRACKER.append(proc)
        return proc.pid

    util.spawnv_passfds = apart  # the one call ``ensure_running`` makes to start it
    try:
        resource_tracker.ensure_running()
    finally:
        util.spawnv_passfds = real


class ProcessPool:
    """Cells in ``workers`` local processes (``spawn``)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.description = f"process pool of {workers}"

    def run(self, tasks: Sequence[CellTask], env: CellEnv, done: Done) -> None:
        """Run the tasks in the pool; on any exception stop the workers at once."""
        if len(tasks) <= 1:
            Serial().run(tasks, env, done)
            return
        tracker_apart()
        ctx = multiprocessing.get_context("spawn")
        n = min(self.workers, len(tasks))
        pool = cf.ProcessPoolExecutor(
            n, mp_context=ctx, initializer=_quiet_worker, initargs=(os.getpid(),)
        )
        try:
            futures = {pool.submit(execute, t, env): t for t in tasks}
            for fut in cf.as_completed(futures):
                task = futures[fut]
                try:
                    outcome = fut.result()
                except Exception as exc:  # the worker died (e.g. out of memory)
                    outcome = CellOutcome(error=f"{type(exc).__name__}: {exc}")
                done(task, outcome)
        except BaseException:
            # Workers ignore SIGINT, so stop the cells still running (shutdown forgets them).
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                proc.terminate()
            raise
        pool.shutdown()


class DaskExecutor:
    """Cells on a Dask cluster: ``local:N`` (a ``LocalCluster``) or a scheduler address."""

    def __init__(self, address: str, *, retries: int = 2) -> None:
        self.address = address
        self.retries = retries
        self.description = f"dask {address}"
        if address.startswith("local:"):
            n = address.removeprefix("local:")
            if not n.isdigit() or int(n) < 1:
                raise ConfigError(f"--dask local:N needs N >= 1 worker processes, got {address!r}")
        elif "://" not in address:
            raise ConfigError(
                f"--dask must be local:N or a scheduler address such as tcp://HOST:8786, "
                f"got {address!r}"
            )

    def _client(self) -> tuple[Any, Any]:
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - distributed is a dependency
            raise ConfigError("--dask needs the 'distributed' package") from None
        if self.address.startswith("local:"):
            tracker_apart()
            cluster = LocalCluster(
                n_workers=int(self.address.removeprefix("local:")),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            return Client(cluster), cluster
        try:
            return Client(self.address, timeout=30), None
        except OSError as exc:
            raise ConfigError(f"cannot reach the Dask scheduler {self.address}: {exc}") from None

    def run(self, tasks: Sequence[CellTask], env: CellEnv, done: Done) -> None:
        """Submit every task (keyed by cell key) and store each as it completes."""
        from distributed import as_completed

        client, cluster = self._client()
        try:
            env_future = client.scatter(env, broadcast=True)
            futures = {
                client.submit(
                    execute, t, env_future, key=f"cosched-cell-{t.key}", retries=self.retries
                ): t
                for t in tasks
            }
            for fut in as_completed(list(futures)):
                task = futures[fut]
                try:
                    outcome = fut.result()
                except Exception as exc:  # the task failed on every retry
                    outcome = CellOutcome(error=f"{type(exc).__name__}: {exc}")
                done(task, outcome)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def make_executor(workers: int = 1, dask: str | None = None) -> Executor:
    """The executor for ``--workers N`` / ``--dask ADDRESS``.

    Raises:
        ConfigError: ``workers`` below 1, or a malformed Dask address.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be an integer >= 1, got {workers!r}")
    if dask is not None:
        return DaskExecutor(dask)
    return Serial() if workers == 1 else ProcessPool(workers)
