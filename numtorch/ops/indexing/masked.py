"""Mask and flat-index ops: masked_fill/select/scatter, where, nonzero/argwhere, take, put,
take_along_dim, bincount, searchsorted/bucketize."""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ..._overlap import check_no_internal_overlap
from ..._tensor import Tensor, _make, _wrap_dim
from ...kernels import lazy
from .._formula_np import plain, wrap
from .._pointwise import Pointwise, _broadcast, _cname
from .._registry import defop, public
from .core import (
    _ADD,
    _bcast,
    _OUT,
    K,
    _accumulate,
    _bad_value,
    _check_no_overlap,
    _d,
    _finish,
    _offsets,
    _t,
    _target,
    _trio,
    _write_out,
    bind,
    parts,
)
from . import _grad_np as _gnp
from .scatter import scatter_add
from ..shape.inplace import checked_scalar

# caffe2's TypeMeta names, which masked_fill_'s error prints
_META = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
         "int8": "signed char", "uint8": "unsigned char", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
         "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}  # fmt: skip


def _check_out_shape(a: np.ndarray, other_shape) -> None:
    shape = _broadcast([a.shape, other_shape])
    if shape != a.shape:
        raise RuntimeError(
            f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(shape)}"
        )


def _masked_result(inplace, self, mask) -> np.ndarray:
    """The array a masked op writes: self's (checked to hold the broadcast) or a broadcast copy."""
    if inplace:
        _check_out_shape(self._data, mask._data.shape)
        return _target(self, True)
    shape = _broadcast([mask._data.shape, self._data.shape])
    if shape == self._data.shape:  # the mask broadcasts into self: a plain copy (no broadcast_to)
        return np.array(self._data, order="C")
    return np.array(np.broadcast_to(self._data, shape), order="C")


# ---- masked_fill / masked_select / masked_scatter ----------------------------------------------
def _masked_fill_impl(inplace, self, mask, value):
    if mask._dtype is not D.bool:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {_META[mask._dtype.name]}"
        )
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")  # fmt: skip
    if self._dtype._rank > 10:  # Note [Wide unsigned dtypes]: no kernel, even when empty; the
        if inplace:  # broadcast check first (fill_diagonal_ of these dtypes takes another route)
            _check_out_shape(self._data, mask._data.shape)
        else:
            _broadcast([mask._data.shape, self._data.shape])
        raise NotImplementedError(f"\"masked_fill\" not implemented for '{_cname(self._dtype)}'")
    v = checked_scalar(value, self._dtype)
    if inplace:
        # written through self's own strides, as ATen's kernel: through an expanded self any
        # alias the mask selects takes the value (a copy written back let the last alias win)
        _check_out_shape(self._data, mask._data.shape)
        np.copyto(self._data, v, where=mask._data)
        return _finish(self, self._data, True)
    res = _masked_result(False, self, mask)
    np.copyto(res, v, where=mask._data)
    return _finish(self, res, False)


def _masked_select_cpu(self, mask):
    if mask._dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    a, m = self._data, mask._data
    if a.shape == m.shape:  # nothing to broadcast: np.broadcast_to's two views cost ~5 us small
        return _make(a[m], self._dtype)
    shape = _broadcast([a.shape, m.shape])
    return _make(np.broadcast_to(a, shape)[np.broadcast_to(m, shape)], self._dtype)


def _masked_select_grad(grad, self, mask):
    shape = _broadcast([self._data.shape, mask._data.shape])
    return _d(masked_scatter, grad.new_zeros(shape), mask, grad)


def _masked_scatter_impl(inplace, self, mask, source):
    if mask._dtype is not D.bool:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {_cname(mask._dtype)}"
        )
    if inplace:  # masked_scatter__cpu checks the written-to memory after the mask's dtype
        check_no_internal_overlap(self._data)
    if source._dtype is not self._dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{_cname(self._dtype)} and {_cname(source._dtype)}")  # fmt: skip
    res = _masked_result(inplace, self, mask)
    m = _bcast(mask._data, res.shape)
    k = int(np.count_nonzero(m))
    if source._data.size < k:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    res[m] = source._data.reshape(-1)[:k]
    return _finish(self, res, inplace)


def _masked_scatter_backward_cpu(grad_output, mask, sizes):
    g = grad_output._data
    sel = g[_bcast(mask._data, g.shape)]
    out = np.zeros(int(np.prod(sizes, dtype=np.int64)), g.dtype)
    out[: sel.size] = sel
    return _make(out.reshape(sizes), grad_output._dtype)


def _mask0_grad(grad, mask):  # Note [Indexing gradients in NumPy]: NumPy's route, else the op
    r = _gnp.masked_zero(grad, mask)
    return _d(masked_fill, grad, mask, 0) if r is None else r


def _where_self_grad(grad, condition):
    r = _gnp.where_grad(grad, condition, True)
    return _d(where_so, condition, grad, 0) if r is None else r


def _where_other_grad(grad, condition):
    r = _gnp.where_grad(grad, condition, False)
    return _d(where_ss, condition, 0, grad) if r is None else r


def _masked_scatter_source_grad(grad, mask, source):
    if _gnp.mask_of(grad, mask) is not None:  # the op's own kernel, not dispatched
        return _masked_scatter_backward_cpu(grad, mask, list(source._data.shape))
    return _d(masked_scatter_backward, grad, mask, list(source._data.shape))


_MASK0 = {"self": _mask0_grad}
masked_fill, masked_fill_, masked_fill_out = _trio("masked_fill", "Tensor mask, Scalar value", _masked_fill_impl,
                                                   _MASK0, "Scalar", "Scalar_out")  # fmt: skip
masked_fill_t, masked_fill_t_, masked_fill_t_out = _trio(
    "masked_fill",
    "Tensor mask, Tensor value",
    _masked_fill_impl,
    {**_MASK0, "value": lambda grad, mask: _where_self_grad(grad, mask).sum()},
    "Tensor",
    "Tensor_out",
)
masked_select = defop("masked_select(Tensor self, Tensor mask) -> Tensor", cpu=_masked_select_cpu,
                      backward={"self": _masked_select_grad})  # fmt: skip
masked_select_out = defop(f"masked_select.out(Tensor self, Tensor mask, *, {_OUT}",
                          cpu=lambda s, m, out: _write_out(out, _masked_select_cpu(s, m)))  # fmt: skip
masked_scatter_backward = defop(
    "masked_scatter_backward(Tensor grad_output, Tensor mask, SymInt[] sizes) -> Tensor",
    cpu=_masked_scatter_backward_cpu,
    backward={
        "grad_output": lambda grad, grad_output, mask: _d(
            masked_scatter, grad.new_zeros(grad_output._data.shape), mask, grad
        )
    },
)
masked_scatter, masked_scatter_, masked_scatter_out = _trio(
    "masked_scatter",
    "Tensor mask, Tensor source",
    _masked_scatter_impl,
    {
        **_MASK0,
        "source": _masked_scatter_source_grad,
    },
)


# ---- where / nonzero ---------------------------------------------------------------------------
_WHERE = Pointwise("where", ["condition", "self", "other"], "self if condition != 0 else other")


def _where_cpu(condition, self, other, out=None):
    if (out is None and condition._dtype is D.bool and self.__class__ is Tensor and other.__class__ is Tensor
            and self._dtype is other._dtype and self._dtype._rank <= 10
            and condition._data.shape == self._data.shape == other._data.shape):  # fmt: skip
        # one dtype, one shape: a select, nothing to promote or broadcast; the engine's route cast
        # the condition to the compute dtype first (9 -> ~3 us small)
        return _make(np.where(condition._data, self._data, other._data), self._dtype)
    if condition._dtype is not D.bool:
        if condition._dtype is not D.uint8:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{_cname(condition._dtype)}")  # fmt: skip
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in "
                      "a future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=5)  # fmt: skip
        condition = _make(condition._data != 0, D.bool)
    for num, t in ((self, other), (other, self)):
        if type(num) is int and isinstance(t, Tensor) and t._dtype.category == D._INT:
            checked_scalar(num, t._dtype)  # the result keeps t's dtype: a number out of its range is refused
    for x in (self, other):  # a bool condition takes no part in promotion (Note [Wide unsigned dtypes])
        if isinstance(x, Tensor) and x._dtype._rank > 10:
            condition = _make(condition._data.astype(x._dtype.np), x._dtype)
    return _WHERE([condition, self, other], out=out)


def _nonzero_numpy_cpu(self):
    return [_t(a.astype(np.int64)) for a in np.nonzero(np.atleast_1d(self._data))]


_WG = {"self": _where_self_grad, "other": _where_other_grad}
where_self = defop(
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    cpu=_where_cpu,
    backward=_WG,
)
where_so = defop("where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor", cpu=_where_cpu,
                 backward={"self": _WG["self"]})  # fmt: skip
where_ss = defop("where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor", cpu=_where_cpu,
                 backward={"other": _WG["other"]})  # fmt: skip
where_scalar = defop(
    "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", cpu=_where_cpu
)
where_out = defop(
    f"where.self_out(Tensor condition, Tensor self, Tensor other, *, {_OUT}", cpu=_where_cpu
)
where_cond = defop(
    "where(Tensor condition) -> Tensor[]", composite=lambda condition: _d(nonzero_numpy, condition)
)
_ARGWHERE_KERNEL = frozenset(np.dtype(t) for t in ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"))
_KC = lazy("numtorch.kernels.cpu.counting")
_AW_ENTRIES: dict = {}  # (np dtype, ndim) -> argwhere_rows' compiled entry


def argwhere_array(a: np.ndarray) -> np.ndarray:
    """np.argwhere(a) as a C-contiguous int64 array. A C-contiguous array of a kernel dtype:
    np.count_nonzero, then argwhere_rows writes the rows (small: np.nonzero, np.array and a
    transpose copy took 1.5 us; 131072 float32: np.argwhere 0.9 ms). Else, up to 4096
    elements, np.nonzero's coordinates in one np.array (np.argwhere's transpose and int64 copy
    are ~2x that there), above it np.argwhere."""
    f = a.flags
    if a.ndim and a.dtype in _ARGWHERE_KERNEL and f.c_contiguous and f.aligned:
        out = np.empty((np.count_nonzero(a), a.ndim), np.int64)
        x = a.ravel()
        e = _AW_ENTRIES.get((a.dtype, a.ndim))
        if e is None:  # the dispatcher's type resolution once per (dtype, rank): ~0.6 us a call
            from ..reduction._reduce import _entry

            _KC.argwhere_rows(x, a.shape, out)
            _AW_ENTRIES[a.dtype, a.ndim] = _entry(_KC.argwhere_rows, (x, a.shape, out))
        else:
            e(x, a.shape, out)
        return out
    if not a.ndim or a.size > 4096:
        return np.ascontiguousarray(np.argwhere(a), np.int64)  # argwhere is a transposed view
    return np.array(np.nonzero(a), np.int64).T.copy()


nonzero = defop(
    "nonzero(Tensor self) -> Tensor", cpu=lambda self: _t(argwhere_array(self._data))
)
nonzero_out = defop(
    f"nonzero.out(Tensor self, *, {_OUT}", cpu=lambda self, out: _write_out(out, _d(nonzero, self))
)
nonzero_numpy = defop("nonzero_numpy(Tensor self) -> Tensor[]", cpu=_nonzero_numpy_cpu)
argwhere = defop("argwhere(Tensor self) -> Tensor", composite=lambda self: _d(nonzero, self))


# ---- take / put / take_along_dim -----------------------------------------------------------------
def _flat_index(index: Tensor, n: int, fname: str, bounds: bool = True) -> np.ndarray:
    if index._dtype is not D.int64:
        raise RuntimeError(
            f"{fname}(): Expected a long tensor for index, but got {_cname(index._dtype)}"
        )
    i = index._data
    if i.size:
        if n == 0:
            raise IndexError(f"{fname}(): tried to take from an empty tensor" if fname == "take" else
                             "put_(): Tried to put elements into an empty tensor")  # fmt: skip
        if bounds:
            _in_bounds(i, n)
    return i


def _in_bounds(i: np.ndarray, n: int) -> None:
    flat = i.reshape(-1)
    pos = K.first_out_of_range(flat, -n, n) if flat.size else -1
    if pos >= 0:
        raise IndexError(f"out of range: tried to access index {flat[pos]} on a tensor of {n} elements.")


def _take_cpu(self, index):
    a = self._data
    return _make(a.reshape(-1)[_flat_index(index, a.size, "take")], self._dtype)


def _put_impl(inplace, self, index, source, accumulate=False):
    if index._dtype is not D.int64:
        _flat_index(index, 0, "put_")  # its dtype error
    if source._dtype is not self._dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_cname(self._dtype)} and source.dtype = {_cname(source._dtype)}")  # fmt: skip
    if source._data.size != index._data.size:
        raise IndexError("put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source._data.size}, index.numel() = {index._data.size}")  # fmt: skip
    i = _flat_index(index, self._data.size, "put_", bounds=False)
    if inplace:  # torch's put_: the overlap checks, then the kernel's bounds check
        check_no_internal_overlap(self._data)
        _check_no_overlap(self._data, source._data)
    _in_bounds(i, self._data.size)
    res = _target(self, inplace)
    flat = res.reshape(-1)
    i = i.reshape(-1)
    i = np.where(i < 0, i + flat.size, i)
    src = np.ascontiguousarray(source._data).reshape(-1)
    if accumulate:
        _accumulate(flat, i, src, _ADD)
    else:
        flat[i] = src
    return _finish(self, res, inplace)


def _tad_shapes(self, indices, dim):
    if self._data.ndim != indices._data.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {self._data.ndim} dimensions for input, and {indices._data.ndim} dimensions for "
                           "indices")  # fmt: skip
    if indices._dtype is not D.int64:
        raise RuntimeError(
            f"torch.take_along_dim(): dtype of indices should be Long but got {_cname(indices._dtype)}"
        )
    d = _wrap_dim(dim, self._data.ndim)
    s, i = list(self._data.shape), list(indices._data.shape)
    s[d], i[d] = i[d], s[d]
    return d, _broadcast([i, list(self._data.shape)]), _broadcast([s, list(indices._data.shape)])


def _take_along_dim_cpu(self, indices, dim=None):
    if dim is None:
        if indices._dtype is not D.int64:
            raise RuntimeError(
                f"torch.take_along_dim(): dtype of indices should be Long but got {_cname(indices._dtype)}"
            )
        i = np.ascontiguousarray(indices._data).reshape(-1)
        a, shape, d, wrap = self._data.reshape(-1), i.shape, 0, False
    else:
        d, sshape, shape = _tad_shapes(self, indices, dim)
        a, i, wrap = (
            np.broadcast_to(self._data, sshape),
            np.broadcast_to(indices._data, shape),
            True,
        )
        if not shape:
            a, i, shape = a.reshape(1), i.reshape(1), (1,)
    base, off, st = parts(a)
    offs, bad = _offsets(shape, d, a.shape[d], off, st, parts(i), wrap)
    if bad >= 0:
        raise RuntimeError(
            f"index {_bad_value(i, bad)} is out of bounds for dimension {d} with size {a.shape[d]}"
        )
    return _make(
        base[offs].reshape(
            i.shape if dim is None else np.broadcast_shapes(indices._data.shape, shape)
        ),
        self._dtype,
    )


def _take_along_dim_grad(grad, self, indices, dim):
    if dim is None:
        return _d(put, grad.new_zeros(self._data.shape), indices, grad, True)
    d, sshape, shape = _tad_shapes(self, indices, dim)
    r = _gnp.gather_self(grad, sshape, d, indices, wrap=True)  # Note [Indexing gradients in NumPy]
    if r is not None:
        return r
    if plain(grad) and indices.__class__ is Tensor and indices._device is grad._device:
        # Note [Backward formulas in NumPy]: the same scatter_add of the broadcast indices
        i = list(np.ix_(*(np.arange(n) for n in shape)))
        i[d] = np.broadcast_to(indices._data, shape) % sshape[d]
        out = np.zeros(sshape, grad._data.dtype)
        np.add.at(out, tuple(i), np.broadcast_to(grad._data, shape))
        return wrap(out, grad)
    # tensor ops, not the index array: under vmap ``indices`` holds every sample's values
    i = indices.expand(shape) % sshape[d]
    return _d(scatter_add, grad.new_zeros(sshape), d, i, grad)


def _put_source_grad(grad, index, source):
    r = _gnp.take_grad(grad, index, source._data.shape)
    return _d(take, grad, index.reshape(source._data.shape)) if r is None else r


def _put_self_grad(grad, index, source, accumulate):
    if accumulate:
        return grad
    r = _gnp.put_zero(grad, index)
    return _d(put, grad, index, grad.new_zeros(source._data.shape), False) if r is None else r


def _take_grad(grad, self, index):
    r = _gnp.take_self(grad, self._data.shape, index)
    return _d(put, grad.new_zeros(self._data.shape), index, grad, True) if r is None else r


_PUT_GRAD = {"self": _put_self_grad, "source": _put_source_grad}
take = defop(
    "take(Tensor self, Tensor index) -> Tensor",
    cpu=_take_cpu,
    backward={"self": _take_grad},
)
take_out = defop(
    f"take.out(Tensor self, Tensor index, *, {_OUT}",
    cpu=lambda s, i, out: _write_out(out, _take_cpu(s, i)),
)
put = defop("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
            cpu=lambda *v: _put_impl(False, *v), backward=_PUT_GRAD)  # fmt: skip
put_ = defop("put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)",
             cpu=lambda *v: _put_impl(True, *v), backward=_PUT_GRAD)  # fmt: skip
take_along_dim = defop("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
                       cpu=_take_along_dim_cpu, backward={"self": _take_along_dim_grad})  # fmt: skip
take_along_dim_out = defop(f"take_along_dim.out(Tensor self, Tensor indices, int? dim=None, *, {_OUT}",
                           cpu=lambda s, i, d, out: _write_out(out, _take_along_dim_cpu(s, i, d)))  # fmt: skip


# ---- bincount / searchsorted / bucketize ---------------------------------------------------------
def _bincount_cpu(self, weights=None, minlength=0):
    if self._dtype.category != D._INT:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_cname(self._dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    a = self._data
    if a.ndim == 1 and a.size == 0:
        return _t(np.zeros(minlength, np.int64))
    if a.ndim != 1 or a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.size != a.size):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n, i = max(int(a.max()) + 1, minlength), a.astype(np.int64)
    if weights is None:
        counts = np.zeros(n, np.int64)
        K.count_at(counts, i)
        return _t(counts)
    dt = D.float32 if weights._dtype is D.float32 else D.float64
    out = np.zeros(n, dt.np)
    _accumulate(out, i, weights._data.astype(dt.np), _ADD)
    return _make(out, dt)


_SEARCH_NP = {"float16": np.float32, "int8": np.int64, "int16": np.int64, "uint8": np.int64}


def _searchsorted_cpu(seq, self, out_int32=False, right=False, side=None, sorter=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if side == "left" and right:
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")  # fmt: skip
        right = side == "right"
    b = seq._data
    v = self._data if isinstance(self, Tensor) else np.array(self)
    if b.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if b.ndim > 1 and b.shape[:-1] != v.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           f"of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(b.shape)} and input value tensor {list(v.shape)}")  # fmt: skip
    if sorter is not None:
        if sorter._dtype is not D.int64:
            raise RuntimeError(
                f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype {_cname(sorter._dtype)}"
            )
        if sorter._data.shape != b.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(b.shape)}and got sorter tensor {list(sorter._data.shape)}")  # fmt: skip
        b = np.take_along_axis(b, sorter._data, -1)
    ct = (
        D.result_type_of([seq._dtype], [], [self])
        if not isinstance(self, Tensor)
        else D.promote_types(seq._dtype, self._dtype)
    )
    if ct.category not in (D._INT, D._FLOAT):
        raise NotImplementedError(f"\"searchsorted_out_cpu\" not implemented for '{_cname(ct)}'")
    npc = _SEARCH_NP.get(ct.name, ct.np)
    # Both sides are cast to the common dtype first (an int64 past float16's range is inf
    # against float16 boundaries, as in PyTorch), then widened for the kernel.
    with np.errstate(over="ignore"):
        b, v = np.asarray(b).astype(ct.np, copy=False), np.asarray(v).astype(ct.np, copy=False)
    bf, vf = np.ascontiguousarray(b, npc).reshape(-1), np.ascontiguousarray(v, npc).reshape(-1)
    out = np.zeros(vf.size, np.int32 if out_int32 else np.int64)
    nb = b.shape[-1]
    if vf.size:
        nv = vf.size if b.ndim == 1 else v.shape[-1]
        res = np.empty(vf.size, np.int64)
        K.search_rows(bf, nb if b.ndim > 1 else 0, nb, vf, nv, bool(right), res)
        out[...] = res
    return _make(out.reshape(v.shape), D.int32 if out_int32 else D.int64)


def _bucketize_cpu(self, boundaries, out_int32=False, right=False):
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return _searchsorted_cpu(boundaries, self, out_int32, right)


bincount = defop(
    "bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor", cpu=_bincount_cpu
)
_SS = "*, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None"
searchsorted = defop(
    f"searchsorted.Tensor(Tensor sorted_sequence, Tensor self, {_SS}) -> Tensor",
    cpu=_searchsorted_cpu,
)
searchsorted_s = defop(
    f"searchsorted.Scalar(Tensor sorted_sequence, Scalar self, {_SS}) -> Tensor",
    cpu=_searchsorted_cpu,
)
searchsorted_out = defop(f"searchsorted.Tensor_out(Tensor sorted_sequence, Tensor self, {_SS}, {_OUT}",
                         cpu=lambda *v: _write_out(v[-1], _searchsorted_cpu(*v[:-1])))  # fmt: skip
_BK = "*, bool out_int32=False, bool right=False"
bucketize = defop(
    f"bucketize.Tensor(Tensor self, Tensor boundaries, {_BK}) -> Tensor", cpu=_bucketize_cpu
)
bucketize_s = defop(
    f"bucketize.Scalar(Scalar self, Tensor boundaries, {_BK}) -> Tensor", cpu=_bucketize_cpu
)
bucketize_out = defop(f"bucketize.Tensor_out(Tensor self, Tensor boundaries, {_BK}, {_OUT}",
                      cpu=lambda *v: _write_out(v[-1], _bucketize_cpu(*v[:-1])))  # fmt: skip


# ---- public bindings -----------------------------------------------------------------------------
def _tensor_pick(scalar_ops, tensor_ops, pos):
    return lambda v, inplace=False: (tensor_ops if isinstance(v[pos], Tensor) else scalar_ops)[
        inplace
    ]


bind("masked_fill", "mask, value", masked_fill, None, masked_fill_, rel=("input", "mask", "value"),
     pick=_tensor_pick((masked_fill, masked_fill_), (masked_fill_t, masked_fill_t_), 2), doc="""``input`` with
    ``value`` where the bool ``mask`` (broadcast) is True.

    >>> numtorch.zeros(3).masked_fill(numtorch.tensor([True, False, True]), 2.0)
    tensor([2., 0., 2.])
    """)  # fmt: skip
bind("masked_select", "mask", masked_select, masked_select_out, rel=("input", "mask"), doc="""The 1-D tensor of
    ``input``'s entries where the bool ``mask`` (broadcast with ``input``) is True.

    >>> numtorch.masked_select(numtorch.tensor([[1, 2], [3, 4]]), numtorch.tensor([True, False]))
    tensor([1, 3])
    """)  # fmt: skip
bind("masked_scatter", "mask, source", masked_scatter, None, masked_scatter_, rel=("input", "mask", "source"), doc="""
    ``input`` with the True positions of ``mask`` filled, in order, from ``source``'s leading elements.

    >>> numtorch.zeros(3).masked_scatter(numtorch.tensor([True, False, True]), numtorch.tensor([1.0, 2.0]))
    tensor([1., 0., 2.])
    """)  # fmt: skip
bind("take", "index", take, take_out, rel=("input", "index"), doc="""``input`` read as 1-D at ``index``
    (negative entries count from the end); the result has ``index``'s shape.

    >>> numtorch.take(numtorch.tensor([[1, 2], [3, 4]]), numtorch.tensor([0, -1]))
    tensor([1, 4])
    """)  # fmt: skip
bind("put", "index, source, accumulate=False", put, None, put_, rel=("input", "index", "source"), doc="""``input``
    read as 1-D with ``source`` written (or added, ``accumulate=True``) at ``index``.

    >>> numtorch.zeros(2, 2).put(numtorch.tensor([3]), numtorch.tensor([9.0]))
    tensor([[0., 0.],
            [0., 9.]])
    """)  # fmt: skip
bind("take_along_dim", "indices, dim=None", take_along_dim, take_along_dim_out, rel=("input", "indices"), doc="""
    ``input`` gathered along ``dim`` at ``indices`` (broadcast with ``input`` except along ``dim``);
    with ``dim=None`` both are read as 1-D.

    >>> numtorch.take_along_dim(numtorch.tensor([[3, 1], [2, 5]]), numtorch.tensor([[1], [0]]), 1)
    tensor([[1],
            [2]])
    """)  # fmt: skip
bind("bincount", "weights=None, minlength=0", bincount, rel=("input", "weights"), doc="""How often each
    non-negative integer occurs in the 1-D ``input`` (or the sum of its ``weights``).

    >>> numtorch.bincount(numtorch.tensor([0, 2, 2]))
    tensor([1, 0, 2])
    """)  # fmt: skip
bind("argwhere", "", argwhere, rel=("input",), doc="""The indices of ``input``'s nonzero entries, one row each.

    >>> numtorch.argwhere(numtorch.tensor([[0, 1], [1, 0]]))
    tensor([[0, 1],
            [1, 0]])
    """)  # fmt: skip


def _where_body(condition, input=None, other=None, out=None):
    """``input`` where ``condition`` is True, else ``other`` (either may be a Python number);
    ``where(condition)`` is ``nonzero(condition, as_tuple=True)``.

    >>> numtorch.where(numtorch.tensor([True, False]), numtorch.tensor([1.0, 2.0]), 0.0)
    tensor([1., 0.])
    """
    if not isinstance(condition, Tensor):
        raise TypeError(
            f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}"
        )
    if input is None and other is None:
        return tuple(_d(where_cond, condition))
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - got (Tensor, Tensor), but expected "
                        "(Tensor condition) or (Tensor condition, Tensor input, Tensor other)")  # fmt: skip
    ti, to = isinstance(input, Tensor), isinstance(other, Tensor)
    op = (where_scalar, where_ss, where_so, where_self)[2 * ti + to]
    if out is None:
        return _d(op, condition, input, other)
    # where.self_out, PyTorch's only out= overload: two tensors, and out in their promoted dtype
    for pos, name, v in ((2, "input", input), (3, "other", other)):
        if not isinstance(v, Tensor):
            raise TypeError(f"where(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}")
    dt = _WHERE.dtypes([input, other])[1]
    if out._dtype is not dt:
        raise RuntimeError(f"Expected out type to be {_cname(dt)} but got {_cname(out._dtype)}")
    return _d(where_out, condition, input, other, out)


def _where_method(self, condition, other):
    """``where(condition, self, other)``."""
    return _where_body(condition, self, other)


def _nonzero_body(input, out=None, as_tuple=False):
    """Indices of the nonzero entries: an (n, ndim) tensor, or with ``as_tuple=True`` one 1-D
    tensor per dimension.

    >>> numtorch.nonzero(numtorch.tensor([0, 3, 4]), as_tuple=True)
    (tensor([1, 2]),)
    """
    if as_tuple:
        return tuple(_d(nonzero_numpy, input))
    return _d(nonzero, input) if out is None else _d(nonzero_out, input, out)


def _searchsorted_body(
    sorted_sequence, input, out_int32=False, right=False, side=None, out=None, sorter=None
):
    """For each value of ``input``, the index in the (innermost-dim) sorted ``sorted_sequence`` where
    it would be inserted to keep it sorted (``right=True``/``side="right"``: after equal entries).

    >>> numtorch.searchsorted(numtorch.tensor([1.0, 3.0, 5.0]), numtorch.tensor([3.0, 6.0]))
    tensor([1, 3])
    """
    vals = [sorted_sequence, input, out_int32, right, side, sorter]
    if out is not None:
        return _d(searchsorted_out, *vals, out)
    return _d(searchsorted if isinstance(input, Tensor) else searchsorted_s, *vals)


def _bucketize_body(input, boundaries, out_int32=False, right=False, out=None):
    """The bucket of each ``input`` value among the sorted 1-D ``boundaries``.

    >>> numtorch.bucketize(numtorch.tensor([1.0, 4.0]), numtorch.tensor([2.0, 4.0]))
    tensor([0, 1])
    """
    if out is not None:
        return _d(bucketize_out, input, boundaries, out_int32, right, out)
    return _d(
        bucketize if isinstance(input, Tensor) else bucketize_s, input, boundaries, out_int32, right
    )


public("where", "condition, input=None, other=None, *, out=None", _where_body, relevant=("condition", "input", "other"),
       ops=(where_self,))  # fmt: skip
public("where", "self, condition, other", _where_method, relevant=("self", "condition", "other"), module="Tensor",
       ops=(where_self,), doc=_where_body.__doc__)  # fmt: skip
public("nonzero", "input, *, out=None, as_tuple=False", _nonzero_body, ops=(nonzero, nonzero_numpy))
public("nonzero", "self, *, as_tuple=False", lambda self, as_tuple: _nonzero_body(self, None, as_tuple),
       relevant=("self",), module="Tensor", ops=(nonzero,), doc=_nonzero_body.__doc__)  # fmt: skip
public("searchsorted", "sorted_sequence, input, *, out_int32=False, right=False, side=None, out=None, sorter=None",
       _searchsorted_body, relevant=("sorted_sequence", "input", "sorter"), ops=(searchsorted,))  # fmt: skip
public("bucketize", "input, boundaries, *, out_int32=False, right=False, out=None", _bucketize_body,
       relevant=("input", "boundaries"), ops=(bucketize, bucketize_s))  # fmt: skip
