"""``jtensor.multiprocessing.spawn`` / ``start_processes``: run ``fn(i, *args)`` in
``nprocs`` new processes and wait for them, with PyTorch's semantics: the first process to
fail stops the others, and its exception comes back to the parent as
``ProcessRaisedException`` carrying the child's traceback (``ProcessExitedException`` when
it died of a signal or an exit code)."""

import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

__all__ = [
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "SpawnContext",
    "spawn",
    "start_processes",
]

log = logging.getLogger(__name__)


class ProcessException(Exception):
    """A child process of ``spawn`` failed: ``error_index`` is its index, ``error_pid``
    its pid."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child raised an exception: the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child ended by a signal (``signal_name``) or a nonzero ``exit_code``."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (
            type(self),
            (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name),
        )


def _prctl_pr_set_pdeathsig(sig):
    """Linux: have the kernel send ``sig`` to this process when its parent dies (so a child
    does not outlive a killed parent). Elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(sig), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl
        pass


def _wrap(fn, i, args, error_file):
    """The child's entry point: run ``fn(i, *args)``; on an exception write its traceback
    to ``error_file`` and exit with status 1."""
    _prctl_pr_set_pdeathsig(signal.SIGINT)
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent stopped us (SIGINT)
    except Exception:
        import traceback

        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes started by ``start_processes(..., join=False)``; ``join()`` waits."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: index for index, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout):
        deadline = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Wait (up to ``timeout`` seconds) for a process to end. Returns True once all have
        ended successfully, False while some still run. When one failed, the others are
        stopped (after ``grace_period`` seconds, SIGTERM, then SIGKILL) and its failure is
        raised: ``ProcessRaisedException`` with the child's traceback, or
        ``ProcessExitedException``."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels

        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning(
                    "Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL",
                    p.pid,
                )
                p.kill()
            p.join()

        process = self.processes[failed]
        error_file = self.error_files[failed]
        if not os.access(error_file, os.R_OK):
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(
                    f"process {failed:d} terminated with signal {name}",
                    error_index=failed,
                    error_pid=process.pid,
                    exit_code=code,
                    signal_name=name,
                )
            raise ProcessExitedException(
                f"process {failed:d} terminated with exit code {code:d}",
                error_index=failed,
                error_pid=process.pid,
                exit_code=code,
            )
        with open(error_file, "rb") as fh:
            trace = pickle.load(fh)
        try:
            os.unlink(error_file)
        except OSError:
            pass
        msg = f"\n\n-- Process {failed:d} terminated with the following error:\n" + trace
        raise ProcessRaisedException(msg, failed, process.pid)


class SpawnContext(ProcessContext):
    """The old name of ``ProcessContext`` (deprecated in PyTorch 1.4)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def _error_file():
    """A fresh path for a child's traceback (the file exists only if the child failed)."""
    fd, path = tempfile.mkstemp(prefix="jtensor-errorfile-", suffix=".pickle")
    os.close(fd)
    os.unlink(path)
    return path


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` (``i`` = 0 .. nprocs-1) with
    ``start_method`` ('spawn', 'fork' or 'forkserver'). ``join=True`` waits for them all
    (raising the first failure) and returns None; ``join=False`` returns the
    ``ProcessContext``."""
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        error_file = _error_file()
        process = ctx.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Spawn ``nprocs`` processes running ``fn(i, *args)`` (``fn`` must be defined at the
    top level of an importable module, so that it can be pickled) and, with ``join=True``,
    wait for them: a child's exception is raised here as ``ProcessRaisedException`` with its
    traceback. ``join=False`` returns a ``ProcessContext``. Always the 'spawn' start method
    (another ``start_method`` warns, as in PyTorch: use ``start_processes``)."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
