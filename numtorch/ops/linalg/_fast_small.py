"""Fast calls (Note [Binding fast call]) of kron, trace, cross (with a dim), block_diag,
linalg.pinv and linalg.eigvalsh (cdist's: _fast_cdist.py)."""

# Note [Small linalg fast calls]
# kron (a composite of three reshapes and a mul), block_diag (per input two new_zeros and a
# cat, then a cat), trace and cross went through their bodies' dispatch layers: 3.4-25 us
# where PyTorch takes 0.8-3.6. With no dispatch mode, forward-AD level or autocast region and
# nothing to record, plain CPU inputs of one dtype run the same arithmetic on the arrays:
# kron's one broadcast product (float32/float64: one IEEE multiply per element, whichever
# kernel does it), block_diag's copies into zeros (any dtype the body keeps: no promotion),
# trace's np.trace; cross with a dim is linalg.cross's op, which the composite calls; cdist's
# broadcast difference (one IEEE subtraction per element) goes to the same norm op; pinv's
# composite (a dozen elementwise ops after the SVD: 220-400 us, PyTorch's 26) runs on the SVD's
# arrays, each step one IEEE operation per element as its op computes it. Anything else,
# errors included, takes the op (or, for block_diag, the body: None). Values, dtype, shape and
# strides are the bodies' (tests/ops/linalg/test_small_fast.py). kron and cdist take this route
# for small results only (_SMALL; cdist's short rows at any size: Note [Short-row cdist]).

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from .._fast_guard import free as _free
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from ..shape.fast_copies import MANY_ROWS, NARROW, by_columns

_FLOATS = (D.float32, D.float64)
# the most elements kron computes here: past it NumPy's broadcast loops over the short
# last dims of these products run slower than the pointwise kernels the bodies call
_SMALL = 16384
_zeros, _multiply, _array = np.zeros, np.multiply, np.array
OUTER_KERNEL_MIN = 4096  # outer/ger's Numba kernel from this many float elements (core._outer_cpu)


def _plain(x, g: bool) -> bool:
    return x._device is _CPU and not (g and x._rg)


def kron(op):
    """The fast call ``fn(input, other)`` of kron (float32/float64 of one dtype)."""

    def fast(input, other):
        dt = input._dtype
        g = _STATE.grad_enabled
        if not (
            _free()
            and other._dtype is dt
            and dt in _FLOATS
            and _plain(input, g)
            and _plain(other, g)
        ):
            return op.fast(input, other)
        a, b = input._data, other._data
        if a.size * b.size > _SMALL:
            return op.fast(input, other)
        key = (a.shape, b.shape)
        plan = _KRON.get(key)
        if plan is None:
            plan = _kron_plan(a.shape, b.shape)
        ra, rb, rs = plan
        return _make(_multiply(a.reshape(ra), b.reshape(rb)).reshape(rs), dt)

    return fast


_KRON: dict = {}  # (shape of input, of other) -> kron's three reshapes (~1 us of list building)


def _kron_plan(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    sa = (1,) * (n - len(a)) + a
    sb = (1,) * (n - len(b)) + b
    plan = (tuple(x for s in sa for x in (s, 1)), tuple(x for s in sb for x in (1, s)),
            tuple(x * y for x, y in zip(sa, sb, strict=True)))  # fmt: skip
    if len(_KRON) >= 1024:
        _KRON.clear()
    _KRON[(a, b)] = plan
    return plan


def outer(op):
    """The fast call ``fn(input, vec2)`` of outer/ger: vectors of one float dtype whose product
    has fewer than the op's kernel threshold of elements are its np.multiply.outer, quiet."""

    def fast(input, vec2):
        dt = input._dtype
        a, b = input._data, vec2._data
        g = _STATE.grad_enabled
        if (_free() and vec2._dtype is dt and dt in _FLOATS and a.ndim == 1 and b.ndim == 1 and a.size * b.size < OUTER_KERNEL_MIN
                and _plain(input, g) and _plain(vec2, g)):  # fmt: skip
            tok = _quiet(_IGNORE)
            try:
                r = _multiply.outer(a, b)
            finally:
                _restore(tok)
            return _make(r, dt)
        return op.fast(input, vec2)

    return fast


_ZERO = {D.float32: np.float32(0.0), D.float64: np.float64(0.0)}  # np.trace's identity


def trace(op):
    """The fast call ``fn(input)`` of trace (a float32/float64 matrix)."""

    def fast(input):
        S = _STATE
        zero = _ZERO.get(input._dtype)
        a = input._data
        if (zero is None or a.ndim != 2 or S.td_modes or S.fw_level >= 0 or _AUTOCAST
                or input._device is not _CPU or input._rg and S.grad_enabled):  # fmt: skip
            return op.fast(input)  # _fast_guard.plain, inlined (~0.2 us of a 2 us call)
        r, c = a.shape
        n = r if r < c else c
        if n < 8:
            # np.trace's reduction of fewer than 8 values adds them in index order to its
            # identity 0: the same IEEE additions as NumPy scalars, without the reduction's
            # setup (2.2 us -> ~1); a NaN (whose payload and sign the two need not share)
            # takes np.trace
            tok = _quiet(_IGNORE)
            s = zero
            try:
                for i in range(n):
                    s = s + a[i, i]
            finally:
                _restore(tok)
            if s == s:
                return _make(_array(s), input._dtype)
        return _make(np.asarray(a.trace(dtype=zero.dtype)), input._dtype)

    return fast


def cross(op, cross3=None):
    """The fast call ``fn(input, other, dim)`` of linalg.cross, and of torch.cross with ``dim``
    given (the binding's condition: without a dim the body warns), whose composite calls
    linalg.cross's op: with ``cross3`` (the op's array function), same-rank plain inputs of one
    kernel dtype (float32/float64/int32/int64), 3 along an int ``dim`` and shapes that
    broadcast run it on the arrays without the op's checks (Note [Small linalg fast calls]);
    the dim and the result's shape are planned per pair of shapes and dim."""

    def fast(input, other, dim):
        dt = input._dtype
        S = _STATE
        if (cross3 is None or other._dtype is not dt or dim.__class__ is not int or dt not in _CROSS_DTYPES
                or S.td_modes or S.fw_level >= 0 or _AUTOCAST or input._device is not _CPU
                or other._device is not _CPU or S.grad_enabled and (input._rg or other._rg)):  # fmt: skip
            return op.fast(input, other, dim)
        a, b = input._data, other._data
        key = (a.shape, b.shape, dim)
        plan = _CROSS_PLANS.get(key)
        if plan is None:
            if len(_CROSS_PLANS) >= 1024:
                _CROSS_PLANS.clear()
            plan = _CROSS_PLANS[key] = _cross_plan(a.shape, b.shape, dim)
        if not plan:
            return op.fast(input, other, dim)
        return _make(cross3(a, b, *plan), dt)

    return fast


_CROSS_PLANS: dict = {}


def _cross_plan(sa: tuple, sb: tuple, dim: int):
    """(dim wrapped, the result's shape) of linalg.cross on these shapes, or False where the op
    would raise (its error is the op's)."""
    n = len(sa)
    if len(sb) != n or not -n <= dim < n:
        return False
    d = dim + n if dim < 0 else dim
    if sa[d] != 3 or sb[d] != 3:
        return False
    shape = []
    for x, y in zip(sa, sb, strict=True):
        if x != y and x != 1 and y != 1:
            return False
        shape.append(y if x == 1 else x)
    return d, tuple(shape)


_CROSS_DTYPES = (D.float32, D.float64, D.int32, D.int64)


def block_diag(tensors):
    """The fast call of block_diag(*tensors) (None: the body)."""
    if not tensors or not _free():
        return None
    dt = tensors[0]._dtype if tensors[0].__class__ is _Tensor else None
    g = _STATE.grad_enabled
    mats = []
    rows = cols = 0
    for t in tensors:
        if t.__class__ is not _Tensor or t._dtype is not dt or not _plain(t, g) or dt is D.bfloat16:
            return None
        a = t._data
        if a.ndim > 2:
            return None
        if a.ndim < 2:
            a = a.reshape(1, -1)
        mats.append(a)
        rows += a.shape[0]
        cols += a.shape[1]
    out = _zeros((rows, cols), dt.np)
    r = c = 0
    for a in mats:
        h, w = a.shape
        if h >= MANY_ROWS and 1 < w <= NARROW:  # Note [Narrow rows by columns]: a (43691, 3)
            by_columns(out[r : r + h, c : c + w], a)  # block 206 -> 52 us
        else:
            out[r : r + h, c : c + w] = a
        r += h
        c += w
    return _make(out, dt)


def pinv(body, svd, product):
    """The fast call ``fn(A, rcond, hermitian, atol, rtol)`` of linalg.pinv on a nonempty real
    float32/float64 matrix (or batch), not hermitian, with float (or absent) tolerances
    (``pinv_arrays``)."""

    def fast(A, rcond, hermitian, atol, rtol):
        a = A._data
        if not (_free() and A._dtype in _FLOATS and _plain(A, _STATE.grad_enabled) and hermitian is False
                and rcond is None and a.ndim >= 2 and a.size and _num(atol) and _num(rtol)):  # fmt: skip
            return body(A, rcond, hermitian, atol, rtol, None)
        return pinv_arrays(A, atol, rtol, svd, product)

    return fast


def pinv_arrays(A, atol, rtol, svd, product):
    """pinv of a nonempty real float32/float64 CPU ``A`` (not hermitian): the composite's
    arithmetic on the SVD's arrays, each step one IEEE operation per element in the dtype as its
    op computes it (the scalars in the tensor's dtype, as PyTorch's), the final product through
    the same product() its matmul calls, C-ordered as its mul leaves it. The fast call's and,
    below autograd, linalg_pinv's CPU kernel's."""
    dt = A._dtype
    a = A._data
    m, n = a.shape[-2:]
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else float(np.finfo(dt.np).eps) * max(m, n)
    atol = 0.0 if atol is None else atol
    u, s, vh = svd(a, full_matrices=False)
    u = np.ascontiguousarray(u)  # as the op returns it: product() sees the same layout
    f = dt.np.type
    tok = _quiet(_IGNORE)
    try:
        tol = np.maximum(s[..., :1] * f(rtol), f(atol))
        inv = (s > tol).astype(f) / np.where(s <= tol, f(1.0), s)
        scaled = _empty(a.shape[:-2] + (n, s.shape[-1]), f)
        _multiply(vh.swapaxes(-1, -2), inv[..., None, :], out=scaled)
    finally:
        _restore(tok)
    return _make(product(scaled, u.swapaxes(-1, -2)), dt)


def _num(v) -> bool:
    return v is None or v.__class__ is float or v.__class__ is int


_empty = np.empty


# Note [Eigenvalues without eigenvectors]
# linalg.eigvalsh is CompositeImplicit over linalg_eigh (its gradient needs the eigenvectors),
# so every call ran LAPACK's syevd with the eigenvectors and dropped them: a batch of 43690 3x3
# float32 matrices took 13.4 ms where PyTorch's eigvalsh (jobz = 'N') takes 4.9. Where nothing
# records or sees the call (_fast_guard's free() and recordless()), a nonempty finite real
# float32/float64 square batch with UPLO 'L' or 'U' and no kernel registered over either op
# takes np.linalg.eigvalsh's own gufunc under its error state (float64, as NumPy computes a
# float32 one): LAPACK's eigenvalues without vectors, as PyTorch computes eigvalsh, within
# rounding of eigh's. Anything else, errors included, is the body's (test_linalg_perf17c.py).
def eigvalsh(body, eigh_op, eigvalsh_op, values):
    """The fast call ``fn(A, UPLO)`` of linalg.eigvalsh; ``values(a, UPLO)``: the eigenvalues of
    an array of matrices (float64)."""
    eigh_cpu, composite = eigh_op.impls.get("cpu"), eigvalsh_op.impls.get("composite")

    def fast(A, UPLO):
        dt = A._dtype
        a = A._data
        s = a.shape
        if (dt in _FLOATS and (UPLO == "L" or UPLO == "U") and len(s) >= 2 and s[-1] == s[-2] and a.size and _free()
                and _plain(A, _STATE.grad_enabled) and eigh_op.impls.get("cpu") is eigh_cpu
                and eigvalsh_op.impls.get("composite") is composite and _all_true(_isfinite(a), axis=None)):  # fmt: skip
            return _make(values(a, UPLO).astype(dt.np, copy=False), dt)
        return body(A, UPLO, None)

    return fast


_isfinite, _all_true = np.isfinite, np.logical_and.reduce
