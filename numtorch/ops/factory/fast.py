"""Fast calls (Note [Binding fast call]) of the plain factory calls: empty/zeros/ones/full, arange,
eye, scalar_tensor, linspace/logspace, empty_strided, rand/randn/randint/randperm, and (through
``or_body``) the *_like factories and Tensor.new_*.

# Note [Factory binding fast call]
# A factory's binding has no tensor parameter, so its wrapper went straight to the body: the
# size and dtype parsing, ``create``, dispatch, op.fast's gate (Note [Factory fast path]) and the
# kernel, ~2.5-6 us of a small ``zeros(2, 3)`` or ``rand(2, 3)`` where PyTorch takes 1-1.3 us.
# Like the tensor-list bindings (Note [Tensor-list binding fast call]), its fast call is a
# function that returns None to decline; the wrapper's ``cond`` has already checked that
# out/layout/device/generator are None, requires_grad and pin_memory False. It runs when no
# dispatch mode, vmap level or autocast region is active, the sizes are non-negative ints and
# the dtype is one it knows (never bfloat16: the backend key's route), and builds the result
# as the kernel does, with the same NumPy calls (so the values and the random stream are the
# same); anything else, errors included (an impossible size: the allocation raises, the fast
# call declines and the body raises PyTorch's error), takes the body.
# tests/ops/factory/test_factory_binding_fast.py runs both routes.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ..._device import CPU as _CPU
from ..._functorch._levels import VMAP_LEVELS as _V
from ..._random import default_generator as _DG
from ..._state import STATE as _S
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from ...kernels import lazy
from .._fast_guard import or_body, params  # noqa: F401  (core.py's FF.or_body, FF.params)
from .._quiet import IGNORE, quiet, restore
from . import _bitgen as _BG

_SEQ = (tuple, list)
_REAL = {D.float32: np.float32, D.float64: np.float64}  # NumPy's samplers draw these directly
_FILLED = {dt: dt.np for dt in (D.bool, D.uint8, D.int8, D.int16, D.int32, D.int64, D.float16,
                                D.float32, D.float64, D.complex64, D.complex128)}  # fmt: skip
_ARANGE = {D.int64: np.int64, D.int32: np.int32, D.float32: np.float32, D.float64: np.float64}
_ARANGE_EXACT = 1 << 24  # integers below this are exact in float32: np.arange gives the kernel's values
# ``torch.zeros(n, device=x.device)``, ``device="cpu"`` or ``device=torch.device("cpu")`` is the
# CPU, the default: the same tensor as device=None (create() passes a CPU device either way, and
# the result carries CPU); any other device ("cpu:0", "meta", "cuda") takes the body
ON_CPU = ("(device is None or device is _CPU or device.__class__ is str and device == 'cpu'"
          " or device.__class__ is _CPU.__class__ and device == _CPU)")
COND = f"out is None and layout is None and {ON_CPU} and requires_grad is False and pin_memory is False"
SIZED_COND = "size is None and " + COND
STRIDED_COND = COND.partition(" and ")[2]  # empty_strided has no out=
RANDOM_COND = "generator is None and " + SIZED_COND


def _dims(sizes):
    """The dims of ``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])`` when all are non-negative ints
    (and there is at least one), else None."""
    if len(sizes) == 1 and sizes[0].__class__ in _SEQ:
        sizes = sizes[0]
    if not sizes:
        return None
    for s in sizes:
        if s.__class__ is not int or s < 0:
            return None
    return sizes


def _off():
    """Truthy under a dispatch mode, vmap level or autocast region (no bool(): ~40 ns a call)."""
    return _S.td_modes or _V or _AUTOCAST


def _ones(dims, npdt):
    a = _empty(dims, npdt)
    a.fill(1)  # np.ones's copyto through its Python layer costs ~0.6 us more
    return a


def _filled(dims, npdt, v):
    """np.full's array (np.zeros for a zero fill but -0.0, as alloc)."""
    if v == 0 and math.copysign(1.0, v) > 0:
        return _zeros(dims, npdt)
    a = _empty(dims, npdt)
    a.fill(v)
    return a


_empty, _zeros = np.empty, np.zeros
_ALLOC = {"empty": _empty, "zeros": _zeros, "ones": _ones}


def sized(name):
    """empty/zeros/ones."""
    np_fn = _ALLOC[name]


    def fast(sizes, dtype):
        dt = D._default if dtype is None else dtype
        npdt = _FILLED.get(dt)
        dims = _dims(sizes)
        if npdt is None or dims is None or _off() or (np_fn is _empty and F.FILL_UNINITIALIZED[0]):
            return None
        try:
            return _make(np_fn(dims, npdt), dt)
        except (ValueError, MemoryError):  # too big: the body raises PyTorch's error
            return None

    return fast


def _real_value(v, dtype):
    """(dtype, float value) of a float or int Scalar filling a float32/float64 tensor (the
    default dtype when None) that scalar_to takes without its overflow error, else None."""
    tp = v.__class__
    dt = D._default if dtype is None and tp is float else dtype
    if dt not in _REAL or (tp is not float and (tp is not int or dtype is None or not -(2**63) <= v < 2**64)):
        return None
    f = float(v)
    return None if abs(f) > _FMAX[dt] and f - f == 0 else (dt, f)


_FMAX = {dt: float(np.finfo(npdt).max) for dt, npdt in _REAL.items()}


def full(size, fill_value, dtype):
    dv = _real_value(fill_value, dtype)
    if dv is None or size.__class__ not in _SEQ or _off():
        return None
    dims = _dims((size,))
    if dims is None:
        return None
    dt, v = dv
    try:  # alloc's choice: np.zeros for a zero fill
        return _make(_filled(dims, _REAL[dt], v), dt)
    except (ValueError, MemoryError):
        return None


def scalar_tensor(s, dtype):
    dv = _real_value(s, D._default if dtype is None else dtype)
    if dv is None or _off():
        return None
    return _make(np.array(dv[1], _REAL[dv[0]]), dv[0])


def arange(start, end, step, dtype):
    """arange of Python ints and floats into int64, int32, float32 or float64, every bound and
    step below 2**24 in magnitude. All ints: np.arange's values are the kernel's start + step * i
    (exact in each dtype) and its length ceil((end - start) / step) is exact (a quotient of
    integers below 2**25 rounds to an integer only when it is one). A float among them: a
    float dtype, the kernel's own double arithmetic. Errors (zero step, a step of the wrong
    sign, non-finite bounds) are the body's."""
    if end is None:
        if start.__class__ is int and 0 <= start < _ARANGE_EXACT:  # arange(n): the common call
            dt = D.int64 if dtype is None else dtype
            npdt = _ARANGE.get(dt)
            return None if npdt is None or _off() else _make(np.arange(start, dtype=npdt), dt)
        start, end = 0, start
    tp = (start.__class__, end.__class__, step.__class__)
    for t in tp:
        if t is not int and t is not float:  # bool, NumPy scalars, tensors: the body
            return None
    lim = _ARANGE_EXACT
    if _off() or not (-lim < start < lim and -lim < end < lim and -lim < step < lim):
        return None  # NaN compares False: the body's error too
    if not (0 < step and start <= end or step < 0 and end <= start):
        return None
    if tp == (int, int, int):
        dt = D.int64 if dtype is None else dtype
        npdt = _ARANGE.get(dt)
        return None if npdt is None else _make(np.arange(start, end, step, dtype=npdt), dt)
    dt = D._default if dtype is None else dtype
    if dt is not D.float32 and dt is not D.float64:
        return None
    a = np.arange(math.ceil((end - start) / step), dtype=np.float64)
    a *= step  # the kernel's start + step * i in double, rounded once to the dtype
    a += start
    return _make(a if dt is D.float64 else a.astype(np.float32), dt)


def eye(n, m, dtype):
    dt = D._default if dtype is None else dtype
    if n.__class__ is not int or n < 0 or (m is not None and (m.__class__ is not int or m < 0)) or dt not in _FILLED or _off():
        return None
    m = n if m is None else m
    try:
        a = _zeros((n, m), _FILLED[dt])
    except (ValueError, MemoryError):
        return None
    k = min(n, m)
    a.reshape(-1)[: k * (m + 1) : m + 1] = 1  # np.fill_diagonal's flat slice, without its checks
    return _make(a, dt)


_KS = lazy("numtorch.kernels.cpu.space")
_KPERM = lazy("numtorch.kernels.cpu.bitgen")
_NUM = (int, float)


def linspace(start, end, steps, dtype, base=None):
    """float32/float64 linspace/logspace of >= 2 steps from Python numbers (space_array's values)."""
    dt = D._default if dtype is None else dtype
    if (steps.__class__ is not int or steps < 2 or start.__class__ not in _NUM or end.__class__ not in _NUM
            or (base is not None and base.__class__ not in _NUM) or _off()):  # fmt: skip
        return None
    s, e = _real_value(start, dt), _real_value(end, dt)
    if s is None or e is None:
        return None
    ct = _REAL[dt]
    try:
        out = _empty(steps, ct)
    except (ValueError, MemoryError):
        return None
    k = _LIN.get(ct)
    if k is None:
        _learn_linspace(ct, ct(s[1]), ct(e[1]), ct(steps - 1), out)
    else:  # the entry rounds each Python float to the dtype, as ct(...) (one rounding: steps < 2**53)
        k(s[1], e[1], float(steps - 1), out)
    if base is not None:
        tok = quiet(IGNORE)  # the body's np.errstate(all="ignore")
        try:
            np.power(ct(float(base)), out, out=out)
        finally:
            restore(tok)
    return _make(out, dt)


# The linspace kernel's compiled entry by dtype (Note [Compiled kernel entry]): building three
# NumPy scalars for the dispatcher cost ~0.5 us of a 2.5 us linspace; the entry takes the
# Python floats and unboxes them into the dtype (fptrunc: the same rounding as np.float32).
_LIN: dict = {}


def _learn_linspace(ct, *args):
    from numba import typeof

    _KS.linspace(*args)
    ov = _KS.linspace.overloads.get(tuple(typeof(a) for a in args))
    if ov is not None:
        _LIN[ct] = ov.entry_point


def logspace(start, end, steps, base, dtype):
    return linspace(start, end, steps, dtype, base)


def _draw(draw, sizes, dtype):
    """The default generator's draws ``draw(dims, dtype=)`` (_BG.random or _BG.standard_normal)
    for float32/float64 and plain sizes (NumPy's call, or from _BG.SMALL values a kernel making
    the same draws)."""
    dt = D._default if dtype is None else dtype
    npdt = _REAL.get(dt)
    dims = _dims(sizes)
    if npdt is None or dims is None or _off():
        return None
    try:
        return _make(draw(dims, npdt, dims[0] if len(dims) == 1 else math.prod(dims)), dt)
    except (ValueError, MemoryError):
        return None


def rand(sizes, dtype):
    return _draw(_BG.random, sizes, dtype)  # K.uniform's lo + (hi - lo) * u with lo 0, hi 1 is u


def randperm(n, dtype):
    """randperm(n) of int64/int32 (every value fits: n <= 2**31) or float64 (n <= 2**53)."""
    dt = D.int64 if dtype is None else dtype
    if n.__class__ is not int or not 0 <= n <= 2**31 or dt not in (D.int64, D.int32, D.float64) or _off():
        return None
    try:
        p = _empty(n, np.int64)
    except MemoryError:  # the body raises PyTorch's error
        return None
    if n > 1:  # the body's Generator.permutation(n), made by a kernel (0.6 us less; size 0 or 1 draws nothing)
        _BG.fill(_KPERM.permutation_, _DG._np, p)
    return _make(p if dt is D.int64 else p.astype(dt.np), dt)


def randint(low, high, size, dtype):
    """randint(high, size) / randint(low, high, size) of int64: the body's draws, made by a
    kernel (Note [Bit generator in kernels]: Generator.integers spends ~4 us in its checks)."""
    if size is None:
        low, high, size = 0, low, high
    if (dtype is not None and dtype is not D.int64) or size.__class__ not in _SEQ or _off():
        return None
    dims = _dims((size,))
    if (dims is None or low.__class__ is not int or high.__class__ is not int
            or not -(2**63) <= low < high <= 2**63 - 1):  # fmt: skip
        return None
    try:
        out = np.empty(dims, np.int64)
    except (ValueError, MemoryError):  # too big (before any draw): the body raises PyTorch's error
        return None
    _BG.integers_into(_DG._np, low, high - 1, out)  # the body's Generator.integers draws
    return _make(out, D.int64)


def randn(sizes, dtype):
    return _draw(_BG.standard_normal, sizes, dtype)  # K.normal's draw


# ---- calls with a tensor parameter (*_like, Tensor.new_*): the binding calls these for a plain
# Tensor; they take the body's parameters and run the body where they decline


def _source(t):
    """``t``'s array when a factory may read only its shape and dtype: a CPU tensor with nothing
    to record, no mode, forward-AD or vmap level or autocast region, else None."""
    S = _S
    if S.td_modes or S.fw_level >= 0 or _V or _AUTOCAST or t._device is not _CPU or (t._rg and S.grad_enabled):
        return None
    return t._data


def _like_shape(t, dtype, layout, device, requires_grad, memory_format):
    """(shape, dtype) of a plain *_like call whose result is C-contiguous (like_array's alloc:
    ``t`` is 0-d, 1-d or C-contiguous), else None."""
    S = _S  # (_source written out: a frame less for every *_like call)
    if (layout is not None or device is not None or requires_grad is not False or memory_format is not None
            or S.td_modes or S.fw_level >= 0 or _V or _AUTOCAST or t._device is not _CPU or (t._rg and S.grad_enabled)):  # fmt: skip
        return None
    a = t._data
    if a.ndim > 1 and not a.flags.c_contiguous:
        return None
    return a.shape, t._dtype if dtype is None else dtype


def like(name):
    """empty_like/zeros_like/ones_like."""
    np_fn = _ALLOC[name]

    def fast(input, dtype, layout, device, requires_grad, memory_format):
        sd = _like_shape(input, dtype, layout, device, requires_grad, memory_format)
        if sd is None or sd[1] not in _FILLED or (np_fn is _empty and F.FILL_UNINITIALIZED[0]):
            return None
        return _make(np_fn(sd[0], _FILLED[sd[1]]), sd[1])

    return fast


def full_like(input, fill_value, dtype, layout, device, requires_grad, memory_format):
    sd = _like_shape(input, dtype, layout, device, requires_grad, memory_format)
    dv = None if sd is None else _real_value(fill_value, sd[1])
    if dv is None:
        return None
    dt, v = dv
    return _make(_filled(sd[0], _REAL[dt], v), dt)


def rand_like(input, generator, dtype, layout, device, requires_grad, memory_format):
    sd = None if generator is not None else _like_shape(input, dtype, layout, device, requires_grad, memory_format)
    if sd is None or sd[1] not in _REAL:
        return None
    return _make(_BG.random(sd[0], _REAL[sd[1]], input._data.size), sd[1])


def randn_like(input, generator, dtype, layout, device, requires_grad, memory_format):
    sd = None if generator is not None else _like_shape(input, dtype, layout, device, requires_grad, memory_format)
    if sd is None or sd[1] not in _REAL:
        return None
    return _make(_BG.standard_normal(sd[0], _REAL[sd[1]], input._data.size), sd[1])


_INT_EXACT = {D.float32: 2**24, D.float64: 2**53, D.int64: 2**63 - 1, D.int32: 2**31 - 1}


def randint_like(input, low, high, generator, dtype, layout, device, requires_grad, memory_format):
    """Bounds inside the range the dtype holds (exactly, for floats: no warning)."""
    sd = None if generator is not None else _like_shape(input, dtype, layout, device, requires_grad, memory_format)
    lo, hi = (0, low) if high is None else (low, high)
    if sd is None or lo.__class__ is not int or hi.__class__ is not int:
        return None
    lim = _INT_EXACT.get(sd[1])
    if lim is None or not -lim <= lo < hi <= lim + 1 or (sd[1].category == D._INT and hi - 1 > lim):
        return None
    out = np.empty(sd[0], sd[1].np)  # int64, int32, float32 or float64: every value fits exactly
    _BG.integers_into(_DG._np, lo, hi - 1, out)  # the body's Generator.integers draws, cast
    return _make(out, sd[1])


def new(name):
    """Tensor.new_empty/new_zeros/new_ones."""
    np_fn = _ALLOC[name]

    def fast(self, size, dtype, device, requires_grad, layout, pin_memory):
        if device is not None or requires_grad is not False or layout is not None or pin_memory is not False:
            return None
        dt = self._dtype if dtype is None else dtype
        dims = _dims(size)
        if (dims is None or dt not in _FILLED or _source(self) is None
                or (np_fn is _empty and F.FILL_UNINITIALIZED[0])):  # fmt: skip
            return None
        try:
            return _make(np_fn(dims, _FILLED[dt]), dt)
        except (ValueError, MemoryError):
            return None

    return fast


def new_full(self, size, fill_value, dtype, device, requires_grad, layout, pin_memory):
    if device is not None or requires_grad is not False or layout is not None or pin_memory is not False:
        return None
    dv = _real_value(fill_value, self._dtype if dtype is None else dtype)
    dims = _dims((size,)) if size.__class__ in _SEQ else None
    if dv is None or dims is None or _source(self) is None:
        return None
    dt, v = dv
    try:
        return _make(_filled(dims, _REAL[dt], v), dt)
    except (ValueError, MemoryError):
        return None


def _strided(size, stride, dt):
    # (one condition, one zip loop, the buffer's size from the loop: ~0.15 us less a call; the
    # lengths are checked equal, and zip's strict= keyword call costs ~0.1 us here)
    c, d, npd = size.__class__, stride.__class__, _FILLED.get(dt)
    if (c is not tuple and c is not list or d is not tuple and d is not list or npd is None
            or len(size) != len(stride) or F.FILL_UNINITIALIZED[0]):  # fmt: skip
        return None
    n, m, f = 1, 1, True  # one loop: the checks, the extent, the count, NumPy's F layout or not
    for a, b in zip(size, stride):  # noqa: B905
        if a.__class__ is not int or b.__class__ is not int or a < 0 or b < 0:
            return None
        n += (a - 1) * b
        if b != m:
            f = False
        m *= a
    try:  # strided_array's buffer and view; an impossible size: the body raises PyTorch's error
        if n == m and m:  # Note [Dense empty_strided]
            if f and len(size) > 1:
                return _make(_empty(size[::-1], npd).T, dt)
            if _c_layout(size, stride):
                return _make(_empty(size, npd), dt)
        buf = _empty(0 if 0 in size else n, npd)
    except (ValueError, MemoryError):
        return None
    isz = npd.itemsize
    return _make(np.ndarray(size, npd, buf, 0, [b * isz for b in stride]), dt)


# Note [Dense empty_strided]
# empty_strided's body allocates a flat buffer of the extent's elements and puts an ndarray of
# the given strides over it: np.ndarray over a fresh buffer costs ~0.25 us more than the
# allocation. Where the strides are exactly NumPy's C layout of the sizes (all sizes > 0: the
# extent is then the element count), ``np.empty(size)`` is that very array in one call: the
# same shape and strides, its own buffer of the same element count, uninitialised as the body's.
# The F layout is the transpose (``.T``: every axis reversed) of ``np.empty`` of the reversed
# sizes, never ``np.empty(order="F")``: a tensor's storage is its root array (Note [Storage is
# the root NumPy buffer]), which must stay C-contiguous for ``untyped_storage()`` to view the
# tensor's memory rather than copy it. Any other strides (overlapping, with gaps or zeros, other
# permutations, size-1 dims with strides NumPy would not give them) take the buffer and view.
def _c_layout(size, stride):
    """Whether ``stride`` (elements) is NumPy's C layout of ``size``."""
    k, i = 1, len(size)
    while i:
        i -= 1
        if stride[i] != k:
            return False
        k *= size[i]
    return True


def empty_strided(size, stride, dtype):
    S = _S  # _off() written out
    if S.td_modes or _V or _AUTOCAST:
        return None
    return _strided(size, stride, D._default if dtype is None else dtype)


def new_empty_strided(self, size, stride, dtype, device, requires_grad, layout, pin_memory):
    if device is not None or requires_grad is not False or layout is not None or pin_memory is not False:
        return None
    return None if _source(self) is None else _strided(size, stride, self._dtype if dtype is None else dtype)
