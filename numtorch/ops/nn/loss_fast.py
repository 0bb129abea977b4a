"""Binding fast calls of F.nll_loss and F.cross_entropy with class-index targets (Note [Loss
binding fast calls]), F.smooth_l1_loss and F.huber_loss (Note [Elementwise loss binding fast
calls]), F.multi_margin_loss (Note [Multi-margin binding fast call])."""

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
from ...kernels import lazy
from .._fast_guard import or_body, params, plain, recordless
from ..reduction._entries import call
from ..reduction.scan import _softmax_impl
from . import loss_pointwise as _LP
from . import softmax_fast as _SF
from .loss import K
from .loss_multimargin import MK as _MK

_I64 = np.dtype(np.int64)
_KT = lazy("numtorch.kernels.cpu.nn.nll_total")  # nll_loss_checked and total in one call
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
    if red == 0:
        tw = call(K, "nll_loss_checked", (x, t, _NOW[x.dtype], C, S, ignore_index, per))
        return None if tw < 0 else per.reshape(shape)  # a target out of range: the body raises
    tw, tot = call(_KT, "nll_loss_checked_total", (x, t, _NOW[x.dtype], C, S, ignore_index, per))
    if tw < 0:
        return None
    if red == 2:
        return np.array(tot, x.dtype)
    return np.array(tot / tw if tw else np.nan, x.dtype)


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
    ls = _SF.softmax_plain(input, 1, True)  # Note [Softmax plans]: the tiny route's planned call
    r = _forward((_softmax_impl(input, 1, False, True) if ls is None else ls)._data, target, p, ignore_index)
    if r is None:
        return None
    COUNT[0] += 1
    return _make(r, input._dtype)


# Note [Elementwise loss binding fast calls]
# F.smooth_l1_loss / F.huber_loss of two same-shape tensors ran the body (the size warning's
# test, broadcast_tensors, the reduction enum, the parameter check), a dispatch and the loss's
# CPU function, whose Pointwise call took the engine's general route (dtypes, broadcasting):
# 16-24 us where PyTorch takes 9. A plain call (_fast_guard: no mode, forward-AD level or
# autocast region; input and target record nothing) of one float32/float64 dtype, one shape,
# C-contiguous and non-empty, with no size_average or reduce, a reduction named "mean", "sum"
# or "none" and a float beta/delta > 0 runs the same Pointwise kernel through its same-shape
# route (Pointwise.binary: the kernel the general route picks, with the same parameter) and
# the CPU function's reduction (loss_pointwise._reduce), so the bits are the body's. The rest
# declines to the body (beta 0's l1_loss, errors and warnings included).
def _pw_plain(input, target, reduction, p):
    a, b = input._data, target._data
    if not (p.__class__ is float and p > 0 and input._dtype in _FLOATS and target._dtype is input._dtype
            and a.shape == b.shape and a.size and a.flags.c_contiguous and b.flags.c_contiguous
            and plain(input) and plain(target)):  # fmt: skip
        return None
    return _RED.get(reduction) if reduction.__class__ is str else None


def _smooth_l1(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    red = _pw_plain(input, target, reduction, beta) if size_average is None and reduce is None else None
    if red is None:
        return None
    COUNT[0] += 1
    return _LP._reduce(_LP.PW["smooth_l1_loss"].binary(input, target, beta), red)


def _huber(input, target, reduction="mean", delta=1.0, weight=None):
    red = _pw_plain(input, target, reduction, delta) if weight is None else None
    if red is None:
        return None
    COUNT[0] += 1
    return _LP._reduce(_LP.PW["huber_loss"].binary(input, target, delta), red)


# Note [Multi-margin binding fast call]
# F.multi_margin_loss ran the body (reduction enum, p and weight checks), a dispatch and
# _multi_margin_cpu's argument building (_check_multi_margin, _mm_args) around its one kernel:
# 5.7 us where PyTorch takes 2.1. A plain call (as above) of a C-contiguous (N, C) float32/
# float64 input with N, C > 0, an int64 target of shape (N,), p 1 or 2 (ints), an int or float
# margin, no weight, size_average or reduce and a reduction named "mean", "sum" or "none"
# makes the same multi_margin kernel call with the same arguments (the margin in the input's
# dtype, an unused one-element weight); a target out of range (the kernel's status) or
# anything else takes the body, which raises PyTorch's errors.
def _multi_margin(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    c = margin.__class__
    if not (weight is None and size_average is None and reduce is None and (p.__class__ is int and p in (1, 2))
            and (c is float or c is int) and reduction.__class__ is str and input._dtype in _FLOATS
            and target._dtype is D.int64 and plain(input) and recordless(target)):  # fmt: skip
        return None
    red = _RED.get(reduction)
    x, t = input._data, target._data
    if red is None or x.ndim != 2 or not x.size or t.shape != x.shape[:1] or not x.flags.c_contiguous \
            or not t.flags.c_contiguous:  # fmt: skip
        return None
    dt = x.dtype.type
    out = np.empty(x.shape[0] if red == 0 else 1, x.dtype)
    if _MK.multi_margin(x, t, p, dt(margin), np.zeros(1, dt), False, out, red):
        return None
    COUNT[0] += 1
    return _make(out if red == 0 else out.reshape(()), input._dtype)


_CALLS = {("torch.nn.functional", "nll_loss"): _nll_loss, ("torch.nn.functional", "multi_margin_loss"): _multi_margin, ("torch.nn.functional", "cross_entropy"): _cross_entropy,
          ("torch.nn.functional", "smooth_l1_loss"): _smooth_l1, ("torch.nn.functional", "huber_loss"): _huber}


def install(bindings) -> None:
    """Attach the calls above to their bindings (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        fast = _CALLS.get((b.module, b.name))
        if fast is not None and b.fast is None:
            b.fast = (or_body(fast, b.body), params(b.sig))
