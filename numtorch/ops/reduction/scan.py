"""Scans (cumsum, cumprod, cummax, cummin) and softmax / log_softmax (imported by
``reduction.py``). Both work on the (outer, R, inner) layout of Note [Reduction layout]."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ... import return_types
from ..._dispatch import dispatch
from ..._state import STATE
from ..._tensor import Tensor, _make
from . import _reduce as E
from .._registry import defop, holomorphic, public
from ._grad import plain, select, wrap
from ._entries import call
from .core import _call, _decl, _fn, _sum_dtype, aten

CumMax = return_types.register("cummax", ("values", "indices"))
CumMin = return_types.register("cummin", ("values", "indices"))


def _dim_layout(self: Tensor, dim: int, a: np.ndarray | None = None):
    """(data, outer, R, inner) for a scan or softmax along ``dim``; the result keeps the shape."""
    a = self._data if a is None else a
    d = E.wrap_dim(dim, a.ndim)
    c = a if a.flags.c_contiguous else np.ascontiguousarray(a)
    if a.ndim == 0:
        return c.reshape(-1), 1, 1, 1
    s = c.shape  # math.prod: np.prod of a tuple cost 4 us of a 10 us small softmax
    return c.reshape(-1), math.prod(s[:d]), s[d], math.prod(s[d + 1 :])


# ---- cumsum, cumprod ------------------------------------------------------------------------
def _cumulative(self, dim, dtype, prod):
    a = self._data
    if dtype is None and (a.dtype is _TINY_NP[0] or a.dtype is _TINY_NP[1]) and a.ndim and dim.__class__ is int:
        lay = _SCAN_SHAPES.get((a.shape, dim))
        if lay is not None and a.flags.c_contiguous:  # Note [Scan layouts]
            x, (outer, R, inner) = a.ravel(), lay
            out = np.empty(x.size, x.dtype)
            call(E.K, "cumulative", (x, out, outer, R, inner, np.empty(inner, np.float64), prod))
            return _make(out.reshape(a.shape), self._dtype)
    dt = _sum_dtype(self._dtype, dtype)
    src = E.kernel_input(self._data).astype(E.kernel_dtype(dt), copy=False)
    x, outer, R, inner = _dim_layout(self, dim, src)
    if dt is D.bool and x.size and self._data.ndim:  # the kernel runs in the result dtype: none for bool
        raise NotImplementedError(f"\"{'cumprod' if prod else 'cumsum'}_out_cpu\" not implemented for 'Bool'")
    acc_np = _ACC_NP.get(dt.category, np.int64)
    out = np.empty(x.size, acc_np if dt is D.bool else x.dtype)
    if x.size:
        E.K.cumulative(x, out, outer, R, inner, np.empty(inner, acc_np), prod)
        if dtype is None and x.dtype in _TINY_NP and self._data.ndim and dim.__class__ is int:
            if len(_SCAN_SHAPES) > 512:
                _SCAN_SHAPES.clear()
            _SCAN_SHAPES[self._data.shape, dim] = (outer, R, inner)
    return E.wrap(out.reshape(self._data.shape), dt)


# Note [Scan layouts]
# A float32/float64 cumsum/cumprod along an int dim, with no dtype=, ran the general route each
# call: the dtype rule, kernel_input and astype (no-ops there), _dim_layout (wrap_dim, math.prod)
# and wrap's dtype test, ~1.5 us of a 3.7 us small cumsum. After one such call the (outer, R,
# inner) layout of its (shape, dim) is kept, and a later C-contiguous call of that shape and dim
# runs the same kernel on the same flat data directly (a bad dim never gets a layout: it raised).
_SCAN_SHAPES: dict = {}


_ACC_NP = {D._FLOAT: np.float64, D._COMPLEX: np.complex128}  # the scan kernel's accumulator


def _cumsum_bw(grad, dim):
    # PyTorch's cumsum_backward: the reversed cumsum, flip(cumsum(flip(grad))) (sum - cumsum +
    # grad, one op more, lost the small tail sums to cancellation against a large total)
    if grad.numel() <= 1 or grad.shape[dim] == 1:
        return grad
    if plain(grad):  # Note [Backward formulas in NumPy]
        return wrap(_reversed_cumsum(grad._data, dim), grad)
    return grad.flip(dim).cumsum(dim).flip(dim)


def _reversed_cumsum(g, dim):
    # accumulated in double, as the cumsum kernel; the result in g's dtype
    d = E.wrap_dim(dim, g.ndim)
    return np.flip(np.cumsum(np.flip(g, d), axis=d, dtype=np.float64), d).astype(g.dtype)


def _cumprod_bw(grad, self, dim, result):
    if self.dim() == 0 or self.numel() == 0:
        return grad
    if plain(grad, self, result) and np.all(self._data != 0):  # as below, in NumPy
        return wrap(_reversed_cumsum(grad._data * result._data, dim) / self._data, grad)
    if self.count_nonzero() == self.numel():
        return _cumsum_bw(grad * result, dim) / self
    if STATE.grad_enabled:  # a graph of the gradient is wanted: the differentiable O(n^2) route
        return _cumprod_bw_twice(grad, self, dim)
    # zeros: exact O(n) recurrence in a kernel (not differentiable twice)
    return dispatch(_cumprod_grad, [grad, self, dim])


def _cumprod_bw_twice(grad, self, dim):
    # PyTorch's grad-mode branch of cumprod_backward: d out_j / d x_k (j >= k) is the product of
    # x_i over i < k times that over k < i <= j, built from differentiable ops so that double
    # backward (hessian, jvp of grad) of prod/cumprod sees every zero
    dim = E.wrap_dim(dim, self.dim())
    n = self.shape[dim]
    ones = aten.ones_like.default(self.narrow(dim, 0, 1))
    parts = []
    for k in range(n):
        omitted = aten.cat.default([ones, self.narrow(dim, k + 1, n - k - 1).cumprod(dim)], dim)
        if k:
            omitted = omitted * self.narrow(dim, 0, k).prod(dim, keepdim=True)
        parts.append((grad.narrow(dim, k, n - k) * omitted).sum(dim, keepdim=True))
    return aten.cat.default(parts, dim)


def _cumprod_grad_cpu(grad, self, dim):
    x, outer, R, inner = _dim_layout(self, dim, self._data.astype(np.float64))
    g = _dim_layout(grad, dim, grad._data.astype(np.float64))[0]
    out = np.empty(x.size, np.float64)
    E.K.cumprod_grad(x, g, out, outer, R, inner)
    return E.wrap(out.reshape(self._data.shape), self._dtype)


_cumprod_grad = defop(
    "_cumprod_grad(Tensor grad, Tensor self, int dim) -> Tensor", cpu=_cumprod_grad_cpu
)


def _scan(name, prod, backward):
    def cpu(self, dim, dtype):
        return _cumulative(self, dim, dtype, prod)

    def inplace(self, dim, dtype):
        dt = self._dtype if dtype is None else D.to_dtype(dtype)
        if dt is not self._dtype:
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {E._CTYPES[self._dtype.name]} and output "
                f"tensor dtype {E._CTYPES[dt.name]} should match"
            )
        r = _cumulative(self, dim, dt, prod)
        self._data[...] = r._data
        self._vc[0] += 1
        return self

    op, op_out = _decl(f"{name}(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", cpu, backward,
                       out=f"{name}.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")  # fmt: skip
    op_ = defop(f"{name}_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)",
                cpu=inplace, backward=backward)  # fmt: skip

    def body(input, dim, dtype, out):
        if out is not None and dtype is None:
            dtype = out._dtype  # the kernel runs in out's dtype (_cumulative refuses bool)
        elif out is not None and isinstance(out, Tensor):  # out's dtype before the kernel's (seed 89)
            E.check_out_dtype(out, D.to_dtype(dtype))
        return _call(op, op_out, [input, dim, dtype], out)

    body.__doc__ = f"""Cumulative {"product" if prod else "sum"} along ``dim``; integers and bools give int64.

    >>> numtorch.tensor([1, 2, 3]).{name}(0)
    tensor([{"1, 2, 6" if prod else "1, 3, 6"}])
    """
    _fn(name, "input, dim, *, dtype=None, out=None", body)

    def ibody(self, dim, dtype):
        return dispatch(op_, [self, dim, dtype])

    ibody.__doc__ = f"In-place ``{name}`` (the dtype must stay the same)."
    public(name + "_", "self, dim, *, dtype=None", ibody, relevant=("self",), module="Tensor")
    return op, op_out, op_


cumsum, cumsum_out, cumsum_ = _scan(
    "cumsum", False, {"self": lambda grad, dim: _cumsum_bw(grad, dim)}
)
cumprod, cumprod_out, cumprod_ = _scan("cumprod", True, {"self": holomorphic(_cumprod_bw)})


# ---- cummax, cummin -----------------------------------------------------------------------
def _cumext(largest, cls, name):
    def cpu(self, dim):
        if self._data.size == 0:  # torch's cummax_out returns before wrapping dim or dispatching
            shape = self._data.shape
            return cls(_make(np.empty(shape, self._dtype.np), self._dtype), _make(np.empty(shape, np.int64), D.int64))
        if self._data.ndim == 0:  # cummax_out fills a 0-d result without dispatching: any dtype
            if dim not in (-1, 0):
                raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
            return cls(_make(self._data.copy(), self._dtype), _make(np.zeros((), np.int64), D.int64))
        if self._dtype.category == D._COMPLEX:
            E.wrap_dim(dim, self._data.ndim)  # the dim first
            raise NotImplementedError(
                f"\"{name}_cpu\" not implemented for '{E.cname(self._dtype)}'"
            )
        x, outer, R, inner = _dim_layout(self, dim, E.kernel_input(self._data))
        vals = np.empty(x.size, x.dtype)
        idx = np.empty(x.size, np.int64)
        if x.size:
            E.K.cumext(x, vals, idx, outer, R, inner, largest)
        shape = self._data.shape
        return cls(E.wrap(vals.reshape(shape), self._dtype), _make(idx.reshape(shape), D.int64))

    return cpu


def _cumext_bw(grad, self, dim, result1):
    if self.dim() == 0 or self.numel() == 0:  # an empty input took no dim (cpu above)
        return grad
    if plain(grad, self, any_size=True):  # Note [Selection gradients put in one kernel]
        out = select(grad, self, dim, True, result1, accumulate=True)
        if out is not None:
            return out
    return aten.zeros_like.default(self).scatter_add(dim, result1, grad)


for _name, _largest, _cls in (("cummax", True, CumMax), ("cummin", False, CumMin)):
    _op, _op_out = _decl(
        f"{_name}(Tensor self, int dim) -> (Tensor values, Tensor indices)",
        _cumext(_largest, _cls, _name), {"self": _cumext_bw}, mode="exact_first", nout=2,
        out_text="expected scalar_type {want} but found {got}",
        out=f"{_name}.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    )  # fmt: skip

    def _body(input, dim, out, _op=_op, _op_out=_op_out):
        return _call(_op, _op_out, [input, dim], out)

    _body.__doc__ = f"""Running {"maximum" if _largest else "minimum"} along ``dim`` and the index where it was last reached.

    >>> numtorch.tensor([1, 3, 2]).{_name}(0).values
    tensor([1, {"3, 3" if _largest else "1, 1"}])
    """
    _fn(_name, "input, dim, *, out=None", _body)


# ---- softmax, log_softmax -------------------------------------------------------------------
_SMALL_INNER = 9  # measured: (64, 16, inner) over dim 1 gains up to inner 8, loses at 15
_SHORT_ROW = 128  # rows the inline forward kernel takes (measured faster at 8, 32, 128)
_TINY = 128  # elements: one strided kernel beats gather + rows + scatter (measured 0.7 vs 1.9 us at 24)
_TINY_NP = (np.dtype(np.float32), np.dtype(np.float64))


# Note [Softmax of a few elements]
# A sweep-sized softmax (tens of elements) spent 4 us of a 5 us call above the kernel: the
# layout helper, the gather/scatter pair of the small-inner route (three kernel calls) and the
# result's dtype check. Contiguous float32/float64 inputs of at most _TINY elements take one
# kernel call: the short-row kernels along the last dim, softmax_cols along any other (the
# same kernels the larger routes end in, so the values are the same bits).
def _softmax_tiny(a, d, log):
    s = a.shape
    R = s[d]
    x = a.ravel()  # a view: C-contiguous
    y = np.empty(x.size, x.dtype)
    if d == len(s) - 1:  # through the kernels' compiled entries (reduction/_entries.py)
        outer = x.size // R
        if log or not call(E.KS, "softmax_rows_shift", (x, y, outer, R)):
            call(E.KS, "softmax_rows_inline", (x, y, outer, R, log))
    else:
        inner = math.prod(s[d + 1 :])
        call(E.KS, "softmax_cols", (x, y, x.size // (R * inner), R, inner, log))
    return y.reshape(s)


def _softmax_impl(self, dim, half_to_float, log):
    a = self._data
    dt = a.dtype
    if (dt is _TINY_NP[0] or dt is _TINY_NP[1] or dt in _TINY_NP) and 0 < a.size <= _TINY and a.ndim and not half_to_float and a.flags.c_contiguous:
        n = a.ndim
        d = (dim + n if dim < 0 else dim) if dim.__class__ is int and -n <= dim < n else E.wrap_dim(dim, n)
        return _make(_softmax_tiny(a, d, log), self._dtype)
    name = "log_softmax" if log else "softmax"
    if half_to_float:
        raise RuntimeError(f"{name} with half to float conversion is not supported on CPU")
    if self._dtype.category != D._FLOAT and self._data.size:
        # a 0-d input's dim is checked too (range [-1, 0]) before the dtype (seed 401)
        last = E.wrap_dim(dim, self._data.ndim) == max(self._data.ndim - 1, 0)
        raise NotImplementedError(
            f"\"{name}{'_lastdim' if last else ''}_kernel_impl\" not implemented for '{E.cname(self._dtype)}'"
        )
    x, outer, R, inner = _dim_layout(self, dim, E.kernel_input(self._data))
    y = np.empty(x.size, x.dtype)
    if x.size:
        if inner == 1 and R <= _SHORT_ROW and not E.parallel(x.size):  # Note [Softmax over short rows]
            if log or not E.KS.softmax_rows_shift(x, y, outer, R):
                E.KS.softmax_rows_inline(x, y, outer, R, log)
        elif inner == 1:
            k = E.KS.softmax_rows_p if E.parallel(x.size) and outer > 1 else E.KS.softmax_rows
            k(x, y, outer, R, log)
        elif inner < _SMALL_INNER and not E.parallel(x.size):  # Note [Softmax over a small inner size]
            bx, by = np.empty_like(x), np.empty_like(x)
            E.KS.gather_cols(x, bx, outer, R, inner)
            E.KS.softmax_rows_inline(bx, by, outer * inner, R, log)
            E.KS.scatter_cols(by, y, outer, R, inner)
        else:
            k = E.KS.softmax_cols_p if E.parallel(x.size) and outer > 1 else E.KS.softmax_cols
            k(x, y, outer, R, inner, log)
    return E.wrap(y.reshape(self._data.shape), self._dtype)


def _bw_data_cpu(grad_output, output, dim, input_dtype, log):
    # the fused backward of (log_)softmax over the saved output, one pass in the compute dtype
    y = E.kernel_input(output._data)
    go = E.kernel_input(grad_output._data).astype(y.dtype, copy=False)
    axis = E.wrap_dim(dim, y.ndim) if y.ndim else None
    if y.ndim and axis == y.ndim - 1 and y.size and y.dtype.kind == "f" and not E.parallel(y.size):
        # Note [Softmax over short rows]: one pass per row over contiguous rows
        yc, gc = np.ascontiguousarray(y).reshape(-1), np.ascontiguousarray(go).reshape(-1)
        R = y.shape[-1]
        r = np.empty(yc.size, y.dtype)
        E.KS.softmax_backward_rows(gc, yc, r, yc.size // R, R, log)
        return E.wrap(r.reshape(output._data.shape), output._dtype)
    if log:
        r = go - np.exp(y) * go.sum(axis=axis, keepdims=True)
    else:
        gy = go * y
        r = gy - y * gy.sum(axis=axis, keepdims=True)
    return E.wrap(np.ascontiguousarray(r).reshape(output._data.shape), output._dtype)


def _softmax_bw_bw_output(grad, grad_output, output, dim):
    # d/d(output) of grad_output * y - y * sum(grad_output * y): PyTorch's softmax_double_backward
    return grad_output * grad - grad * (output * grad_output).sum(dim, True) - grad_output * (
        output * grad
    ).sum(dim, True)


_softmax_backward_data = defop(
    "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
    cpu=lambda grad_output, output, dim, input_dtype: _bw_data_cpu(grad_output, output, dim, input_dtype, False),
    backward={
        "grad_output": lambda grad, output, dim, input_dtype: dispatch(
            _softmax_backward_data, [grad, output, dim, input_dtype]),
        "output": lambda grad, grad_output, output, dim: _softmax_bw_bw_output(grad, grad_output, output, dim),
    },
)  # fmt: skip
_log_softmax_backward_data = defop(
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
    cpu=lambda grad_output, output, dim, input_dtype: _bw_data_cpu(grad_output, output, dim, input_dtype, True),
    backward={
        "grad_output": lambda grad, output, dim: grad - (grad * output.exp()).sum(dim, True),
        "output": lambda grad, grad_output, output, dim: -grad_output.sum(dim, True) * output.exp() * grad,
    },
)  # fmt: skip


def _declare_softmax(name, log, bw):
    prim, prim_out = _decl(
        f"_{name}(Tensor self, int dim, bool half_to_float) -> Tensor",
        lambda self, dim, half_to_float: _softmax_impl(self, dim, half_to_float, log),
        {"self": lambda grad, self, dim, result: dispatch(bw, [grad, result, dim, self._dtype])},
        out=f"_{name}.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
    )  # fmt: skip

    def composite(self, dim, dtype):
        if dtype is not None and D.to_dtype(dtype) is not self._dtype:
            self = self.to(D.to_dtype(dtype))
        return dispatch(prim, [self, dim, False])

    op = defop(
        f"{name}.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", composite=composite
    )
    op_out = defop(f"{name}.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) -> Tensor(a!)",
                   cpu=lambda self, dim, dtype, out: E.write_out(out, composite(self, dim, dtype)))  # fmt: skip
    what = "log(softmax(x))" if log else "exp(x) / sum(exp(x))"

    def body(input, dim, dtype, out):
        return _call(op, op_out, [input, dim, dtype], out)

    body.__doc__ = f"""``{what}`` along ``dim``, computed stably in one fused kernel.

    >>> numtorch.tensor([[0.0, 0.0]]).{name}(1)
    tensor([[{"-0.6931, -0.6931" if log else "0.5000, 0.5000"}]])
    """
    _fn(name, "input, dim, dtype=None, *, out=None", body)

    def fbody(input, dim, _stacklevel, dtype):
        if dim is None:
            warnings.warn(
                f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                "include dim=X as an argument.",
                UserWarning,
                stacklevel=_stacklevel,
            )
            dim = 0 if input.dim() in (0, 1, 3) else 1
        return dispatch(op, [input, dim, dtype])

    fbody.__doc__ = body.__doc__
    public(name, "input, dim=None, _stacklevel=3, dtype=None", fbody, module="torch.nn.functional")
    return prim, prim_out, op, op_out


_softmax, _softmax_out, softmax, softmax_out = _declare_softmax(
    "softmax", False, _softmax_backward_data
)
_log_softmax, _log_softmax_out, log_softmax, log_softmax_out = _declare_softmax(
    "log_softmax", True, _log_softmax_backward_data
)
