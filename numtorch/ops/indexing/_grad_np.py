"""Backward formulas of gather, scatter, scatter_add, index_copy/index_add/index_fill, take, put,
masked_fill, masked_scatter and where in NumPy, where nothing can tell them from their ops.
Each returns None where the ops must run (the caller then dispatches them, as before)."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._device import CPU
from ..._tensor import Tensor, _make
from .._formula_np import plain
from ..reduction._entries import call as _call
from .core import _ADD, K, _accumulate, _cstrides

# Note [Indexing gradients in NumPy]
# PyTorch's formulas here are one op each (gather's: a scatter_add into zeros; scatter's: the
# gradient scattered with 0 and gathered; take's: a put with accumulate into zeros; where's and
# masked_fill's: a select against 0), but each op's body re-validates what the forward checked
# (dims, shapes, dtypes, index bounds, parts() and four small arrays per dim_offsets call): 5-8
# us of a 10-20 us backward at tens of elements. Under Note [Backward formulas in NumPy]'s gate
# (plain(grad): no graph being built, no mode, no forward AD, no kernel registered over an aten
# op, a plain CPU float32/float64 gradient of at most SMALL elements) and a plain CPU int64
# index (C-contiguous for the dim_offsets ones; a bool mask for the masked ones), each formula
# runs its op's own kernel steps: the offsets from the same dim_offsets kernel (its shape/stride
# arrays kept per geometry), the same accumulate_at in index order, the same assignment of +0.0,
# np.take along the dim, np.copyto under the mask into a C-order copy. So the values are the
# ops' bit for bit (repeated indices summed in the same order) and the results are new C-order
# arrays as the ops' are. A geometry the op's checks would refuse, an index out of range (the
# saved index changed in place fails the version check first, but the ops raise here too) or
# anything else returns None: the ops run, with their errors. The masked, index_* and put/take
# formulas keep plain()'s SMALL bound; the dim_offsets ones (gather's, scatter's, take_along_dim's)
# take any size: they are the ops' own kernel steps without the re-validation and the remainder
# op, measured faster at the sweep's large sizes too (gather fwd+bwd ~350 -> ~230 us,
# take_along_dim ~495 -> ~300, scatter_add ~770 -> ~540).
_I64 = np.dtype(np.int64)
_GEOM: dict = {}  # (shape, index shape, dim) -> dim_offsets' prepared arguments, or False


def _geometry(sh: tuple, ish: tuple, dim: int, wrap: bool):
    nd = len(sh)
    if not (nd and -nd <= dim < nd and len(ish) == nd):
        return False
    d = dim % nd
    # the gather/scatter bodies' shape check; take_along_dim's index broadcasts (not here)
    if any((ish[k] != sh[k] if wrap else ish[k] > sh[k]) for k in range(nd) if k != d):
        return False
    st = _cstrides(sh)
    dim_st, st[d] = st[d], 0
    return (
        np.array(ish, np.int64),
        np.array(st, np.int64),
        dim_st,
        np.array(_cstrides(ish), np.int64),
        d,
        sh[d],
    )


def _index(index) -> np.ndarray | None:
    """The data of a plain CPU non-empty C-contiguous int64 index, else None."""
    i = index._data
    if (
        index.__class__ is Tensor
        and index._device is CPU
        and i.dtype == _I64
        and i.size
        and i.flags.c_contiguous
    ):
        return i
    return None


def _offsets(shape: tuple, dim, i: np.ndarray, wrap: bool = False):
    """dim_offsets of ``i`` along ``dim`` into a C-contiguous array of ``shape`` (Note [Indexing
    kernels compute offsets]; ``wrap``: take_along_dim's negative indices), or None where the
    op's checks would refuse it."""
    if dim.__class__ is not int:
        return None
    key = (shape, i.shape, dim, wrap)
    g = _GEOM.get(key)
    if g is None:
        if len(_GEOM) >= 256:
            _GEOM.clear()
        g = _GEOM[key] = _geometry(shape, i.shape, dim, wrap)
    if g is False:
        return None
    out = np.empty(i.size, np.int64)
    bad = _call(K, "dim_offsets", (g[0], 0, g[1], g[2], i.ravel(), 0, g[3], g[4], g[5], wrap, out))
    return None if bad >= 0 else out


def gather_self(
    grad: Tensor, shape: tuple, dim, index: Tensor, wrap: bool = False
) -> Tensor | None:
    """gather's: scatter_add(zeros(shape), dim, index, grad); ``wrap``: take_along_dim's (an
    index of the input's sizes off ``dim``, negative entries wrapped: np.add.at's same sums)."""
    i = _index(index)
    if i is None or not plain(grad, any_size=True) or grad._data.shape != i.shape:
        return None
    offs = _offsets(tuple(shape), dim, i, wrap)
    if offs is None:
        return None
    out = np.zeros(shape, grad._data.dtype)
    _accumulate(out.reshape(-1), offs, np.ascontiguousarray(grad._data).reshape(-1), _ADD)
    return _make(out, grad._dtype)


def _grad_offsets(grad: Tensor, dim, index: Tensor):
    """(index array, flat offsets into grad) under the gate, or None: scatter's and gather's
    formulas on grad's own shape."""
    i = _index(index)
    if i is None or not plain(grad, any_size=True):
        return None
    offs = _offsets(grad._data.shape, dim, i)
    return None if offs is None else (i, offs)


def scatter_zero(grad: Tensor, dim, index: Tensor) -> Tensor | None:
    """scatter's self: scatter(grad, dim, index, 0)."""
    io = _grad_offsets(grad, dim, index)
    if io is None:
        return None
    offs = io[1]
    out = np.array(grad._data, order="C", copy=True)
    out.reshape(-1)[offs] = 0
    return _make(out, grad._dtype)


def gather_grad(grad: Tensor, dim, index: Tensor) -> Tensor | None:
    """scatter's and scatter_add's src: gather(grad, dim, index)."""
    io = _grad_offsets(grad, dim, index)
    if io is None:
        return None
    i, offs = io
    return _make(np.ascontiguousarray(grad._data).reshape(-1)[offs].reshape(i.shape), grad._dtype)


def _dim_index(grad: Tensor, dim, index: Tensor):
    """(dim wrapped, 1-D int64 index in [-n, n) of dim's size n) for the index_* formulas, or None."""
    g, i = grad._data, index._data
    nd = g.ndim
    if not (nd and dim.__class__ is int and -nd <= dim < nd and index.__class__ is Tensor
            and index._device is CPU and i.dtype == _I64 and i.ndim == 1 and plain(grad)):  # fmt: skip
        return None
    d = dim % nd
    n = g.shape[d]
    if i.size and _call(K, "first_out_of_range", (np.ascontiguousarray(i), -n, n)) >= 0:
        return None
    return d, i


def index_fill_zero(grad: Tensor, dim, index: Tensor) -> Tensor | None:
    """index_copy's and index_fill's self: index_fill(grad, dim, index, 0)."""
    p = _dim_index(grad, dim, index)
    if p is None:
        return None
    d, i = p
    out = np.array(grad._data, order="C", copy=True)
    sh = out.shape
    out.reshape(math.prod(sh[:d]), sh[d], math.prod(sh[d + 1 :]))[:, i] = 0
    return _make(out, grad._dtype)


def index_select_grad(grad: Tensor, dim, index: Tensor) -> Tensor | None:
    """index_copy's and index_add's source: index_select(grad, dim, index)."""
    p = _dim_index(grad, dim, index)
    if p is None or (
        p[1].size
        and _call(K, "first_out_of_range", (np.ascontiguousarray(p[1]), 0, grad._data.shape[p[0]]))
        >= 0
    ):
        return None  # index_select refuses negative indices
    return _make(np.take(grad._data, p[1], axis=p[0]), grad._dtype)


def _flat(grad: Tensor, n: int, index: Tensor) -> np.ndarray | None:
    """take's/put's index, flat, in [-n, n), or None."""
    i = index._data
    if not (index.__class__ is Tensor and index._device is CPU and i.dtype == _I64 and i.size and n
            and plain(grad)):  # fmt: skip
        return None
    f = np.ascontiguousarray(i).reshape(-1)
    return f if _call(K, "first_out_of_range", (f, -n, n)) < 0 else None


def take_self(grad: Tensor, shape: tuple, index: Tensor) -> Tensor | None:
    """take's: put(zeros(shape), index, grad, accumulate=True)."""
    n = math.prod(shape)
    f = _flat(grad, n, index)
    if f is None or grad._data.size != f.size:
        return None
    out = np.zeros(shape, grad._data.dtype)
    _accumulate(
        out.reshape(-1),
        np.where(f < 0, f + n, f),
        np.ascontiguousarray(grad._data).reshape(-1),
        _ADD,
    )
    return _make(out, grad._dtype)


def put_zero(grad: Tensor, index: Tensor) -> Tensor | None:
    """put's self (not accumulating): put(grad, index, zeros, False)."""
    f = _flat(grad, grad._data.size, index)
    if f is None:
        return None
    out = np.array(grad._data, order="C", copy=True)
    out.reshape(-1)[f] = 0
    return _make(out, grad._dtype)


def take_grad(grad: Tensor, index: Tensor, shape: tuple) -> Tensor | None:
    """put's source: take(grad, index.reshape(shape))."""
    f = _flat(grad, grad._data.size, index)
    if f is None or f.size != math.prod(shape):
        return None
    return _make(grad._data.reshape(-1)[f].reshape(shape), grad._dtype)


def mask_of(grad: Tensor, mask: Tensor) -> np.ndarray | None:
    """A plain CPU bool mask broadcasting to grad's shape, or None."""
    m = mask._data
    if not (
        mask.__class__ is Tensor and mask._device is CPU and mask._dtype is D.bool and plain(grad)
    ):
        return None
    if (
        m.shape != grad._data.shape
        and np.broadcast_shapes(m.shape, grad._data.shape) != grad._data.shape
    ):
        return None
    return m


def masked_zero(grad: Tensor, mask: Tensor) -> Tensor | None:
    """masked_fill's and masked_scatter's self: masked_fill(grad, mask, 0)."""
    m = mask_of(grad, mask)
    if m is None:
        return None
    out = np.array(grad._data, order="C")
    np.copyto(out, 0, where=m)
    return _make(out, grad._dtype)


def where_grad(grad: Tensor, condition: Tensor, self_side: bool) -> Tensor | None:
    """where's self (``self_side``: where(condition, grad, 0)) or other (where(condition, 0, grad))."""
    m = mask_of(grad, condition)
    if m is None:
        return None
    z = grad._data.dtype.type(0)
    g = grad._data
    return _make(
        np.ascontiguousarray(np.where(m, g, z) if self_side else np.where(m, z, g)), grad._dtype
    )
