"""The fast call of cdist (Note [Small linalg fast calls], Note [Short-row cdist])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._fast_guard import free as _free
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from ..reduction.norm_fast import vnorm as _vnorm

# Note [Short-row cdist]
# cdist's body is a composite: the broadcast difference x1[..., :, None, :] - x2[..., None, :, :]
# (the sub kernel) and linalg.vector_norm over its last dim (the norm fold's row kernel). Its
# fast call ran the same two steps on the arrays, through the fold's Python layers (~6 of 7.8
# us on the sweep's 2x3x2 points, PyTorch 4.3) and up to 16384 results only (NumPy's broadcast
# subtraction over a last dim of 2 is slower than the sub kernel: 0.95 ms for 131072 results).
# Points with one or two coordinates, the common 1-d/2-d case, now take one kernel
# (kernels/cpu/cdist.py) for the 2-norm and the 1-norm at any size (threads from
# PARALLEL_THRESHOLD results): each result is the body's bits because the body's arithmetic on
# such a row has one order only. The subtraction is one IEEE operation per coordinate either
# way; the fold's leaf is compiled with "reassoc", so on longer rows the compiler picks its
# order (vector lanes), but 0 + x0*x0 + x1*x1 reads the same in every order (x*x is never -0),
# one coordinate is the magnitude (_norm_cpu's size-1 rule: no square and root, so a float32
# 1e-30 stays 1e-30), and both roots are correctly rounded. Longer rows and other p keep the
# two steps, the norm through norm_fast.vnorm (the fold's row kernel through its compiled
# entry, bit for bit the fold's: Note [Norm fast calls]). Batches where a side's batch dims
# neither equal the result's nor hold one matrix, and errors, take those steps or the body
# (tests/ops/linalg/test_cdist_perf18c.py).

_FLOATS = (D.float32, D.float64)
# the most results the two-step route computes: past it NumPy's broadcast loops over the short
# last dim run slower than the sub kernel the body calls
_SMALL = 16384
_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)
_subtract, _empty, _broadcast_shapes = np.subtract, np.empty, np.broadcast_shapes
COUNT = [0]  # calls that took the kernel (tests)
_K = lazy("numtorch.kernels.cpu.cdist")


def _plain(x, g: bool) -> bool:
    return x._device is _CPU and not (g and x._rg)


def _short_rows(a, b, p1: bool):
    # the kernel's result, or None where a side's batch dims are neither the result's nor one
    # matrix (or do not broadcast: the body's error)
    ba, bb = a.shape[:-2], b.shape[:-2]
    if ba == bb:
        batch = ba
    else:
        try:
            batch = _broadcast_shapes(ba, bb)
        except ValueError:
            return None
        if not (ba == batch or a.size == a.shape[-1] * a.shape[-2]) or not (
            bb == batch or b.size == b.shape[-1] * b.shape[-2]
        ):
            return None
    P, M = a.shape[-2:]
    R = b.shape[-2]
    out = _empty(batch + (P, R), a.dtype)
    a3 = a.reshape(-1, P, M)
    b3 = b.reshape(-1, R, M)
    o3 = out.reshape(-1, P, R)
    (_K.short_rows if out.size < PARALLEL_THRESHOLD else _K.short_rows_parallel)(a3, b3, o3, p1)
    COUNT[0] += 1
    return out


class _NormPending:
    # the difference whose p-norm vnorm declines (p outside its set): the caller's norm op
    __slots__ = ("diff",)

    def __init__(self, diff):
        self.diff = diff


def arrays(a, b, dt, p):
    """The body's result array for checked operands (one float32/float64 dtype ``dt``, at least
    2-d, nonempty, equal rows, p >= 0), a _NormPending whose difference needs the norm op, or
    None where the body must run (large results past the kernel's shapes, batch dims that do
    not broadcast)."""
    if a.shape[-1] <= 2 and (p == 2 or p == 1):
        r = _short_rows(a, b, p == 1)
        if r is not None:
            return r
    if a.size * b.size // a.shape[-1] > _SMALL:
        return None
    # C order, as the sub kernel writes it: NumPy keeps a transposed operand's layout, the
    # norm then folded another order than the body's; quiet, as PyTorch (inf - inf is nan)
    token = _quiet(_IGNORE)
    try:
        diff = _subtract(a[..., :, None, :], b[..., None, :, :], order="C")
    except ValueError:  # batch dims that do not broadcast: the body's error
        return None
    finally:
        _restore(token)
    d = _make(diff, dt)
    r = _vnorm(d, float(p), -1, False)
    return _NormPending(d) if r is None else r


def cdist(body, norm_op):
    """The fast call ``fn(x1, x2, p, compute_mode)`` of cdist (Note [Short-row cdist]):
    ``norm_op()`` is aten.norm.ScalarOpt_dim, whose fast call takes the p that vnorm declines."""

    def fast(x1, x2, p, compute_mode):
        dt = x1._dtype
        g = _STATE.grad_enabled
        a, b = x1._data, x2._data
        if (_free() and x2._dtype is dt and dt in _FLOATS and _plain(x1, g) and _plain(x2, g) and a.ndim >= 2
                and b.ndim >= 2 and a.shape[-1] == b.shape[-1] and a.size and b.size and (p.__class__ is float or p.__class__ is int)
                and p >= 0 and (compute_mode is None or compute_mode.__class__ is str and compute_mode in _MODES)):  # fmt: skip
            r = arrays(a, b, dt, p)
            if r is None:
                return body(x1, x2, p, compute_mode)
            if r.__class__ is _NormPending:
                return norm_op().fast(r.diff, float(p), [-1], False)
            return _make(r, dt)
        return body(x1, x2, p, compute_mode)

    return fast
