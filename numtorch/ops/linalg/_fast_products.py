"""Fast calls (Note [Binding fast call]) of mm, mv, dot, vdot (real: no conjugate) and
matmul / ``@`` on plain float32/float64 operands of rank 1 or 2."""

# Note [Product fast calls]
# A small mm took the wrapper, op.fast, the wide-unsigned guard, the op's checks and product():
# ~2.9 us where PyTorch takes 1.15, of which np.dot itself is ~0.9. With no dispatch mode, no
# forward-AD level, no autocast region (Note [Autocast key]: it wraps op.fast) and nothing to
# record, plain CPU operands of one dtype (float32 or float64),
# of the ranks the op takes (and a C-contiguous stack times a matrix for matmul, as
# product() folds it) and sizes that fit, with an inner size other than 1 and layouts BLAS
# takes as they are, run product()'s np.dot branch directly (Note [Small products through
# np.dot]): the same values. Anything else, errors included, is op.fast's (read at each call: a
# registered kernel regenerates it).

# Note [Dot's own result]
# np.dot(x, y) without out= allocates a fresh C-ordered result and makes the same BLAS call as
# with an np.empty out (the products' bits, tests/ops/linalg/test_small_products.py): the
# np.empty and out= checks cost ~0.2 us of a 1.9 us mm. A product of two vectors keeps its
# 0-d out (np.dot would return a NumPy scalar). np.matmul's own result of a stack is C-ordered
# too; where it is not, the fast call computes again into the C-ordered array the body uses.
# The products call the array's dot method: the C function np.dot calls (PyArray_MatrixProduct2:
# the same BLAS call) without np.dot's __array_function__ dispatch, ~0.1 us of a small mm.

from __future__ import annotations

import numpy as np
from numpy import empty as _empty

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from ._contract import product as _product

_matmul, _add, _multiply = np.matmul, np.add, np.multiply

_FLOATS = (D.float32, D.float64)


def make(op, ranks: frozenset):
    """The fast call of ``op(a, b)`` for these (rank of a, rank of b) pairs."""
    one = len(ranks) == 1 and next(iter(ranks))  # mm, mv, dot: the ranks tested as two ints
    ra, rb = one or (0, 0)

    def fast(a, b):
        S = _STATE
        dt = a._dtype
        if (S.td_modes or S.fw_level >= 0 or _AUTOCAST or b._dtype is not dt or dt not in _FLOATS
                or a._device is not _CPU or b._device is not _CPU
                or S.grad_enabled and (a._rg or b._rg)):  # fmt: skip
            return op.fast(a, b)
        x, y = a._data, b._data
        sx, sy = x.shape, y.shape
        nx, ny = len(sx), len(sy)
        if (nx != ra or ny != rb) if one else (nx, ny) not in ranks:
            return op.fast(a, b)
        k = sx[-1]
        if k != sy[0] or k == 1 or not (x.flags.forc and y.flags.forc):  # C or Fortran order, each
            return op.fast(a, b)
        if nx == 3:  # a C-contiguous stack times a matrix: one GEMM on the stacked rows
            if not (x.flags.c_contiguous and x.size):  # reshape(-1, 0) has no size to infer
                return op.fast(a, b)
            dest = _empty(sx[:-1] + sy[1:], x.dtype)
            x, out = x.reshape(-1, k), dest.reshape(-1, sy[-1])
        elif nx + ny == 2:  # np.dot of two vectors returns a scalar: its 0-d array is the out
            dest = out = _empty((), x.dtype)
        else:  # np.dot allocates the C-ordered result product() passes it (Note [Dot's own result])
            out = None
        tok = _quiet(_IGNORE)  # _contract.dot_quiet, inlined
        try:
            if out is None:
                dest = x.dot(y)
            else:
                x.dot(y, out)
        finally:
            _restore(tok)
        return _make(dest, dt)

    return fast


MM = frozenset({(2, 2)})
MV = frozenset({(2, 1)})
DOT = frozenset({(1, 1)})
MATMUL = frozenset({(2, 2), (2, 1), (1, 2), (1, 1), (3, 2)})


# Note [Addprod fast calls]
# bmm and the addmm family's bindings called op.fast: the wide-unsigned guard, the op's checks,
# product() and _addprod (Scalar conversions, a quiet state per step): 2.5-3 us over the one
# BLAS call on a (2, 2, 3) @ (2, 3, 4) bmm (np.matmul ~1 us; PyTorch's whole bmm 1.1 us). Under
# _fast_guard's conditions (no mode, level or autocast region, nothing to record), operands of
# one float32/float64 dtype, nonempty, an inner size of 2 or more, beta and alpha the ints 1
# (addmm's F.linear branch; the others' _addprod adds self, as it is, into the product) and an
# input of the result's shape (addmm: or of its last dim, the bias row), the fast call runs
# the body's own array calls: product()'s np.matmul into a fresh C-ordered array (bmm,
# baddbmm) or its np.dot (addmm, addmv, addbmm's batch-concatenated operands in the layouts
# BLAS takes as they are), then one np.add into that result, all in one quiet state. Anything
# else, errors included, is op.fast's (tests/ops/linalg/test_addprod_fast.py).
def _ones(beta, alpha) -> bool:
    return beta.__class__ is int and alpha.__class__ is int and beta == 1 and alpha == 1


def _same(dt, *ts) -> bool:
    """free(), every tensor recordless and of dtype ``dt``, a BLAS float (_fast_guard's tests
    written out: the calls cost ~0.3 us of a 2.7 us bmm; a float is never wide unsigned)."""
    S = _STATE
    if S.td_modes or S.fw_level >= 0 or _AUTOCAST or dt not in _FLOATS:
        return False
    g = S.grad_enabled
    for t in ts:
        if t._dtype is not dt or t._device is not _CPU or g and t._rg:
            return False
    return True


def _dot_add(x, y, add):
    """np.dot(x, y) (a fresh C-ordered array: Note [Dot's own result]), then ``add``
    added into it (quiet)."""
    tok = _quiet(_IGNORE)
    try:
        dest = x.dot(y)
        if add is not None:
            _add(dest, add, dest)
    finally:
        _restore(tok)
    return dest


def _matmul_add(x, y, add):
    tok = _quiet(_IGNORE)
    try:
        dest = _matmul(x, y)  # Note [Dot's own result]: np.matmul's out= parsing costs ~0.5 us
        if not dest.flags.c_contiguous:  # the body's layout, and its BLAS call on that output
            sx, sy = x.shape, y.shape
            dest = _empty((sx[0], sx[1], sy[2]), x.dtype)
            _matmul(x, y, out=dest)
        if add is not None:
            _add(dest, add, dest)
    finally:
        _restore(tok)
    return dest


def _bmm_shapes(sx, sy) -> bool:
    if len(sx) != 3 or len(sy) != 3:
        return False
    b, n, k = sx
    b2, k2, m = sy
    return 1 < k == k2 and 0 < b == b2 and n > 0 and m > 0


def bmm(op):
    """The fast call ``fn(input, mat2)`` of bmm."""

    def fast(a, b):
        S = _STATE
        dt = a._dtype  # _same and _bmm_shapes written out (~0.15 us of a 1.9 us bmm)
        if (S.td_modes or S.fw_level >= 0 or _AUTOCAST or b._dtype is not dt or dt not in _FLOATS
                or a._device is not _CPU or b._device is not _CPU
                or S.grad_enabled and (a._rg or b._rg)):  # fmt: skip
            return op.fast(a, b)
        x, y = a._data, b._data
        sx, sy = x.shape, y.shape
        if len(sx) != 3 or len(sy) != 3:
            return op.fast(a, b)
        nb, n, k = sx
        nb2, k2, m = sy
        if not (1 < k == k2 and 0 < nb == nb2 and n > 0 and m > 0):
            return op.fast(a, b)
        tok = _quiet(_IGNORE)
        try:
            dest = _matmul(x, y)  # Note [Dot's own result]
            if not dest.flags.c_contiguous:
                dest = _empty((nb, n, m), x.dtype)
                _matmul(x, y, out=dest)
        finally:
            _restore(tok)
        return _make(dest, dt)

    return fast


def baddbmm(op):
    """The fast call ``fn(input, batch1, batch2, beta, alpha)`` of baddbmm."""

    def fast(input, b1, b2, beta, alpha):
        S = _STATE
        dt = input._dtype  # _ones, _same and _bmm_shapes written out, as bmm's
        if (beta.__class__ is not int or alpha.__class__ is not int or beta != 1 or alpha != 1
                or S.td_modes or S.fw_level >= 0 or _AUTOCAST or dt not in _FLOATS
                or b1._dtype is not dt or b2._dtype is not dt
                or input._device is not _CPU or b1._device is not _CPU or b2._device is not _CPU
                or S.grad_enabled and (input._rg or b1._rg or b2._rg)):  # fmt: skip
            return op.fast(input, b1, b2, beta, alpha)
        x, y, s = b1._data, b2._data, input._data
        sx, sy = x.shape, y.shape
        if len(sx) != 3 or len(sy) != 3:
            return op.fast(input, b1, b2, beta, alpha)
        nb, n, k = sx
        nb2, k2, m = sy
        if not (1 < k == k2 and 0 < nb == nb2 and n > 0 and m > 0 and s.shape == (nb, n, m)):
            return op.fast(input, b1, b2, beta, alpha)
        return _make(_matmul_add(x, y, s), dt)

    return fast


def _mm_ok(x, y) -> bool:
    """2-D operands with matching inner sizes of 2 or more, nonempty, in layouts BLAS takes."""
    sx, sy = x.shape, y.shape
    return (len(sx) == 2 and len(sy) == 2 and sx[1] == sy[0] and sx[1] > 1 and sx[0] * sy[1] > 0
            and x.flags.forc and y.flags.forc)  # fmt: skip


def addmm(op):
    """The fast call ``fn(input, mat1, mat2, beta, alpha)`` of addmm."""

    def fast(input, m1, m2, beta, alpha):
        S = _STATE
        dt = input._dtype  # _ones and _same written out, as baddbmm's
        if (beta.__class__ is not int or alpha.__class__ is not int or beta != 1 or alpha != 1
                or S.td_modes or S.fw_level >= 0 or _AUTOCAST or dt not in _FLOATS
                or m1._dtype is not dt or m2._dtype is not dt
                or input._device is not _CPU or m1._device is not _CPU or m2._device is not _CPU
                or S.grad_enabled and (input._rg or m1._rg or m2._rg)):  # fmt: skip
            return op.fast(input, m1, m2, beta, alpha)
        x, y, s = m1._data, m2._data, input._data
        if _mm_ok(x, y):
            shape = (x.shape[0], y.shape[1])
            if s.shape == shape or s.shape == shape[1:]:
                return _make(_dot_add(x, y, s), dt)
        return op.fast(input, m1, m2, beta, alpha)

    return fast


def addmv(op):
    """The fast call ``fn(input, mat, vec, beta, alpha)`` of addmv."""

    def fast(input, mat, vec, beta, alpha):
        S = _STATE
        dt = input._dtype  # _ones and _same written out, as baddbmm's
        if (beta.__class__ is not int or alpha.__class__ is not int or beta != 1 or alpha != 1
                or S.td_modes or S.fw_level >= 0 or _AUTOCAST or dt not in _FLOATS
                or mat._dtype is not dt or vec._dtype is not dt
                or input._device is not _CPU or mat._device is not _CPU or vec._device is not _CPU
                or S.grad_enabled and (input._rg or mat._rg or vec._rg)):  # fmt: skip
            return op.fast(input, mat, vec, beta, alpha)
        x, y, s = mat._data, vec._data, input._data
        sx = x.shape
        if len(sx) == 2 and len(y.shape) == 1:
            m, k = sx
            if (k > 1 and m and y.shape[0] == k and s.shape == (m,)
                    and x.flags.forc and y.flags.forc):  # fmt: skip
                return _make(_dot_add(x, y, s), dt)
        return op.fast(input, mat, vec, beta, alpha)

    return fast


def addbmm(op):
    """The fast call ``fn(input, batch1, batch2, beta, alpha)`` of addbmm: the body's one product
    of the batch-concatenated operands (its moveaxis and reshapes)."""

    def fast(input, b1, b2, beta, alpha):
        dt = input._dtype
        x, y, s = b1._data, b2._data, input._data
        if _ones(beta, alpha) and _same(dt, input, b1, b2) and _bmm_shapes(x.shape, y.shape):
            b, n, k = x.shape
            m = y.shape[2]
            if s.shape == (n, m):
                xc, yc = (
                    x.transpose(1, 0, 2).reshape(n, b * k),
                    y.reshape(b * k, m),
                )  # np.moveaxis(x, 0, 1)
                if xc.flags.forc and yc.flags.forc:
                    return _make(_dot_add(xc, yc, s), dt)
        return op.fast(input, b1, b2, beta, alpha)

    return fast


def matrix_power(op):
    """The fast call ``fn(A, n)`` of matrix_power / linalg.matrix_power for a float32/float64
    matrix (2 x 2 or larger, in a layout BLAS takes) and an int n >= 2: the composite's binary
    decomposition, each of its matmul calls the np.dot that matmul's fast call makes
    (Note [Product fast calls])."""

    def fast(A, n):
        dt = A._dtype
        a = A._data
        s = a.shape
        if not (
            n.__class__ is int
            and n >= 2
            and len(s) == 2
            and s[0] == s[1]
            and s[0] > 1
            and _same(dt, A)
            and a.flags.forc
        ):
            return op.fast(A, n)
        result, z = None, a
        tok = _quiet(_IGNORE)
        try:
            while True:
                if n % 2:
                    result = z if result is None else result.dot(z, _empty(s, a.dtype))
                n //= 2
                if not n:
                    break
                z = z.dot(z, _empty(s, a.dtype))
        finally:
            _restore(tok)
        return _make(result, dt)

    return fast


# Note [Bilinear fast call]
# F.bilinear's composite (its checks, a broadcast matmul, a mul and an add on broadcast strided
# operands through the general pointwise path, a sum, a transpose): 80 us on (3, 2), (3, 3),
# (4, 2, 3) where PyTorch takes 35. Under _fast_guard's conditions, 2-D inputs, a weight and a
# bias of one float32/float64 dtype in the shapes the composite accepts, nonempty, run its own
# steps on the arrays: product() of the rows and the weight (its np.matmul), np.multiply (one
# IEEE product per element, as the mul kernel), the sum method over the last dim (the same
# reduction kernel on the same C-contiguous array) and np.add of the bias into a C-ordered
# result (the add's layout). Anything else, errors included, is the op's
# (tests/ops/linalg/test_addprod_fast.py).
def bilinear(op):
    """The fast call ``fn(input1, input2, weight, bias)`` of F.bilinear with a bias."""

    def fast(input1, input2, weight, bias):
        dt = input1._dtype
        if bias is not None and _same(dt, input1, input2, weight, bias):
            a1, a2, w, b = input1._data, input2._data, weight._data, bias._data
            s1, s2, sw = a1.shape, a2.shape, w.shape
            if (len(s1) == 2 and len(s2) == 2 and len(sw) == 3 and s1[0] == s2[0] and s1[1] == sw[1]
                    and s2[1] == sw[2] and b.shape == sw[:1] and a1.size and a2.size and w.size):  # fmt: skip
                t = _product(a1, w)  # (o, rows, i2)
                tok = _quiet(_IGNORE)
                try:
                    _multiply(t, a2, out=t)
                finally:
                    _restore(tok)
                s = _make(t, dt).sum(-1)._data  # (o, rows)
                dest = _empty((s1[0], sw[0]), t.dtype)
                tok = _quiet(_IGNORE)
                try:
                    _add(s.T, b, out=dest)
                finally:
                    _restore(tok)
                return _make(dest, dt)
        return op.fast(input1, input2, weight, bias)

    return fast
