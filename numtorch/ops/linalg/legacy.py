"""torch-level linear algebra that predates ``torch.linalg`` and real code still calls: addr,
chain_matmul, cholesky_solve, cholesky_inverse, pdist, nuclear_norm. Composites over the core
ops (Note [Composite bodies are below the Python API]), so their gradients are those ops'.
"""

from __future__ import annotations

from ... import _dtype as D
from ..._dispatch import dispatch
from .._registry import OPS, body_of, defop, public


def _aten(name):
    return OPS[f"aten::{name}"]


def _out(r, out):
    if out is None:
        return r
    if tuple(out.shape) != tuple(r.shape):
        out.resize_(r.shape)
    return out.copy_(r)


# ---- addr ---------------------------------------------------------------------------------------
def _addr(self, vec1, vec2, beta=1, alpha=1):
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D" if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")  # fmt: skip
    if self._dtype is D.bool and (isinstance(beta, float) or isinstance(alpha, float)):
        raise RuntimeError("Boolean beta only supported for Boolean results.")
    outer = vec1.unsqueeze(1) * vec2.unsqueeze(0)
    if alpha != 1:
        outer = outer * alpha
    if beta == 0:  # as BLAS: self is ignored, NaN included
        return outer + body_of("zeros_like")(self, None, None, None, False, None)
    return (self * beta if beta != 1 else self) + outer


_ADDR = defop("addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", composite=_addr)
_ADDR_ = defop("addr_(Tensor(a!) self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
               composite=lambda self, v1, v2, beta=1, alpha=1: self.copy_(_addr(self, v1, v2, beta, alpha)))  # fmt: skip


def _addr_fn(input, vec1, vec2, beta, alpha, out):
    """``beta * input + alpha * outer(vec1, vec2)``, as ``torch.addr``.

    >>> numtorch.addr(numtorch.zeros(2, 2), numtorch.tensor([1.0, 2.0]), numtorch.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    return _out(dispatch(_ADDR, [input, vec1, vec2, beta, alpha]), out)


def _addr_method(self, vec1, vec2, beta, alpha):
    """``addr(self, vec1, vec2, beta=beta, alpha=alpha)``.

    >>> numtorch.zeros(1, 1).addr(numtorch.tensor([2.0]), numtorch.tensor([3.0]))
    tensor([[6.]])
    """
    return dispatch(_ADDR, [self, vec1, vec2, beta, alpha])


def _addr_inplace(self, vec1, vec2, beta, alpha):
    """In-place ``addr``.

    >>> numtorch.ones(1, 1).addr_(numtorch.tensor([2.0]), numtorch.tensor([3.0]))
    tensor([[7.]])
    """
    return dispatch(_ADDR_, [self, vec1, vec2, beta, alpha])


public("addr", "input, vec1, vec2, *, beta=1, alpha=1, out=None", _addr_fn, relevant=("input", "vec1", "vec2"), ops=(_ADDR,))
public("addr", "self, vec1, vec2, *, beta=1, alpha=1", _addr_method, relevant=("self", "vec1", "vec2"), module="Tensor",
       ops=(_ADDR,))  # fmt: skip
public("addr_", "self, vec1, vec2, *, beta=1, alpha=1", _addr_inplace, relevant=("self", "vec1", "vec2"), module="Tensor",
       ops=(_ADDR_,))  # fmt: skip


# ---- chain_matmul -------------------------------------------------------------------------------
def _chain_matmul(matrices):
    if len(matrices) == 0:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return dispatch(_aten("linalg_multi_dot"), [list(matrices)])


_CHAIN = defop("chain_matmul(Tensor[] matrices) -> Tensor", composite=_chain_matmul)


def _chain_matmul_fn(matrices, out):
    """The product of the matrices in the cheapest order, as ``torch.chain_matmul`` (deprecated
    there in favour of ``torch.linalg.multi_dot``).

    >>> numtorch.chain_matmul(numtorch.eye(2), numtorch.ones(2, 3)).shape
    torch.Size([2, 3])
    """
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = matrices[0]
    return _out(dispatch(_CHAIN, [list(matrices)]), out)


public("chain_matmul", "*matrices, out=None", _chain_matmul_fn, relevant=(), lists=("matrices",), ops=(_CHAIN,))


# ---- cholesky_solve, cholesky_inverse -----------------------------------------------------------
def _cholesky_solve(self, input2, upper=False):
    if self.ndim < 2 or input2.ndim < 2:
        bad = "b" if self.ndim < 2 else "A"
        raise RuntimeError(f"{bad} should have at least 2 dimensions, but has {min(self.ndim, input2.ndim)} dimensions instead")
    if self._dtype is not input2._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {self._dtype.name.capitalize()} "
                           f"and A of type {input2._dtype.name.capitalize()} instead.")  # fmt: skip
    # LAPACK's potrs reads one triangle of the factor; PyTorch's derivative treats the factor
    # as a full matrix F with A = F F^H (A = F^H F for upper): the triangle's value, the full
    # matrix's gradient. F = L - (L - triangle).detach() has exactly that value and gradient.
    tri = input2.triu() if upper else input2.tril()
    f = input2 - (input2 - tri).detach()
    fh = f.mH if f._dtype.is_complex else f.mT
    A = fh.matmul(f) if upper else f.matmul(fh)
    return dispatch(_aten("linalg_solve"), [A, self, True])


_CSOLVE = defop("cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor", composite=_cholesky_solve)


def _cholesky_solve_fn(B, L, upper, out):
    """The solution of ``A X = B`` given the Cholesky factor ``L`` of ``A`` (``U`` with
    ``upper=True``), as ``torch.cholesky_solve``.

    >>> numtorch.cholesky_solve(numtorch.tensor([[4.0], [2.0]]), numtorch.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([[1.],
            [2.]])
    """
    return _out(dispatch(_CSOLVE, [B, L, upper]), out)


def _cholesky_solve_method(self, input2, upper):
    """``cholesky_solve(self, input2, upper)``.

    >>> numtorch.tensor([[4.0]]).cholesky_solve(numtorch.tensor([[2.0]]))
    tensor([[1.]])
    """
    return dispatch(_CSOLVE, [self, input2, upper])


public("cholesky_solve", "B, L, upper=False, *, out=None", _cholesky_solve_fn, relevant=("B", "L"), ops=(_CSOLVE,))
public("cholesky_solve", "self, input2, upper=False", _cholesky_solve_method, relevant=("self", "input2"), module="Tensor",
       ops=(_CSOLVE,))  # fmt: skip


def _cholesky_inverse(self, upper=False):
    if self.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    eye = body_of("eye")(self.shape[-1], None, None, self._dtype, None, None, False, False)
    return _cholesky_solve(eye.expand(*self.shape), self, upper)


_CINV = defop("cholesky_inverse(Tensor self, bool upper=False) -> Tensor", composite=_cholesky_inverse)


def _cholesky_inverse_fn(L, upper, out):
    """The inverse of ``A`` from its Cholesky factor, as ``torch.cholesky_inverse``.

    >>> numtorch.cholesky_inverse(numtorch.tensor([[2.0]]))
    tensor([[0.2500]])
    """
    return _out(dispatch(_CINV, [L, upper]), out)


def _cholesky_inverse_method(self, upper):
    """``cholesky_inverse(self, upper)``.

    >>> numtorch.tensor([[2.0]]).cholesky_inverse()
    tensor([[0.2500]])
    """
    return dispatch(_CINV, [self, upper])


public("cholesky_inverse", "L, upper=False, *, out=None", _cholesky_inverse_fn, relevant=("L",), ops=(_CINV,))
public("cholesky_inverse", "self, upper=False", _cholesky_inverse_method, relevant=("self",), module="Tensor", ops=(_CINV,))


# ---- pdist, nuclear_norm ------------------------------------------------------------------------
def _pdist(self, p=2.0):
    if self.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {self.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = self.shape[0]
    d = dispatch(_aten("cdist"), [self.unsqueeze(0), self.unsqueeze(0), p, None])[0]
    rows, cols = body_of("triu_indices")(n, n, 1, None, None, None)
    return d[rows, cols]


_PDIST = defop("pdist(Tensor self, float p=2.) -> Tensor", composite=_pdist)


def _pdist_fn(input, p):
    """The p-norm distances between every pair of rows (the upper triangle of ``cdist``, row
    by row), as ``torch.pdist``.

    >>> numtorch.pdist(numtorch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
    tensor([ 5., 10.,  5.])
    """
    return dispatch(_PDIST, [input, p])


public("pdist", "input, p=2", _pdist_fn, ops=(_PDIST,))
public("pdist", "input, p=2", _pdist_fn, module="torch.nn.functional", ops=(_PDIST,))


def _nuclear(self, dim=(-2, -1), keepdim=False):
    return dispatch(_aten("linalg_matrix_norm.str_ord"), [self, "nuc", list(dim), keepdim, None])


_NUC = defop("nuclear_norm(Tensor self, bool keepdim=False) -> Tensor", composite=lambda self, keepdim=False: _nuclear(self, (-2, -1), keepdim))
_NUC_DIM = defop("nuclear_norm.dim(Tensor self, int[2] dim, bool keepdim=False) -> Tensor", composite=_nuclear)


def _nuclear_norm_fn(input, dim, keepdim, out):
    """The nuclear norm (sum of singular values), as ``torch.nuclear_norm``.

    >>> numtorch.nuclear_norm(numtorch.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(7.)
    """
    r = dispatch(_NUC, [input, keepdim]) if dim is None else dispatch(_NUC_DIM, [input, list(dim), keepdim])
    return _out(r, out)


public("nuclear_norm", "input, dim=None, keepdim=False, *, out=None", _nuclear_norm_fn, ops=(_NUC,))
