"""The ``bitgen_t`` address of a NumPy Generator, for kernels that draw by it (Note [Bit
generator in kernels], numtorch/kernels/cpu/bitgen.py), and the integer draws through it."""

from __future__ import annotations

import numpy as np

from ..._random import default_generator as _DG
from ...kernels import lazy

K = lazy("numtorch.kernels.cpu.bitgen")

# (Generator, address, lock.acquire, lock.release): swapped whole (manual_seed makes a new one)
_LAST: tuple = (None, 0, None, None)


def address(g) -> int:
    """``g``'s ``bitgen_t`` address."""
    return g.bit_generator.ctypes.bit_generator.value


def call(kernel, g, *args):
    """``kernel(address of g's bitgen_t, *args)`` under ``g``'s lock, as NumPy's own samplers
    hold it: a kernel releases the GIL, and two threads must not advance one state at once.
    (``bit_generator.ctypes`` is ~1 us: the address is kept for the last Generator; the bound
    acquire/release cost ~0.1 us less than ``with lock``.)"""
    global _LAST
    last = _LAST
    if last[0] is not g:
        lock = g.bit_generator.lock
        last = _LAST = (g, address(g), lock.acquire, lock.release)
    last[2]()
    try:
        return kernel(last[1], *args)
    finally:
        last[3]()


# Note [Sampler kernel entries]
# A small sampler's kernel call went through Numba's dispatcher, which types every argument
# (~0.2 us of an in-place sampler's 1.8 us). ``fill`` calls the compiled entry point learned on
# the first call for (kernel, out's dtype) instead (Note [Compiled kernel entry]). That entry
# unboxes without checking types, so a caller of ``fill`` fixes every argument's type for a
# kernel and dtype: ``out`` (the kernel's first array, written or read) a 1-D C-contiguous
# writeable aligned native ndarray (checked when learning), any other array of one type (fresh
# np.empty ones, module tables), the parameters Python floats, bools or ints within int64.
_ENTRY: dict = {}  # kernel -> (out's dtype, its compiled entry): the dtype last called
_ENTRIES: dict = {}  # (kernel, out's dtype) -> compiled entry, or the dispatcher where none fits


_NO = object()  # fill's absent parameter


def fill(kernel, g, out, a=_NO, b=_NO, c=_NO):
    """``call(kernel, g, out, *params)`` through the kernel's compiled entry (Note [Sampler
    kernel entries]); ``a``, ``b``, ``c``: up to three parameters, named rather than ``*params``
    (packing and unpacking them cost ~0.1 us a call)."""
    last = _LAST
    e = _ENTRY.get(kernel)
    if e is not None and e[0] is out.dtype and last[0] is g:
        e = e[1]
        last[2]()
        try:
            if c is not _NO:
                return e(last[1], out, a, b, c)
            if b is not _NO:
                return e(last[1], out, a, b)
            return e(last[1], out) if a is _NO else e(last[1], out, a)
        finally:
            last[3]()
    params = tuple(v for v in (a, b, c) if v is not _NO)
    e = _ENTRIES.get((kernel, out.dtype))
    if e is None:
        r = call(kernel, g, out, *params)
        _ENTRIES[(kernel, out.dtype)] = _entry(kernel, (_LAST[1], out, *params))
        return r
    _ENTRY[kernel] = (out.dtype, e)
    return call(e, g, out, *params)


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def fits(a) -> bool:
    """``a.ravel()`` may be one of fill's arrays: a float32/float64 array (these dtype objects:
    native) that is C-contiguous, writeable and aligned."""
    d, f = a.dtype, a.flags
    return (d is _FLOATS[0] or d is _FLOATS[1]) and f.c_contiguous and f.writeable and f.aligned


def _entry(kernel, args):
    from numba import typeof

    a = args[1]
    f = a.flags
    if a.__class__ is not np.ndarray or a.ndim != 1 or not (f.c_contiguous and f.writeable and f.aligned):
        return kernel
    if not a.dtype.isnative:
        return kernel
    ov = kernel.overloads.get(tuple(typeof(v) for v in args))
    return kernel if ov is None else ov.entry_point


def integers_into(g, lo: int, hi_incl: int, out: np.ndarray) -> None:
    """Fill C-contiguous ``out`` with ``g.integers(lo, hi_incl, size=out.shape, dtype=np.int64,
    endpoint=True).astype(out.dtype)``'s values, advancing ``g`` as that call does (-2**63 <= lo
    <= hi_incl < 2**63; ``out`` int64 or float)."""
    if out.size:  # NumPy draws nothing for an empty size
        rng = hi_incl - lo
        fill(K.integers_into, g, out.reshape(-1), lo, rng - 2**64 if rng >= 2**63 else rng)


_KZ = lazy("numtorch.kernels.cpu.ziggurat")


SMALL = 1024  # below this many values NumPy's own call is cheaper than a kernel's dispatch


def standard_normal(shape, dtype, n: int) -> np.ndarray:
    """The default generator's ``standard_normal(shape, dtype=dtype)`` (float32 or float64; ``n``
    values): NumPy's own call below SMALL values, from there a kernel making the same draws (Note
    [Ziggurat samplers in kernels]: 2.5x NumPy's speed)."""
    if n < SMALL:
        return _DG._np.standard_normal(shape, dtype=dtype)
    out = np.empty(shape, dtype)
    k = _KZ.normal32_ if out.itemsize == 4 else _KZ.normal64_
    fill(k, _DG._np, out.reshape(-1), 1.0, 0.0, False)
    return out


def random(shape, dtype, n: int) -> np.ndarray:
    """The default generator's ``random(shape, dtype=dtype)`` (float32 or float64; ``n`` values):
    NumPy's own call below SMALL values, from there a kernel making the same draws."""
    if n < SMALL:
        return _DG._np.random(shape, dtype=dtype)
    out = np.empty(shape, dtype)
    k = K.uniform32_ if out.itemsize == 4 else K.uniform64_
    fill(k, _DG._np, out.reshape(-1), 1.0, 0.0, False)
    return out
