"""gather, scatter (src/value/legacy reduce), scatter_add, scatter_reduce, index_select,
index_add, index_copy, index_fill: ops that move values along one dim by an index tensor.

Offsets come from one kernel (Note [Indexing kernels compute offsets] in
``numtorch/kernels/cpu/indexing.py``); the values then move in one NumPy pass or are combined by
``accumulate_at``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ..._overlap import check_no_internal_overlap
from ..._tensor import Tensor, _make, _wrap_dim
from .._pointwise import _cname
from .._registry import defop, public
from .core import (
    _ADD,
    _INDEX_DTYPES,
    _KERNEL_DTYPES,
    _MAX,
    _MIN,
    _MUL,
    _OUT,
    K,
    _accumulate,
    _atleast1,
    _bad_value,
    _check_no_overlap,
    _cstrides,
    _d,
    _finish,
    _nt,
    _offsets,
    _target,
    _trio,
    _write_out,
    bind,
    parts,
)
from ..shape.inplace import checked_scalar
from . import _grad_np as _gnp
from . import _index_select_grad as _isg


# ---- gather / scatter--------------------------------------------------------------------------
def _check_index_dtype(index: Tensor, fname: str) -> None:
    # scatter_gather_dtype_check: an empty index is never read, so any dtype passes
    if index._dtype not in _INDEX_DTYPES and index._data.size:
        raise RuntimeError(f"{fname}(): Expected dtype int32/int64 for index")


def _gather_cpu(self, dim, index, sparse_grad=False):
    d = _wrap_dim(dim, self._data.ndim)  # PyTorch's meta functions wrap the dim first
    _check_index_dtype(index, "gather")
    a, i = _atleast1(self._data), _atleast1(index._data)
    if a.ndim != i.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(a.ndim):
        if k != d and i.shape[k] > a.shape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(index._data.shape)} to be no "
                f"larger than self {list(self._data.shape)} apart from dimension {d}"
            )
    base, off, st = parts(a)
    offs, bad = _offsets(i.shape, d, a.shape[d], off, st, parts(i))
    if bad >= 0:
        v = _bad_value(i, bad)
        raise RuntimeError(f"index {v} is out of bounds for dimension {d} with size {a.shape[d]}")
    return _make(base[offs].reshape(index._data.shape), self._dtype)


def _scatter_prep(self, dim, index, src, inplace=False, fname="scatter"):
    """Validate like PyTorch's scatter_gather_dtype_check / scatter_shape_check; returns the
    target-relative offsets (C-contiguous layout) and the source values in index order."""
    d = _wrap_dim(dim, self._data.ndim)
    _check_index_dtype(index, fname)
    if isinstance(src, Tensor) and src._dtype is not self._dtype:
        raise RuntimeError(f"{fname}(): Expected self.dtype to be equal to src.dtype")
    shape = self._data.shape or (1,)
    i = _atleast1(index._data)
    if i.ndim != len(shape):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    s = _atleast1(src._data) if isinstance(src, Tensor) else None
    if s is not None and s.ndim != i.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    for k in range(i.ndim):
        if (k != d and i.shape[k] > shape[k]) or (s is not None and i.shape[k] > s.shape[k]):
            msg = f"Expected index {list(index._data.shape)} to be no larger than self {list(self._data.shape)} apart from dimension {d}"
            raise RuntimeError(
                msg
                + (
                    f" and to be no larger size than src {list(src._data.shape)}"
                    if s is not None
                    else ""
                )
            )
    if inplace:  # scatter_meta_impl's overlap checks: before the index bounds
        check_no_internal_overlap(self._data)
        if s is not None:
            _check_no_overlap(self._data, src._data)
    offs, bad = _offsets(i.shape, d, shape[d], 0, _cstrides(shape), parts(i))
    if bad >= 0:
        raise RuntimeError(
            f"index {_bad_value(i, bad)} is out of bounds for dimension {d} with size {shape[d]}"
        )
    if s is None:
        # an empty index reaches no kernel, so the value is never converted (ATen's early return)
        vals = np.full(offs.size, checked_scalar(src, self._dtype) if offs.size else 0, self._dtype.np)
    else:
        vals = np.ascontiguousarray(s[tuple(slice(0, n) for n in i.shape)]).reshape(-1)
    return offs, vals


_LEGACY_WARN = (
    "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
    "future PyTorch release. Use torch.scatter_reduce instead for more reduction options."
)
_LEGACY = {"add": _ADD, "multiply": _MUL}
_REDUCE = {"sum": _ADD, "prod": _MUL, "mean": _ADD, "amax": _MAX, "amin": _MIN}


def _scatter_impl(inplace, self, dim, index, src, reduce=None):
    offs, vals = _scatter_prep(self, dim, index, src, inplace)
    res = _target(self, inplace)
    if reduce is None:
        res.reshape(-1)[offs] = vals
    else:
        if isinstance(src, Tensor):
            warnings.warn(_LEGACY_WARN, UserWarning, stacklevel=4)
        if reduce not in _LEGACY:
            raise RuntimeError("reduce argument must be either add or multiply.")
        _accumulate(res.reshape(-1), offs, vals, _LEGACY[reduce])
    return _finish(self, res, inplace)


def _scatter_add_impl(inplace, self, dim, index, src):
    offs, vals = _scatter_prep(self, dim, index, src, inplace)
    res = _target(self, inplace)
    _accumulate(res.reshape(-1), offs, vals, _ADD)
    return _finish(self, res, inplace)


def _identity(reduce: str, dt: np.dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dt.kind in "fc":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dt) if dt.kind in "iu" else None
    return (info.min if reduce == "amax" else info.max) if info else reduce == "amin"


def _scatter_reduce_impl(inplace, self, dim, index, src, reduce, include_self=True):
    # the meta function's order (dim, src dtype, reduce, index dtype), then the kernel's dispatch
    _wrap_dim(dim, self._data.ndim)
    if src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if reduce not in _REDUCE:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    _check_index_dtype(index, "scatter")
    cat = self._dtype.category
    if (reduce == "mean" and cat == D._BOOL) or (reduce in ("amax", "amin") and cat == D._COMPLEX):
        raise NotImplementedError(f"\"scatter_gather_tensor_cpu_reduce_{reduce}\" not implemented for "
                                  f"'{_cname(self._dtype)}'")  # fmt: skip
    offs, vals = _scatter_prep(self, dim, index, src, inplace)
    res = _target(self, inplace)
    reduce_into(res.reshape(-1), offs, vals, reduce, include_self)
    return _finish(self, res, inplace)


def reduce_into(flat, offs, vals, reduce: str, include_self: bool) -> None:
    """scatter_reduce's kernel step on the flat target (also its fast call's, fast_index)."""
    if not include_self:
        flat[offs] = _identity(reduce, flat.dtype)
    _accumulate(flat, offs, vals, _REDUCE[reduce])
    if reduce == "mean":
        counts = np.full(flat.size, 1 if include_self else 0, np.int64)
        K.count_at(counts, offs)
        counts[counts == 0] = 1
        if flat.dtype.kind in "fc":
            flat[...] = flat / counts
        else:
            flat[...] = np.floor_divide(flat, counts)


def _scatter_reduce_grad(grad, self, dim, index, src, reduce, include_self, result):
    """PyTorch's scatter_reduce_backward (grad_self, grad_src)."""
    nt = _nt()
    if reduce == "sum":
        gs, gsrc = grad, grad.gather(dim, index)
    elif reduce == "mean":
        n = nt.ones_like(grad) if include_self else nt.zeros_like(grad)
        n = n.scatter_add(dim, index, nt.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        gs, gsrc = grad / n, grad.gather(dim, index) / n.gather(dim, index)
    elif reduce == "prod":
        ms = self.masked_fill(self == 0, 1)
        gs = grad * ms.scatter_reduce(dim, index, src, "prod", include_self=include_self) / ms
        zero = src == 0
        nzero = nt.zeros_like(self).scatter_add(dim, index, zero.to(self.dtype)).gather(dim, index)
        single = nt.where(zero, nzero == 1, False)
        msrc = self.scatter_reduce(
            dim, index, src.masked_fill(single, 1), "prod", include_self=include_self
        )
        gsrc = nt.where(single, (grad * msrc).gather(dim, index),
                        (grad * result).gather(dim, index) / src.masked_fill(zero, 1))  # fmt: skip
    else:
        value = result.gather(dim, index)
        self_is, src_is = (self == result).to(grad.dtype), (src == value).to(grad.dtype)
        dist = grad / self_is.scatter_add(dim, index, src_is)
        gs, gsrc = self_is * dist, src_is * dist.gather(dim, index)
    if not include_self:
        gs = gs.scatter(dim, index, 0)
    return gs, gsrc


def _no_grad_reduce(grad):
    raise RuntimeError("derivative for aten::scatter is not implemented")


# Note [Indexing gradients in NumPy]: each formula's NumPy route, else its op (on grad's device)
def _gather_grad(grad, self, dim, index):
    r = _gnp.gather_self(grad, self._data.shape, dim, index)
    return _d(scatter_add, grad.new_zeros(self._data.shape), dim, index, grad) if r is None else r


def _scatter_self_grad(grad, dim, index):
    r = _gnp.scatter_zero(grad, dim, index)
    return _d(scatter_value, grad, dim, index, 0) if r is None else r


def _scatter_src_grad(grad, dim, index):
    r = _gnp.gather_grad(grad, dim, index)
    return _d(gather, grad, dim, index, False) if r is None else r


_GATHER_GRAD = {"self": _gather_grad}
_SRC_GRAD = {"self": _scatter_self_grad, "src": _scatter_src_grad}
_VALUE_GRAD = {"self": _scatter_self_grad}
_ADD_GRAD = {"self": lambda grad: grad, "src": _scatter_src_grad}
_RED_GRAD = {("self", "src"): _scatter_reduce_grad}
_NO_GRAD = {"self": _no_grad_reduce, "src": _no_grad_reduce}
_NO_GRAD_V = {"self": _no_grad_reduce}
_G = "Tensor self, int dim, Tensor index"
gather = defop(
    f"gather({_G}, *, bool sparse_grad=False) -> Tensor", cpu=_gather_cpu, backward=_GATHER_GRAD
)
gather_out = defop(
    f"gather.out({_G}, *, bool sparse_grad=False, {_OUT}",
    cpu=lambda *v: _write_out(v[-1], _gather_cpu(*v[:-1])),
)
scatter_src, scatter_src_, scatter_src_out = _trio(
    "scatter", "int dim, Tensor index, Tensor src", _scatter_impl, _SRC_GRAD, "src", "src_out"
)
scatter_value, scatter_value_, scatter_value_out = _trio(
    "scatter",
    "int dim, Tensor index, Scalar value",
    _scatter_impl,
    _VALUE_GRAD,
    "value",
    "value_out",
)
scatter_reduce_legacy, scatter_reduce_legacy_, scatter_reduce_legacy_out = _trio(
    "scatter",
    "int dim, Tensor index, Tensor src",
    _scatter_impl,
    _NO_GRAD,
    "reduce",
    "reduce_out",
    "str reduce",
)
scatter_vreduce, scatter_vreduce_, scatter_vreduce_out = _trio(
    "scatter",
    "int dim, Tensor index, Scalar value",
    _scatter_impl,
    _NO_GRAD_V,
    "value_reduce",
    "value_reduce_out",
    "str reduce",
)
scatter_add, scatter_add_, scatter_add_out = _trio(
    "scatter_add", "int dim, Tensor index, Tensor src", _scatter_add_impl, _ADD_GRAD
)
scatter_reduce, scatter_reduce_, scatter_reduce_out = _trio(
    "scatter_reduce", "int dim, Tensor index, Tensor src, str reduce", _scatter_reduce_impl, _RED_GRAD, "two", "two_out",
    "bool include_self=True")  # fmt: skip


# ---- index_select / index_add / index_copy / index_fill ----------------------------------------
def _index_select_cpu(self, dim, index):
    nd = self._data.ndim
    d = _wrap_dim(dim, nd)  # index_select_out_cpu_'s order: the dim, the index's shape, then dtype
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if nd == 0 and index._data.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index._data.size} value(s)")
    if index._dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    a, i = _atleast1(self._data), _atleast1(index._data)
    n = a.shape[d]
    if i.size and a.size == 0 and nd > 1 and n == 0:  # index_select_out_cpu_'s empty-self branch
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if i.size and K.first_out_of_range(i, 0, n) >= 0:
        if d == 1 or a.size == 0 and nd > 1:  # PyTorch's CPU kernel for these has its own message
            bad = i[(i < 0) | (i >= n)][0]
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
        raise IndexError("index out of range in self")
    r = np.take(a, i, axis=d)  # pure data movement: one NumPy pass
    return _make(r if nd or i.size != 1 else r.reshape(()), self._dtype)


def _source_view(self_shape, source: Tensor, d: int) -> np.ndarray:
    # a 0-d source fills the whole selected slice
    s = source._data
    if s.ndim or len(self_shape) <= 1:
        return _atleast1(s)
    return np.broadcast_to(s, self_shape[:d] + (1,) + self_shape[d + 1 :])


def _index_func_checks(fname, self, dim, index, source) -> int:
    d = _wrap_dim(dim, self._data.ndim)  # the precompute step wraps the dim before the checks
    if index._data.ndim > 1:
        raise IndexError(f"{fname}_(): Index is supposed to be a vector, but got dim: {index._data.ndim} with type: "
                         f"{_cname(index._dtype)} and size: {list(index._data.shape)}")  # fmt: skip
    if index._dtype not in _INDEX_DTYPES:
        raise RuntimeError(
            f"{fname}_(): Expected dtype int32/int64 for index but got: {_cname(index._dtype)}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(f"{fname}_(): self ({_cname(self._dtype)}) and source ({_cname(source._dtype)}) must "
                           "have the same scalar type")  # fmt: skip
    sn = source._data.ndim
    if not (d == 0 or d < sn):
        raise RuntimeError(
            f"{fname}_(): Indexing dim {d} is out of bounds of the source tensor with dim {sn}"
        )
    n, ss = index._data.size, 1 if sn == 0 else source._data.shape[d]
    if n != ss and sn == 0:  # PyTorch's message reads source.size(dim) of a 0-d source: that raises
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if n != ss:
        raise RuntimeError(
            f"{fname}_(): Number of indices ({n}) should be equal to source.size(dim): ({ss}), for dim: {d}"
        )
    a, b = list(self._data.shape), list(source._data.shape)
    if a and b:
        del a[d], b[d]
    if a != b or sn != self._data.ndim:  # a 0-d operand matches only a 0-d one
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(self._data.shape)} source.shape = {list(source._data.shape)}")  # fmt: skip
    return d


def _slabs(a: np.ndarray, d: int) -> np.ndarray:
    """A C-contiguous array as (outer, size, inner) around dim ``d``: slab-wise loops, no offsets."""
    shape = a.shape or (1,)
    return a.reshape(math.prod(shape[:d]), shape[d], math.prod(shape[d + 1 :]))


def _first_bad(i: np.ndarray, n: int, wrap: bool = False):
    """The first entry of the 1-D index outside [0, n) (or [-n, n) with ``wrap``), or None."""
    pos = K.first_out_of_range(i, -n if wrap else 0, n) if i.size else -1
    return int(i[pos]) if pos >= 0 else None


def _index_add_impl(inplace, self, dim, index, source, alpha=1):
    d = _index_func_checks("index_add", self, dim, index, source)
    if inplace:  # the meta function's overlap checks, before the kernel's index bounds
        check_no_internal_overlap(self._data)
        _check_no_overlap(self._data, source._data)
    res = _target(self, inplace)
    s, i = _source_view(res.shape or (1,), source, d), _atleast1(index._data)
    dst, src = _slabs(res, d), _slabs(np.ascontiguousarray(s), d)
    if not (type(alpha) in (int, float) and alpha == 1):
        src = src * checked_scalar(alpha, self._dtype)
    # no slice read, or (past 1-D) an empty self: index_add_cpu_ returns before its bounds check
    bad = _first_bad(i, dst.shape[1]) if source._data.size and (res.ndim <= 1 or res.size) else None
    if bad is not None:
        if res.ndim <= 1:
            raise IndexError("index out of range in self")
        raise RuntimeError(
            f"index {bad} is out of bounds for dimension {d} with size {dst.shape[1]}"
        )
    if not res.size:  # nothing to write (and past 1-D no bounds check): neither path may index it
        return _finish(self, res, inplace)
    if res.dtype in _KERNEL_DTYPES:
        K.add_slabs(dst.reshape(-1), src.reshape(-1), i.astype(np.int64, copy=False), *dst.shape, 0)
    else:  # float16, small ints, bool, complex: NumPy's unbuffered add (C loop)
        np.add.at(dst, (slice(None), i), src)
    return _finish(self, res, inplace)


def _index_copy_impl(inplace, self, dim, index, source):
    _wrap_dim(dim, self._data.ndim)  # index_copy's meta function wraps the dim first
    if index._data.ndim > 1:
        raise IndexError(
            f"index_copy_(): Index should have dimension 1 or 0 (got {index._data.ndim})"
        )
    n, sn, nd = index._data.size, source._data.ndim, self._data.ndim
    if sn == 0 and n != 1:
        raise IndexError(
            f"index_copy_(): When source is scalar, index should have one element (got {n})"
        )
    if sn != nd and sn and nd:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({sn}), destination dimensionality ({nd})")  # fmt: skip
    if index._dtype is not D.int64:
        raise RuntimeError(
            f"index_copy_(): Expected a long tensor for index, but got {_cname(index._dtype)}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_cname(self._dtype)} and (source) {_cname(source._dtype)}")  # fmt: skip
    d = _wrap_dim(dim, nd)
    a, b = list(self._data.shape), list(source._data.shape)
    if a:
        del a[d]
    if b:
        del b[d]
    if a != b:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, a))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, b))} at dimension 0.")  # fmt: skip
    if sn and n != source._data.shape[d]:
        raise IndexError(
            f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({source._data.shape[d]})"
        )
    if inplace:  # the meta function's overlap checks, before the kernel's index bounds
        check_no_internal_overlap(self._data)
        _check_no_overlap(self._data, source._data)
    res = _target(self, inplace)
    s, i = _source_view(res.shape or (1,), source, d), _atleast1(index._data)
    dst = _slabs(res, d)
    # the kernel iterates over self's other dims times the index: when they hold no element it never
    # runs, so no index is checked (an empty dim `d` with others non-empty fails in torch's restriding)
    bad = _first_bad(i, dst.shape[1]) if dst.shape[0] * dst.shape[2] else None
    if bad is not None:
        raise IndexError(
            f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {dst.shape[1]}"
        )
    if dst.size:
        dst[:, i] = _slabs(np.ascontiguousarray(s), d)  # pure data movement: one NumPy pass
    return _finish(self, res, inplace)


def _index_fill_impl(inplace, self, dim, index, value):
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")  # fmt: skip
    if index._dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    complex_value = value._dtype.is_complex if isinstance(value, Tensor) else isinstance(value, complex)
    if complex_value and not self._dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    d = _wrap_dim(dim, self._data.ndim)  # index_fill_'s order: the dim, the index's shape, the value
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    v = checked_scalar(value, self._dtype)
    i, n = _atleast1(index._data), (self._data.shape or (1,))[d]
    bad = _first_bad(i, n, wrap=True)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    if inplace and self._data.ndim and not self._data.flags.c_contiguous:
        # only the indexed slots are written, as ATen's kernel does: through an expanded self,
        # every alias of a filled slot then reads the value (a copy written back: the last wins)
        self._data[(slice(None),) * d + (i,)] = v
        self._vc[0] += 1
        return self
    res = _target(self, inplace)
    _slabs(res, d)[:, i] = v
    return _finish(self, res, inplace)


def _select_grad(grad, dim, index):
    r = _gnp.index_select_grad(grad, dim, index)
    return _d(index_select, grad, dim, index) if r is None else r


def _index_add_source_grad(grad, dim, index, source, alpha):
    g = _select_grad(grad, dim, index)
    return g if type(alpha) in (int, float) and alpha == 1 else g * alpha


def _fill0_grad(grad, dim, index):
    r = _gnp.index_fill_zero(grad, dim, index)
    return _d(index_fill, grad, dim, index, 0) if r is None else r


def _fill_value_grad(grad, dim, index):
    # derivatives.yaml: grad.index_select(dim, _unique(index)).sum(): a repeated index fills once
    from ..reduction.sorting import unique2

    return _select_grad(grad, dim, _d(unique2, index, False, False, False)[0]).sum()


_FILL0 = {"self": _fill0_grad}
index_select = defop(
    f"index_select({_G}) -> Tensor",
    cpu=_index_select_cpu,
    # Note [index_select's gradient in NumPy]
    backward={"self": lambda grad, self_sym_sizes, dim, index: _isg.backward(grad, self_sym_sizes, dim, index, index_add)},
)
index_select_out = defop(
    f"index_select.out({_G}, *, {_OUT}",
    cpu=lambda *v: _write_out(v[-1], _index_select_cpu(*v[:-1])),
)
index_add, index_add_, index_add_out = _trio("index_add", "int dim, Tensor index, Tensor source", _index_add_impl,
                                             {"self": lambda grad: grad, "source": _index_add_source_grad}, kw="Scalar alpha=1")  # fmt: skip
index_copy, index_copy_, index_copy_out = _trio(
    "index_copy",
    "int dim, Tensor index, Tensor source",
    _index_copy_impl,
    {**_FILL0, "source": _select_grad},
)
index_fill, index_fill_, index_fill_out = _trio("index_fill", "int dim, Tensor index, Scalar value", _index_fill_impl,
                                                _FILL0, "int_Scalar", "int_Scalar_out")  # fmt: skip
index_fill_t, index_fill_t_, index_fill_t_out = _trio(
    "index_fill",
    "int dim, Tensor index, Tensor value",
    _index_fill_impl,
    {**_FILL0, "value": _fill_value_grad},
    "int_Tensor",
    "int_Tensor_out",
)


# ---- public bindings -----------------------------------------------------------------------------
def _scatter_pick(v, inplace=False):
    src, value, reduce = v[3], v[4], v[5]
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    tensor = isinstance(src, Tensor)
    table = ((scatter_value, scatter_value_, scatter_vreduce, scatter_vreduce_),
             (scatter_src, scatter_src_, scatter_reduce_legacy, scatter_reduce_legacy_))[tensor]  # fmt: skip
    return table[2 * (reduce is not None) + inplace]


def _scatter_body(input, dim, index, src=None, value=None, reduce=None, out=None):
    """Write ``src`` (or the scalar ``value``) into a copy of ``input`` at ``index`` along ``dim``
    (``out[i][index[i][j]] = src[i][j]`` for dim 1); ``reduce="add"|"multiply"`` combines instead.

    >>> numtorch.zeros(2, 3).scatter(1, numtorch.tensor([[2], [0]]), 1.0)
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
    """
    v = src if src is not None else value
    op = _scatter_pick((input, dim, index, src, value, reduce))
    args = [input, dim, index, v] + ([reduce] if reduce is not None else [])
    if out is None:
        return _d(op, *args)
    outs = {scatter_src: scatter_src_out, scatter_value: scatter_value_out,
            scatter_reduce_legacy: scatter_reduce_legacy_out, scatter_vreduce: scatter_vreduce_out}  # fmt: skip
    return _d(outs[op], *args, out)


def _scatter__body(self, dim, index, src=None, value=None, reduce=None):
    """In-place ``scatter``.

    >>> numtorch.zeros(3).scatter_(0, numtorch.tensor([1]), numtorch.tensor([5.0]))
    tensor([0., 5., 0.])
    """
    v = src if src is not None else value
    return _d(_scatter_pick((self, dim, index, src, value, reduce), True), self, dim, index, v,
              *([reduce] if reduce is not None else []))  # fmt: skip


_SC = "dim, index, src=None, *, value=None, reduce=None"
public(
    "scatter",
    f"input, {_SC}, out=None",
    _scatter_body,
    relevant=("input", "index", "src"),
    ops=(scatter_src,),
)
public(
    "scatter",
    f"self, {_SC}",
    _scatter_body,
    relevant=("self", "index", "src"),
    module="Tensor",
    ops=(scatter_src,),
)
public(
    "scatter_",
    f"self, {_SC}",
    _scatter__body,
    relevant=("self", "index", "src"),
    module="Tensor",
    ops=(scatter_src_,),
)
bind("gather", "dim, index, *, sparse_grad=False", gather, gather_out, rel=("input", "index"), doc="""Values of
    ``input`` along ``dim`` at the positions in ``index`` (``out[i][j] = input[i][index[i][j]]`` for dim 1).

    >>> numtorch.gather(numtorch.tensor([[1, 2], [3, 4]]), 1, numtorch.tensor([[1, 1], [0, 1]]))
    tensor([[2, 2],
            [3, 4]])
    """)  # fmt: skip
bind("scatter_add", "dim, index, src", scatter_add, scatter_add_out, scatter_add_, rel=("input", "index", "src"), tensor_at=3, doc="""
    ``input`` with ``src`` added at ``index`` along ``dim``; repeated indices accumulate.

    >>> numtorch.zeros(3).scatter_add(0, numtorch.tensor([0, 0, 2]), numtorch.ones(3))
    tensor([2., 0., 1.])
    """)  # fmt: skip
bind("scatter_reduce", "dim, index, src, reduce, *, include_self=True", scatter_reduce, scatter_reduce_out,
     scatter_reduce_, rel=("input", "index", "src"), tensor_at=3, doc="""``src`` reduced into ``input`` at ``index``
    along ``dim`` with ``reduce`` in "sum", "prod", "mean", "amax", "amin" (``include_self``: whether
    ``input``'s values take part).

    >>> numtorch.tensor([1.0, 2.0]).scatter_reduce(0, numtorch.tensor([0, 0]), numtorch.tensor([5.0, 3.0]), "amax")
    tensor([5., 2.])
    """)  # fmt: skip
bind("index_select", "dim, index", index_select, index_select_out, rel=("input", "index"), doc="""The entries of
    ``input`` along ``dim`` at the positions in the 1-D ``index``.

    >>> numtorch.index_select(numtorch.tensor([[1, 2], [3, 4]]), 1, numtorch.tensor([1]))
    tensor([[2],
            [4]])
    """)  # fmt: skip
bind("index_add", "dim, index, source, *, alpha=1", index_add, index_add_out, index_add_, rel=("input", "index", "source"), tensor_at=3,
     doc="""``input`` with ``alpha * source`` added to the slices along ``dim`` that ``index`` names.

    >>> numtorch.zeros(3).index_add(0, numtorch.tensor([0, 0]), numtorch.tensor([1.0, 2.0]))
    tensor([3., 0., 0.])
    """)  # fmt: skip
bind("index_copy", "dim, index, source", index_copy, index_copy_out, index_copy_, rel=("input", "index", "source"), tensor_at=3,
     doc="""``input`` with the slices along ``dim`` that ``index`` names replaced by ``source``'s.

    >>> numtorch.zeros(3).index_copy(0, numtorch.tensor([2]), numtorch.tensor([7.0]))
    tensor([0., 0., 7.])
    """)  # fmt: skip
bind("index_fill", "dim, index, value", index_fill, None, index_fill_, rel=("input", "index"),
     pick=lambda v, inplace=False: ((index_fill_t, index_fill_t_) if isinstance(v[3], Tensor) else (index_fill, index_fill_))[inplace],
     doc="""``input`` with the slices along ``dim`` that ``index`` names set to ``value``.

    >>> numtorch.zeros(2, 2).index_fill(1, numtorch.tensor([0]), 1.0)
    tensor([[1., 0.],
            [1., 0.]])
    """)  # fmt: skip
