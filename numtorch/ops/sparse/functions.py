"""The ``torch.sparse`` functions: ``mm``, ``addmm``, ``sum``, ``softmax``, ``log_softmax``."""

from __future__ import annotations

from ..._dispatch import dispatch
from .._registry import public
from .products import SPARSE_ADDMM, SPARSE_MM
from .reduction import SPARSE_LOG_SOFTMAX, SPARSE_SOFTMAX, SPARSE_SUM, SPARSE_SUM_DIM

_MOD = "torch.sparse"


def _mm(mat1, mat2, reduce):
    """Matrix product of a sparse COO ``mat1`` and a dense (or sparse) ``mat2``; the gradient of
    a sparse ``mat1`` is sparse, on its pattern.

    >>> s = numtorch.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse()
    >>> numtorch.sparse.mm(s, numtorch.ones(2, 1))
    tensor([[2.],
            [3.]])
    """
    if reduce is not None:
        raise NotImplementedError("torch.sparse.mm(reduce=...) needs the sparse CSR layout, which numtorch lacks")
    if mat1.is_sparse and not mat2.is_sparse:
        return dispatch(SPARSE_MM, [mat1, mat2])
    return mat1.mm(mat2)


def _addmm(mat, mat1, mat2, beta, alpha):
    """``beta * mat + alpha * (mat1 @ mat2)`` for a sparse ``mat1`` and dense ``mat``, ``mat2``.

    >>> s = numtorch.tensor([[0.0, 2.0]]).to_sparse()
    >>> numtorch.sparse.addmm(numtorch.ones(1, 1), s, numtorch.ones(2, 1))
    tensor([[3.]])
    """
    return dispatch(SPARSE_ADDMM, [mat, mat1, mat2, beta, alpha])


def _sum(input, dim, dtype):
    """Sum of a sparse tensor's entries over ``dim`` (all dims by default): dense when every
    sparse dim is summed, else sparse; its gradient is sparse on the input's pattern.

    >>> s = numtorch.tensor([[0.0, 2.0], [3.0, 4.0]]).to_sparse()
    >>> numtorch.sparse.sum(s)
    tensor(9.)
    """
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return dispatch(SPARSE_SUM, [input])
    return dispatch(SPARSE_SUM_DIM, [input, [dim] if isinstance(dim, int) else list(dim)])


def _softmax_fn(op, name):
    def body(input, dim, dtype):
        if dtype is not None:
            input = input.to(dtype)
        return dispatch(op, [input, dim, False])

    body.__doc__ = f"""{name} of a sparse tensor along ``dim`` over its specified entries only
    (absent entries stay absent rather than counting as zeros).

    >>> s = numtorch.tensor([[1.0, 0.0], [2.0, 3.0]]).to_sparse()
    >>> numtorch.sparse.{name}(s, 1).to_dense().shape
    torch.Size([2, 2])
    """
    return body


public("mm", "mat1, mat2, reduce=None", _mm, relevant=("mat1", "mat2"), module=_MOD, ops=(SPARSE_MM,))
public("addmm", "mat, mat1, mat2, *, beta=1.0, alpha=1.0", _addmm, relevant=("mat", "mat1", "mat2"), module=_MOD,
       ops=(SPARSE_ADDMM,))  # fmt: skip
public("sum", "input, dim=None, dtype=None", _sum, module=_MOD, ops=(SPARSE_SUM, SPARSE_SUM_DIM))
public("softmax", "input, dim, *, dtype=None", _softmax_fn(SPARSE_SOFTMAX, "softmax"), module=_MOD,
       ops=(SPARSE_SOFTMAX,))  # fmt: skip
public("log_softmax", "input, dim, *, dtype=None", _softmax_fn(SPARSE_LOG_SOFTMAX, "log_softmax"), module=_MOD,
       ops=(SPARSE_LOG_SOFTMAX,))  # fmt: skip
