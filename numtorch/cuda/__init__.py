"""numtorch.cuda: devices, streams, events and memory of numtorch's CUDA backend.

The backend is Numba's CUDA target (the ``cuda`` extra brings ``numba-cuda``); Note [When
CUDA is available] in ``_runtime.py`` says when it is on. Without it every probe answers as a
CPU-only PyTorch does (``is_available()`` is False, seeding is a no-op) and calls that need a
GPU raise "Torch not compiled with CUDA enabled" naming the extra.

>>> numtorch.cuda.is_available() in (True, False)
True
"""

from __future__ import annotations

from .._device import cuda_not_compiled
from .._misc_api import OutOfMemoryError  # torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
from .._device import device as _device_cls
from . import _runtime as _rt
from . import amp  # noqa: F401

__all__ = [
    "is_available", "device_count", "is_initialized", "init", "current_device", "set_device",
    "get_device_name", "get_device_capability", "get_device_properties", "synchronize", "empty_cache",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
    "set_rng_state", "get_rng_state_all", "set_rng_state_all", "memory_allocated",
    "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
    "is_bf16_supported", "device", "device_of", "stream", "Stream", "Event", "amp", "ipc_collect",
    "current_stream", "default_stream", "OutOfMemoryError",
]  # fmt: skip

_INIT = [False]


def is_available() -> bool:
    """Whether a CUDA device (or Numba's CUDA simulator) can run numtorch's CUDA kernels.

    >>> isinstance(numtorch.cuda.is_available(), bool)
    True
    """
    return _rt.driver() is not None


def _lazy_init() -> bool:
    """Install the CUDA kernels on first use; False when there is no CUDA."""
    if _INIT[0]:
        return True
    if not is_available():
        return False
    from . import _install

    _install.install()
    _INIT[0] = True
    return True


def _kernel_for(op) -> bool:
    """Whether ``op`` has a CUDA kernel, after starting the backend or giving an op declared
    after it started (a library elementwise op) its kernel."""
    if not _lazy_init():
        return False
    from . import _install

    return _install.install_one(op)


def _need() -> None:
    if not _lazy_init():
        raise cuda_not_compiled()


def device_count() -> int:
    """The number of CUDA devices (0 without CUDA)."""
    return _rt.device_count() if is_available() else 0


def is_initialized() -> bool:
    """Whether numtorch's CUDA backend has been set up in this process."""
    return _INIT[0]


def init() -> None:
    """Initialise the CUDA backend now (it otherwise starts on first use)."""
    _need()


def _index(d, optional: bool = True) -> int:
    if d is None:
        return _rt.current()
    if isinstance(d, str):
        d = _device_cls(d)
    if isinstance(d, _device_cls):
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
        return _rt.current() if d.index is None else d.index
    return int(d)


def current_device() -> int:
    """The index of the selected CUDA device."""
    _need()
    return _rt.current()


def set_device(device) -> None:  # noqa: A002 - torch's parameter name
    """Select the CUDA device; a negative index is a no-op, as in PyTorch."""
    _need()
    idx = _index(device)
    if idx >= 0:
        _rt.select(idx)


def get_device_properties(device=None):  # noqa: A002
    """The device's name, compute capability, memory and multiprocessor count."""
    _need()
    return _rt.properties(_index(device))


def get_device_name(device=None) -> str:  # noqa: A002
    """The device's name ("Numba CUDA simulator" under the simulator)."""
    return get_device_properties(device).name


def get_device_capability(device=None) -> tuple:  # noqa: A002
    """The device's compute capability ``(major, minor)``."""
    p = get_device_properties(device)
    return (p.major, p.minor)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: numtorch's bfloat16 runs on the CPU only; its CUDA kernels have no bfloat16 variant."""
    return False


def synchronize(device=None) -> None:  # noqa: A002
    """Wait for every kernel queued on the device."""
    _need()
    _rt.synchronize()


def ipc_collect() -> None:
    """Nothing to collect: numtorch shares no CUDA memory between processes."""
    _need()


# ---- seeding: Philox on the device (Note [CUDA random numbers] in _random.py) -------------------
def manual_seed(seed: int) -> None:
    """Seed the CUDA generator and restart its offset; without CUDA it only records the seed
    (PyTorch queues it until CUDA starts)."""
    from . import _random

    _random.manual_seed(int(seed))


manual_seed_all = manual_seed


def seed() -> None:
    """Seed the CUDA generator from a non-deterministic source."""
    import random

    manual_seed(random.getrandbits(63))


seed_all = seed


def initial_seed() -> int:
    """The seed of the CUDA generator."""
    _need()
    from . import _random

    return _random.seed()


def get_rng_state(device="cuda"):  # noqa: A002
    """The CUDA generator's state: 16 bytes (seed, offset), as PyTorch's."""
    _need()
    from . import _random

    return _random.get_state()


def set_rng_state(new_state, device="cuda") -> None:  # noqa: A002
    """Restore a state from ``get_rng_state``."""
    _need()
    from . import _random

    _random.set_state(new_state)


def get_rng_state_all() -> list:
    """One state per device (one device)."""
    return [get_rng_state()]


def set_rng_state_all(new_states) -> None:
    """Restore the states from ``get_rng_state_all``."""
    set_rng_state(new_states[0])


# ---- memory (Note [Caching allocator]) ---------------------------------------------------------
def memory_allocated(device=None) -> int:  # noqa: A002
    """Bytes held by live CUDA tensors (0 without CUDA)."""
    return _rt.stats()["allocated"]


def max_memory_allocated(device=None) -> int:  # noqa: A002
    """The peak of ``memory_allocated`` since the start or the last reset."""
    return _rt.stats()["peak"]


def memory_reserved(device=None) -> int:  # noqa: A002
    """Bytes the caching allocator holds: live tensors plus cached free blocks."""
    return _rt.stats()["reserved"]


def max_memory_reserved(device=None) -> int:  # noqa: A002
    """The peak of ``memory_reserved``."""
    return _rt.stats()["peak_reserved"]


def reset_peak_memory_stats(device=None) -> None:  # noqa: A002
    """Restart the peaks from the current values."""
    _rt.reset_peak()


def empty_cache() -> None:
    """Return the allocator's cached free blocks to the driver."""
    from . import _launch, _storage

    # the launch and window caches hold device arrays, which would keep freed blocks alive
    _launch._PTRS.clear()
    _storage._WINDOWS.clear()
    _rt.empty_cache()


# ---- context managers ----------------------------------------------------------------------------
class device:  # noqa: N801 - torch's name
    """Context manager selecting a CUDA device; ``None``/-1 is a no-op, as in PyTorch."""

    def __init__(self, device):  # noqa: A002
        self.idx = -1 if device is None else _index(device)
        self.prev = -1

    def __enter__(self):
        if self.idx == -1:
            return
        _need()
        self.prev = _rt.current()
        _rt.select(self.idx)

    def __exit__(self, *exc):
        if self.prev != -1:
            _rt.select(self.prev)
        return False


class device_of(device):  # noqa: N801
    """Context manager selecting the device of a tensor; a no-op for CPU tensors."""

    def __init__(self, obj):
        d = getattr(obj, "device", None)
        super().__init__(d if getattr(obj, "is_cuda", False) else None)


class Stream(_rt.Stream):
    """A CUDA stream (needs CUDA).

    >>> s = numtorch.cuda.Stream()  # doctest: +SKIP
    """

    def __new__(cls, *args, **kwargs):
        _need()
        return object.__new__(cls)

    def record_event(self, event=None):
        """Record ``event`` (a new Event when None) on this stream and return it."""
        event = Event() if event is None else event
        event.record(self)
        return event


class Event(_rt.Event):
    """A CUDA event; ``start.elapsed_time(end)`` is in milliseconds (needs CUDA)."""

    def __new__(cls, *args, **kwargs):
        _need()
        return object.__new__(cls)


def current_stream(device=None):  # noqa: A002
    """The stream numtorch's kernels run on (the default stream)."""
    _need()
    return default_stream(device)


def default_stream(device=None):  # noqa: A002
    """The device's default stream."""
    _need()
    return _rt.default_stream(_index(device))


class stream:  # noqa: N801
    """Context manager selecting a stream; ``None`` is a no-op. numtorch launches its own
    kernels on the default stream, so inside it they stay ordered with the selected one."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _need()
            self.stream.synchronize()

    def __exit__(self, *exc):
        if self.stream is not None:
            self.stream.synchronize()
        return False
