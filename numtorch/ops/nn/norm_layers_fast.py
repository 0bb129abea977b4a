"""F.layer_norm's, F.group_norm's, F.batch_norm's and F.instance_norm's binding fast calls (Note
[Layer norm binding fast call])."""

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
# (N * G) rows and norm_apply, as _group_norm_cpu; F.batch_norm (float momentum, running stats
# None or of C elements and the input's dtype, recording nothing; both given in evaluation)
# runs _batch_norm_cpu's channel_moments, statistics and in-place running-stat updates (the same
# NumPy expressions) and norm_apply; F.instance_norm with no running stats that batch norm of
# its (1, N * C, ...) view, returned as a view of it in the input's shape, as the composite.
# Anything else declines (None) to the body.
# tests/ops/nn/test_norm_layers_fast.py compares the two bit for bit.

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, _make, _view
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._fast_guard import or_body, params, plain, recordless
from ..reduction._entries import call
from .normalization import LN, K, update_running

_NP = {D.float32: np.dtype(np.float32), D.float64: np.dtype(np.float64)}
_NONE = {D.float32: np.zeros(1, np.float32), D.float64: np.zeros(1, np.float64)}  # _arr(None): never read
_LNS = lazy("numtorch.kernels.cpu.nn.layer_norm_small")
COUNT = [0]  # calls that took the fast route (tests)
BN_BODY: list = []


def _param(t, dt, shape):
    # a weight or bias as the kernel reads it, False where the body must run
    if t is None:
        return _NONE[dt]
    a = t._data
    if t._dtype is not dt or a.shape != shape or not recordless(t) or not a.flags.c_contiguous:
        return False
    return a.reshape(-1)


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
    out = np.empty(shape, _NP[dt])
    # moments then apply in one call (their statistics allocated inside: kernels/cpu/nn/layer_norm_small)
    call(_LNS, "moments_apply", (a.ravel(), out.ravel(), w, b, math.prod(tail), eps, weight is not None,
                                 bias is not None))  # fmt: skip
    COUNT[0] += 1
    return _make(out, dt)


def _channels(input, weight, bias, eps):
    # (data, weight's and bias's arrays) of a plain (N, C, ...) call the fast route takes, else None
    dt = input._dtype
    if dt not in _NP or eps.__class__ is not float or not plain(input):
        return None
    a = input._data
    f = a.flags
    if a.ndim < 2 or not (f.c_contiguous and f.aligned) or not 0 < a.size < PARALLEL_THRESHOLD:
        return None
    w = _param(weight, dt, a.shape[1:2])
    b = w is not False and _param(bias, dt, a.shape[1:2])
    return None if b is False else (a, w, b)


def _group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    p = _channels(input, weight, bias, eps) if num_groups.__class__ is int else None
    if p is None:
        return None
    a, w, b = p
    dt, shape = input._dtype, a.shape
    N, C = shape[0], shape[1]
    if num_groups <= 0 or C % num_groups or a.size // num_groups == 1:
        return None
    G = num_groups
    HxW = a.size // (N * C)
    x = a.reshape(-1)
    np_dt = _NP[dt]
    mean, rstd = np.empty(N * G, np_dt), np.empty(N * G, np_dt)
    out = np.empty(x.size, np_dt)
    call(LN, "moments", (x, (C // G) * HxW, mean, rstd, eps))
    call(K, "norm_apply", (x, out, mean, rstd, w, b, N, C, HxW, G, C // G, weight is not None, bias is not None))
    COUNT[0] += 1
    return _make(out.reshape(shape), dt)


def _batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    ok = momentum.__class__ is float and training.__class__ is bool
    p = _channels(input, weight, bias, eps) if ok else None
    if p is None:
        return None
    a, w, b = p
    dt, shape = input._dtype, a.shape
    A, C = shape[0], shape[1]
    S = a.size // (A * C)
    if training and A * S == 1:  # _verify_batch_size's ValueError
        return None
    for t in (running_mean, running_var):
        if t is None and not training or t is not None and _param(t, dt, (C,)) is False:
            return None
    x = a.reshape(-1)
    np_dt = _NP[dt]
    if training:
        mean, var = np.empty(C, np_dt), np.empty(C, np_dt)
        call(K, "channel_moments", (x, A, C, S, mean, var))
        invstd = (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(np_dt)
        update_running(running_mean, running_var, mean, var, A * S, momentum)
    else:
        mean = running_mean._data.reshape(-1)
        invstd = (1.0 / np.sqrt(running_var._data.astype(np.float64).reshape(-1) + eps)).astype(np_dt)
    out = np.empty(x.size, np_dt)
    call(K, "norm_apply", (x, out, mean, invstd, w, b, A, C, S, 0, 1, weight is not None, bias is not None))
    COUNT[0] += 1
    return _make(out.reshape(shape), dt)


def _instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                   momentum=0.1, eps=1e-05):  # fmt: skip
    # the composite's batch norm in training of the (1, N * C, ...) view, weight and bias
    # repeated N times, its result viewed back as the input's shape
    if running_mean is not None or running_var is not None or use_input_stats is not True or momentum.__class__ is not float:
        return None
    p = _channels(input, weight, bias, eps)
    if p is None or p[0].ndim < 3:
        return None
    a, w, b = p
    dt, shape = input._dtype, a.shape
    BC = shape[0] * shape[1]
    S = a.size // BC
    if S == 1:  # F.instance_norm's ValueError
        return None
    if weight is not None:
        w = np.tile(w, shape[0])
    if bias is not None:
        b = np.tile(b, shape[0])
    x = a.reshape(-1)
    np_dt = _NP[dt]
    mean, var = np.empty(BC, np_dt), np.empty(BC, np_dt)
    call(K, "channel_moments", (x, 1, BC, S, mean, var))
    invstd = (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(np_dt)
    out = np.empty(x.size, np_dt)
    call(K, "norm_apply", (x, out, mean, invstd, w, b, 1, BC, S, 0, 1, weight is not None, bias is not None))
    COUNT[0] += 1
    return _view(_make(out.reshape((1, BC) + shape[2:]), dt), out.reshape(shape))


def _batch_norm_body(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                     eps=1e-05):  # fmt: skip
    # F.batch_norm's running stats have no default, so Note [Binding fast call] takes no None
    # for them: the call runs first in the body, after the binding's __torch_function__ gate,
    # for exact Tensors only (a subclass takes the body)
    for t in (input, running_mean, running_var, weight, bias):
        if t is not None and t.__class__ is not Tensor:
            return None
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


_CALLS = {
    ("torch.nn.functional", "layer_norm"): _layer_norm,
    ("torch.nn.functional", "group_norm"): _group_norm,
    ("torch.nn.functional", "instance_norm"): _instance_norm,
}


def install(bindings) -> None:
    """Attach the calls above to their bindings (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        fast = _CALLS.get((b.module, b.name))
        if fast is not None and b.fast is None:
            b.fast = (or_body(fast, b.body), params(b.sig))
        elif (b.module, b.name) == ("torch.nn.functional", "batch_norm") and b.fast is None and not BN_BODY:
            BN_BODY.append(b.body)  # the body without the fast call (tests)
            b.body = or_body(_batch_norm_body, b.body)
