"""Composite shape ops: rot90, diff, and the tril_indices / triu_indices factories, each written
as PyTorch's decomposition (flip + transpose, narrow + sub, index lists)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ..._dispatch import dispatch
from ..._tensor import _make
from ..reduction._reduce import wrap_dim
from .. import _formula_np as _fnp
from .._registry import defop
from .core import _c, both
from .copy import flip
from .join import cat


# ---- rot90 -------------------------------------------------------------------------------------------
def _rot90(self, k=1, dims=(0, 1)):
    dims, n = list(dims), self.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    wrapped = [wrap_dim(d, n) for d in dims]  # PyTorch 2.x wraps first: IndexError when out of range
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k = (4 + k % 4) % 4
    if k == 1:
        return _c(flip, self, [dims[1]]).transpose(dims[0], dims[1])
    if k == 2:
        return _c(flip, self, dims)
    if k == 3:
        return _c(flip, self, [dims[0]]).transpose(dims[0], dims[1])
    return self.contiguous() if not self.is_contiguous() else self.clone()


# Note [rot90's own node]
# PyTorch's rot90 is CompositeExplicitAutograd with derivatives.yaml's ``grad.rot90(-k, dims)``
# (Rot90Backward0). Recording the decomposition instead (flip, transpose) built two nodes and ran
# their two backwards; now the decomposition is the kernel below autograd (the same flip copy and
# transposed view) and the backward is one rot90 the other way, which a mode sees as aten.rot90.
# Under Note [Backward formulas in NumPy]'s gate it is that rotation copied once in C order: the
# op's result is a transposed view for odd k, which AccumulateGrad then copied again (a large
# gradient, expanded from sum(), paid both copies: 165 -> 250 us at 131k elements).
def _rot90_grad(grad, k, dims):
    if _fnp.plain(grad, any_size=True):
        ds = [wrap_dim(d, grad.ndim) for d in dims]  # the forward checked them
        return _make(np.ascontiguousarray(np.rot90(grad._data, -k, ds)), grad._dtype)
    return _c(rot90, grad, -k, list(dims))


rot90 = defop("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", any_device=_rot90,
              backward={"self": _rot90_grad})  # fmt: skip


def _rot90_body(input, k, dims):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the second).

    >>> numtorch.tensor([[1, 2], [3, 4]]).rot90()
    tensor([[2, 4],
            [1, 3]])
    """
    return _c(rot90, input, k, [0, 1] if dims is None else list(dims))


both("rot90", "input, k=1, dims=None", "self, k=1, dims=None", _rot90_body, (rot90,))


# ---- diff ----------------------------------------------------------------------------------------------
def _with_ends(self, dim, prepend, append):
    for t in (prepend, append):
        if t is None:
            continue
        if t.ndim != self.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(self.ndim):
            if i != dim and t.shape[i] != self.shape[i]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of input except along "
                    f"the differencing dimension; input.size({i}) = {self.shape[i]}, but got tensor.size({i}) = {t.shape[i]}"
                )
    parts = [t for t in (prepend, self, append) if t is not None]
    return self if len(parts) == 1 else _c(cat, parts, dim)


def _diff(self, n=1, dim=-1, prepend=None, append=None):
    if self.ndim < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, self.ndim)
    x = _with_ends(self, dim, prepend, append)
    if n == 0:  # at::diff: prepend/append are checked, then the input is returned alone
        return self.clone()
    length = x.shape[dim] - 1
    for _ in range(min(n, x.shape[dim])):
        hi, lo = x.narrow(dim, 1, length), x.narrow(dim, 0, length)
        x = hi.logical_xor(lo) if x.dtype is D.bool else hi - lo
        length -= 1
    return x


diff = defop("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor",
             composite=_diff)  # fmt: skip


def _diff_body(input, n, dim, prepend, append):
    """The ``n``-th forward difference along ``dim`` (``prepend`` / ``append`` joined first).

    >>> numtorch.diff(numtorch.tensor([1, 3, 6, 10]))
    tensor([2, 3, 4])
    """
    return _c(diff, input, n, dim, prepend, append)


both("diff", "input, n=1, dim=-1, prepend=None, append=None", "self, n=1, dim=-1, prepend=None, append=None",
     _diff_body, (diff,), frel=("input", "prepend", "append"))  # fmt: skip


# ---- tril_indices / triu_indices -------------------------------------------------------------------------
def _tri_indices(lower):
    name = "tril_indices" if lower else "triu_indices"

    def impl(row, col, offset=0, dtype=None, layout=None, device=None, pin_memory=None):
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        dt = D.int64 if dtype is None else dtype
        if dt not in (D.int32, D.int64):  # ATen dispatches on the index types only
            raise NotImplementedError(f"\"{name}\" not implemented for '{F.cname(dt)}'")
        r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
        return _make(np.stack([r, c]).astype(dt.np).reshape(2, -1), dt)

    op = defop(f"{name}(int row, int col, int offset=0, *, ScalarType? dtype=4, Layout? layout=None, "
               "Device? device=None, bool? pin_memory=None) -> Tensor", cpu=impl)  # fmt: skip

    def body(row, col, offset, dtype, device, layout):
        return dispatch(op, [row, col, offset, F.dtype_arg(dtype, name) or D.int64, layout,
                             F.device_arg(device), None])  # fmt: skip

    example = "[[0, 1, 1], [0, 0, 1]]" if lower else "[[0, 0, 1], [0, 1, 1]]"
    body.__doc__ = f"""The 2 x N (row, column) indices of the {'lower' if lower else 'upper'} triangle of a
    ``row`` x ``col`` matrix (diagonal ``offset``), in row-major order.

    >>> numtorch.{name}(2, 2).tolist()
    {example}
    """
    both(name, "row, col, offset=0, *, dtype=None, device=None, layout=None", None, body, (op,), frel=())
    return op


tril_indices = _tri_indices(True)
triu_indices = _tri_indices(False)
