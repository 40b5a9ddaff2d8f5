"""Where cells run: in this process, a local process pool, or a Dask cluster.

Every executor only *computes*: each finished cell comes back to the parent process,
which stores it (:class:`~cosched.experiments.store.Store`). So a worker that dies loses
no finished cell, and the results do not depend on the executor.

* :class:`Serial`: in this process, in order (``--workers 1``).
* :class:`ProcessPool`: ``concurrent.futures`` with ``spawn`` workers (safe with the
  threads pyarrow starts in the parent, and the same on every OS); workers ignore
  SIGINT, the parent stops them on Ctrl-C. With ``spawn`` the pool's five locks and
  semaphores are named POSIX semaphores (``/dev/shm/sem.mp-*``), unlinked at exit by
  multiprocessing's resource tracker; a run killed outright (SIGKILL of its process
  group) kills the tracker too and leaves them. So each pool records their names
  (:data:`SEMAPHORE_RECORDS`) and the next pool of the same user unlinks those of a
  process that is gone (:func:`remove_leaked_semaphores`).
* :class:`DaskExecutor`: ``distributed``: ``local:N`` starts a ``LocalCluster`` of N
  single-threaded worker processes; ``tcp://HOST:PORT`` connects to a running
  scheduler. Dask reruns the tasks of a worker that dies on another worker.
"""

from __future__ import annotations

import _multiprocessing
import atexit
import concurrent.futures as cf
import contextlib
import json
import multiprocessing
import multiprocessing.context
import os
import signal
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
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


#: Where each process pool records the names of its semaphores (one JSON file per
#: parent process, removed when the pool is shut down).
SEMAPHORE_RECORDS = Path(tempfile.gettempdir()) / f"cosched-{os.getuid()}-semaphores"


class _RecordingSpawn(multiprocessing.context.SpawnContext):
    """The ``spawn`` context, noting the name of every semaphore made through it."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def _note(self, made: Any) -> Any:
        name = getattr(getattr(made, "_semlock", None), "name", None)
        if name:
            self.names.append(str(name))
        return made

    def Lock(self) -> Any:
        return self._note(super().Lock())

    def RLock(self) -> Any:
        return self._note(super().RLock())

    def Semaphore(self, value: int = 1) -> Any:
        return self._note(super().Semaphore(value))

    def BoundedSemaphore(self, value: int = 1) -> Any:
        return self._note(super().BoundedSemaphore(value))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leaked_semaphores(records: Path | None = None) -> list[str]:
    """Unlink the semaphores recorded by pools whose process is gone; their names.

    A record whose process is alive is left alone (its pool may be running).
    """
    folder = records if records is not None else SEMAPHORE_RECORDS
    gone: list[str] = []
    for record in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(record.read_text())
            pid, names = int(data["pid"]), [str(n) for n in data["names"]]
        except (OSError, ValueError, KeyError, TypeError):
            record.unlink(missing_ok=True)  # unreadable: a write cut short
            continue
        if _alive(pid):
            continue
        for name in names:
            with contextlib.suppress(OSError):  # already unlinked
                _multiprocessing.sem_unlink(name)
                gone.append(name)
        record.unlink(missing_ok=True)
    return gone


#: The semaphores this process's pools made (their names stay until it exits).
_MADE: list[str] = []


def _record_semaphores(names: list[str], records: Path | None = None) -> None:
    """Add ``names`` to this process's record (kept until it exits: the resource
    tracker unlinks the semaphores then). A record that cannot be written is skipped:
    a leak is then only not cleaned."""
    folder = records if records is not None else SEMAPHORE_RECORDS
    path = folder / f"{os.getpid()}.json"
    if not _MADE:
        atexit.register(lambda: path.unlink(missing_ok=True))
    _MADE.extend(names)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"pid": os.getpid(), "names": _MADE}))
        os.replace(tmp, path)
    except OSError:
        return


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
        remove_leaked_semaphores()
        ctx = _RecordingSpawn()
        n = min(self.workers, len(tasks))
        pool = cf.ProcessPoolExecutor(
            n, mp_context=ctx, initializer=_quiet_worker, initargs=(os.getpid(),)
        )
        _record_semaphores(ctx.names)
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
