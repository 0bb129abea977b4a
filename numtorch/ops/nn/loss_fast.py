"""Binding fast calls of F.nll_loss and F.cross_entropy with class-index targets (Note [Loss
binding fast calls])."""

# Note [Loss binding fast calls]
# F.nll_loss of a (2, 3, 2, 2) input ran its body, the reduction enum, nll_loss_nd's composite,
# nll_loss2d's composite and nll_loss2d_forward's dispatch before _nll_forward (6.7 us; PyTorch
# 2.2), and F.cross_entropy added cross_entropy_loss's composite and log_softmax's two layers
# (10.5 us; PyTorch 3.2). A plain call (_fast_guard: no mode, forward-AD level or autocast region,
# input and target record nothing) with no weight, size_average or reduce, a reduction named
# "mean", "sum" or "none", an int ignore_index, no label smoothing, a non-empty float32/float64
# input of 2 or 4 dims and an int64 target of the shape the kernel checks accept ((N,) or
# (N, H, W)) calls what those layers end in: _nll_forward with the N, C, S and result shape
# nll_loss_forward / nll_loss2d_forward give it, after scan's _softmax_impl (log_softmax's CPU
# function over dim 1) for cross_entropy; its nll_loss kernel is nll_loss_checked, the same loop
# after a check of the targets' range, which _nll_prepare makes with a NumPy reduction (1.1 us). Anything else, an out-of-range target
# included, declines (None) to the body, which makes the checks and raises PyTorch's errors. tests/ops/nn/test_loss_fast.py compares both routes bit for bit.

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from .._fast_guard import or_body, params, plain, recordless
from ..reduction._entries import call
from ..reduction.scan import _softmax_impl
from .loss import K

_I64 = np.dtype(np.int64)
_NOW = {np.dtype(t): np.empty(0, t) for t in (np.float32, np.float64)}  # no weight: all ones

_RED = {"none": 0, "mean": 1, "sum": 2}
_FLOATS = (D.float32, D.float64)
COUNT = [0]  # calls that took the fast route (tests)


def _plan(input, target, weight, size_average, ignore_index, reduce, reduction):
    # (reduction enum, N, C, S, unreduced shape) of a call the fast route takes, else None
    if weight is not None or size_average is not None or reduce is not None or ignore_index.__class__ is not int:
        return None
    if not -(1 << 63) <= ignore_index < 1 << 63:  # the kernel's int64
        return None
    red = _RED.get(reduction) if reduction.__class__ is str else None
    if red is None or input._dtype not in _FLOATS or target._dtype is not D.int64:
        return None
    if not (plain(input) and recordless(target)):
        return None
    x, t = input._data, target._data
    if not x.size:
        return None
    if x.ndim == 2 and t.shape == x.shape[:1]:
        return red, x.shape[0], x.shape[1], 1, t.shape
    if x.ndim == 4 and t.shape == (x.shape[0], *x.shape[2:]):
        return red, x.shape[0], x.shape[1], x.shape[2] * x.shape[3], t.shape
    return None


def _forward(x, target, plan, ignore_index):
    # loss._nll_forward's output of a plain call (its target checks pass: no target >= C or
    # negative), else None; ``x`` the input's C-contiguous ndarray
    red, N, C, S, shape = plan
    t = target._data
    if t.dtype is not _I64 or not t.flags.c_contiguous:
        return None
    t = t.ravel()
    x = x.ravel()
    per = np.empty(t.size, x.dtype)
    tw = call(K, "nll_loss_checked", (x, t, _NOW[x.dtype], C, S, ignore_index, per))
    if tw < 0:  # a target out of range: the body raises
        return None
    if red == 0:
        return per.reshape(shape)
    if red == 2:
        return np.array(call(K, "total", (per,)), x.dtype)
    return np.array(call(K, "total", (per,)) / tw if tw else np.nan, x.dtype)


def _nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    p = _plan(input, target, weight, size_average, ignore_index, reduce, reduction)
    if p is None:
        return None
    x = input._data
    r = _forward(x, target, p, ignore_index) if x.flags.c_contiguous else None
    if r is None:
        return None
    COUNT[0] += 1
    return _make(r, input._dtype)


def _cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                   reduction="mean", label_smoothing=0.0):  # fmt: skip
    if label_smoothing.__class__ is not float or label_smoothing != 0.0:
        return None
    p = _plan(input, target, weight, size_average, ignore_index, reduce, reduction)
    if p is None:
        return None
    r = _forward(_softmax_impl(input, 1, False, True)._data, target, p, ignore_index)
    if r is None:
        return None
    COUNT[0] += 1
    return _make(r, input._dtype)


_CALLS = {("torch.nn.functional", "nll_loss"): _nll_loss, ("torch.nn.functional", "cross_entropy"): _cross_entropy}


def install(bindings) -> None:
    """Attach the calls above to their bindings (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        fast = _CALLS.get((b.module, b.name))
        if fast is not None and b.fast is None:
            b.fast = (or_body(fast, b.body), params(b.sig))
