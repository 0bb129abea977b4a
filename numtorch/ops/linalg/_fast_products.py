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

from __future__ import annotations

from numpy import empty as _empty

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from ._contract import dot_quiet as _dot_quiet

_FLOATS = (D.float32, D.float64)


def make(op, ranks: frozenset):
    """The fast call of ``op(a, b)`` for these (rank of a, rank of b) pairs."""

    def fast(a, b):
        S = _STATE
        dt = a._dtype
        if (S.td_modes or S.fw_level >= 0 or _AUTOCAST or b._dtype is not dt or dt not in _FLOATS or a._device is not _CPU
                or b._device is not _CPU or S.grad_enabled and (a._rg or b._rg)):  # fmt: skip
            return op.fast(a, b)
        x, y = a._data, b._data
        sx, sy = x.shape, y.shape
        if (len(sx), len(sy)) not in ranks or sx[-1] != sy[0] or sx[-1] == 1:
            return op.fast(a, b)
        fx, fy = x.flags, y.flags
        if not ((fx.c_contiguous or fx.f_contiguous) and (fy.c_contiguous or fy.f_contiguous)):
            return op.fast(a, b)
        dest = _empty(sx[:-1] + sy[1:], x.dtype)
        if len(sx) == 3:  # a C-contiguous stack times a matrix: one GEMM on the stacked rows
            if not (fx.c_contiguous and x.size):  # reshape(-1, 0) has no size to infer
                return op.fast(a, b)
            x, out = x.reshape(-1, sx[-1]), dest.reshape(-1, sy[-1])
        else:
            out = dest
        _dot_quiet(x, y, out)
        return _make(dest, dt)

    return fast


MM = frozenset({(2, 2)})
MV = frozenset({(2, 1)})
DOT = frozenset({(1, 1)})
MATMUL = frozenset({(2, 2), (2, 1), (1, 2), (1, 1), (3, 2)})
