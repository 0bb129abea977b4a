"""The fast call of F.hinge_embedding_loss (Note [Hinge embedding fast call])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from .._fast_guard import params, plain
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from .loss_pointwise import apply_reduction

# Note [Hinge embedding fast call]
# F.hinge_embedding_loss of a small input took 26 us where PyTorch takes 14: its composite
# (ATen's) is seven dispatched elementwise ops - self * 0, margin - self, clamp_min(0), two
# comparisons, two where and an add - before the reduction. Each is exact IEEE arithmetic or a
# selection, so for a plain call (_fast_guard.plain for input and target: no mode, forward-AD
# level or autocast region, nothing to record) of float32/float64 operands of one dtype and one
# shape, a float margin other than NaN (the composite's rsub makes the default NaN from an
# infinite input there, NumPy the margin's), no size_average or reduce and a reduction named "mean", "sum" or
# "none", the same ops on the arrays (the margin in the input's dtype, as the Python scalar's
# rsub rounds it; np.maximum keeps NaN and the first of two equal zeros, as clamp_min) give the
# composite's elements bit for bit (tests compare NaN, infinities and signed zeros), and the
# composite's own apply_reduction reduces them. A numtorch.library kernel registered over any
# of those ops, and everything else, takes the body.
_FLOATS = (D.float32, D.float64)
_RED = {"none": 0, "mean": 1, "sum": 2}
_OPS: tuple = ()
_DECLARED: tuple = ()


def _hinge(input, target, margin, size_average, reduce, reduction):
    dt = input._dtype
    if not (margin.__class__ is float and margin == margin and size_average is None and reduce is None and reduction.__class__ is str
            and dt in _FLOATS and target._dtype is dt and plain(input) and plain(target)):  # fmt: skip
        return None
    red = _RED.get(reduction)
    x, t = input._data, target._data
    if red is None or x.shape != t.shape or tuple(op.impls.get("cpu") for op in _OPS) != _DECLARED:
        return None
    f = x.dtype.type
    tok = _quiet(_IGNORE)  # the kernels raise no NumPy warnings (Note [Quiet floating-point flags])
    try:
        zeros = x * f(0)
        out = np.where(t != 1, np.maximum(f(margin) - x, f(0)), zeros)
        out += np.where(t != -1, x, zeros)
    finally:
        _restore(tok)
    return apply_reduction(_make(out, dt), red)


def _make_fast(body):
    def fast(input, target, margin, size_average, reduce, reduction):
        r = _hinge(input, target, margin, size_average, reduce, reduction)
        return body(input, target, margin, size_average, reduce, reduction) if r is None else r

    return fast


def install(bindings) -> None:
    """Attach the fast call (installed from shuffle_fast.install, before _api.install)."""
    global _OPS, _DECLARED
    from ..._ops import ops
    from .loss_margin import hinge_embedding_loss

    a = ops.aten
    _OPS = (hinge_embedding_loss, a.mul.Tensor, a.rsub.Scalar, a.clamp_min.default, a.ne.Scalar,
            a.where.self, a.add.Tensor, a.mean.default, a.sum.default)  # fmt: skip
    _DECLARED = tuple(op.impls.get("cpu") for op in _OPS)
    for b in bindings:
        if b.module == "torch.nn.functional" and b.name == "hinge_embedding_loss" and b.fast is None:
            b.fast = (_make_fast(b.body), params(b.sig))
