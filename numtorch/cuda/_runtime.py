"""The CUDA runtime under numtorch.cuda: driver probe, devices, streams, events, allocator.

# Note [When CUDA is available]
# numtorch's CUDA backend is Numba's CUDA target (the ``numba-cuda`` package, the ``cuda``
# extra; Numba's built-in ``numba.cuda`` answers the same API). It is available when
# ``numba.cuda`` imports and reports a device: a real NVIDIA GPU, or Numba's CUDA simulator
# (``NUMBA_ENABLE_CUDASIM=1``, which runs every kernel as Python threads on the CPU). The
# simulator counts as available on purpose: CI has no GPU, and the simulator is how every
# CUDA kernel runs there. The probe imports Numba only when asked (``import numtorch`` never
# does), and its answer is cached: the simulator must be enabled before ``numba.cuda`` is
# first imported, so a process cannot switch between the two.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np

_STATE: dict = {}


def _no_nvidia_driver() -> bool:
    # Linux without the NVIDIA driver's device nodes (or WSL's GPU node) has no CUDA device:
    # answer without importing Numba (~0.7 s), as scripts probe is_available() on every start
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0") or not sys.platform.startswith("linux"):
        return False
    return not any(os.path.exists(p) for p in ("/dev/nvidiactl", "/proc/driver/nvidia", "/dev/dxg"))


def driver():
    """The ``numba.cuda`` module when a device (or the simulator) is there, else None."""
    if "cuda" not in _STATE:
        mod = None
        if _no_nvidia_driver():
            _STATE["cuda"] = None
            return None
        try:
            from numba import config
            from numba import cuda as mod

            if not mod.is_available():
                mod = None
            else:
                # numtorch sizes its own grids, and a small tensor's op is a small grid: without
                # this, numba-cuda warns "Grid size 1 will likely result in GPU under-utilization"
                # on every small op (a process-wide setting: NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=1
                # in the environment keeps the warnings, for a user's own kernels)
                if "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS" not in os.environ:
                    config.CUDA_LOW_OCCUPANCY_WARNINGS = False
        except Exception:  # no numba, no driver library, broken CUDA install: CPU only
            mod = None
        _STATE["cuda"] = mod
    return _STATE["cuda"]


def simulated() -> bool:
    """True under Numba's CUDA simulator."""
    sim = _STATE.get("sim")
    if sim is None:
        sim = False
        if driver() is not None:
            from numba import config

            sim = bool(config.ENABLE_CUDASIM)
        _STATE["sim"] = sim
    return sim


# ---- devices -----------------------------------------------------------------------------------
_CURRENT = [0]


def device_count() -> int:
    cuda = driver()
    return 0 if cuda is None else len(cuda.gpus)


def check_index(idx: int) -> int:
    n = device_count()
    if not 0 <= idx < n:
        raise RuntimeError(
            "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
            "reported at some other API call, so the stacktrace below might be incorrect."
        )
    return idx


def select(idx: int) -> None:
    check_index(idx)
    if idx != _CURRENT[0]:
        driver().select_device(idx)
        _CURRENT[0] = idx


def current() -> int:
    return _CURRENT[0]


class DeviceProperties:
    """``torch.cuda.get_device_properties``' answer (the fields scripts read)."""

    def __init__(self, name, major, minor, total_memory, multi_processor_count):
        self.name, self.major, self.minor = name, major, minor
        self.total_memory, self.multi_processor_count = total_memory, multi_processor_count
        self.is_integrated, self.is_multi_gpu_board = False, False

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // 2**20}MB, "
                f"multi_processor_count={self.multi_processor_count})")  # fmt: skip


def properties(idx: int) -> DeviceProperties:
    check_index(idx)
    gpu = driver().gpus[idx]
    major, minor = gpu.compute_capability
    if simulated():
        return DeviceProperties("Numba CUDA simulator", major, minor, 2**34, 1)
    with gpu:
        dev = driver().get_current_device()
        total = driver().current_context().get_memory_info()[1]
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        return DeviceProperties(name, major, minor, int(total), int(dev.MULTIPROCESSOR_COUNT))


def synchronize() -> None:
    driver().synchronize()
    from . import _devcheck

    _devcheck.check()  # Note [Device-side index checks]


# ---- streams and events --------------------------------------------------------------------------
class Stream:
    """A CUDA stream (``numba.cuda.stream()``); kernels numtorch launches run on the default one.

    >>> s = numtorch.cuda.Stream()  # doctest: +SKIP
    """

    def __init__(self, device=None, priority: int = 0, **kwargs):
        self.device_index = current() if device is None else int(getattr(device, "index", device) or 0)
        self.priority = priority
        self._s = driver().stream()

    def synchronize(self) -> None:
        self._s.synchronize()

    def query(self) -> bool:
        self._s.synchronize()
        return True

    def wait_stream(self, stream) -> None:
        stream.synchronize()

    def wait_event(self, event) -> None:
        event.synchronize()

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other._s is self._s

    __hash__ = object.__hash__


_STREAMS: dict = {}


def default_stream(idx: int) -> Stream:
    s = _STREAMS.get(idx)
    if s is None:
        s = _STREAMS[idx] = Stream(idx)
    return s


class Event:
    """A CUDA event; ``elapsed_time`` gives milliseconds between two recorded events.

    >>> start, end = numtorch.cuda.Event(enable_timing=True), numtorch.cuda.Event(enable_timing=True)  # doctest: +SKIP
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        self.enable_timing = enable_timing
        self._e = driver().event() if simulated() else driver().event(timing=enable_timing)
        self._t = None  # the simulator's events have no clock: host time after a synchronize
        self._recorded = False

    def record(self, stream=None) -> None:
        if simulated():
            driver().synchronize()
            self._t = time.perf_counter()
        else:
            self._e.record(stream._s if stream is not None else 0)
        self._recorded = True

    def synchronize(self) -> None:
        if self._recorded and not simulated():
            self._e.synchronize()

    def wait(self, stream=None) -> None:
        self.synchronize()

    def query(self) -> bool:
        self.synchronize()
        return True

    def elapsed_time(self, end_event: Event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        if simulated():
            return (end_event._t - self._t) * 1000.0
        end_event.synchronize()
        return float(driver().event_elapsed_time(self._e, end_event._e))


# ---- the caching allocator ---------------------------------------------------------------------
# Note [Caching allocator]
# As PyTorch's, freed device blocks are kept for reuse instead of returned to the driver
# (cudaMalloc/cudaFree synchronise the device and cost far more than a launch). A request is
# rounded up to 512 bytes and served from the free list of that exact size, else freshly
# allocated. A block returns to its list when the last storage using it dies (``Block.__del__``).
# memory_allocated counts live blocks, memory_reserved live
# plus cached ones, and empty_cache releases the cached ones to the driver.
_ROUND = 512
_LOCK = threading.RLock()  # reentrant: Block.__del__ may run while this thread holds it
_FREE: dict = {}  # rounded size -> [device byte arrays]
_VIEWS: dict = {}  # id(device byte array) -> {dtype: the whole block as a 1-D array of dtype}
_STATS = {"allocated": 0, "peak": 0, "reserved": 0, "peak_reserved": 0}


class Block:
    """The owner of one device allocation; storages (and their views) keep it alive, and its
    memory returns to the free list when the last of them dies (``__del__``: a weakref
    finalizer per allocation costs more host time than a small kernel)."""

    __slots__ = ("mem", "size", "__weakref__")

    def __init__(self, mem, size: int):
        self.mem, self.size = mem, size

    def __del__(self):
        try:
            _release(self.mem, self.size)
        except Exception:  # interpreter shutdown: module globals may already be gone
            pass


def allocate(nbytes: int) -> Block:
    size = -(-nbytes // _ROUND) * _ROUND or _ROUND
    with _LOCK:  # a cached block: one lock for the pop and the counters
        free = _FREE.get(size)
        if free:
            mem = free.pop()
            st = _STATS
            a = st["allocated"] = st["allocated"] + size
            if a > st["peak"]:
                st["peak"] = a
            return Block(mem, size)
    mem = driver().device_array(size, np.uint8)
    with _LOCK:
        _STATS["reserved"] += size
        _STATS["peak_reserved"] = max(_STATS["peak_reserved"], _STATS["reserved"])
        _STATS["allocated"] += size
        _STATS["peak"] = max(_STATS["peak"], _STATS["allocated"])
    return Block(mem, size)


def _release(mem, size: int) -> None:
    with _LOCK:
        _STATS["allocated"] -= size
        _FREE.setdefault(size, []).append(mem)


def typed(mem, dtype):
    """The whole block ``mem`` as a 1-D device array of ``dtype``, made once per block and dtype
    (a Numba device-array view and slice cost more host time than a small kernel)."""
    views = _VIEWS.get(id(mem))
    if views is None:
        views = _VIEWS[id(mem)] = {}
    v = views.get(dtype)
    if v is None:
        v = views[dtype] = mem.view(dtype)
    return v


def empty_cache() -> None:
    from . import _launch

    _launch.forget_arrays()  # its launch-word caches hold device arrays: they must not keep blocks
    with _LOCK:
        for size, mems in _FREE.items():
            _STATS["reserved"] -= size * len(mems)
            for m in mems:
                _VIEWS.pop(id(m), None)
        _FREE.clear()


def stats() -> dict:
    return _STATS


def reset_peak() -> None:
    with _LOCK:
        _STATS["peak"] = _STATS["allocated"]
        _STATS["peak_reserved"] = _STATS["reserved"]
