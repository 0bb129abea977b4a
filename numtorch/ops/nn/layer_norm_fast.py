"""F.layer_norm's and F.group_norm's binding fast calls (Note [Layer norm binding fast call])."""

# Note [Layer norm binding fast call]
# F.layer_norm of a (3, 4) input ran its body, layer_norm's composite, native_layer_norm's
# dispatch and _layer_norm_cpu's checks, conversions and three results (6.5 us; PyTorch 2.9). A
# plain call (_fast_guard: no mode, forward-AD level or autocast region, nothing to record) of a
# non-empty C-contiguous float32/float64 input below PARALLEL_THRESHOLD elements, with a
# normalized_shape of ints equal to the input's trailing dims, weight and bias None or
# C-contiguous of that shape and the input's dtype, and a float eps, runs the two kernels
# _layer_norm_cpu runs (moments, apply; through their compiled entries) and returns the output
# alone. F.group_norm likewise (weight and bias of C elements, C divisible by num_groups, more
# than one value per group: _verify_batch_size's ValueError is the body's) runs moments over
# (N * G) rows and norm_apply, as _group_norm_cpu. Anything else declines (None) to the body.
# tests/ops/nn/test_layer_norm_fast.py compares the two bit for bit.

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD
from .._fast_guard import or_body, params, plain, recordless
from ..reduction._reduce import _entry
from .normalization import LN, K

_NP = {D.float32: np.dtype(np.float32), D.float64: np.dtype(np.float64)}
_NONE = {D.float32: np.zeros(1, np.float32), D.float64: np.zeros(1, np.float64)}  # _arr(None): never read
_ENTRIES: dict = {}  # (kernel name, np dtype) -> compiled entry
COUNT = [0]  # calls that took the fast route (tests)


def _param(t, dt, shape):
    # a weight or bias as the kernel reads it, False where the body must run
    if t is None:
        return _NONE[dt]
    a = t._data
    if t._dtype is not dt or a.shape != shape or not recordless(t) or not a.flags.c_contiguous:
        return False
    return a.reshape(-1)


def _call(name, args, mod=None):
    k = _ENTRIES.get((name, args[0].dtype))
    if k is None:
        kernel = getattr(LN if mod is None else mod, name)
        kernel(*args)
        _ENTRIES[name, args[0].dtype] = _entry(kernel, args)
    else:
        k(*args)


def _layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    dt = input._dtype
    if dt not in _NP or eps.__class__ is not float or not plain(input):
        return None
    a = input._data
    shape = a.shape
    c = normalized_shape.__class__
    if c is int:
        k = 1
        if not shape or shape[-1] != normalized_shape:
            return None
    elif c is tuple or c is list:
        k = len(normalized_shape)
        if not k or len(shape) < k or shape[len(shape) - k :] != tuple(normalized_shape):
            return None
        for s in normalized_shape:  # 4.0 == 4
            if s.__class__ is not int:
                return None
    else:
        return None
    f = a.flags
    if not (f.c_contiguous and f.aligned) or not 0 < a.size < PARALLEL_THRESHOLD:
        return None
    tail = shape[len(shape) - k :]
    w = _param(weight, dt, tail)
    b = w is not False and _param(bias, dt, tail)
    if b is False:
        return None
    N = math.prod(tail)
    M = a.size // N
    x = a.reshape(-1)
    np_dt = _NP[dt]
    mean, rstd = np.empty(M, np_dt), np.empty(M, np_dt)
    out = np.empty(x.size, np_dt)
    _call("moments", (x, N, mean, rstd, eps))
    _call("apply", (x, out, mean, rstd, w, b, N, weight is not None, bias is not None))
    COUNT[0] += 1
    return _make(out.reshape(shape), dt)


def _group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    dt = input._dtype
    if dt not in _NP or eps.__class__ is not float or num_groups.__class__ is not int or not plain(input):
        return None
    a = input._data
    shape = a.shape
    f = a.flags
    if len(shape) < 2 or not (f.c_contiguous and f.aligned) or not 0 < a.size < PARALLEL_THRESHOLD:
        return None
    N, C = shape[0], shape[1]
    if num_groups <= 0 or C % num_groups or a.size // num_groups == 1:
        return None
    w = _param(weight, dt, (C,))
    b = w is not False and _param(bias, dt, (C,))
    if b is False:
        return None
    G = num_groups
    HxW = a.size // (N * C)
    x = a.reshape(-1)
    np_dt = _NP[dt]
    mean, rstd = np.empty(N * G, np_dt), np.empty(N * G, np_dt)
    out = np.empty(x.size, np_dt)
    _call("moments", (x, (C // G) * HxW, mean, rstd, eps))
    _call("norm_apply", (x, out, mean, rstd, w, b, N, C, HxW, G, C // G, weight is not None, bias is not None), K)
    COUNT[0] += 1
    return _make(out.reshape(shape), dt)


_CALLS = {("torch.nn.functional", "layer_norm"): _layer_norm, ("torch.nn.functional", "group_norm"): _group_norm}


def install(bindings) -> None:
    """Attach the calls above to their bindings (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        fast = _CALLS.get((b.module, b.name))
        if fast is not None and b.fast is None:
            b.fast = (or_body(fast, b.body), params(b.sig))
