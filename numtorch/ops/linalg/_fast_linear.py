"""F.linear's fast call: the composite's steps (``numtorch/ops/nn/layers.py`` ``_linear``) on
the arrays, recorded as the composite records them."""

from __future__ import annotations

from ..._device import CPU as _CPU
from ..._ops import ops as _ops
from ..._state import STATE as _STATE
from ..._tensor import PLAIN_SUBCLASSES as _PL
from ..._tensor import Tensor, _make, _view
from ...amp._policy import _INSTALLED as _AUTOCAST
from ...autograd import _engine
from .._registry import body_of
from ._fast_products import _FLOATS, _dot_add

_aten = _ops.aten


# Note [Linear fast call]
# F.linear(x, w, b) on a (..., k) input took its composite: t(w), view(x, [-1, k]),
# addmm(b, flat, w.t()), view(out, [..., n]), each through the dispatcher (a (2, 4, 8) input:
# 7.9 us without grad, 11 us with it, PyTorch 2.7 / 4.0; GPT-2's eighteen linears a step). With
# no dispatch mode, forward-AD level, autocast region or anomaly / saved-tensor-hook bit, CPU
# tensors of one float32/float64 dtype (the input a Tensor, weight and bias Tensors or plain
# subclasses: Parameters), a 2-D contiguous weight, a bias of shape (n,) (a 2-D input: or of
# the result's shape, as addmm's fast call), an inner size of 2 or more, a nonempty result and
# an input of 2 dims or a C-contiguous one of more, the fast call runs the same steps on the
# arrays: addmm's F.linear branch (np.dot into a fresh C-ordered array, then the bias added in
# place: Note [Dot's own result]) on the input's (rows, k) view and the weight's transpose, the
# result viewed back. Where grad mode would record, it records what the composite's calls
# record, from the same arguments, through their generated recorders (Note [Generated
# recording]): TBackward0 by t's own body, ViewBackward0 for each view and AddmmBackward0, so
# the graph, the saved tensors and the results' views and version counters are the composite's.
# Anything else, errors included, is op.fast's (the composite); while a kernel is registered over
# an aten op the binding runs without this call (Note [Fast calls under kernel overrides]).
# Tests: tests/ops/linalg/test_linear_fast.py.
def linear(op):
    """The fast call ``fn(input, weight, bias)`` of F.linear (Note [Linear fast call])."""
    recs = {}  # the generated recorders of aten.view and aten.addmm, made on the first record
    tee = []  # Tensor.t's body (body_of needs the bindings, which import this module)

    def fast(input, weight, bias):
        S = _STATE
        dt = input._dtype
        if (bias is None or S.td_modes or S.fw_level >= 0 or _AUTOCAST or S.anomaly
                or dt not in _FLOATS or weight._dtype is not dt or bias._dtype is not dt
                or input._device is not _CPU or weight._device is not _CPU or bias._device is not _CPU):  # fmt: skip
            return op.fast(input, weight, bias)
        x, w, b = input._data, weight._data, bias._data
        sx, sw = x.shape, w.shape
        nd = len(sx)
        if len(sw) != 2 or nd < 2 or (nd > 2 and not x.flags.c_contiguous):
            return op.fast(input, weight, bias)
        n, k = sw
        rows = x.size // k if k else 0
        if not (sx[-1] == k > 1 and rows and n and w.flags.forc):
            return op.fast(input, weight, bias)
        if not (b.shape == (n,) or nd == 2 and b.shape == (rows, n)):
            return op.fast(input, weight, bias)
        if nd == 2 and not x.flags.forc:  # other layouts: product()'s np.matmul loop
            return op.fast(input, weight, bias)
        grad = S.grad_enabled and (input._rg or weight._rg or bias._rg)
        if not grad:
            res = _dot_add(x if nd == 2 else x.reshape(rows, k), w.T, b)
            if nd == 2:
                return _make(res, dt)
            return _view(_make(res, dt), res.reshape(*sx[:-1], n))
        if input.__class__ is not Tensor or not (
            weight.__class__ is Tensor or weight.__class__ in _PL
        ) or not (bias.__class__ is Tensor or bias.__class__ in _PL):  # fmt: skip
            return op.fast(input, weight, bias)
        return _recorded(input, weight, bias, x, w, b, rows, n, k, recs, tee)

    return fast


def _recorded(input, weight, bias, x, w, b, rows, n, k, recs, tee):
    # the composite's four calls, each recorded as its dispatch records it
    if not tee:
        tee.append(body_of("t", "Tensor"))
    wt = tee[0](weight)
    dt = input._dtype
    nd = x.ndim
    rv, ra = recs.get("view"), recs.get("addmm")
    if ra is None or ra.deriv is not _aten.addmm.default.autograd:
        ra = recs["addmm"] = _engine.record_output(_aten.addmm.default)
    if nd == 2:
        flat = input
        res = _dot_add(x, wt._data, b)
    else:
        if rv is None or rv.deriv is not _aten.view.default.autograd:
            rv = recs["view"] = _engine.record_output(_aten.view.default)
        a2 = x.reshape(rows, k)
        flat = _view(input, a2)
        if input._rg:
            flat = rv(flat, input, [-1, k])
        res = _dot_add(a2, wt._data, b)
    out = ra(_make(res, dt), bias, flat, wt, 1, 1)
    if nd == 2:
        return out
    size = [*x.shape[:-1], n]
    return rv(_view(out, res.reshape(size)), out, size)
