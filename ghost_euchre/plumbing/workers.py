"""Independent tasks on every core of this machine (processes) or on a Ray cluster.

A job is a list of tasks, each ``function(task, progress)`` returning a
picklable result (``progress(n)`` reports n units done: games). :class:`Workers`
runs them and yields ``(index, outcome)`` as they finish; ``outcome`` is the
result, or the exception the task raised, or :class:`WorkerDied` when its
process died (killed, out of memory). Callers merge outcomes by task index, so
their result never depends on the split.

- ``workers=1`` and no Ray: in this process, in order (no new process).
- ``workers=N``: N worker processes of this machine, started by ``spawn`` (not
  fork: torch and threads do not survive a fork) and kept for the job. Each
  worker runs one task at a time; progress comes back while a task runs. A
  dead worker fails its own task only, and a new worker takes the next. Chosen
  over ``concurrent.futures.ProcessPoolExecutor``, which fails every running
  task when one of its workers dies (so the task that died cannot be named)
  and cannot stop a running task on Ctrl-C.
- ``ray=ADDRESS`` (``auto``: the running cluster, ``ray start --head``): one
  Ray task per task (one CPU each, no retries); progress counts whole tasks.
  Workers import this code and open ``ppo:PATH`` files on their own machine:
  each task first puts this process's ``sys.path`` first on its path and
  changes to this process's directory, where those exist there.

A worker runs torch on one thread unless ``OMP_NUM_THREADS`` says otherwise
(one task at a time per core; several threads per worker fight over the
cores). Workers ignore SIGINT: on Ctrl-C the caller leaves the ``with`` block and the
running tasks are stopped (processes terminated, Ray tasks cancelled).
"""

import collections
import contextlib
import importlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Callable
from typing import Any

from tqdm import tqdm


class WorkerDied(RuntimeError):
    """The process running a task died before it returned."""


class TaskNotLoaded(ValueError):
    """A worker process could not unpickle its task: a module or class that imports in the caller
    and not in the worker (a class made at run time, in ``__main__``, or of a module the worker
    does not find)."""


def usable_cores():
    """The number of CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class Workers:
    """Runs tasks in this process, in ``workers`` processes, or on Ray (see the module docstring).

    ``with Workers(workers, ray) as pool: for index, outcome in pool.run(function, tasks, sizes,
    progress)``: sizes[i] units of task i (reported on completion where a task
    cannot report while it runs); progress: a function of n units, or None.
    """

    def __init__(self, workers=1, ray=None):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
        self.workers = workers
        self.ray = ray
        self._processes = []
        self._refs = []
        if ray is not None:
            connect_ray(ray)

    @property
    def slots(self):
        """How many tasks run at once: ``workers``, or on Ray the cluster's CPUs (unless workers > 1)."""
        if self.ray is None or self.workers > 1:
            return self.workers
        return max(1, int(_ray_module().cluster_resources().get("CPU", 1)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Stop every running task (terminate the worker processes, cancel Ray tasks)."""
        for worker in self._processes:
            worker.stop()
        self._processes = []
        if self._refs:
            ray = _ray_module()
            for ref in self._refs:
                ray.cancel(ref, force=True)
            self._refs = []

    def map(self, function, tasks, sizes, progress=None, describe: Callable[[int], str] = str):
        """[result of each task], in task order; a task's exception is raised, a dead worker
        as ValueError naming ``describe(index)``, as is a task a worker could not load and, when
        there are several tasks, a task's ValueError."""
        results: list[Any] = [None] * len(tasks)
        for index, outcome in self.run(function, tasks, sizes, progress):
            if isinstance(outcome, WorkerDied):
                raise ValueError(f"{describe(index)} failed: {outcome}")
            if isinstance(outcome, TaskNotLoaded):
                raise TaskNotLoaded(f"{describe(index)}: {outcome}")
            if isinstance(outcome, ValueError) and len(tasks) > 1:
                raise ValueError(f"{describe(index)}: {outcome}") from None
            if isinstance(outcome, Exception):
                raise outcome
            results[index] = outcome
        return results

    def run(self, function, tasks, sizes, progress=None):
        """Yield (index, result | exception) for every task, as they finish."""
        report = progress or (lambda n: None)
        if self.ray is not None:
            yield from self._run_ray(function, tasks, sizes, report)
        elif self.workers == 1 or len(tasks) == 1:
            for index, task in enumerate(tasks):
                try:
                    outcome = function(task, report)
                except Exception as error:  # noqa: BLE001 (the caller decides what a failure means)
                    outcome = error
                yield index, outcome
        else:
            yield from self._run_local(function, tasks, report)

    # ------------------------------------------------------------- processes
    def _run_local(self, function, tasks, report):
        context = multiprocessing.get_context("spawn")
        waiting = collections.deque(enumerate(tasks))
        busy = {}  # worker -> task index
        while waiting or busy:
            while waiting and len(busy) < self.workers:
                idle = [w for w in self._processes if w not in busy]
                worker = idle[0] if idle else self._start(context)
                index, task = waiting.popleft()
                worker.connection.send((function, task))
                busy[worker] = index
            ready = multiprocessing.connection.wait([w.connection for w in busy])
            for worker in [w for w in busy if w.connection in ready]:
                try:
                    kind, value = worker.connection.recv()
                except (EOFError, OSError):
                    index = busy.pop(worker)
                    self._processes.remove(worker)
                    yield index, WorkerDied(f"its worker process died ({worker.stop()})")
                    continue
                if kind == "progress":
                    report(value)
                else:
                    yield busy.pop(worker), value

    def _start(self, context):
        worker = _Process(context)
        self._processes.append(worker)
        return worker

    # ------------------------------------------------------------------- ray
    def _run_ray(self, function, tasks, sizes, report):
        ray = _ray_module()
        errors = importlib.import_module("ray.exceptions")
        remote = ray.remote(num_cpus=1, max_retries=0)(_ray_task)
        index_of = {}
        for index, task in enumerate(tasks):
            ref = remote.remote(function, task, list(sys.path), os.getcwd())
            index_of[ref] = index
            self._refs.append(ref)
        while self._refs:
            (ref,), self._refs = ray.wait(self._refs, num_returns=1)
            index = index_of[ref]
            try:
                outcome = ray.get(ref)
            except errors.RayTaskError as error:
                outcome = error.cause if isinstance(error.cause, Exception) else error
            except (errors.WorkerCrashedError, errors.NodeDiedError) as error:
                outcome = WorkerDied(f"its Ray worker died ({type(error).__name__})")
            report(sizes[index])
            yield index, outcome


class _Process:
    """One spawned worker process and the parent's end of its pipe."""

    def __init__(self, context):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child,), daemon=True)
        self.process.start()
        child.close()  # the parent's copy: the pipe ends (EOF) when the worker dies

    def stop(self):
        """Terminate the worker (if alive); returns how it ended, e.g. 'exit code -9'."""
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.connection.close()
        return f"exit code {self.process.exitcode}"


def _worker_main(connection):
    """A worker process: run (function, task) messages until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    parent = multiprocessing.parent_process()
    if parent is not None:  # the parent killed: stop at once, not at the end of the task
        threading.Thread(target=lambda: (parent.join(), os._exit(1)), daemon=True).start()
    os.environ.setdefault(
        "OMP_NUM_THREADS", "1"
    )  # one task at a time per core: torch on one thread

    def progress(n):
        connection.send(("progress", n))

    while True:
        try:
            function, task = connection.recv()
        except EOFError:
            return
        except Exception as error:  # noqa: BLE001 (the task did not unpickle here: told to the caller)
            loaded = TaskNotLoaded(
                f"a worker process cannot load it ({type(error).__name__}: {error})"
            )
            connection.send(("done", loaded))
            continue
        try:
            result = function(task, progress)
        except Exception as error:  # noqa: BLE001 (sent to the parent, which reports it)
            result = error
        try:
            connection.send(("done", result))
        except Exception as error:  # noqa: BLE001 (an exception or result pickle cannot carry)
            connection.send(("done", RuntimeError(f"{type(result).__name__}: {result} ({error})")))


def _ray_task(function, task, path, directory):
    """A Ray task: this driver's sys.path and directory where they exist on the worker, then the task."""
    sys.path[:0] = [p for p in path if p not in sys.path and os.path.isdir(p or ".")]
    if os.path.isdir(directory):
        os.chdir(directory)
    return function(task, lambda n: None)


RAY_PROBE_S = 3.0
"""seconds to wait for a Ray address to answer before saying that no cluster is there"""


def connect_ray(address):
    """Connect this process to the Ray cluster at ``address`` (``auto``: the one ``ray start --head``
    started here, or RAY_ADDRESS), once; ValueError (one line with the reason) when none is there.
    An address HOST:PORT is probed first (RAY_PROBE_S seconds), so an unreachable one fails at
    once, before Ray retries it with pages of warnings."""
    ray = _ray_module()
    if ray.is_initialized():
        return
    target = os.environ.get("RAY_ADDRESS", "") if address == "auto" else address  # auto: its own
    host, _, port = target.removeprefix("ray://").rpartition(":")
    if host and port.isdigit():
        reason = _grpc_probe(host.strip("[]"), int(port))
        if reason:
            raise ValueError(f"--ray {address!r}: no Ray cluster there ({host}:{port} {reason})")
    with tempfile.TemporaryFile() as said, _stderr_to(said):  # Ray's retries: pages of warnings
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            error = None
        except (ConnectionError, RuntimeError, ValueError) as raised:
            error = raised
        said.seek(0)
        lines = said.read().decode(errors="replace").splitlines()
    if error is not None:
        text = str(error).strip()
        reason = text.splitlines()[0] if text else type(error).__name__
        last = lines[-1].rpartition("] ")[2].strip() if lines else ""  # Ray's last warning, if any
        raise ValueError(
            f"--ray {address!r}: no Ray cluster there ({reason}{f'; {last}' if last else ''})"
        )


@contextlib.contextmanager
def _stderr_to(handle):
    """Send what this process (C++ included) writes to stderr to the file ``handle`` in the block."""
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(handle.fileno(), 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""the HTTP/2 connection preface and an empty SETTINGS frame: a gRPC server (Ray's GCS) answers
with a SETTINGS frame of its own"""


def _grpc_probe(host, port):
    """'' when a gRPC server (Ray's GCS is one) answers at host:port within RAY_PROBE_S seconds,
    else why not ('does not answer: Connection refused', 'answers, but not as ...')."""
    try:
        with socket.create_connection((host, port), timeout=RAY_PROBE_S) as connection:
            connection.sendall(HTTP2_HELLO)
            frame = connection.recv(9)
    except TimeoutError:
        return f"does not answer gRPC within {RAY_PROBE_S:g} s"
    except OSError as error:
        return f"does not answer: {error.strerror or str(error) or type(error).__name__}"
    if len(frame) < 9 or frame[3] != 4:  # byte 3: the frame type, 4 SETTINGS
        return "answers, but not as a gRPC server (Ray's GCS is one)"
    return ""


def _ray_module():
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'ray[default]'") from None
    return ray


class ProgressBar:
    """``with ProgressBar(progress, total, unit) as report``: report(n) advances the one bar of a job.

    progress: True (a tqdm bar), False (nothing) or a function of n (called as is).
    """

    def __init__(self, progress, total, unit):
        self.bar = None
        if callable(progress):
            self.report = progress
        elif progress:
            self.bar = tqdm(total=total, unit=unit, leave=False, dynamic_ncols=True)
            self.report = self.bar.update
        else:
            self.report = None

    def __enter__(self):
        return self.report

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()


def above_bar(out):
    """``out`` (a function of one line, or None: nothing) printing its line above any progress bar."""
    if out is None:
        return lambda line: None
    # tqdm makes its class lock on first use, importing multiprocessing's; a Ctrl-C landing in
    # that first use inside external_write_mode leaves no lock, and its exit raises
    # AttributeError instead of the KeyboardInterrupt: made here, before any line is said
    tqdm.get_lock()

    def say(line):
        with tqdm.external_write_mode():
            out(line)

    return say
