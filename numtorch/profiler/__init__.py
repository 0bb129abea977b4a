"""numtorch.profiler: PyTorch's ``torch.profiler`` front end (activities, step schedules, trace
handlers) over numtorch's dispatcher profiler (``numtorch.autograd.profiler``, Note [Profiling at the
dispatcher]). Only CPU activity exists: there is no Kineto and no device timeline.

>>> with numtorch.profiler.profile() as prof:
...     _ = numtorch.ones(2).exp()
>>> [e.key for e in prof.key_averages()]
['aten::exp']
"""

from __future__ import annotations

import enum
import gzip
import os
import socket
import time
import warnings

from ..autograd import profiler as _ap
from ..autograd.profiler import DeviceType, ProfilerActivity, kineto_available, record_function

__all__ = ["DeviceType", "ProfilerAction", "ProfilerActivity", "kineto_available", "profile", "record_function",
           "schedule", "supported_activities", "tensorboard_trace_handler"]  # fmt: skip


class ProfilerAction(enum.Enum):
    """What the profiler does on a step, as a ``schedule`` answers."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities() -> set:
    """The activities this build can record: the CPU only."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0, skip_first_wait: int = 0):
    """The step -> ProfilerAction function of PyTorch's ``torch.profiler.schedule``.

    >>> s = numtorch.profiler.schedule(wait=1, warmup=1, active=2)
    >>> [s(i).name for i in range(4)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE']
    """

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:  # the first cycle skips its wait
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _always_record(_step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False,
                              use_python_export: bool = False):  # fmt: skip
    """An ``on_trace_ready`` that writes each trace as ``{worker}.{time_ns}.pt.trace.json[.gz]`` in ``dir_name``."""

    def handler_fn(prof) -> None:
        nonlocal worker_name
        try:
            os.makedirs(dir_name, exist_ok=True)
        except Exception as e:
            raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{worker_name}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                dst.write(src.read())
            os.remove(path)

    return handler_fn


class profile:
    """Profile a block or a training loop: ``schedule`` decides per ``step()`` whether ops are recorded,
    and ``on_trace_ready(prof)`` runs at the end of each RECORD_AND_SAVE step (and at exit when recording).

    >>> seen = []
    >>> s = numtorch.profiler.schedule(wait=0, warmup=1, active=1)
    >>> with numtorch.profiler.profile(schedule=s, on_trace_ready=lambda p: seen.append(len(p.events()))) as p:
    ...     for _ in range(2):
    ...         _ = numtorch.ones(2).exp()
    ...         p.step()
    >>> seen
    [1]
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda: bool | None = None, custom_trace_id_callback=None,
                 post_processing_timeout_s: float | None = None) -> None:  # fmt: skip
        acts = set(activities) if activities else supported_activities()
        if use_cuda or acts - supported_activities():
            names = sorted(a.name for a in acts)
            raise AssertionError(f"numtorch's profiler records CPU activity only; got activities={names}")
        self.activities, self.record_shapes = acts, record_shapes
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.profiler: _ap.profile | None = None  # the recording of the current (or last) active window
        self._running = False

    # ---- a window is recorded by one autograd-profiler profile object --------------------------------
    def _start_window(self) -> None:
        self.profiler = _ap.profile(record_shapes=self.record_shapes)
        self.profiler.__enter__()
        self._running = True

    def _stop_window(self, save: bool) -> None:
        self.profiler.__exit__(None, None, None)
        self._running = False
        if save and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _enter_action(self, action: ProfilerAction) -> None:
        if action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE) and not self._running:
            self._start_window()

    def start(self) -> None:
        self._enter_action(self.current_action)

    def stop(self) -> None:
        if self._running:
            self._stop_window(save=True)

    def step(self) -> None:
        """Mark the end of a training step: the schedule's next action takes effect."""
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self._running and (prev is ProfilerAction.RECORD_AND_SAVE
                              or self.current_action not in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)):
            self._stop_window(save=prev is ProfilerAction.RECORD_AND_SAVE)  # fmt: skip
        self._enter_action(self.current_action)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- results of the last recorded window ----------------------------------------------------------
    def _done(self) -> _ap.profile:
        if self.profiler is None or self._running:
            raise RuntimeError("Profiler didn't finish running")
        return self.profiler

    def events(self):
        return self._done().function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):  # fmt: skip
        return self._done().key_averages(group_by_input_shape)

    def export_chrome_trace(self, path: str) -> None:
        self._done().export_chrome_trace(path)
