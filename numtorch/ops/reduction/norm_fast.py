"""Binding fast calls of the vector norms (Note [Norm fast calls]): torch.norm / Tensor.norm,
linalg.vector_norm, linalg.norm, linalg.matrix_norm("fro"), dist, F.normalize,
cosine_similarity and pairwise_distance."""

# Note [Norm fast calls]
# A small norm went through four to six layers before its kernel: linalg.norm's body, the
# linalg_vector_norm composite's dispatch, its dtype checks, aten.norm.ScalarOpt_dim's dispatch,
# _norm_cpu's checks and fold -> run -> layout -> _launch (linalg.norm 12 us on 24 floats,
# PyTorch 2.4). These calls do what that chain does for a plain call (no mode, forward-AD level
# or autocast region, an operand that records nothing: _fast_guard), on a C-contiguous aligned
# float32/float64 ndarray that is not empty, with a p of _NORMS (2, 1, 0, inf, -inf): the same
# (outer, R, inner) layout as Note [Reduction layout] (the reduced dims moved last by one copy
# where they are not adjacent), the same serial row/col kernel called through its compiled entry
# (_launch from PARALLEL_THRESHOLD elements on), the |x| kernel where every reduced dim has size
# 1 as _norm_cpu. Anything else, or a dim argument the layout's own checks refuse, declines (None)
# to the binding's body, which then raises PyTorch's error. dist's difference is NumPy's
# subtraction of two same-shape operands of one dtype (one IEEE subtraction per element, as the
# sub kernel); F.normalize's denominator is clamp_min's max(norm, eps) in the input's dtype, its
# quotient one IEEE division per element (tests/ops/reduction/test_norm_fast.py compares each
# with its body bit for bit).

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD
from .._fast_guard import free, or_body, params, recordless
from .._quiet import IGNORE, quiet
from .._quiet import restore as _unquiet
from . import _reduce as E
from .core import _NORMS, _SUM

_FLOATS = {D.float32: D.float32, D.float64: D.float64}
_NORM1 = _NORMS[1.0]
_STORES: dict = {}  # comb name -> {dtype: learned entries (_reduce._learn)}
_PLANS: dict = {}  # (shape, dim, keepdim, comb name, dtype) -> _plan's tuple
_nd = np.ndarray
_PT = PARALLEL_THRESHOLD
COUNT = [0]  # calls that took the fast route (tests)
# norm's CPU function's calls that took it (Note [The recorded norm takes the fast call's kernel])
BODY_COUNT = [0]


def _plan(key, shape: tuple, dim, keepdim: bool, comb, swap: bool, dt):
    # the body's layout of a C-contiguous input (Note [Reduction layout]) and its kernel:
    # (row or col entry, outer, R, inner, result shape, perm, result np dtype, comb); None where
    # the body raises (its own checks come first). ``swap``: the |x| kernel where every reduced
    # dim has size 1 (_norm_cpu's, for p != 0)
    try:
        dims = E.dims_arg(dim, len(shape))
    except Exception:  # noqa: BLE001
        return None
    if swap and all(shape[d] == 1 for d in dims):
        comb = _NORM1
    kept = [i for i in range(len(shape)) if i not in dims]
    perm = None
    if not dims:
        outer, R, inner = math.prod(shape), 1, 1
    elif dims[-1] - dims[0] + 1 == len(dims):
        outer, R, inner = math.prod(shape[: dims[0]]), math.prod(shape[dims[0] : dims[-1] + 1]), math.prod(shape[dims[-1] + 1 :])
    else:
        perm = tuple(kept) + dims
        outer, R, inner = math.prod(shape[i] for i in kept), math.prod(shape[d] for d in dims), 1
    store = _STORES.setdefault(comb.name, {})
    e = store.get(dt) or E._learn(comb, store, dt, _FLOATS)
    k = e[0] if inner == 1 else e[1] or E._learn_col(comb, e)
    if len(_PLANS) > 512:
        _PLANS.clear()
    plan = _PLANS[key] = (k, outer, R, inner, E.out_shape(shape, dims, keepdim), perm, e[3], comb)
    return plan


def _run(a, dt, comb, dim, keepdim, swap, count=COUNT):
    # ``comb`` over ``dim`` of a non-empty C-contiguous aligned float32/float64 ndarray, as fold
    # runs it; ``dim`` an int or a tuple of ints; None where the body must run
    key = (a.shape, dim, keepdim, comb.name, dt)  # the name: a frozen dataclass hashes its fields
    plan = _PLANS.get(key) or _plan(key, a.shape, dim, keepdim, comb, swap, dt)
    if plan is None:
        return None
    k, outer, R, inner, shape, perm, rdt, comb = plan
    flat = (a if perm is None else np.ascontiguousarray(a.transpose(perm))).reshape(-1)
    r = np.empty(outer * inner, rdt)
    if a.size >= _PT:
        E._launch(comb.module(), flat, r, outer, R, inner, ())
    elif inner == 1:
        k(flat, r, outer, R)
    else:
        k(flat, r, outer, R, inner, min(inner, 1024))
    count[0] += 1
    return r.reshape(shape)


def vnorm(x, p, dim, keepdim, count=COUNT):
    """The ndarray aten.norm.ScalarOpt_dim(x, p, dim, keepdim) gives a plain float32/float64 ``x``,
    or None where the body must run (Note [Norm fast calls])."""
    a = x._data
    dt = x._dtype
    c = dim.__class__
    if c is tuple or c is list:
        for d in dim:  # 2.0 or True would hash as a cached 2 or 1
            if d.__class__ is not int:
                return None
        dim = tuple(dim)
    elif c is not int:
        return None
    if (
        dt not in _FLOATS
        or a.__class__ is not _nd
        or keepdim.__class__ is not bool
        or (p.__class__ is not float and p.__class__ is not int)
    ):
        return None
    comb = _NORMS.get(p)
    f = a.flags
    if comb is None or not (f.c_contiguous and f.aligned and a.size):
        return None
    return _run(a, dt, comb, dim, keepdim, p != 0, count)


def _plain(x) -> bool:
    return free() and recordless(x)


def _wrap(x, arr):
    return None if arr is None else _make(arr, x._dtype)


# ---- the bindings' calls: a Tensor, or None to run the body ----------------------------------
def _torch_norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    if out is not None or dtype is not None or not _plain(input):
        return None
    if p.__class__ is str:
        if p != "fro" or not (dim is None or dim.__class__ is int or len(dim) <= 2):
            return None
        p = 2.0
    return _wrap(input, vnorm(input, p, () if dim is None else dim, keepdim))


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    return _torch_norm(self, p, dim, keepdim, None, dtype)


def _vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None, out=None):
    if out is not None or dtype is not None or not _plain(x):
        return None
    return _wrap(x, vnorm(x, ord, () if dim is None else dim, keepdim))


def _fro(A, dim, keepdim):
    # linalg_matrix_norm's "fro": the 2-norm over its two dims (vnorm refuses non-ints), which
    # it wraps first: (0, -3) of a 3-d input is one dim twice, the body's error
    n = A._data.ndim
    if n < 2 or len(dim) != 2:
        return None
    d0, d1 = dim
    if d0.__class__ is not int or d1.__class__ is not int or not (-n <= d0 < n and -n <= d1 < n):
        return None
    return _wrap(A, vnorm(A, 2, (d0 + n if d0 < 0 else d0, d1 + n if d1 < 0 else d1), keepdim))


def _matrix_norm(A, ord="fro", dim=None, keepdim=False, dtype=None, out=None):
    if ord.__class__ is not str or ord != "fro" or out is not None or dtype is not None or not _plain(A):
        return None
    return _fro(A, (-2, -1) if dim is None else dim, keepdim)


def _linalg_norm(A, ord=None, dim=None, keepdim=False, out=None, dtype=None):
    if ord is not None or out is not None or dtype is not None or not _plain(A):
        return None
    if dim is None or dim.__class__ is int:
        return _wrap(A, vnorm(A, 2, () if dim is None else dim, keepdim))
    if dim.__class__ is tuple or dim.__class__ is list:
        if len(dim) == 1:
            return _wrap(A, vnorm(A, 2, dim, keepdim))
        if len(dim) == 2:
            return _fro(A, dim, keepdim)
    return None


def _operands(x, y):
    # two plain same-shape C-contiguous operands of one float dtype: their ndarrays, else None
    a, b = x._data, y._data
    if x._dtype is not y._dtype or a.shape != b.shape or not (_plain(x) and recordless(y)):
        return None
    return a, b


def _dist(input, other, p=2):
    ab = _operands(input, other)
    if ab is None or input._dtype not in _FLOATS:
        return None
    tok = quiet(IGNORE)  # the sub kernel sets no flags either
    try:
        d = np.subtract(ab[0], ab[1])
    finally:
        _unquiet(tok)
    return _wrap(input, vnorm(_make(d, input._dtype), p, (), False))


def _normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if out is not None or dim.__class__ is not int or eps.__class__ is not float or not _plain(input):
        return None
    n = vnorm(input, p, dim, True)
    if n is None:
        return None
    a = input._data
    tok = quiet(IGNORE)
    try:
        r = np.divide(a, np.maximum(n, a.dtype.type(eps)))
    finally:
        _unquiet(tok)
    return _make(r, input._dtype)


def _cosine_similarity(x1, x2, dim=1, eps=1e-08):
    # the composite's ((x1 / n1) * (x2 / n2)).sum(dim), n = max(norm(x, 2, dim, keepdim), eps)
    ab = _operands(x1, x2)
    if ab is None or x1._dtype not in _FLOATS or dim.__class__ is not int or eps.__class__ is not float:
        return None
    n1 = vnorm(x1, 2, dim, True)
    n2 = None if n1 is None else vnorm(x2, 2, dim, True)
    if n2 is None:
        return None
    a, b = ab
    e = a.dtype.type(eps)
    tok = quiet(IGNORE)
    try:
        q = np.multiply(np.divide(a, np.maximum(n1, e)), np.divide(b, np.maximum(n2, e)))
    finally:
        _unquiet(tok)
    return _wrap(x1, _run(q, x1._dtype, _SUM, dim, False, False))


def _pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    # the composite's (x1 - x2 + eps).norm(p, ndim - 1, keepdim)
    ab = _operands(x1, x2)
    if ab is None or x1._dtype not in _FLOATS or eps.__class__ is not float:
        return None
    a, b = ab
    tok = quiet(IGNORE)
    try:
        d = np.add(np.subtract(a, b), a.dtype.type(eps))
    finally:
        _unquiet(tok)
    return _wrap(x1, vnorm(_make(d, x1._dtype), p, a.ndim - 1, keepdim))


_CALLS = {
    ("torch", "norm"): _torch_norm,
    ("Tensor", "norm"): _tensor_norm,
    ("torch.linalg", "vector_norm"): _vector_norm,
    ("torch.linalg", "norm"): _linalg_norm,
    ("torch.linalg", "matrix_norm"): _matrix_norm,
    ("torch", "dist"): _dist,
    ("Tensor", "dist"): _dist,
    ("torch.nn.functional", "normalize"): _normalize,
    ("torch.nn.functional", "cosine_similarity"): _cosine_similarity,
    ("torch", "cosine_similarity"): _cosine_similarity,
    ("torch.nn.functional", "pairwise_distance"): _pairwise_distance,
    ("torch", "pairwise_distance"): _pairwise_distance,
}


def install(bindings) -> None:
    """Attach the calls above to their bindings (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        fast = _CALLS.get((b.module, b.name))
        # dist's generated fast call only skipped to its composite's dispatch: replaced
        if fast is not None and (b.fast is None or b.name == "dist"):
            b.fast = (or_body(fast, b.body), params(b.sig))
