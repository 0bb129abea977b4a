"""The autograd profiler: per-op self and total CPU times, recorded at the dispatcher.

# Note [Profiling at the dispatcher]
# ``profile`` pushes a TorchDispatchMode that times every op call (forward and the ops backward
# formulas run), as PyTorch's RecordFunction does at the dispatcher: a mode sees each aten op once,
# below autograd. ``record_function`` ranges nest ops under a name; an event's self time is its
# total minus its direct children's. Ops run on the slow dispatch path while profiling.
"""

from __future__ import annotations

import enum
import functools
import threading
import time

from ..utils._python_dispatch import TorchDispatchMode
from .profiler_util import EventList, FunctionEvent

__all__ = ["profile", "record_function", "kineto_available", "DeviceType", "ProfilerActivity", "ProfilerState",
           "ProfilerConfig", "EventList", "FunctionEvent"]  # fmt: skip

_ACTIVE: list = []  # the running profile objects, innermost last


def kineto_available() -> bool:
    """False: numtorch's profiler is its own dispatcher hook, not Kineto.

    >>> numtorch.autograd.kineto_available()
    False
    """
    return False


class DeviceType(enum.Enum):
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    MTIA = 10
    MPS = 11
    HPU = 12
    Meta = 13
    PrivateUse1 = 14


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerState(enum.Enum):
    Disabled = 0
    CPU = 1
    CUDA = 2
    NVTX = 3
    ITT = 4
    PRIVATEUSE1 = 5
    KINETO = 6
    KINETO_GPU_FALLBACK = 7
    KINETO_PRIVATEUSE1_FALLBACK = 8
    KINETO_PRIVATEUSE1 = 9


class ProfilerConfig:
    """What a profiling session records (state, shapes, memory, stacks, flops, modules)."""

    def __init__(self, state=ProfilerState.CPU, report_input_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, trace_id="") -> None:  # fmt: skip
        self.state, self.report_input_shapes, self.profile_memory = state, report_input_shapes, profile_memory
        self.with_stack, self.with_flops, self.with_modules = with_stack, with_flops, with_modules
        self.experimental_config, self.trace_id = experimental_config, trace_id


class ProfilerEvent:
    """A raw profiler record (name, thread, start/end in microseconds), before events are linked."""

    def __init__(self, name: str, thread: int, start_us: float, end_us: float, shapes=None) -> None:
        self.name, self.thread, self.start_us, self.end_us, self.shapes = name, thread, start_us, end_us, shapes

    def cpu_elapsed_us(self) -> float:
        return self.end_us - self.start_us


def _op_name(func) -> str:
    parts = str(func).split(".")
    return f"{parts[0]}::{parts[1]}" if len(parts) > 1 else str(func)


def _shapes(args) -> list:
    from .._tensor import Tensor

    return [list(a.shape) if isinstance(a, Tensor) else [] for a in args]


class _ProfileMode(TorchDispatchMode):
    def __init__(self, prof) -> None:
        super().__init__()
        self.prof = prof

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        t0 = time.perf_counter_ns()
        out = func(*args, **(kwargs or {}))
        t1 = time.perf_counter_ns()
        self.prof._record(_op_name(func), t0, t1, _shapes(args) if self.prof.record_shapes else None)
        return out


class profile:
    """Profile the ops run inside the block (Note [Profiling at the dispatcher]).

    >>> x = numtorch.ones(4, 4)
    >>> with numtorch.autograd.profiler.profile() as prof:
    ...     y = (x @ x).sin()
    >>> sorted(e.key for e in prof.key_averages())
    ['aten::mm', 'aten::sin']
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None) -> None:  # fmt: skip
        if use_cuda or (use_device not in (None, "cpu")):
            raise AssertionError(
                f"numtorch's profiler records CPU ops only; got use_cuda={use_cuda}, use_device={use_device}"
            )
        self.enabled, self.record_shapes = enabled, record_shapes
        self._raw: list = []
        self.function_events: EventList | None = None
        self._mode = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self._mode is not None:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._t0 = time.perf_counter_ns()
        _ACTIVE.append(self)
        self._mode = _ProfileMode(self)
        self._mode.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if not self.enabled:
            return
        self._mode.__exit__(*exc)
        _ACTIVE.remove(self)
        self.function_events = self._build()

    def _record(self, name, t0, t1, shapes, user=False) -> None:
        self._raw.append((name, threading.get_ident(), (t0 - self._t0) / 1e3, (t1 - self._t0) / 1e3, shapes, user))

    def _build(self) -> EventList:
        raw = sorted(self._raw, key=lambda r: (r[2], -r[3]))
        events = EventList(FunctionEvent(i, n, th, s, e, sh, u) for i, (n, th, s, e, sh, u) in enumerate(raw))
        stack: list = []
        for ev in events:  # sorted by start, longer first: the open ranges that contain ev are its ancestors
            while stack and not (ev.start_us >= stack[-1].start_us and ev.end_us <= stack[-1].end_us):
                stack.pop()
            if stack:
                ev.cpu_parent = stack[-1]
                stack[-1].cpu_children.append(ev)
            stack.append(ev)
        return events

    def _check(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, group_by_overload_name=False):
        """Events grouped by name (and input shapes): counts and summed times."""
        return self._check().key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit: int = 100, **kwargs) -> str:
        return self._check().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self):
        return self._check().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._check().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        self._check().export_chrome_trace(path)

    def __str__(self) -> str:
        return self.table()


class record_function:
    """Label a block (or decorated function) in the profile: its ops nest under ``name``.

    >>> with numtorch.autograd.profiler.profile() as prof:
    ...     with numtorch.autograd.profiler.record_function("step"):
    ...         _ = numtorch.ones(2).exp()
    >>> [e.name for e in prof.function_events if e.name == "step"]
    ['step']
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name, self.args = name, args

    def __enter__(self):
        self._t0 = time.perf_counter_ns()
        return self

    def __exit__(self, *exc) -> None:
        t1 = time.perf_counter_ns()
        for prof in _ACTIVE:
            prof._record(self.name, self._t0, t1, None, user=True)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*a, **k):
            with record_function(self.name, self.args):
                return fn(*a, **k)

        return wrapper
