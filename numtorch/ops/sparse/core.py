"""Sparse COO construction, conversion and accessors: ``sparse_coo_tensor``, ``to_sparse``,
``to_dense``, ``coalesce``, ``indices``/``values`` and the nnz/dim queries.

Each op's ``cpu`` kernel is its dense (strided) case; its SparseCPU kernel is registered with
``register`` (Note [Sparse COO tensors are the SparseCPU backend]).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import _layout
from ..._device import to_device
from ..._dispatch import dispatch
from ..._factory_utils import data_to_array, dtype_arg, infer_dtype
from ..._sparse_tensor import SparseCooTensor, make_sparse, register
from ..._tensor import Tensor, _make
from .._registry import defop, public
from ._coo import check_sparse, coalesce_arrays, coalesced, gather_rows, gather_sparse, linear, sparse_sizes
from ._coo import to_dense_array, wrap


def _alias(t: Tensor) -> Tensor:
    # a new Tensor over the same memory, without history (PyTorch's _values()/_indices())
    return _make(t._data, t._dtype, Tensor, t._device, vc=t._vc)


# ---- the constructor ------------------------------------------------------------------------
def _values_grad(grad, indices):
    # PyTorch's sparse_constructor_values_backward: the gradient at each entry's index
    if grad is None:
        return None
    sizes = tuple(grad.shape[: indices._data.shape[0]])
    if grad.is_sparse:
        return _make(gather_sparse(grad, indices._data, sizes), grad._dtype)
    nrows = int(np.prod(sizes, dtype=np.int64))
    lin = _make(linear(indices._data, sizes), D.int64)
    return grad.reshape((nrows,) + tuple(grad.shape[len(sizes) :])).index_select(0, lin)


def _construct_cpu(sparse_dim, dense_dim, size, indices, values, dtype=None, layout=None, device=None,
                   pin_memory=False, is_coalesced=None):  # fmt: skip
    vals = values if dtype is None or dtype is values._dtype else values.to(dtype)
    return make_sparse(_alias(indices), _alias(vals), size, bool(is_coalesced))


_CONSTRUCT = defop(
    "_sparse_coo_tensor_with_dims_and_tensors(int sparse_dim, int dense_dim, SymInt[] size, "
    "Tensor indices, Tensor values, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=False, bool? is_coalesced=None) -> Tensor",
    cpu=_construct_cpu,
    backward={"values": lambda grad, indices: _values_grad(grad, indices)},
    node_name="SparseCooTensorWithDimsAndTensorsBackward0",
)


def construct(indices: Tensor, values: Tensor, size, is_coalesced: bool) -> Tensor:
    """A sparse tensor from checked int64 ``indices`` and ``values``, recording autograd."""
    sd, dd = indices._data.shape[0], values._data.ndim - 1
    return dispatch(_CONSTRUCT, [sd, dd, list(size), indices, values, None, None, None, False, is_coalesced])


def _as_tensor(x, dtype=None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return _make(data_to_array(x, dtype), dtype if dtype is not None else infer_dtype(x))


def _check_indices(idx: np.ndarray, size) -> None:
    for d in range(idx.shape[0]):
        row = idx[d]
        if row.size and row.min() < 0:
            raise RuntimeError(f"found negative index {int(row.min())} for dim {d}")
        if size is not None and row.size and row.max() >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} "
                               f"but found index {int(row.max())}")  # fmt: skip


def _sparse_coo_tensor(indices, values, size, dtype, device, pin_memory, requires_grad, check_invariants,
                       is_coalesced):  # fmt: skip
    """A sparse COO tensor from ``indices`` (sparse_dim x nnz, integers) and ``values``
    (nnz x dense dims). Entries at the same index are summed when read; ``size`` defaults to the
    smallest that holds every index. numtorch always checks the indices against ``size``.

    >>> numtorch.sparse_coo_tensor([[0, 1], [2, 0]], [3.0, 4.0], (2, 3)).to_dense()
    tensor([[0., 0., 3.],
            [4., 0., 0.]])
    """
    dt = dtype_arg(dtype, "sparse_coo_tensor")
    if to_device(device).type != "cpu":
        raise RuntimeError("numtorch's sparse tensors live on the CPU only")
    vals = _as_tensor(values, dt)
    idx = _as_tensor(indices)
    if idx._dtype is not D.int64:
        idx = idx.to(D.int64)
    ishape = idx._data.shape
    sd = ishape[0] if ishape else 0
    dd = vals._data.ndim - 1
    if size is not None:
        size = [int(n) for n in size]
        if len(size) != sd + dd:
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                               f"sparse_dim = {sd}, dense_dim = {dd}")  # fmt: skip
        if any(n < 0 for n in size):
            raise RuntimeError("numel: integer multiplication overflow")
    if len(ishape) != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(ishape)}")
    if vals._data.ndim == 0:
        raise RuntimeError("values must have at least one dimension (nnz)")
    if ishape[1] != vals._data.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {ishape[1]}, "
                           f"nnz from values: {vals._data.shape[0]}")  # fmt: skip
    if size is not None and tuple(size[sd:]) != tuple(vals._data.shape[1:]):
        raise RuntimeError(f"values has incorrect size, expected {[ishape[1], *size[sd:]]}, "
                           f"got {list(vals._data.shape)}")  # fmt: skip
    _check_indices(idx._data, size)
    if size is None:
        top = idx._data.max(axis=1) + 1 if ishape[1] else np.zeros(sd, np.int64)
        size = [int(n) for n in top] + list(vals._data.shape[1:])
    if is_coalesced and ishape[1] > 1 and not (np.diff(linear(idx._data, tuple(size[:sd]))) > 0).all():
        # the kernels rely on a coalesced tensor being sorted and unique: checked always
        raise RuntimeError("cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor")
    if dt is not None and dt is not vals._dtype:
        vals = vals.to(dt)
    out = construct(idx, vals, size, bool(is_coalesced))
    if requires_grad:
        if out._dtype.category < D._FLOAT:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        out._rg = True
    return out


public("sparse_coo_tensor", "indices, values, size=None, *, dtype=None, device=None, pin_memory=False, "
       "requires_grad=False, check_invariants=None, is_coalesced=None", _sparse_coo_tensor,
       relevant=("indices", "values"), ops=(_CONSTRUCT,))  # fmt: skip


# ---- to_dense / to_sparse -------------------------------------------------------------------
def _to_dense_backward(grad, self):
    # PyTorch's to_dense_backward with masked_grad: the gradient on self's pattern, sparse
    return dispatch(SPARSE_MASK, [grad, self]) if self.is_sparse else grad


_TO_DENSE = defop(
    "to_dense(Tensor self, ScalarType? dtype=None, *, bool? masked_grad=None) -> Tensor",
    cpu=lambda self, dtype=None, masked_grad=None: self if dtype is None else self.to(dtype),
    backward={"self": lambda grad, self: _to_dense_backward(grad, self)},
)


@register("to_dense")
def _to_dense_sparse(self, dtype=None, masked_grad=None):
    out = _make(to_dense_array(self), self._dtype)
    return out if dtype is None or dtype is self._dtype else out.to(dtype)


def _to_dense_body(self, dtype, masked_grad):
    """The dense tensor a sparse one stands for (duplicate entries summed); a dense tensor is
    returned as is.

    >>> numtorch.tensor([[0.0, 2.0]]).to_sparse().to_dense()
    tensor([[0., 2.]])
    """
    return dispatch(_TO_DENSE, [self, dtype, masked_grad])


public("to_dense", "self, dtype=None, *, masked_grad=None", _to_dense_body, relevant=("self",),
       module="Tensor", ops=(_TO_DENSE,))  # fmt: skip


def _dense_to_sparse(self: Tensor, sparse_dim: int) -> Tensor:
    a = self._data
    if not 0 <= sparse_dim <= a.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{a.ndim}] range, "
                           f"but {sparse_dim} is given")  # fmt: skip
    if not sparse_dim:  # every dim is dense: one entry holding the whole tensor
        return wrap(np.zeros((0, 1), np.int64), a[None].copy(), a.shape, True, self._dtype)
    nz = a != 0
    keep = nz.reshape(a.shape[:sparse_dim] + (-1,)).any(axis=-1) if sparse_dim < a.ndim else nz
    idx = np.array(np.nonzero(keep), dtype=np.int64).reshape(sparse_dim, -1)
    return wrap(idx, np.ascontiguousarray(a[tuple(idx)]), a.shape, True, self._dtype)


def _to_sparse_cpu(self, layout=None, blocksize=None, dense_dim=None):
    nd = self._data.ndim
    return _dense_to_sparse(self, nd - (dense_dim or 0))


_TO_SPARSE = defop("to_sparse(Tensor self, *, Layout? layout=None, int[1]? blocksize=None, int? dense_dim=None) "
                   "-> Tensor", cpu=_to_sparse_cpu, backward={"self": lambda grad: grad.to_dense()},
                   node_name="ToSparseBackward1")  # fmt: skip
_TO_SPARSE_DIM = defop("to_sparse.sparse_dim(Tensor self, int sparse_dim) -> Tensor",
                       cpu=lambda self, sparse_dim: _dense_to_sparse(self, sparse_dim),
                       backward={"self": lambda grad: grad.to_dense()}, node_name="ToSparseBackward0")  # fmt: skip


@register("to_sparse")
def _to_sparse_sparse(self, layout=None, blocksize=None, dense_dim=None):
    return make_sparse(self._sp_idx, self._sp_val, self.shape, self._sp_coal)


@register("to_sparse.sparse_dim")
def _to_sparse_dim_sparse(self, sparse_dim):
    if sparse_dim != self._sp_idx._data.shape[0]:
        raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument !=self.sparse_dim() "
                           "is not supported")  # fmt: skip
    return make_sparse(self._sp_idx, self._sp_val, self.shape, self._sp_coal)


def _to_sparse_body(self, sparse_dim, layout, blocksize, dense_dim):
    """This tensor in the sparse COO layout: an entry for each nonzero (of the first
    ``sparse_dim`` dims, default all), coalesced.

    >>> numtorch.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse()._nnz()
    2
    """
    if layout is not None and layout is not _layout.sparse_coo:
        raise NotImplementedError(f"to_sparse(layout={layout}): numtorch has only the sparse_coo layout")
    if blocksize is not None:
        raise RuntimeError("to_sparse for Strided to SparseCoo conversion does not use specified blocksize")
    if sparse_dim is not None:
        return dispatch(_TO_SPARSE_DIM, [self, sparse_dim])
    return dispatch(_TO_SPARSE, [self, None, None, dense_dim])


public("to_sparse", "self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None", _to_sparse_body,
       relevant=("self",), module="Tensor", ops=(_TO_SPARSE, _TO_SPARSE_DIM))  # fmt: skip
public("to_sparse_coo", "self", lambda self: _to_sparse_body(self, None, None, None, None), relevant=("self",),
       module="Tensor", doc="Same as ``to_sparse()``: this tensor in the sparse COO layout.", ops=(_TO_SPARSE,))  # fmt: skip


# ---- sparse_mask: a dense tensor's values on a sparse tensor's pattern ---------------------------
SPARSE_MASK = defop("sparse_mask(Tensor self, Tensor mask) -> Tensor",
                    backward={"self": lambda grad: grad.to_dense()})  # fmt: skip


@register("sparse_mask")
def _sparse_mask(self, mask):
    if tuple(self.shape) != tuple(mask.shape):
        raise RuntimeError("sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(self.shape)} but mask has size {list(mask.shape)}")  # fmt: skip
    m = coalesced(mask)
    idx, sizes = m._sp_idx._data, sparse_sizes(m)
    if self.is_sparse:
        vals = gather_sparse(self, idx, sizes)
    else:
        vals = np.ascontiguousarray(gather_rows(self._data, idx, sizes))
    return wrap(idx, vals, self.shape, True, self._dtype)


public("sparse_mask", "self, mask", lambda self, mask: dispatch(SPARSE_MASK, [self, mask]),
       relevant=("self", "mask"), module="Tensor", ops=(SPARSE_MASK,),
       doc="The values of this tensor at the indices of sparse ``mask``, as a sparse tensor.")  # fmt: skip


# ---- accessors ------------------------------------------------------------------------------
def _dense_refusal(name):
    def cpu(self):
        raise RuntimeError(f"{name} expected sparse coordinate tensor layout but got Strided")

    return cpu


def _values_backward(grad, self):
    # PyTorch's values_backward: the gradient as a sparse tensor on self's (coalesced) pattern
    return construct(_alias(self._sp_idx), grad, self.shape, True)


_ACCESSORS = {
    "indices": (lambda s: _alias(s._sp_idx), True, None),
    "_indices": (lambda s: _alias(s._sp_idx), False, None),
    "values": (lambda s: _alias(s._sp_val), True, {"self": lambda grad, self: _values_backward(grad, self)}),
    "_values": (lambda s: _alias(s._sp_val), False, None),
}
for _name, (_get, _needs_coalesced, _bw) in _ACCESSORS.items():

    def _kernel(self, _get=_get, _name=_name, _nc=_needs_coalesced):
        if _nc and not self._sp_coal:
            what = "indices" if "indices" in _name else "values"
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")
        return _get(self)

    _op = defop(f"{_name}(Tensor(a) self) -> Tensor(a)", cpu=_dense_refusal(_name), backward=_bw)
    register(_name)(_kernel)
    public(_name, "self", lambda self, _op=_op: dispatch(_op, [self]), relevant=("self",), module="Tensor",
           ops=(_op,), doc=f"The {_name.strip('_')} of a sparse COO tensor (``{_name}()``).")  # fmt: skip

def _no_dense_kernel(self):
    raise NotImplementedError(
        "Could not run 'aten::_nnz' with arguments from the 'CPU' backend. This could be because the operator "
        "doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom "
        "build). 'aten::_nnz' is only available for these backends: [SparseCPU]."
    )


_QUERIES = {
    "_nnz": (lambda s: int(s._sp_val._data.shape[0]), _no_dense_kernel),
    "sparse_dim": (lambda s: int(s._sp_idx._data.shape[0]), lambda self: 0),
    "dense_dim": (lambda s: int(s._sp_val._data.ndim - 1), lambda self: self._data.ndim),
    "is_coalesced": (lambda s: s._sp_coal, _dense_refusal("is_coalesced")),
}
for _name, (_get, _dense) in _QUERIES.items():
    _ret = "bool" if _name == "is_coalesced" else "int"
    _op = defop(f"{_name}(Tensor self) -> {_ret}", cpu=_dense)
    register(_name)(lambda self, _get=_get: _get(self))
    public(_name, "self", lambda self, _op=_op: dispatch(_op, [self]), relevant=("self",), module="Tensor",
           ops=(_op,), doc=f"``{_name}()`` of a sparse COO tensor.")  # fmt: skip


# ---- coalesce -------------------------------------------------------------------------------
_COALESCE = defop("_coalesce(Tensor self) -> Tensor", cpu=_dense_refusal("coalesce"),
                  backward={"self": lambda grad: grad}, node_name="CoalesceBackward0")  # fmt: skip


@register("_coalesce")
def _coalesce_sparse(self):
    idx, vals = coalesce_arrays(self._sp_idx._data, self._sp_val._data, sparse_sizes(self), self._dtype)
    return wrap(idx, vals, self.shape, True, self._dtype)


def _coalesce_body(self):
    """Sum the entries that share an index and sort them (row-major): ``self`` if already so.

    >>> s = numtorch.sparse_coo_tensor([[0, 0]], [1.0, 2.0], (2,))
    >>> s.coalesce().values()
    tensor([3.])
    """
    if not self.is_sparse:
        check_sparse(self, "coalesce")
    if self._sp_coal:
        return self
    return dispatch(_COALESCE, [self])


public("coalesce", "self", _coalesce_body, relevant=("self",), module="Tensor", ops=(_COALESCE,))


# ---- nn.Embedding(sparse=True) ------------------------------------------------------------------
def embedding_sparse_grad(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """PyTorch's embedding_sparse_backward: one uncoalesced entry per looked-up row."""
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    nf = grad.shape[-1]
    idx, g = indices.reshape(-1), grad.reshape(-1, nf)
    if padding_idx != -1:
        keep = idx != padding_idx
        idx, g = idx[keep], g[keep]
    return construct(idx.reshape(1, -1).to(D.int64), g, (num_weights, nf), False)


__all__ = ["SparseCooTensor", "construct", "SPARSE_MASK", "embedding_sparse_grad"]
