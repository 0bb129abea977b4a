"""Launch helpers shared by the CUDA op implementations: grid sizes, kernel metadata arrays,
(storage, offset, strides) triples and the mixed-device error."""

from __future__ import annotations

import numpy as np

from . import _runtime as rt

_META: dict = {}


def device_error() -> RuntimeError:
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    )


def launch(kernel, n: int, *args, key=None) -> None:
    """Run ``kernel`` on ``n`` threads (first argument ``n``), THREADS per block."""
    if n <= 0:
        return
    threads = (_EW or _ew_setup())[1]
    run(kernel, (n + threads - 1) // threads, threads, (n, *args), key)


def launch_ew(kernel, n: int, *args, unroll=4, key=None) -> None:
    """Run a contiguous elementwise kernel (Note [Unrolled elementwise kernels]) on ``n``
    elements: THREADS per block, each block ``unroll`` * THREADS elements per pass (the
    module's _UNROLL), at most _ew_setup()'s cap of blocks (the grid-stride loop covers the rest)."""
    if n <= 0:
        return
    cap, threads = _EW or _ew_setup()
    w = threads * unroll
    run(kernel, min((n + w - 1) // w, cap), threads, (n, *args), key)


_EW: list = []  # [grid cap, THREADS], once


def _ew_setup() -> list:
    """The grid cap of elementwise kernels: 16 blocks of THREADS per SM, enough resident warps
    to hide memory latency with a few passes each; 2 under the simulator, so that tests
    exercise the grid-stride loop."""
    from ..kernels.cuda import THREADS

    if rt.simulated():
        cap = 2
    else:
        try:
            cap = 16 * int(rt.driver().get_current_device().MULTIPROCESSOR_COUNT)
        except Exception:
            cap = 16 * 132
    _EW[:] = [cap, THREADS]
    return _EW


# Note [Direct kernel launches]
# numba-cuda's ``kernel[grid, block](*args)`` types every argument, looks the overload up and
# converts each argument on every call: ~50 us of host time, more than a small op's kernel.
# numtorch launches a few kernels many times with the same kinds of arguments (1-D C-contiguous
# device arrays, Python/NumPy scalars), so the first launch of each (kernel, argument kinds)
# goes through numba-cuda, and later ones reuse that compiled overload: its argument types give
# the conversion plan (an array becomes numba-cuda's 5 + 2 * ndim launch words, a scalar its
# C type) and cuda.core's ``launch`` runs it. Anything unexpected - another numba-cuda
# version, a kind of argument the plan does not know - keeps numba-cuda's own path.
_PLANS: dict = {}  # (kernel, argument kinds) -> (cuda.core kernel, per-argument conversions) | None
_DIRECT: list = []  # [cuda.core launch, LaunchConfig, the default stream, DeviceNDArray] once set up
_CONFIGS: dict = {}  # (grid, block) -> LaunchConfig
_PTRS: dict = {}  # id(device array) -> (array, device pointer)
SLOW_LAUNCHES: dict = {}  # kernel name -> launches that took numba-cuda's path after the first (a diagnostic)


def arg_key(kernel, args):
    """The key of ``run``'s conversion plans for these argument kinds (None under the simulator);
    a caller whose arguments always have the same kinds (an elementwise launch plan) computes
    it once and passes it to ``run``."""
    if not _DIRECT:
        _setup()
    dev_array = _DIRECT[3]
    if dev_array is None:
        return None
    return (kernel, *[(a.dtype, a.ndim) if isinstance(a, dev_array) else
                      tuple(map(type, a)) if type(a) is tuple else type(a) for a in args])  # fmt: skip


def run(kernel, grid, block, args, key=None) -> None:
    """``kernel[grid, block](*args)``, directly after the first launch (Note [Direct kernel
    launches]); ``key``: ``arg_key(kernel, args)`` when the caller has it."""
    if key is None:
        key = arg_key(kernel, args)
        if key is None:
            kernel[grid, block](*args)
            return
    plan = _PLANS.get(key, False)
    if plan is False:
        kernel[grid, block](*args)
        _PLANS[key] = _plan(kernel, args)
        return
    if plan is None:
        name = getattr(getattr(kernel, "py_func", None), "__name__", str(kernel))
        SLOW_LAUNCHES[name] = SLOW_LAUNCHES.get(name, 0) + 1
        kernel[grid, block](*args)
        return
    cukernel, convs = plan
    words: list = []
    _words(convs, args, words)
    cfg = _CONFIGS.get((grid, block))
    if cfg is None:
        if len(_CONFIGS) > 1024:
            _CONFIGS.clear()
        cfg = _CONFIGS[grid, block] = _DIRECT[1](grid=grid, block=block, shmem_size=0)
    _DIRECT[0](_DIRECT[2], cfg, cukernel, *words)


def _words(convs, args, words) -> None:
    for conv, a in zip(convs, args):
        if conv is None:
            words += _array_words(a)
        elif type(conv) is tuple:  # a tuple argument (the optimizers' scalars): its items in order
            _words(conv, a, words)
        else:
            words.append(conv(a))


def _setup() -> None:
    try:
        if rt.simulated():
            raise ImportError
        from cuda.core import LaunchConfig, launch as core_launch
        from numba.cuda.cudadrv import driver as drv
        from numba.cuda.cudadrv.devicearray import DeviceNDArray

        _DIRECT[:] = [core_launch, LaunchConfig, drv._to_core_stream(0), DeviceNDArray]
    except Exception:  # the simulator, an older numba-cuda: numba-cuda's own launch path
        _DIRECT[:] = [None, None, None, None]


def _plan(kernel, args):
    import ctypes

    from numba.core import types

    try:
        overload = kernel.overloads.get(tuple(kernel.typeof_pyval(a) for a in args))
        if overload is None or getattr(overload, "debug", False) or getattr(overload, "cooperative", False):
            return None
        convs = _convs(overload.argument_types, args, types, ctypes, True)
        return None if convs is None else (overload._codelibrary.get_cufunc().kernel, convs)
    except Exception:
        return None


def _convs(tys, args, types, ctypes, top):
    convs = []
    for ty, a in zip(tys, args):
        if isinstance(ty, types.Array):
            if not top or not isinstance(a, _DIRECT[3]) or ty.layout != "C" or not a.is_c_contiguous():
                return None
            convs.append(None)
        elif isinstance(ty, types.BaseTuple) and isinstance(a, tuple) and len(a) == len(ty):
            inner = _convs(tuple(ty), a, types, ctypes, False)
            if inner is None:
                return None
            convs.append(inner)
        elif isinstance(ty, types.Integer):
            convs.append(getattr(ctypes, f"c_{ty}"))
        elif ty == types.float64:
            convs.append(ctypes.c_double)
        elif ty == types.float32:
            convs.append(ctypes.c_float)
        elif ty == types.boolean:
            convs.append(bool)
        else:
            return None
    return tuple(convs)


_ARRAY_WORDS: dict = {}  # id(device array) -> (array, its launch words)


def _array_words(a) -> tuple:
    """numba-cuda's launch words of device array ``a`` (meminfo, parent, size, itemsize, data
    pointer, shape, strides), made once per array: the arrays numtorch launches with are whole
    allocator blocks and cached metadata, which live long and come back every step."""
    hit = _ARRAY_WORDS.get(id(a))
    if hit is not None and hit[0] is a:
        return hit[1]
    w = (0, 0, a.size, a.dtype.itemsize, _ptr(a), *a.shape, *a.strides)
    if len(_ARRAY_WORDS) > 4096:
        _ARRAY_WORDS.clear()
    _ARRAY_WORDS[id(a)] = (a, w)
    return w


def forget_arrays() -> None:
    """Drop the per-array caches (``empty_cache``: the freed blocks must not stay referenced)."""
    _ARRAY_WORDS.clear()
    _PTRS.clear()


def _ptr(a) -> int:
    hit = _PTRS.get(id(a))
    if hit is not None and hit[0] is a:
        return hit[1]
    p = a.__cuda_array_interface__["data"][0]
    if len(_PTRS) > 4096:
        _PTRS.clear()
    _PTRS[id(a)] = (a, p)
    return p


def meta(values):
    """An int64 device array of ``values`` (shapes, strides), cached: a launch then transfers
    nothing for metadata it has seen before."""
    key = tuple(int(v) for v in values)
    arr = _META.get(key)
    if arr is None:
        host = np.array(key if key else (0,), np.int64)
        arr = _META[key] = rt.driver().to_device(host)
        if len(_META) > 4096:  # bounded: a long run over many shapes must not grow it forever
            _META.clear()
            _META[key] = arr
    return arr


def strides_for(a, shape) -> tuple:
    """``a``'s element strides broadcast to ``shape`` (0 where it is broadcast)."""
    lead = len(shape) - a.ndim
    st = [0] * len(shape)
    for i, (s, n) in enumerate(zip(a.estrides, a.shape)):
        st[lead + i] = 0 if n == 1 else s
    return tuple(st)


def parts(a, shape) -> list:
    """(storage, element offset, strides) of CudaArray ``a`` read at ``shape``."""
    return [a.root, a.offset, meta(strides_for(a, shape))]
