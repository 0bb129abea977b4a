"""torch-level linear algebra that predates ``torch.linalg`` and real code still calls: addr,
chain_matmul, cholesky_solve, cholesky_inverse, pdist, nuclear_norm, renorm, torch.vander and
the in-place products (addmm_, addmv_, addbmm_, baddbmm_). Composites over the core
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


# ---- the in-place products: addmm_, addmv_, addbmm_, baddbmm_ ----------------------------------
def _inplace_product(name, a, b):
    functional = _aten(name)
    # PyTorch checks that the result has self's shape (no broadcasting of self in place)
    op = defop(f"{name}_(Tensor(a!) self, Tensor {a}, Tensor {b}, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
               composite=lambda self, x, y, beta=1, alpha=1: self.copy_(dispatch(functional, [self, x, y, beta, alpha])))  # fmt: skip

    def method(self, x, y, beta, alpha):
        return dispatch(op, [self, x, y, beta, alpha])

    method.__doc__ = (f"In-place ``{name}``: ``self = beta * self + alpha * ({a} @ {b})``.\n\n"
                      f"    >>> numtorch.ones(1, 1).addmm_(numtorch.ones(1, 2), numtorch.ones(2, 1))\n"
                      f"    tensor([[3.]])\n    ") if name == "addmm" else f"In-place ``{name}``."  # fmt: skip
    public(f"{name}_", f"self, {a}, {b}, *, beta=1, alpha=1", method, relevant=("self", a, b), module="Tensor", ops=(op,))
    return op


for _n, _a, _b in (("addmm", "mat1", "mat2"), ("addmv", "mat", "vec"), ("addbmm", "batch1", "batch2"),
                   ("baddbmm", "batch1", "batch2")):  # fmt: skip
    _op = _inplace_product(_n, _a, _b)
    if _n == "addmv":  # torch.addmv_ is also a function
        public("addmv_", "input, mat, vec, *, beta=1, alpha=1", lambda i, m, v, beta, alpha, _o=_op: dispatch(_o, [i, m, v, beta, alpha]),
               relevant=("input", "mat", "vec"), ops=(_op,), doc="In-place ``addmv`` as a function.")  # fmt: skip


# ---- renorm -------------------------------------------------------------------------------------
def _renorm(self, p, dim, maxnorm):
    if self.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = dim % self.ndim
    others = [i for i in range(self.ndim) if i != d]
    norms = dispatch(_aten("linalg_vector_norm"), [self, p, others, True, None])
    # as ATen: slices whose norm exceeds maxnorm are scaled to it (1e-7 guards the division)
    factor = body_of("where")(norms > maxnorm, maxnorm / (norms + 1e-7), body_of("ones_like")(norms, None, None, None, False, None), None)
    return self * factor


_RENORM = defop("renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor", composite=_renorm)
_RENORM_ = defop("renorm_(Tensor(a!) self, Scalar p, int dim, Scalar maxnorm) -> Tensor(a!)",
                 composite=lambda self, p, dim, maxnorm: self.copy_(_renorm(self, p, dim, maxnorm)))  # fmt: skip


def _renorm_fn(input, p, dim, maxnorm, out):
    """Each slice along ``dim`` scaled to p-norm at most ``maxnorm``, as ``torch.renorm``.

    >>> numtorch.renorm(numtorch.tensor([[1.0, 0.0], [3.0, 4.0]]), 2, 0, 1.0)
    tensor([[1.0000, 0.0000],
            [0.6000, 0.8000]])
    """
    return _out(dispatch(_RENORM, [input, p, dim, maxnorm]), out)


def _renorm_method(self, p, dim, maxnorm):
    """``renorm(self, p, dim, maxnorm)``.

    >>> numtorch.tensor([[3.0, 4.0]]).renorm(2, 0, 1.0)
    tensor([[0.6000, 0.8000]])
    """
    return dispatch(_RENORM, [self, p, dim, maxnorm])


def _renorm_inplace(self, p, dim, maxnorm):
    """In-place ``renorm``.

    >>> numtorch.tensor([[3.0, 4.0]]).renorm_(2, 0, 1.0)
    tensor([[0.6000, 0.8000]])
    """
    return dispatch(_RENORM_, [self, p, dim, maxnorm])


public("renorm", "input, p, dim, maxnorm, *, out=None", _renorm_fn, ops=(_RENORM,))
public("renorm", "self, p, dim, maxnorm", _renorm_method, relevant=("self",), module="Tensor", ops=(_RENORM,))
public("renorm_", "self, p, dim, maxnorm", _renorm_inplace, relevant=("self",), module="Tensor", ops=(_RENORM_,))


# ---- torch.vander, torch.qr ---------------------------------------------------------------------
def _torch_vander(x, N=None, increasing=False):
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return x.new_empty((x.shape[0], 0))
    if n == 1:
        return body_of("ones_like")(x.unsqueeze(1), None, None, None, False, None)
    v = dispatch(_aten("linalg_vander"), [x, n])
    return v if increasing else v.flip(1)


_TVANDER = defop("vander(Tensor x, int? N=None, bool increasing=False) -> Tensor", composite=_torch_vander)


def _vander_fn(x, N, increasing):
    """The Vandermonde matrix, columns ``x**(N-1) .. x**0`` (``increasing=True``: the other way),
    as ``torch.vander``.

    >>> numtorch.vander(numtorch.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    return dispatch(_TVANDER, [x, N, increasing])


public("vander", "x, N=None, increasing=False", _vander_fn, relevant=("x",), ops=(_TVANDER,))
