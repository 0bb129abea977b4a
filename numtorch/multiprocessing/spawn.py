"""``spawn`` / ``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes, join them, and re-raise
a child's exception (with its traceback text) or abnormal exit in the parent, as PyTorch does."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "start_processes"]  # fmt: skip


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """Raised when a process failed due to an exception raised by the code."""


class ProcessExitedException(ProcessException):
    """Raised when a process failed due to a signal or exited with a non-zero code."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent stopped us
    except Exception:
        import traceback

        # one-shot message to the parent through a file: a Queue can deadlock on exit
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes of one ``start_processes`` call; ``join()`` until it returns True."""

    def __init__(self, processes, error_files) -> None:
        self.error_files, self.processes = error_files, processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> list:
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait for the processes; on the first failure stop the others and raise its error."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        failed = self.processes[error_index]
        if not os.path.exists(self.error_files[error_index]):
            code = failed.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(f"process {error_index:d} terminated with signal {name}",
                                             error_index=error_index, error_pid=failed.pid, exit_code=code,
                                             signal_name=name)  # fmt: skip
            raise ProcessExitedException(f"process {error_index:d} terminated with exit code {code:d}",
                                         error_index=error_index, error_pid=failed.pid, exit_code=code)  # fmt: skip
        with open(self.error_files[error_index], "rb") as fh:
            original_trace = pickle.load(fh)
        msg = f"\n\n-- Process {error_index:d} terminated with the following error:\n" + original_trace
        raise ProcessRaisedException(msg, error_index, failed.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files) -> None:
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``; join them unless ``join=False``
    (then return the ProcessContext)."""
    mp = multiprocessing.get_context(start_method)
    error_files, processes = [], []
    for i in range(nprocs):
        tf = tempfile.NamedTemporaryFile(prefix="numtorch-errorfile-", suffix=".pickle", delete=False)  # noqa: SIM115
        tf.close()
        os.unlink(tf.name)  # the file's existence is the child's "I raised" signal
        p = mp.Process(target=_wrap, args=(fn, i, args, tf.name), daemon=daemon)
        p.start()
        error_files.append(tf.name)
        processes.append(p)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the ``spawn`` start method (other methods warn and belong to ``start_processes``)."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t torch.multiprocessing.start_processes(...)",
            FutureWarning, stacklevel=2,
        )  # fmt: skip
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
