"""Indexing: ``Tensor.__getitem__``/``__setitem__``, index/index_put, gather/scatter, index_*,
masked_*, where, nonzero, take, put, bincount, searchsorted.

# Note [Indexing decomposes like PyTorch]
# ``x[key]`` walks the key as torch/csrc/autograd/python_variable_indexing.cpp does: ints
# become ``aten.select.int``, slices ``aten.slice.Tensor`` (skipped when they keep the whole
# dim, except for a lone slice), None/True ``aten.unsqueeze``, and what remains (index tensors,
# sequences, bool masks) one ``aten.index.Tensor`` call with None for the plain dims. So basic
# indexing returns views sharing storage and the version counter, and a dispatch mode sees the
# same aten calls as in PyTorch. ``x[key] = v`` slices the same way, then ``copy_``/``fill_``
# the view, or ``index_put_`` it. The view ops themselves are declared in ``shape/views.py``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ... import overrides
from ..._dispatch import dispatch
from ..._factory_utils import data_to_array, infer_dtype
from ..._overlap import _est, check_no_internal_overlap, dense
from ..._ops import ops as _ops
from ..._tensor import Tensor, _make, check_inference_write
from ...kernels import lazy
from .._pointwise import _cname, _resize_out
from .._registry import defop, public
from ..shape.inplace import checked_scalar, setitem_scalar
from . import _index_put_grad as _ipg

K = lazy("numtorch.kernels.cpu.indexing")
_ATEN = _ops.namespace("aten")
_A: dict = {}
_INT64_MAX = 2**63 - 1
_KERNEL_DTYPES = frozenset(np.dtype(t) for t in ("float32", "float64", "int32", "int64"))
_UFUNCS = (np.add, np.multiply, np.maximum, np.minimum)  # by kernels.cpu.indexing mode
_INDEX_DTYPES = (D.int64, D.int32)
_ADD, _MUL, _MAX, _MIN = range(4)  # kernels.cpu.indexing.accumulate_at modes


def _aten(key: str):
    """An aten op declared by another area (imported after this module), looked up once."""
    op = _A.get(key)
    if op is None:
        name, _, ov = key.partition(".")
        op = _A[key] = getattr(getattr(_ATEN, name), ov or "default")
    return op


def _d(op, *vals):
    return dispatch(op, list(vals))


def _t(a: np.ndarray, dt=D.int64) -> Tensor:
    return _make(a, dt)


def _zeros(shape, dt: D.dtype) -> Tensor:
    return _make(np.zeros(tuple(shape), dt.np), dt)


def _nt():
    # other areas' ops, below the Python API (Note [Composite bodies are below the Python API])
    return _ops.aten


# ---- shared helpers ---------------------------------------------------------------------------
def _target(self: Tensor, inplace: bool) -> np.ndarray:
    """A C-contiguous array to write: self's buffer when in place and contiguous, else a copy."""
    a = self._data
    if inplace and a.flags.c_contiguous:
        return a
    return np.array(a, order="C", copy=True)


def _finish(self: Tensor, res: np.ndarray, inplace: bool) -> Tensor:
    if not inplace:
        return _make(res, self._dtype)
    if res is not self._data:
        self._data[...] = res
    self._vc[0] += 1
    return self


def _write_out(out: Tensor, r: Tensor) -> Tensor:
    if out._data.shape == r._data.shape:  # Note [Written-to memory]; a resized out is fresh memory
        check_no_internal_overlap(out._data)
    if not D.can_cast(r._dtype, out._dtype):
        raise RuntimeError(
            f"result type {_cname(r._dtype)} can't be cast to the desired output type {_cname(out._dtype)}"
        )
    if out._data.shape != r._data.shape:
        _resize_out(out, r._data.shape)
    out._data[...] = r._data
    out._vc[0] += 1
    return out


_OUT = "Tensor(a!) out) -> Tensor(a!)"


def _trio(name, args, impl, grad, overload="", out_overload="out", kw=""):
    """Functional, in-place and out= overloads sharing one implementation ``impl(inplace, ...)``."""
    ov = f".{overload}" if overload else ""
    kws = f", *, {kw}" if kw else ""
    f = defop(
        f"{name}{ov}(Tensor self, {args}{kws}) -> Tensor",
        cpu=lambda *v: impl(False, *v),
        backward=grad,
    )
    i = defop(
        f"{name}_{ov}(Tensor(a!) self, {args}{kws}) -> Tensor(a!)",
        cpu=lambda *v: impl(True, *v),
        backward=grad,
    )
    o = defop(f"{name}.{out_overload}(Tensor self, {args}, *, {kw + ', ' if kw else ''}{_OUT}",
              cpu=lambda *v: _write_out(v[-1], impl(False, *v[:-1])))  # fmt: skip
    return f, i, o


def bind(
    name,
    sig,
    op,
    out=None,
    inplace=None,
    doc="",
    rel=("input",),
    method=True,
    function=True,
    pick=None,
    tensor_at=None,
):
    """``numtorch.<name>(input, <sig>, out=)``, ``Tensor.<name>`` and ``Tensor.<name>_`` forwarding
    their arguments in schema order; ``pick(values)`` chooses the overload (Scalar vs Tensor).
    ``tensor_at``: the position (self first) of an argument PyTorch's parser requires to be a Tensor."""
    n = op.nargs

    def parsed(v, fname, shift):
        if tensor_at is not None and not isinstance(v[tensor_at], Tensor):
            arg = op._schema.arguments[tensor_at].name
            raise TypeError(f"{fname}(): argument '{arg}' (position {tensor_at + shift}) must be Tensor, "
                            f"not {type(v[tensor_at]).__name__}")  # fmt: skip
        return v

    def fbody(*v):
        v = parsed(v, name, 1)
        if out is not None and v[-1] is not None:
            return dispatch(out, list(v))
        return dispatch(pick(v) if pick else op, list(v[:n]))

    def mbody(*v):
        return dispatch(pick(v) if pick else op, list(parsed(v, name, 0)))

    def ibody(*v):
        return dispatch(pick(v, True) if pick else inplace, list(parsed(v, name + "_", 0)))

    if function:
        fsig = f"input, {sig}" + (
            "" if out is None else (", out=None" if "*" in sig else ", *, out=None")
        )
        public(name, fsig, fbody, relevant=rel, doc=doc, ops=tuple(o for o in (op, out) if o))
    msig, mrel = f"self, {sig}", ("self", *rel[1:])
    if method:
        public(name, msig, mbody, relevant=mrel, module="Tensor", doc=doc, ops=(op,))
    if inplace is not None:
        public(name + "_", msig, ibody, relevant=mrel, module="Tensor", doc=doc, ops=(inplace,))


def _cstrides(shape) -> list:
    st, acc = [0] * len(shape), 1
    for i in range(len(shape) - 1, -1, -1):
        st[i] = acc
        acc *= shape[i]
    return st


def _accumulate(flat: np.ndarray, offsets: np.ndarray, vals: np.ndarray, mode: int) -> None:
    if not offsets.size:
        return
    if flat.dtype in _KERNEL_DTYPES:
        K.accumulate_at(flat, offsets, np.ascontiguousarray(vals, flat.dtype).reshape(-1), mode)
    else:  # float16, int8/16, uint8, bool, complex: NumPy's unbuffered ufunc.at (C loop)
        _UFUNCS[mode].at(flat, offsets, vals.reshape(-1))


def _offsets(shape, dim: int, size: int, base: int, st, idx_parts, wrap: bool = False):
    """(storage offsets over ``shape``, first out-of-range position or -1): Note [Indexing
    kernels compute offsets]. ``idx_parts`` is (flat, offset, strides) of the index over shape."""
    st = np.array(st, np.int64)
    dim_st = int(st[dim])
    st[dim] = 0
    out = np.empty(math.prod(shape), np.int64)
    if not out.size:
        return out, -1
    iflat, ioff, ist = idx_parts
    bad = K.dim_offsets(
        np.array(shape, np.int64), base, st, dim_st, iflat, ioff, ist, dim, size, wrap, out
    )
    return out, int(bad)


def parts(a: np.ndarray):
    """(1-D array, offset, int64 strides) addressing ``a``'s elements in place, for reading (a
    broadcast view keeps its 0 strides)."""
    if a.flags.c_contiguous:
        return a.reshape(-1), 0, np.array(_cstrides(a.shape), np.int64)
    isz, st = a.itemsize, a.strides
    if a.size == 0 or min(st) < 0 or any(s % isz for s in st):
        return parts(np.ascontiguousarray(a))
    extent = 1 + sum((n - 1) * s for n, s in zip(a.shape, st, strict=True)) // isz
    flat = np.lib.stride_tricks.as_strided(a, (extent,), (isz,), writeable=False)
    return flat, 0, np.array([s // isz for s in st], np.int64)


def _atleast1(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


def _bad_value(index: np.ndarray, pos: int) -> int:
    return int(index[np.unravel_index(pos, index.shape)])


# ---- aten.index / aten.index_put_ ---------------------------------------------------------------
def _expand_indices(self: Tensor, indices, bounds: bool = True) -> tuple[list, tuple | None]:
    """Index arrays per dim (bool masks become their nonzero coordinates), broadcast shape;
    ``bounds=False`` leaves the bounds check to the caller (``_check_bounds``)."""
    shape = self._data.shape
    nd = len(shape)
    out: list = []
    for t in indices:
        if t is None:
            out.append(None)
            continue
        dt = t._dtype
        if dt is D.bool or dt is D.uint8:
            if dt is D.uint8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                              "torch.bool instead.", UserWarning, stacklevel=5)  # fmt: skip
            m, start = t._data, len(out)
            for j in range(m.ndim):
                if start + j < nd and m.shape[j] != shape[start + j]:
                    raise IndexError(
                        f"The shape of the mask {list(m.shape)} at index {j} does not match the shape "
                        f"of the indexed tensor {list(shape)} at index {start + j}"
                    )
            out.extend(np.nonzero(m) if m.ndim else ())
        elif dt in _INDEX_DTYPES:
            out.append(t._data)
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if len(out) > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd} (got {len(out)})")
    arrays = [a for a in out if a is not None]
    if not arrays:
        return out, None
    try:
        bshape = arrays[0].shape if len(arrays) == 1 else np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    if bounds:
        _check_bounds(shape, out, bshape)
    return out, tuple(bshape)


def _check_bounds(shape, out, bshape) -> None:
    if 0 in bshape or any(n == 0 for d, n in enumerate(shape) if d >= len(out) or out[d] is None):
        return  # nothing is read or written when the result is empty (ATen's kernel loop)
    k = 0
    for d, a in enumerate(out):
        if a is None:
            continue
        n = shape[d]
        if a.size and K.first_out_of_range(a.reshape(-1), -n, n) >= 0:
            if n == 0:
                raise IndexError("index is out of bounds for dimension with size 0")
            bad = a[(a >= n) | (a < -n)].flat[0]
            raise IndexError(f"index {bad} is out of bounds for dimension {k} with size {n}")
        k += 1


def _layout(shape, out, bshape):
    """PyTorch/NumPy placement: advanced dims stay in place when adjacent, else go first."""
    full = list(out) + [None] * (len(shape) - len(out))
    adv = [d for d, a in enumerate(full) if a is not None]
    rest = [d for d, a in enumerate(full) if a is None]
    pos = adv[0] if adv[-1] - adv[0] + 1 == len(adv) else 0
    rshape = tuple(shape[d] for d in rest[:pos]) + bshape + tuple(shape[d] for d in rest[pos:])
    return full, adv, rest, pos, rshape


def _mask_key(self: Tensor, indices):
    """NumPy's own boolean indexing when a lone bool mask is the only index (no nonzero round
    trip); None otherwise. The result layout is the same: one advanced index stays in place."""
    k = m = None
    for j, t in enumerate(indices):
        if t is not None:
            if m is not None:
                return None
            k, m = j, t
    if m is None or m._dtype is not D.bool or m._data.ndim == 0:
        return None
    shape, mask = self._data.shape, m._data
    if k + mask.ndim > len(shape):
        return None
    for j in range(mask.ndim):
        if mask.shape[j] != shape[k + j]:
            raise IndexError(
                f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape "
                f"of the indexed tensor {list(shape)} at index {k + j}"
            )
    return (slice(None),) * k + (mask,)


def _index_cpu(self, indices):
    if not indices:
        raise IndexError("at least one index must be provided")
    key = _mask_key(self, indices)
    if key is not None:
        return _make(self._data[key], self._dtype)
    out, bshape = _expand_indices(self, indices)
    a = self._data
    if bshape is None:
        return _make(a.copy(), self._dtype)
    rshape = _layout(a.shape, out, bshape)[-1]
    if 0 in rshape:  # unchecked indices (_check_bounds) must not reach NumPy
        return _make(np.empty(rshape, a.dtype), self._dtype)
    key = tuple(slice(None) if i is None else i for i in out)
    return _make(np.ascontiguousarray(a[key]), self._dtype)


def _index_offsets(shape, full, adv, rest, pos, bshape, rshape) -> np.ndarray:
    st, nb, nr = _cstrides(shape), len(bshape), len(rshape)
    off = np.zeros(bshape, np.int64)
    for d in adv:
        a = full[d].astype(np.int64)
        off = off + np.where(a < 0, a + shape[d], a) * st[d]
    off = off.reshape((1,) * pos + bshape + (1,) * (nr - pos - nb))
    for j, d in enumerate(rest):
        s = [1] * nr
        s[j if j < pos else j + nb] = shape[d]
        off = off + (np.arange(shape[d], dtype=np.int64) * st[d]).reshape(s)
    return _bcast(off, rshape).reshape(-1)


def _bcast(a: np.ndarray, shape) -> np.ndarray:
    """np.broadcast_to(a, shape), or ``a`` itself where it has that shape (the view costs ~2.5 us)."""
    return a if a.shape == shape else np.broadcast_to(a, shape)


def _broadcast_values(values: Tensor, rshape) -> np.ndarray:
    try:
        return _bcast(values._data, tuple(rshape))
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values._data.shape)} cannot be broadcast to "
            f"indexing result of shape {list(rshape)}"
        ) from None


def _check_no_overlap(dst: np.ndarray, src: np.ndarray) -> None:
    # PyTorch's assert_no_overlap: decided only when both are dense (else "too hard" to say)
    dense = (dst.flags.c_contiguous or dst.flags.f_contiguous) and (
        src.flags.c_contiguous or src.flags.f_contiguous
    )
    if dense and dst.size and src.size and np.may_share_memory(dst, src):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer "
            "to a single memory location. Please clone() the tensor before performing the operation."
        )


def _index_put(inplace, self, indices, values, accumulate):
    defined = [t for t in indices if t is not None]
    if all(t._dtype not in (D.bool, D.uint8) for t in defined):  # one dim per index: AdvancedIndex's check
        for n, t in zip(self._data.shape, indices, strict=False):
            if n == 0 and t is not None and t._data.size:  # before make_index_put_iterator's dtype check
                raise IndexError("index is out of bounds for dimension with size 0")
    lone_mask = len(defined) == 1 and defined[0]._dtype in (D.bool, D.uint8)
    if not accumulate and values._data.size == 1 and lone_mask:
        # PyTorch routes a lone mask with one value to masked_fill_(mask, value.item()), which
        # refuses uint8 masks and converts the value as a Scalar (any dtype, checked for overflow)
        if defined[0]._dtype is D.uint8:
            raise RuntimeError(
                "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
            )
        if values._dtype is not self._dtype:
            v = np.array(checked_scalar(values.item(), self._dtype), self._dtype.np)
            values = _make(v.reshape(values._data.shape), self._dtype)
    # ATen's order: the indices' own checks, the value's shape, its dtype, then (in the kernel)
    # the bounds of the indices
    shape = self._data.shape
    key = None if accumulate else _mask_key(self, indices)
    if key is not None:
        k, mask = len(key) - 1, key[-1]
        _broadcast_values(
            values, shape[:k] + (int(np.count_nonzero(mask)),) + shape[k + mask.ndim :]
        )
    else:
        out, bshape = _expand_indices(self, indices, bounds=False)
        full, adv, rest, pos, rshape = (
            _layout(shape, out, bshape) if bshape is not None else (0,) * 4 + (shape,)
        )
        vals = _broadcast_values(values, rshape)
    if values._dtype is not self._dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got {_cname(self._dtype)} "
            f"for the destination and {_cname(values._dtype)} for the source."
        )
    if inplace and (accumulate or values._data.size != 1 or not lone_mask):
        _check_no_overlap(self._data, values._data)
    if key is not None:
        res = self._data if inplace else np.array(self._data, order="C", copy=True)
        res[key] = values._data
        return _finish(self, res, inplace)
    if bshape is not None:
        _check_bounds(shape, out, bshape)
    if bshape is None:
        res = _target(self, inplace)
        if accumulate:
            res += vals
        else:
            res[...] = vals
    elif accumulate:
        offs = _index_offsets(shape, full, adv, rest, pos, bshape, rshape)
        if inplace and self._data.size and not dense(shape, _est(self._data)):
            # maybe aliased (expanded): torch's kernel adds every write through the shared memory,
            # so add in place through the view, not into a copy written back (last write wins)
            _UFUNCS[_ADD].at(self._data, np.unravel_index(offs, shape), vals.reshape(-1))
            return _finish(self, self._data, inplace)
        res = _target(self, inplace)
        _accumulate(res.reshape(-1), offs, vals, _ADD)
    else:
        res = self._data if inplace else np.array(self._data, order="C", copy=True)
        if 0 not in rshape:  # unchecked indices (_check_bounds) must not reach NumPy
            res[tuple(slice(None) if i is None else i for i in out)] = vals
    return _finish(self, res, inplace)


def _index_backward(grad, self, indices):
    return _d(index_put_op, grad.new_zeros(self._data.shape), indices, grad, True)  # grad's device


def _index_put_self_grad(grad, indices, accumulate):
    if accumulate:
        return grad
    k = _ipg.key(grad, indices)  # Note [index_put's gradient in NumPy]
    if k is None:
        return _d(index_put_op, grad, indices, grad.new_zeros(()), False)
    return _ipg.self_grad(grad, k)


def _index_put_values_grad(grad, indices):
    k = _ipg.key(grad, indices)
    return _d(index_op, grad, indices) if k is None else _ipg.values_grad(grad, k)


_IP = "Tensor?[] indices, Tensor values, bool accumulate=False"
_IP_GRAD = {"self": _index_put_self_grad, "values": _index_put_values_grad}
index_op = defop("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", cpu=_index_cpu,
                 backward={"self": _index_backward})  # fmt: skip
index_out = defop("index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out) -> Tensor(a!)",
                  cpu=lambda self, indices, out: _write_out(out, _index_cpu(self, indices)))  # fmt: skip
index_put_op = defop(f"index_put(Tensor self, {_IP}) -> Tensor", backward=_IP_GRAD,
                     cpu=lambda *v: _index_put(False, *v))  # fmt: skip
index_put_ = defop(f"index_put_(Tensor(a!) self, {_IP}) -> Tensor(a!)", backward=_IP_GRAD,
                   cpu=lambda *v: _index_put(True, *v))  # fmt: skip


def _index_list(indices, fname: str) -> list:
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'indices' (position 2) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")  # fmt: skip
    for i, t in enumerate(indices):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}"
            )
    return list(indices)


def _index_put_body(input, indices, values, accumulate):
    """``input`` with ``values`` written (or added, ``accumulate=True``) at ``indices``, a tuple
    of index tensors (or None), as ``input[indices] = values`` does.

    >>> numtorch.zeros(3).index_put((numtorch.tensor([0, 0]),), numtorch.tensor(1.0), accumulate=True)
    tensor([2., 0., 0.])
    """
    return _d(index_put_op, input, _index_list(indices, "index_put"), values, accumulate)


def _index_put__body(input, indices, values, accumulate):
    """In-place ``index_put``.

    >>> numtorch.zeros(3).index_put_((numtorch.tensor([1]),), numtorch.tensor(5.0))
    tensor([0., 5., 0.])
    """
    return _d(index_put_, input, _index_list(indices, "index_put_"), values, accumulate)


_IPS = "indices, values, accumulate=False"
public(
    "index_put",
    f"input, {_IPS}",
    _index_put_body,
    relevant=("input", "values"),
    ops=(index_put_op,),
)
public(
    "index_put_",
    f"input, {_IPS}",
    _index_put__body,
    relevant=("input", "values"),
    ops=(index_put_,),
)
public(
    "index_put",
    f"self, {_IPS}",
    _index_put_body,
    relevant=("self", "values"),
    module="Tensor",
    ops=(index_put_op,),
)
public(
    "index_put_",
    f"self, {_IPS}",
    _index_put__body,
    relevant=("self", "values"),
    module="Tensor",
    ops=(index_put_,),
)


# ---- Tensor.__getitem__ / __setitem__ -----------------------------------------------------------
_SEQ_WARN = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
    "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
    "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result"
)
_SEQ_TYPES = (list, tuple, range, np.ndarray, str)


def _items(key) -> tuple:
    """The key as a tuple of per-dim items (PyTorch's treatSequenceAsTuple heuristic)."""
    if type(key) is tuple:
        return key
    if isinstance(key, Tensor) or not isinstance(key, _SEQ_TYPES) or len(key) >= 32:
        return (key,)
    for o in key:
        if isinstance(o, (Tensor, slice, *_SEQ_TYPES)) or o is None or o is Ellipsis:
            warnings.warn(_SEQ_WARN, UserWarning, stacklevel=4)
            return tuple(key)
    return (key,)


def _seq_index(o) -> Tensor:
    if isinstance(o, str):
        raise TypeError("new(): invalid data type 'str'")
    a = o if isinstance(o, np.ndarray) else data_to_array(o, infer_dtype(o))
    if a.dtype == np.bool_ or a.dtype == np.uint8:
        return _t(np.array(a), D.from_numpy_dtype(a.dtype))
    return _t(np.array(a, np.int64))


def _spec_dims(items: tuple) -> int:
    """Dims the key consumes (PyTorch's count_specified_dimensions)."""
    n = 0
    for o in items:
        tp = type(o)
        if tp is slice or tp is int:
            n += 1
        elif o is None or o is Ellipsis or tp is bool or tp is np.bool_:
            continue
        elif isinstance(o, Tensor) and (o._dtype is D.bool or o._dtype is D.uint8):
            n += o._data.ndim
        else:
            n += 1
    return n


def _unpack_slice(s: slice) -> tuple[int, int, int]:
    import operator

    try:
        step = 1 if s.step is None else operator.index(s.step)
        start = None if s.start is None else operator.index(s.start)
        stop = None if s.stop is None else operator.index(s.stop)
    except TypeError:
        raise TypeError(
            "slice indices must be integers or None or have an __index__ method"
        ) from None
    if step == 0:
        raise ValueError("slice step cannot be zero")
    lo, hi = -(2**63), _INT64_MAX
    start = (0 if step > 0 else hi) if start is None else min(max(start, lo), hi)
    stop = (hi if step > 0 else lo) if stop is None else min(max(stop, lo), hi)
    return start, stop, step


def _select(t: Tensor, dim: int, i: int, real_dim: int) -> Tensor:
    a = t._data
    if a.ndim == 0 and i == 0 and dim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")  # fmt: skip
    n = a.shape[dim] if dim < a.ndim else 0
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for dimension {real_dim} with size {n}")
    return _d(_aten("select.int"), t, dim, i)


def _slice(t: Tensor, dim: int, s: slice, skip_full: bool) -> Tensor:
    start, stop, step = _unpack_slice(s)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    a = t._data
    if skip_full and a.ndim and start == 0 and stop >= a.shape[dim] and step == 1:
        return t
    return _d(_aten("slice.Tensor"), t, dim, start, stop, step)


def _bool_index(v: bool) -> Tensor:
    return _t(np.zeros(1 if v else 0, np.int64))


def _apply_slicing(self: Tensor, items: tuple) -> tuple[Tensor, list]:
    """Basic indexing applied as view ops; the advanced part left as aten.index's list."""
    nd = self._data.ndim
    specified = _spec_dims(items)
    if specified > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    res, dim, idx, covered = self, 0, [], 0
    unsqueeze = _aten("unsqueeze")
    for i, o in enumerate(items):
        tp = type(o)
        if tp is slice:
            res = _slice(res, dim, o, True)
            dim += 1
            continue
        if o is None:
            res = _d(unsqueeze, res, dim)
            dim += 1
            continue
        if o is Ellipsis:
            dim += nd - specified
            continue
        if tp is bool or tp is np.bool_:
            res, o = _d(unsqueeze, res, dim), _bool_index(bool(o))
        elif tp is int or isinstance(o, np.integer):
            res = _select(res, dim, int(o), i)
            continue
        elif isinstance(o, Tensor):
            if o._data.ndim == 0 and o._dtype.category <= D._INT:
                if o._dtype is D.bool or o._dtype is D.uint8:
                    res, o = _d(unsqueeze, res, dim), _bool_index(bool(o.item()))
                else:
                    res = _select(res, dim, int(o.item()), i)
                    continue
        elif isinstance(o, _SEQ_TYPES):
            o = _seq_index(o)
        else:
            import operator

            try:
                res = _select(res, dim, operator.index(o), i)
            except TypeError:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                                 f"Variables are valid indices (got {tp.__name__})") from None  # fmt: skip
            continue
        k = o._data.ndim if o._dtype is D.bool or o._dtype is D.uint8 else 1
        idx += [None] * (dim - covered)
        idx.append(o)
        covered = dim = dim + k
    return res, idx


def _index_tf(fn, self, key, *value):
    """PyTorch's handle_torch_function_indexing: tensor-likes inside the key take part too."""
    items = key if type(key) is tuple else (key,)
    plain = overrides.NO_TF
    for o in (*items, *value):
        if type(o) not in plain:
            rel = (self, *items, *value)
            if overrides.has_torch_function(rel):
                return overrides.handle_torch_function(fn, rel, self, key, *value)
            break
    return overrides.NOT_HANDLED


def _getitem(self, key):
    """``self[key]``: views for ints, slices, None and Ellipsis; a copy for index tensors, lists
    and bool masks (PyTorch's rules, Note [Indexing decomposes like PyTorch]).

    >>> x = numtorch.arange(6).reshape(2, 3)
    >>> x[1, ::2], x[:, numtorch.tensor([2, 0])], x[x > 3]
    (tensor([3, 5]), tensor([[2, 0],
            [5, 3]]), tensor([4, 5]))
    """
    tp = type(key)
    if tp is int:
        return _select(self, 0, key, 0)
    if tp is slice:
        return _slice(self, 0, key, False)
    if key is None:
        return _d(_aten("unsqueeze"), self, 0)
    if key is Ellipsis:
        return _d(_aten("alias"), self)
    if tp is not bool:
        r = _index_tf(Tensor.__getitem__, self, key)
        if r is not overrides.NOT_HANDLED:
            return r
    res, idx = _apply_slicing(self, _items(key))
    if not idx:
        return _d(_aten("alias"), res) if res is self else res
    return _d(index_op, res, idx)


def _value_tensor(self: Tensor, v) -> Tensor:
    if isinstance(v, Tensor):
        return v
    tp = type(v)
    if tp is bool or tp is int or isinstance(v, (np.integer, float, complex)):
        return _make(np.array(setitem_scalar(v, self._dtype), self._dtype.np), self._dtype)
    mod = tp.__module__
    name = tp.__qualname__ if mod == "builtins" else f"{mod.partition('.')[0]}.{tp.__qualname__}"
    raise TypeError(f"can't assign a {name} to a torch.{_cname(self._dtype)}Tensor")


def _strip_ones(v: Tensor) -> Tensor:
    shape = v._data.shape
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return _d(_aten("view"), v, list(shape[k:])) if k else v


def _copy_to(dst: Tensor, src: Tensor) -> None:
    if dst._data.shape == src._data.shape:
        _d(_aten("copy_"), dst, src, False)
    elif src._data.ndim == 0:
        _d(_aten("fill_.Tensor"), dst, src)
    else:
        e = _d(_aten("expand"), _strip_ones(src), list(dst._data.shape), False)
        _d(_aten("copy_"), dst, e, False)


def _setitem(self, key, value):
    """``self[key] = value``: ``value`` (a Python number or a tensor, broadcast to the indexed
    shape) written through a view (``copy_``/``fill_``) or with ``index_put_``.

    >>> x = numtorch.zeros(2, 3)
    >>> x[0, 1:] = 5
    >>> x[x == 0] = numtorch.tensor(-1.0)
    >>> x
    tensor([[-1.,  5.,  5.],
            [-1., -1., -1.]])
    """
    r = _index_tf(Tensor.__setitem__, self, key, value)
    if r is not overrides.NOT_HANDLED:
        return None
    check_inference_write(self)
    v = _value_tensor(self, value)
    tp = type(key)
    if key is False:
        return None
    if key is Ellipsis:
        return _copy_to(self, v)
    if key is None or key is True:
        return _copy_to(_d(_aten("unsqueeze"), self, 0), v)
    if tp is int:
        return _copy_to(_select(self, 0, key, 0), v)
    if tp is slice:
        return _copy_to(_slice(self, 0, key, True), v)
    res, idx = _apply_slicing(self, _items(key))
    if not idx:
        return _copy_to(res, v)
    _d(index_put_, res, idx, _strip_ones(v), False)
    return None


public("__getitem__", "self, key", _getitem, relevant=("self",), module="Tensor", ops=(index_op,))
public(
    "__setitem__",
    "self, key, value",
    _setitem,
    relevant=("self",),
    module="Tensor",
    ops=(index_put_,),
)
