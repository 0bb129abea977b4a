"""Sparse @ dense products: ``mm``/``mv``/``addmm`` with a sparse operand (SparseCPU kernels) and
``torch.sparse.mm``/``addmm`` (``_sparse_mm``/``_sparse_addmm``, whose gradient for the sparse
operand is sparse on its pattern, as PyTorch's SparseAddmmBackward0)."""

from __future__ import annotations

import numpy as np

from ..._dispatch import dispatch
from ..._sparse_tensor import register
from ..._tensor import Tensor, _make
from ...kernels import PARALLEL_THRESHOLD
from .._registry import defop
from ._coo import K, coalesced
from .core import SPARSE_MASK

_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "float16": "Half", "bfloat16": "BFloat16",
          "complex64": "ComplexFloat", "complex128": "ComplexDouble", "bool": "Bool"}  # fmt: skip


def _check(s, d: Tensor, op: str) -> None:
    if s._data.ndim != 2 or s._sp_idx._data.shape[0] != 2:
        raise RuntimeError(f"{op}: matrices expected, got {s._data.ndim}D tensor")
    if d._data.ndim != 2:
        raise RuntimeError(f"{op}: matrices expected, got {d._data.ndim}D tensor")
    if d.is_sparse:
        raise RuntimeError(f"{op}: a sparse @ sparse product is not supported; use to_dense() on one operand")
    if s._dtype is not d._dtype:
        a, b = (_NAMES.get(str(x._dtype).split(".")[-1], str(x._dtype)) for x in (s, d))
        raise RuntimeError(f"expected scalar type {a} but found {b}")
    if s.shape[1] != d.shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, got {d.shape[0]}")


def spmm(s, d: Tensor) -> np.ndarray:
    """``s @ d`` for a 2-D sparse ``s`` and dense ``d``: CSR rows of the coalesced entries."""
    c = coalesced(s)
    idx = c._sp_idx._data
    vals = np.ascontiguousarray(c._sp_val._data)
    dense = d._data
    ct = np.float32 if vals.dtype == np.float16 else None
    if ct is not None:
        vals, dense = vals.astype(ct), dense.astype(ct)
    dense = np.ascontiguousarray(dense)
    m, n = s.shape[0], dense.shape[1]
    out = np.zeros((m, n), vals.dtype)
    if idx.shape[1] and n:
        rowptr = np.empty(m + 1, np.int64)
        K.row_pointers(np.ascontiguousarray(idx[0]), m, rowptr)
        cols = np.ascontiguousarray(idx[1])
        big = idx.shape[1] * n >= PARALLEL_THRESHOLD
        (K.spmm_rows_parallel if big else K.spmm_rows)(rowptr, cols, vals, dense, out)
    return out.astype(s._dtype.np, copy=False)


def _mm_any(a, b) -> Tensor:
    if a.is_sparse:
        _check(a, b, "addmm")
        return _make(spmm(a, b), a._dtype)
    # dense @ sparse = (sparse^T @ dense^T)^T
    if a._data.ndim != 2:
        raise RuntimeError(f"addmm: matrices expected, got {a._data.ndim}D tensor")
    bt = b.t()
    _check(bt, a.t(), "addmm")
    return _make(np.ascontiguousarray(spmm(bt, a.t()).T), a._dtype)


@register("mm")
def _mm(self, mat2):
    if self.is_sparse and mat2.is_sparse:
        return _mm_any(self, mat2.to_dense()).to_sparse()
    return _mm_any(self, mat2)


@register("mv")
def _mv(self, vec):
    if not self.is_sparse or vec.is_sparse:
        raise RuntimeError("mv: a sparse vector operand is not supported")
    return _mm_any(self, vec.unsqueeze(1)).squeeze(1)


@register("addmm")
def _addmm(self, mat1, mat2, beta=1, alpha=1):
    prod = _mm(mat1, mat2)
    if prod.is_sparse or (isinstance(self, Tensor) and self.is_sparse):
        raise RuntimeError("addmm: a sparse input or a sparse @ sparse product is not supported here")
    out = prod if alpha == 1 else prod * alpha
    return out if beta == 0 else out + (self if beta == 1 else self * beta)


# ---- torch.sparse.mm / torch.sparse.addmm ----------------------------------------------------
def _mat1_grad(grad, mat2, mat1, alpha=1):
    # PyTorch's mm_mat1_sparse_backward: grad @ mat2^H on mat1's pattern
    g = dispatch(SPARSE_MASK, [grad.mm(mat2.t().conj() if mat2.is_complex() else mat2.t()), mat1])
    return g if alpha == 1 else g * alpha


def _mat2_grad(grad, mat1, alpha=1):
    t = mat1.t()
    g = t.mm(grad)
    return g if alpha == 1 else g * alpha


SPARSE_MM = defop("_sparse_mm(Tensor sparse, Tensor dense) -> Tensor", backward={
    "sparse": lambda grad, dense, sparse: _mat1_grad(grad, dense, sparse),
    "dense": lambda grad, sparse: _mat2_grad(grad, sparse)}, node_name="SparseAddmmBackward0")  # fmt: skip
SPARSE_ADDMM = defop("_sparse_addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
                     backward={"self": lambda grad, beta: grad if beta == 1 else grad * beta,
                               "mat1": lambda grad, mat2, mat1, alpha: _mat1_grad(grad, mat2, mat1, alpha),
                               "mat2": lambda grad, mat1, alpha: _mat2_grad(grad, mat1, alpha)})  # fmt: skip


@register("_sparse_mm")
def _sparse_mm(sparse, dense):
    return _mm(sparse, dense)


@register("_sparse_addmm")
def _sparse_addmm(self, mat1, mat2, beta=1, alpha=1):
    return _addmm(self, mat1, mat2, beta, alpha)
