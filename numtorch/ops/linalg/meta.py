"""Meta rules for numtorch.linalg's factorizations and solvers, and for einsum (which tensordot,
inner and friends decompose into), registered in the meta rule tables (numtorch/ops/_meta_shapes.py)
that numtorch/ops/_meta_rules.py installs from.

# Note [Linalg meta rules]
# The shape rules (numtorch/ops/_meta_rules.py) take dtypes from a probe of the CPU kernel on
# all-ones inputs (Note [Dtype probe]); a factorization of a matrix of ones is singular or not
# positive definite and raises. So each rule here gives shapes and dtypes itself, after the CPU
# kernel's own metadata checks (_square, _floating: PyTorch's messages), which read no data.
# Outputs are contiguous, as numtorch's CPU results are (PyTorch's LAPACK outputs are
# column-major). linalg_lstsq has no rule: PyTorch has no meta kernel for it either.
"""

from __future__ import annotations

from ... import _factory_utils as F
from ..._tensor import Tensor
from .._meta_shapes import SHAPE_RULES, TYPED_RULES
from ._contract import parse
from .core import broadcast_error
from .solve import _floating, _square


def _sh(t: Tensor) -> tuple:
    return tuple(t._data.shape)


def _checked(A: Tensor, fname: str) -> tuple:
    _square(A, fname)
    _floating(A, fname)
    return _sh(A)


def _real(dt):
    return dt.to_real() if dt.is_complex else dt


def _min_dims(A: Tensor, fname: str) -> tuple:
    s = _sh(A)
    if len(s) < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    _floating(A, fname)
    return s


# each rule (TYPED_RULES): the call's arguments by schema name -> [(shape, dtype), ...], one per result
def inv(a, fname="linalg.inv"):
    A = a.get("A", a.get("self"))
    return [(_checked(A, fname), A._dtype)]


def det(a):
    A = a["A"]
    return [(_checked(A, "linalg.det")[:-2], A._dtype)]


def slogdet(a):
    A = a["A"]
    s = _checked(A, "linalg.slogdet")[:-2]
    return [(s, A._dtype), (s, _real(A._dtype))]


def cholesky(a, fname="linalg.cholesky"):
    A = a["self"]
    return [(_checked(A, fname), A._dtype)]


def eigh(a):
    A = a["self"]
    s = _checked(A, "linalg.eigh")
    return [(s[:-1], _real(A._dtype)), (s, A._dtype)]


def solve(a):
    A, B, left = a["A"], a["B"], a["left"]
    s = _checked(A, "linalg.solve")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{F.cname(A._dtype)} and B of type {F.cname(B._dtype)} instead"
        )
    t = _sh(B)
    vec = len(t) == 1 or (len(s) - 1 == len(t) and t == s[:-1])
    b = (t + (1,) if left else t[:-1] + (1, t[-1])) if vec else t
    n = s[-1]
    if (b[-2] if left else b[-1]) != n:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
            f"({s[-2]}x{s[-1]} and {b[-2]}x{b[-1]})"
        )
    batch = tuple(broadcast_error(s[:-2], b[:-2]))
    out = batch + b[-2:]
    if vec:
        out = out[:-1] if left else out[:-2] + out[-1:]
    return [(out, A._dtype)]


def qr(a):
    A, mode = a["A"], a["mode"]
    s = _min_dims(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    m, n = s[-2:]
    k = min(m, n)
    batch = s[:-2]
    if mode == "r":
        return [((0,), A._dtype), (batch + (k, n), A._dtype)]
    if mode == "complete":
        return [(batch + (m, m), A._dtype), (batch + (m, n), A._dtype)]
    return [(batch + (m, k), A._dtype), (batch + (k, n), A._dtype)]


def _svd_shapes(A, full, compute_uv, fname):
    s = _min_dims(A, fname)
    m, n = s[-2:]
    k = min(m, n)
    batch = s[:-2]
    S = (batch + (k,), _real(A._dtype))
    if not compute_uv:
        return [((0,), A._dtype), S, ((0,), A._dtype)]
    U = batch + ((m, m) if full else (m, k))
    Vh = batch + ((n, n) if full else (k, n))
    return [(U, A._dtype), S, (Vh, A._dtype)]


def svd(a):
    return _svd_shapes(a["A"], a["full_matrices"], True, "linalg.svd")


def _svd(a):
    return _svd_shapes(a["A"], a["full_matrices"], a["compute_uv"], "linalg.svd")


def svdvals(a):
    return _svd_shapes(a["A"], False, False, "linalg.svd")[1:2]


def einsum(a):
    """einsum's output shape: the output labels' sizes (parse checks the equation and sizes)."""
    tensors = a["tensors"]
    _labels, out, sizes = parse(a["equation"], [_sh(t) for t in tensors])
    return tuple(sizes.get(x, 1) for x in out)


TYPED_RULES.update({
    "linalg_inv": inv, "inverse": lambda a: inv(a, "linalg.inv"), "linalg_det": det,
    "linalg_slogdet": slogdet, "linalg_cholesky": cholesky,
    "cholesky": lambda a: cholesky(a, "cholesky"), "linalg_eigh": eigh, "linalg_solve": solve,
    "linalg_qr": qr, "linalg_svd": svd, "_linalg_svd": _svd, "linalg_svdvals": svdvals,
})  # fmt: skip
SHAPE_RULES["einsum"] = einsum
