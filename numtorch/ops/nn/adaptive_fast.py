"""Planned fast calls (Note [Pool plans]) of the adaptive pools and F.max_pool3d_with_indices."""

from __future__ import annotations

import functools

import numpy as np

from . import fast_nn as _FN
from .pool_plan import run as _run_plan
from .pooling import K as _K
from .pooling3d import K3 as _K3

# Note [Adaptive pool plans]
# F.adaptive_{avg,max}_pool{1,2,3}d of a small input ran the public body (output_size parsing,
# a dispatch, the 1-d forms' unsqueeze and squeeze), the op's setup checks and the kernel
# through its dispatcher: 5.5-11 us where PyTorch takes 2.3-6. As the windowed pools' plans,
# a call of a plain float32/float64 input (fast_nn._plain: no mode, forward-AD level or
# autocast region, nothing to record) whose output_size is an int or a tuple/list of ints and
# None (no 2.0, True or np.int64 standing for an int: a key's equality must be the body's) is
# planned once per (op, input shape, dtype, output sizes): the body's kernel, its geometry
# arguments and the output shape where every check of the body passes and nothing is empty
# (else the plan declines and the body runs, errors included). From the second call the plan
# runs the kernel's compiled entry. The 1-d forms return what the body's squeeze(-2) returns:
# a view of the (..., 1, L) result (its _base), values and indices alike.
# F.max_pool3d_with_indices runs fast_nn's max_pool3d plan, keeping its indices.
_PLANS: dict = {}


def _osz(v, n):
    """output_size as ``n`` ints or None (the input's size), or False to decline."""
    c = v.__class__
    if c is int:
        return (v,) * n
    if (c is tuple or c is list) and len(v) == n:
        for x in v:
            if x is not None and x.__class__ is not int:
                return False
        return tuple(v)
    return False


_run = functools.partial(_run_plan, _PLANS)  # (key, input, make, indices)


def _plan_2d(input, o, is_max, one_d):
    a = input._data
    nd, s = a.ndim, a.shape
    if not a.size or not (nd in (2, 3) if one_d else nd in (3, 4)):
        return None
    H, W = (1, s[-1]) if one_d else s[-2:]
    OH, OW = (1, o[0]) if one_d else o
    OH, OW = H if OH is None else OH, W if OW is None else OW
    if OH < 1 or OW < 1:
        return None
    fn = _K.adaptive_max_pool2d if is_max else _K.adaptive_avg_pool2d
    if one_d:
        return fn, (H, W, OH, OW), s[:-1] + (1, OW), is_max, s[:-1] + (OW,)
    return fn, (H, W, OH, OW), s[:-2] + (OH, OW), is_max, None


def _plan_3d(input, o, is_max):
    a = input._data
    s = a.shape
    if not a.size or a.ndim not in (4, 5):
        return None
    osz = tuple(s[-3 + i] if v is None else v for i, v in enumerate(o))
    if min(osz) < 1:
        return None
    geo = np.array([*s[-3:], *osz], np.int64)
    fn = _K3.adaptive_max_pool3d if is_max else _K3.adaptive_avg_pool3d
    return fn, (geo,), s[:-3] + osz, is_max, None


def _adaptive(body, n, is_max, one_d=False, pair=False):
    tag = ("amax" if is_max else "aavg") + str(n if not one_d else 1)

    def plan(input, o):
        return _plan_3d(input, o, is_max) if n == 3 else _plan_2d(input, o, is_max, one_d)

    if not is_max:

        def fast(input, output_size):
            o = _osz(output_size, 1 if one_d else n)
            if o is not False and _FN._plain(input):
                r = _run((tag, input._data.shape, input._dtype, o), input, lambda: plan(input, o), False)
                if r is not None:
                    return r
            return body(input, output_size)

        return fast

    def fast_max(input, output_size, return_indices):
        o = _osz(output_size, 1 if one_d else n)
        if o is not False and return_indices.__class__ is bool and _FN._plain(input):
            r = _run((tag, input._data.shape, input._dtype, o), input, lambda: plan(input, o), pair or return_indices)
            if r is not None:
                return r
        return body(input, output_size, return_indices)

    return fast_max


def _make_max_pool3d_with_indices(body):
    def fast(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
        if ceil_mode.__class__ is bool and _FN._plain(input) and _FN._key_ok(kernel_size) and _FN._key_ok(stride) \
                and _FN._key_ok(padding) and _FN._key_ok(dilation):  # fmt: skip
            key = ("max3i", input._data.shape, input._dtype, kernel_size, stride, padding, dilation, ceil_mode)
            r = _run(key, input, lambda: _plan_max3(input, kernel_size, stride, padding, dilation, ceil_mode), True)
            if r is not None:
                return r
        return body(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)

    return fast


def _plan_max3(input, kernel_size, stride, padding, dilation, ceil_mode):
    return _FN._plan_3d(input, kernel_size, stride, padding, dilation, ceil_mode, None, None)


def install(bindings) -> None:
    """Attach the fast calls (numtorch/__init__.py, before _api.install)."""
    from .._fast_guard import params

    F = "torch.nn.functional"
    makers = {
        (F, "adaptive_avg_pool1d"): lambda b: _adaptive(b, 2, False, True),
        (F, "adaptive_max_pool1d"): lambda b: _adaptive(b, 2, True, True),
        (F, "adaptive_avg_pool2d"): lambda b: _adaptive(b, 2, False),
        (F, "adaptive_max_pool2d"): lambda b: _adaptive(b, 2, True),
        (F, "adaptive_avg_pool3d"): lambda b: _adaptive(b, 3, False),
        (F, "adaptive_max_pool3d"): lambda b: _adaptive(b, 3, True),
        (F, "adaptive_max_pool3d_with_indices"): lambda b: _adaptive(b, 3, True, pair=True),  # the pair always
        (F, "max_pool3d_with_indices"): _make_max_pool3d_with_indices,
    }
    for b in bindings:
        make = makers.get((b.module, b.name))
        if make is not None and b.fast is None:
            b.fast = (make(b.body), params(b.sig))
