"""The reduction engine: dim normalisation, the (outer, R, inner) layout, kernel variant choice,
dtype normalisation and ``out=`` writing, shared by every op in ``reduction.py``.

# Note [Reduction layout]
# Every reduction kernel sees a C-contiguous block viewed as (outer, R, inner): R merges the
# reduced dims, outer the kept dims before them, inner the kept dims after them. A contiguous
# input whose reduced dims are adjacent needs no copy; a permuted-contiguous one (a transpose)
# is first viewed in memory order; anything else is copied with the reduced dims moved last
# (inner == 1). The output comes back in the kept dims' order.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import InferenceVersion, Tensor, _make
from ...kernels import PARALLEL_THRESHOLD, lazy
from ...kernels._codegen_reduction import Combiner
from .._pointwise import _cname, warn_resize
from .._quiet import IGNORE, quiet, restore as _unquiet

K = lazy("numtorch.kernels.cpu.reduction.core")
KS = lazy("numtorch.kernels.cpu.reduction.softmax")
_ANYNAN = Combiner("anynan", "a | b", "x != x")
_KERNEL_NP = {
    np.dtype(t)
    for t in (np.bool_, np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128)
}
_NTHREADS = []


def nthreads() -> int:
    if not _NTHREADS:
        import numba

        _NTHREADS.append(numba.get_num_threads())
    return _NTHREADS[0]


# ---- dims ---------------------------------------------------------------------------------
def wrap_dim(dim, ndim: int) -> int:
    if isinstance(dim, Tensor):
        dim = dim.item()
    n = max(ndim, 1)
    try:
        inside = -n <= dim < n
    except TypeError:  # a tuple or None where one dim is expected
        raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}") from None
    if not inside:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


def dims_arg(dim, ndim: int) -> tuple:
    """Sorted reduced dims of a ``int[1]? dim`` argument; None or [] mean every dim."""
    if dim is None:
        return tuple(range(ndim))
    if not isinstance(dim, (list, tuple)):
        d = wrap_dim(dim, ndim)
        return (d,) if ndim else ()
    if len(dim) == 0:
        return tuple(range(ndim))
    seen = []
    for d in dim:
        w = wrap_dim(d, ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.append(w)
    return tuple(sorted(seen)) if ndim else ()


def out_shape(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple([1 if i in dims else s for i, s in enumerate(shape)])
    return tuple([s for i, s in enumerate(shape) if i not in dims])


# ---- layout -------------------------------------------------------------------------------
def layout(a: np.ndarray, dims: tuple):
    """(flat contiguous data, outer, R, inner, kept dims in kernel order); Note [Reduction layout]."""
    axes, copy, outer, R, inner, kept = layout_plan(a, dims)
    return flat_data(a, axes, copy), outer, R, inner, kept


def layout_plan(a: np.ndarray, dims: tuple):
    """(axes, copy, outer, R, inner, kept): ``flat_data(a, axes, copy)`` is the kernel's block.

    It depends on ``a``'s shape, strides and ``dims`` only, so a caller may keep it per
    (shape, strides, dims) of one dtype (Note [Strided reduction plan])."""
    if not a.flags.c_contiguous:
        perm = sorted(range(a.ndim), key=lambda i: -a.strides[i] if a.shape[i] > 1 else 0)
        b = a.transpose(perm)
        if b.flags.c_contiguous:
            kd = sorted([perm.index(d) for d in dims])
            return _merge(b.shape, kd, [perm[i] for i in range(a.ndim) if i not in kd], perm)
        kept = [i for i in range(a.ndim) if i not in dims]
        return _moved(a.shape, kept + list(dims), len(kept), kept)
    return _merge(a.shape, list(dims), [i for i in range(a.ndim) if i not in dims], None)


def _merge(s: tuple, dims: list, kept: list, perm):
    # the plan of b = a.transpose(perm) (a itself where perm is None), C-contiguous, of shape s
    if dims and dims[-1] - dims[0] + 1 == len(dims):
        lo, hi = dims[0], dims[-1] + 1
        return perm, False, math.prod(s[:lo]), math.prod(s[lo:hi]), math.prod(s[hi:]), kept
    if not dims:
        return perm, False, math.prod(s), 1, 1, kept
    order = [i for i in range(len(s)) if i not in dims] + dims
    if perm is not None:  # b.transpose(order) is a.transpose(perm[order])
        order = [perm[i] for i in order]
        s = [s[perm.index(i)] for i in range(len(s))]  # a's shape
    return _moved(s, order, len(s) - len(dims), kept)


def _moved(shape, axes: list, k: int, kept: list):
    # a copy of a.transpose(axes), whose first k dims are kept and the rest reduced
    moved = [shape[i] for i in axes]
    return axes, True, math.prod(moved[:k]), math.prod(moved[k:]), 1, kept


def flat_data(a: np.ndarray, axes, copy: bool) -> np.ndarray:
    b = a if axes is None else a.transpose(axes)
    return (np.ascontiguousarray(b) if copy else b).reshape(-1)


def restore(flat: np.ndarray, shape: tuple, dims: tuple, kept: list, keepdim: bool) -> np.ndarray:
    """The kernel's output (kept dims in kernel order) as an array of the op's result shape."""
    if kept == sorted(kept):  # the kernel's order is the result's (a contiguous input): a reshape
        return flat.reshape(out_shape(shape, dims, keepdim))
    order = sorted(range(len(kept)), key=lambda i: kept[i])
    r = np.ascontiguousarray(flat.reshape([shape[k] for k in kept]).transpose(order))
    return r.reshape(out_shape(shape, dims, keepdim))


def kernel_input(a: np.ndarray) -> np.ndarray:
    """The array a kernel may read: float16 -> float32, small ints -> int64 (Rule 5)."""
    if a.dtype in _KERNEL_NP:
        return a
    if a.dtype == np.float16:
        return a.astype(np.float32)
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    raise RuntimeError(f"reduction kernels do not support {a.dtype}")


def kernel_dtype(dt: D.dtype) -> np.dtype:
    if dt is D.float16:
        return np.dtype(np.float32)
    if dt.category == D._INT and dt is not D.int32:
        return np.dtype(np.int64)
    return dt.np


# ---- running a generated combiner ---------------------------------------------------------
def run(comb, a: np.ndarray, dims: tuple, keepdim: bool, acc: np.dtype, params=(), empty=None):
    """Reduce ``a`` over ``dims`` with a ``Combiner``; the result has dtype ``acc``.

    ``empty`` fills outputs of an empty reduction (R == 0)."""
    x, outer, R, inner, kept = layout(kernel_input(a), dims)
    res = np.empty(outer * inner, acc)
    if res.size:
        if R == 0:
            res.fill(empty)
        else:
            _launch(comb.module(), x, res, outer, R, inner, params)
            if comb.nan_pass and x.dtype.kind == "f":
                nan = np.empty(outer * inner, np.bool_)
                _launch(_ANYNAN.module(), x, nan, outer, R, inner, ())
                res[nan] = np.nan
    return restore(res, a.shape, dims, kept, keepdim)


def extremes(combs, t: Tensor, dims, keepdim: bool, slow) -> list:
    """aminmax's two reductions of ``t`` over ``dims`` (a list or None), each ``run`` as amin's and
    amax's fold run it but over one layout (one transpose or copy of a strided input, not
    two); an empty input takes ``slow``, the two ops' CPU functions, for their checks."""
    a = t._data
    if not a.size:
        return [f(t, dims, keepdim) for f in slow]
    acc = kernel_dtype(t._dtype)
    x = kernel_input(a)
    lay = None
    if dims is not None and len(dims) == 1 and a.ndim and x.flags.c_contiguous:
        # one dim of C-contiguous data: layout and restore are a reshape (Note [Reduction fast path])
        lay = _EXT_SHAPES.get((a.shape, dims[0], keepdim)) or _dim_layout(_EXT_SHAPES, a.shape, dims[0], keepdim)
    if lay is not None:
        x, (outer, R, inner, shape) = x.reshape(-1), lay
    else:
        dims = dims_arg(dims, a.ndim)
        x, outer, R, inner, kept = layout(x, dims)
    out = []
    for comb in combs:
        res = np.empty(outer * inner, acc)
        _launch(comb.module(), x, res, outer, R, inner, ())
        out.append(wrap(res.reshape(shape) if lay else restore(res, a.shape, dims, kept, keepdim), t._dtype))
    return out


_EXT_SHAPES: dict = {}


# Note [Serial reduction entries]
# The general path's serial row/col kernel call went through Numba's dispatcher, which types its
# 4-6 arguments on each call. After a kernel's first call, _launch calls the compiled overload's
# entry point (Note [Compiled kernel entry]) while the call's types are the learned ones: the
# input an exact, aligned ndarray (layout's flat data is C-contiguous; the result is the
# caller's np.empty) of the learned input and result dtype objects, and no parameters.
_SERIAL: dict = {}  # row or col dispatcher -> (entry, input dtype, result dtype)


def _serial(k, x, res, *args) -> None:
    e = _SERIAL.get(k)
    if e is not None and x.dtype is e[1] and res.dtype is e[2] and x.__class__ is _nd and x.flags.aligned:
        e[0](x, res, *args)
        return
    k(x, res, *args)
    if e is None and x.__class__ is _nd and x.flags.aligned and x.dtype.isnative:
        _SERIAL[k] = (_entry(k, (x, res, *args)), x.dtype, res.dtype)


def _launch(mod, x, res, outer, R, inner, params):
    n = x.size
    if inner == 1:
        if n < PARALLEL_THRESHOLD or nthreads() == 1:  # a prange costs ~10 us even on 1 thread
            if params:
                mod.row(x, res, outer, R, *params)
            else:
                _serial(mod.row, x, res, outer, R)
        elif outer >= 4 * nthreads():
            mod.row_p(x, res, outer, R, *params)
        else:
            mod.split_p(x, res, outer, R, -(-4 * nthreads() // outer), *params)
        return
    if n < PARALLEL_THRESHOLD or nthreads() == 1:
        if params:
            mod.col(x, res, outer, R, inner, min(inner, 1024), *params)
        else:
            _serial(mod.col, x, res, outer, R, inner, min(inner, 1024))
        return
    # column chunks of at least 512: shorter ones pay a slice per row more often than they gain
    tasks = -(-nthreads() // outer)
    chunk = max(512, min(1024, -(-inner // tasks)))
    mod.col_p(x, res, outer, R, inner, chunk, *params)


def parallel(n: int) -> bool:
    return n >= PARALLEL_THRESHOLD


# ---- results and out= ---------------------------------------------------------------------
def wrap(arr: np.ndarray, dt: D.dtype) -> Tensor:
    if arr.dtype != dt.np:
        # a double accumulator past float32's range gives inf, silently (Note [Quiet
        # floating-point flags]: np.errstate's context manager was ~1 us of a 6 us var_mean)
        tok = quiet(IGNORE)
        try:
            arr = arr.astype(dt.np)
        finally:
            _unquiet(tok)
    return _make(arr, dt)


def functional(op, cpu, args):
    """The result an ``out=`` overload writes: ``cpu(*args)`` on the CPU, the functional ``op``'s
    own kernel on another device (one declaration of the out checks for every device)."""
    from ..._dispatch import backend

    return cpu(*args) if args[0]._device.type == "cpu" else backend(op, list(args))


def write_out(out: Tensor, res: Tensor) -> Tensor:
    """Copy ``res`` into ``out`` (resizing it as PyTorch does, with its warning); on another
    device than the CPU through its empty and copy_ kernels."""
    from ..._dispatch import backend
    from .._registry import OPS

    shape, cpu = res._data.shape, out._device.type == "cpu"
    if out._data.shape != shape:
        if out._data.size:
            warn_resize(out._data.shape, shape, 5)
        out._data = np.empty(shape, out._dtype.np) if cpu else backend(
            OPS["aten::empty.memory_format"], [list(shape), out._dtype, None, out._device, None, None])._data
    if cpu:
        np.copyto(out._data, res._data, casting="unsafe")
    else:
        backend(OPS["aten::copy_"], [out, res, False])
    out._vc[0] += 1
    return out


_CTYPES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
           "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
           "float16": "c10::Half", "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}  # fmt: skip


def check_out_dtype(out: Tensor, dt: D.dtype) -> None:
    """PyTorch's check for ``out=`` tensors of ops with a fixed result dtype (max.dim, sort)."""
    if out._dtype is not dt:
        raise RuntimeError(
            f"Expected out tensor to have dtype {_CTYPES[dt.name]}, but got "
            f"{_CTYPES[out._dtype.name]} instead"
        )


def check_same_dtype(inp: Tensor, out: Tensor) -> None:
    if out._dtype is not inp._dtype:
        raise RuntimeError(
            f"Expected the dtype for input and out to match, but got {_cname(inp._dtype)} for "
            f"input's dtype and {_cname(out._dtype)} for out's dtype."
        )


def cname(dt: D.dtype) -> str:
    return _cname(dt)


def dtype_arg(dtype) -> D.dtype | None:
    return None if dtype is None else D.to_dtype(dtype)


# Note [Reduction fast path]
# x.sum() / x.mean() / x.amax(1) / x.all(-1) ... of a plain C-contiguous CPU tensor, with
# no dispatch mode, no forward AD and no anomaly mode, over every dim or one int dim: what the
# dispatcher reaches through aten.sum.default (or sum.dim_IntList) -> fold -> run -> _launch
# (layout (outer, R, inner), the serial ``row`` or ``col`` kernel), done here in one frame.
# After a dtype's first call the kernel's compiled entry point is called directly (Note
# [Compiled kernel entry], _pointwise.py), guarded by exact ndarray, the dtype object it was
# compiled for, C-contiguous and aligned. From PARALLEL_THRESHOLD elements on, with more than
# one Numba thread, ``_launch`` picks the parallel variant as the general path does (the
# general path's 5-10 us of Python are 3-6 % of a 4M-element sum). A gradient is recorded by the
# op's generated recorder (engine.record_output), as the dispatcher's would. The public
# bindings call these through Note [Binding fast call]; anything else (empty, float16, list
# dims, modes) takes ``slow``, the binding's body.
_NP_EXT = {"amax": np.ndarray.max, "amin": np.ndarray.min}
_NP_EXT_MIN = 4096  # below it the kernel's entry costs less than NumPy's call
_NP_EXT_DTYPES = frozenset(np.dtype(t) for t in ("float32", "float64", "int32", "int64"))


def reduce_fast(comb, acc: dict, full, one, slow, nodim=None):
    """``fast(self, dim, keepdim)`` for the bindings of one reduction.

    ``acc`` maps each input dtype this path takes to the result dtype; ``full=(op, extra)``:
    the op (and its arguments after self) of ``dim=None`` (``()`` when ``nodim`` is ``()``),
    ``keepdim=False`` (None: not taken);
    ``one=(op, tail)``: the op of one int dim, called with ``(self, dim, keepdim, *tail)``
    (None: not taken); ``slow(self, dim, keepdim)``: the body's call."""
    assert not comb.nan_pass
    store: dict = {}  # input dtype -> _learn's entry
    shapes: dict = {}  # (shape, dim, keepdim) -> (outer, R, inner, result shape)
    recs = [None, None]  # record_output of the full / one-dim op, made when first needed
    fop, fextra = full if full is not None else (None, ())
    dop, dtail = one if one is not None else (None, ())
    by_tuple = nodim == ()  # else the full reduction is ``dim is nodim`` (None or NOARG)
    # Note [Strided reduction plan]: a tuple of dims where the one-dim op takes a list (not prod)
    tuples = dop is not None and dop._schema.arguments[1].type.startswith("int[")

    def fast(self, dim=None, keepdim=False):
        st = _STATE
        if (
            not st.td_modes
            and st.fw_level < 0
            and (self.__class__ is Tensor or self.__class__ in PLAIN_SUBCLASSES)
            and self._device is _CPU
        ):
            a = self._data
            e = store.get(self._dtype)
            if e is None:
                e = _learn(comb, store, self._dtype, acc)
            n = a.size
            if e is not None and a.__class__ is _nd and a.dtype is e[2] and n > 0:
                lay = None
                full = dim is nodim if by_tuple is False else dim.__class__ is tuple and not dim
                if full and keepdim is False:
                    op = fop
                elif dim.__class__ is int and keepdim.__class__ is bool and a.ndim:
                    op = dop
                    lay = shapes.get((a.shape, dim, keepdim))
                    if lay is None:
                        lay = _dim_layout(shapes, a.shape, dim, keepdim)
                        if lay is None:
                            op = None
                else:
                    op = None
                f = a.flags
                strided = (not f.c_contiguous or op is None) and n < _PT and f.aligned
                if strided and op is None:  # Note [Strided reduction plan]: a tuple of dims
                    strided = (
                        tuples and dim.__class__ is tuple and dim and keepdim.__class__ is bool
                        and a.ndim and not (self._rg and st.grad_enabled)
                    )  # fmt: skip
                if (op is not None and f.c_contiguous and f.aligned) or strided:
                    rec = None
                    if self._rg and st.grad_enabled:
                        ri = lay is not None
                        rec = recs[ri]
                        if rec is None or rec.deriv is not op.autograd:
                            rec = _recorder(recs, ri, op)
                        if rec is None or st.anomaly:
                            return slow(self, dim, keepdim)
                    if strided:
                        whole = op is not None and lay is None  # every dim, keepdim False
                        r = _strided(e, comb, a, None if whole else dim, keepdim)
                        if r is None:
                            return slow(self, dim, keepdim)
                    elif lay is None:
                        r = _empty(1, e[3])
                        # Note [Whole amax by NumPy]: a large amax/amin of all elements is NumPy's
                        # SIMD max/min (131072 float32: 17 -> 7 us) where the value cannot depend
                        # on the order: not a zero (+0.0 and -0.0 tie) and not NaN (its payload)
                        npext = _NP_EXT.get(comb.name) if n >= _NP_EXT_MIN else None
                        if npext is not None and a.dtype in _NP_EXT_DTYPES:
                            m = npext(a)
                            if m != 0 and m == m:
                                r[0] = m
                                n = 0
                        if n == 0:
                            pass
                        elif n >= _PT and nthreads() > 1:
                            _launch(comb.module(), a.reshape(-1), r, 1, n, 1, ())
                        else:
                            e[0](a if a.ndim == 1 else a.reshape(-1), r, 1, n)
                        r = r.reshape(())
                    else:
                        r = _empty(lay[0] * lay[2], e[3])
                        if n >= _PT and nthreads() > 1:
                            _launch(comb.module(), a.reshape(-1), r, lay[0], lay[1], lay[2], ())
                        elif lay[2] == 1:
                            e[0](a.reshape(-1), r, lay[0], lay[1])
                        else:
                            k = e[1]
                            if k is None:
                                k = _learn_col(comb, e)
                            k(a.reshape(-1), r, lay[0], lay[1], lay[2], min(lay[2], 1024))
                        r = r.reshape(lay[3])
                    t = _new(Tensor)  # _make(r, e[4]), inlined
                    t._data = r
                    t._dtype = e[4]
                    t._device = _CPU
                    t._rg = False
                    t._grad_fn = None
                    t._grad = None
                    t._vc = InferenceVersion((0,)) if st.inference else [0]  # Note [Inference tensors]
                    t._base = None
                    if rec is not None:
                        if lay is None:
                            return rec(t, self, *fextra)
                        return rec(t, self, dim, keepdim, *dtail)
                    return t
        return slow(self, dim, keepdim)

    return fast


def select_fast(largest: bool, op, cls, slow):
    """``fast(self, dim, keepdim)`` of ``max(dim)`` / ``min(dim)``: ``cls(values, indices)``
    through the argext kernels (Note [Reduction fast path]); ``slow`` is the body's call."""
    store: dict = {}  # input dtype -> [rows entry, cols entry, input np dtype]
    shapes: dict = {}
    recs = [None]

    def fast(self, dim, keepdim):
        st = _STATE
        if (
            not st.td_modes
            and st.fw_level < 0
            and (self.__class__ is Tensor or self.__class__ in PLAIN_SUBCLASSES)
            and self._device is _CPU
            and dim.__class__ is int
            and keepdim.__class__ is bool
        ):
            a = self._data
            e = store.get(self._dtype)
            if e is None and self._dtype in _SELECT:
                e = store[self._dtype] = [None, None, np.dtype(self._dtype.np)]
            n = a.size
            if e is not None and a.__class__ is _nd and a.dtype is e[2] and a.ndim and 0 < n < _PT:
                lay = shapes.get((a.shape, dim, keepdim))
                if lay is None:
                    lay = _dim_layout(shapes, a.shape, dim, keepdim)
                f = a.flags
                if lay is not None and f.c_contiguous and f.aligned:
                    rec = None
                    if self._rg and st.grad_enabled:
                        rec = recs[0]
                        if rec is None or rec.deriv is not op.autograd:
                            rec = _recorder(recs, 0, op)
                        if rec is None or st.anomaly:
                            return slow(self, dim, keepdim)
                    m = lay[0] * lay[2]
                    v = _empty(m, e[2])
                    i = _empty(m, _I64)
                    x = a.reshape(-1)
                    if lay[2] == 1:
                        k = e[0]
                        if k is None:
                            K.argext_rows(x, v, i, lay[0], lay[1], largest)
                            k = e[0] = _entry(K.argext_rows, (x, v, i, lay[0], lay[1], largest))
                        else:
                            k(x, v, i, lay[0], lay[1], largest)
                    else:
                        k = e[1]
                        if k is None:
                            K.argext_cols(x, v, i, lay[0], lay[1], lay[2], largest)
                            args = (x, v, i, lay[0], lay[1], lay[2], largest)
                            k = e[1] = _entry(K.argext_cols, args)
                        else:
                            k(x, v, i, lay[0], lay[1], lay[2], largest)
                    dt = self._dtype
                    res = cls(_make(v.reshape(lay[3]), dt), _make(i.reshape(lay[3]), _D_I64))
                    if rec is not None:
                        return rec(res, self, dim, keepdim)
                    return res
        return slow(self, dim, keepdim)

    return fast


# Note [Strided reduction plan]
# x.t().sum(), g.sum((0, 2), keepdim=True) (the engine's _sum_to of a broadcast input's
# gradient) and the sum of an expanded tensor took the binding's body: dispatch, fold, dims_arg,
# layout's sort of the strides, restore (~10 us at 48 elements, against 2 us for a contiguous
# x.sum()). What layout does to an input depends only on its shape, its strides and the reduced
# dims (layout_plan: which transpose, whether it is copied, (outer, R, inner), the kept
# dims' order), and restore's only on those and keepdim, so reduce_fast keeps both per
# (shape, strides, dims, keepdim) in the dtype's learned entry and runs them: the same block
# (the same transpose and copy), the same serial row/col kernel through its compiled entry, the
# same reorder of the result: the body's values bit for bit. Below PARALLEL_THRESHOLD elements
# only (the body may pick a parallel kernel from there on). A tuple of dims is taken when each is
# an exact int (True or 1.0 hash as a cached 1) and nothing is recorded (its recording goes
# through the body); a dims tuple the body refuses (out of range, repeated) is not kept and the
# body raises.

def _strided(e: list, comb, a: np.ndarray, dim, keepdim: bool):
    """The reduction's result array of a non-empty aligned ndarray ``a`` of ``e``'s dtype over
    ``dim`` (None: every dim, keepdim False; an int; a tuple of ints), or None for the body."""
    if dim.__class__ is tuple:
        for d in dim:  # True or 1.0 would hash as a kept 1
            if d.__class__ is not int:
                return None
    plans = e[5]
    key = (a.shape, a.strides, dim, keepdim)
    p = plans.get(key)
    if p is None:
        p = _strided_plan(plans, key, a, dim, keepdim)
        if p is None:
            return None
    axes, copy, outer, R, inner, kshape, order, shape = p
    b = a if axes is None else a.transpose(axes)
    x = (np.ascontiguousarray(b) if copy else b).reshape(-1)
    r = _empty(outer * inner, e[3])
    if inner == 1:
        e[0](x, r, outer, R)
    else:
        k = e[1]
        if k is None:
            k = _learn_col(comb, e)
        k(x, r, outer, R, inner, min(inner, 1024))
    if order is None:
        return r.reshape(shape)
    return np.ascontiguousarray(r.reshape(kshape).transpose(order)).reshape(shape)


def _strided_plan(plans: dict, key, a: np.ndarray, dim, keepdim: bool):
    # layout_plan and restore's reorder of ``a`` over ``dim``; None where the body raises
    try:
        dims = dims_arg(dim, a.ndim)
    except (IndexError, RuntimeError, TypeError):
        return None
    axes, copy, outer, R, inner, kept = layout_plan(a, dims)
    shape = out_shape(a.shape, dims, keepdim)
    kshape = order = None
    if kept != sorted(kept):  # restore's transpose back to the kept dims' order
        kshape = tuple([a.shape[k] for k in kept])
        order = tuple(sorted(range(len(kept)), key=lambda i: kept[i]))
    if len(plans) > 512:
        plans.clear()
    axes = None if axes is None else tuple(axes)
    p = plans[key] = (axes, copy, outer, R, inner, kshape, order, shape)
    return p


def _recorder(recs: list, i: int, op):
    # record_output(op), kept in recs[i]; None when op's recording cannot be generated
    if op is None or not _engine.recordable(op):
        return None
    rec = recs[i] = _engine.record_output(op)
    return rec


def _dim_layout(shapes: dict, shape: tuple, dim: int, keepdim: bool):
    # (outer, R, inner, result shape) of a C-contiguous reduction over one in-range dim
    nd = len(shape)
    if not -nd <= dim < nd:
        return None
    d = dim + nd if dim < 0 else dim
    if shape[d] == 0:
        return None
    if len(shapes) > 512:
        shapes.clear()
    out = shape[:d] + ((1,) if keepdim else ()) + shape[d + 1 :]
    lay = (math.prod(shape[:d]), shape[d], math.prod(shape[d + 1 :]), out)
    shapes[shape, dim, keepdim] = lay
    return lay


def _learn(comb, store: dict, dt, acc: dict):
    res = acc.get(dt)
    if res is None:
        return None
    kernel = comb.module().row
    x = np.zeros(1, dt.np)
    r = np.empty(1, kernel_dtype(res))
    kernel(x, r, 1, 1)
    # the row and col entries, input and result np dtypes, result dtype, strided plans
    e = store[dt] = [_entry(kernel, (x, r, 1, 1)), None, x.dtype, r.dtype, res, {}]
    return e


def _learn_col(comb, e: list):
    kernel = comb.module().col
    args = (np.zeros(2, e[2]), np.empty(2, e[3]), 1, 1, 2, 2)
    kernel(*args)
    k = e[1] = _entry(kernel, args)
    return k


def _entry(kernel, args):
    # the compiled entry of ``kernel`` for these argument types; the dispatcher when none
    from numba import typeof

    ov = kernel.overloads.get(tuple(typeof(v) for v in args))
    return kernel if ov is None else ov.entry_point


from ..._device import CPU as _CPU  # noqa: E402
from ..._state import STATE as _STATE  # noqa: E402
from ..._tensor import PLAIN_SUBCLASSES  # noqa: E402
from ...autograd import _engine  # noqa: E402

_nd = np.ndarray
_PT = PARALLEL_THRESHOLD
_empty = np.empty
_I64 = np.dtype(np.int64)
_D_I64 = D.int64
_SELECT = {D.bool, D.int32, D.int64, D.float32, D.float64}
_new = object.__new__
