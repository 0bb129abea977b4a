"""numtorch.futures: ``Future`` (the one class ``jit.fork`` returns), ``collect_all`` and ``wait_all``.

numtorch runs forked work synchronously, so a future is usually complete when handed out; futures
made with ``Future()`` are completed by ``set_result`` / ``set_exception`` (from any thread).

>>> f = numtorch.futures.Future(); f.set_result(2)
>>> numtorch.futures.wait_all([f, numtorch.jit.fork(lambda: 3)])
[2, 3]
"""

from __future__ import annotations

import threading

from ..jit._script import Future

__all__ = ["Future", "collect_all", "wait_all"]


def collect_all(futures: list[Future]) -> Future:
    """A future completed, with the list of ``futures`` itself, once every one of them is done.

    >>> a, b = numtorch.futures.Future(), numtorch.futures.Future()
    >>> all_ = numtorch.futures.collect_all([a, b]); a.set_result(1); all_.done()
    False
    >>> b.set_result(2); [f.wait() for f in all_.wait()]
    [1, 2]
    """
    futures = list(futures)
    out = Future()
    left = [len(futures)]
    lock = threading.Lock()

    def one_done(_fut) -> None:
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            out.set_result(futures)

    if not futures:
        out.set_result(futures)
    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures: list[Future]) -> list:
    """The values of ``futures``, in order; the first error among them is raised."""
    return [f.wait() for f in collect_all(futures).wait()]
