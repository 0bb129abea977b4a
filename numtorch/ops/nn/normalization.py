"""Normalization: native_layer_norm / native_group_norm / native_batch_norm with their fused
backward ops (one apply and one backward kernel, Note [Normalization layout]), and the
layer_norm / group_norm / batch_norm / instance_norm composites.

# Note [Norm double backward]
# The forward ops' derivatives call the fused ``native_*_backward`` ops, which dispatch modes see.
# When the backward itself is being recorded (create_graph: grad mode on inside the formula), they
# use the same gradient written with numtorch ops instead, recomputing the statistics from the
# input, so every higher derivative comes from autograd (PyTorch does this for mish).
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._state import STATE
from ..._tensor import Tensor, _make
from ...autograd.grad_mode import no_grad
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._pointwise import _cname
from .._registry import defop

K = lazy("numtorch.kernels.cpu.nn.layers")
LN = lazy("numtorch.kernels.cpu.nn.layer_norm")


def _float_dtype(x: Tensor, op: str) -> D.dtype:
    if x._dtype.category != D._FLOAT:
        raise NotImplementedError(f"\"{op}\" not implemented for '{_cname(x._dtype)}'")
    return D.float32 if x._dtype is D.float16 else x._dtype


def _arr(t: Tensor | None, dt: D.dtype) -> np.ndarray:
    if t is None:
        return np.zeros(1, dt.np)
    return np.ascontiguousarray(t._data, dtype=dt.np).reshape(-1)


def _out(a: np.ndarray, shape, like: Tensor) -> Tensor:
    a = a.reshape(shape)
    if a.dtype is not like._dtype.np:  # float16 computes in float32
        a = np.ascontiguousarray(a, dtype=like._dtype.np)
    return _make(a, like._dtype)


def _apply(x, mean, rstd, w, b, A, C, S, SA, CG, dt):
    out = np.empty(x.size, dt.np)
    if out.size:
        fn = K.norm_apply_parallel if out.size >= PARALLEL_THRESHOLD and A > 1 else K.norm_apply
        fn(
            x,
            out,
            mean,
            rstd,
            _arr(w, dt),
            _arr(b, dt),
            A,
            C,
            S,
            SA,
            CG,
            w is not None,
            b is not None,
        )
    return out


def _backward(go, x, mean, rstd, w, A, C, S, SA, CG, center, mask, dt):
    gi = np.empty(x.size if mask[0] else 0, dt.np)
    gw = np.empty(C if mask[1] and w is not None else 0, dt.np)
    gb = np.empty(C if mask[2] else 0, dt.np)
    if x.size:
        K.norm_backward(
            go, x, mean, rstd, _arr(w, dt), A, C, S, SA, CG, w is not None, center, gi, gw, gb
        )
    else:
        gw[...] = 0
        gb[...] = 0
    return gi, gw, gb


def _grads(gi, gw, gb, mask, input, weight, wshape) -> tuple:
    ref = weight if weight is not None else input
    return (
        _out(gi, input._data.shape, input) if mask[0] else None,
        _out(gw, wshape, ref) if mask[1] and weight is not None else None,
        _out(gb, wshape, ref) if mask[2] else None,
    )


# ---- layer norm -------------------------------------------------------------------------------------
def _check_layer_norm(input, normalized_shape, weight, bias):
    ns = [int(s) for s in normalized_shape]
    shape = input._data.shape
    k = len(ns)
    if k and len(shape) >= k and list(shape[-k:]) == ns and (weight is None or weight._data.shape == shape[-k:]) and (
        bias is None or bias._data.shape == shape[-k:]
    ):  # the common case, every check passed at once
        return ns, math.prod(shape[:-k]), math.prod(ns)
    if not ns:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
            f"got normalized_shape = {ns}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t._data.shape) != ns:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                f"{list(t._data.shape)} and normalized_shape = {ns}"
            )
    shape = list(input._data.shape)
    if len(shape) < len(ns) or shape[len(shape) - len(ns) :] != ns:
        raise RuntimeError(
            f"Given normalized_shape={ns}, expected input with shape [*{''.join(', ' + str(s) for s in ns)}], "
            f"but got input of size{shape}"
        )
    n = math.prod(ns)
    # M from the leading dims, not size // n: with an empty normalized shape there are still
    # M rows (each with mean 0 and rstd NaN, as PyTorch)
    return ns, math.prod(input._data.shape[: input._data.ndim - len(ns)]), n


def _layer_norm_cpu(input, normalized_shape, weight, bias, eps):
    ns, M, N = _check_layer_norm(input, normalized_shape, weight, bias)
    dt = _float_dtype(input, "LayerNormKernelImpl")
    x = _arr(input, dt)
    mean, rstd = np.empty(M, dt.np), np.empty(M, dt.np)
    out = np.empty(x.size, dt.np)
    if M and N:
        par = x.size >= PARALLEL_THRESHOLD and M > 1
        (LN.moments_parallel if par else LN.moments)(x, N, mean, rstd, float(eps))
        (LN.apply_parallel if par else LN.apply)(x, out, mean, rstd, _arr(weight, dt), _arr(bias, dt), N,
                                                 weight is not None, bias is not None)  # fmt: skip
    elif M:
        mean[...], rstd[...] = 0.0, np.nan
    stat_shape = input._data.shape[: input._data.ndim - len(ns)] + (1,) * len(ns)
    return (
        _out(out, input._data.shape, input),
        _out(mean, stat_shape, input),
        _out(rstd, stat_shape, input),
    )


def _layer_norm_backward_cpu(
    grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask
):
    ns, M, N = _check_layer_norm(input, normalized_shape, weight, bias)
    dt = _float_dtype(input, "LayerNormBackwardKernelImpl")
    gi = np.empty(M * N if output_mask[0] else 0, dt.np)
    gw = np.empty(N if output_mask[1] and weight is not None else 0, dt.np)
    gb = np.empty(N if output_mask[2] else 0, dt.np)
    if M and N:
        w = _arr(weight, dt) if weight is not None else np.ones(N, dt.np)
        LN.backward(_arr(grad_out, dt), _arr(input, dt), _arr(mean, dt), _arr(rstd, dt), w, N, gi, gw, gb)
    else:
        gw[...] = 0
        gb[...] = 0
    return _grads(gi, gw, gb, output_mask, input, weight, tuple(ns))


def _layer_norm_grad(grads, input, normalized_shape, weight, bias, eps, result1, result2):
    mask = [True, weight is not None, bias is not None]
    if STATE.grad_enabled:
        return _layer_norm_grad_composite(grads[0], input, normalized_shape, weight, eps, mask)
    return dispatch(native_layer_norm_backward,
                    [grads[0], input, normalized_shape, result1, result2, weight, bias, mask])  # fmt: skip


def _layer_norm_grad_composite(go, x, normalized_shape, weight, eps, mask):
    k = len(normalized_shape)
    dims = tuple(range(x.dim() - k, x.dim()))
    bdims = tuple(range(x.dim() - k))
    xc = x - x.mean(dims, keepdim=True)
    rstd = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    xhat = xc * rstd
    g = go * weight if weight is not None else go
    gi = rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))
    gw = (go * xhat).sum(bdims) if mask[1] else None
    gb = go.sum(bdims) if mask[2] else None
    return gi, gw, gb


native_layer_norm = defop(
    "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> "
    "(Tensor, Tensor, Tensor)",
    cpu=_layer_norm_cpu,
    backward={("input", "weight", "bias"): _layer_norm_grad},
    output_differentiability=(True, False, False),
)
native_layer_norm_backward = defop(
    "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, "
    "Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    cpu=_layer_norm_backward_cpu,
)
layer_norm = defop(
    "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05, bool cudnn_enable=True) -> Tensor",
    composite=lambda input, normalized_shape, weight, bias, eps, cudnn_enable: dispatch(
        native_layer_norm, [input, normalized_shape, weight, bias, eps]
    )[0],
)


# ---- group norm ---------------------------------------------------------------------------------------
def _group_norm_cpu(input, weight, bias, N, C, HxW, group, eps):
    dt = _float_dtype(input, "GroupNormKernelImpl")
    x = _arr(input, dt)
    G = int(group)
    mean, rstd = np.empty(N * G, dt.np), np.empty(N * G, dt.np)
    L = (C // G) * HxW
    if x.size:
        fn = LN.moments_parallel if x.size >= PARALLEL_THRESHOLD and N * G > 1 else LN.moments
        fn(x, L, mean, rstd, float(eps))
    out = _apply(x, mean, rstd, weight, bias, N, C, HxW, G, max(C // G, 1), dt)
    return _out(out, input._data.shape, input), _out(mean, (N, G), input), _out(rstd, (N, G), input)


def _group_norm_backward_cpu(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    dt = _float_dtype(input, "GroupNormBackwardKernelImpl")
    G = int(group)
    gi, gw, gb = _backward(_arr(grad_out, dt), _arr(input, dt), _arr(mean, dt), _arr(rstd, dt), weight,
                           N, C, HxW, G, max(C // G, 1), True, output_mask, dt)  # fmt: skip
    return _grads(gi, gw, gb, output_mask, input, weight, (C,))


def _group_norm_grad(grads, input, weight, bias, N, C, HxW, group, eps, result1, result2):
    mask = [True, weight is not None, bias is not None]
    if STATE.grad_enabled:
        x = input.reshape(N, group, -1)
        go = grads[0]
        g = go * weight.reshape(1, C, *([1] * (input.dim() - 2))) if weight is not None else go
        xc = x - x.mean(-1, keepdim=True)
        rstd = ((xc * xc).mean(-1, keepdim=True) + eps).rsqrt()
        xhat = xc * rstd
        g3 = g.reshape(N, group, -1)
        gi = (
            rstd * (g3 - g3.mean(-1, keepdim=True) - xhat * (g3 * xhat).mean(-1, keepdim=True))
        ).reshape(input.shape)
        go3 = go.reshape(N, C, -1)
        xh = xhat.reshape(N, C, -1)
        gw = (go3 * xh).sum((0, 2)) if mask[1] else None
        gb = go3.sum((0, 2)) if mask[2] else None
        return gi, gw, gb
    return dispatch(native_group_norm_backward,
                    [grads[0], input, result1, result2, weight, N, C, HxW, group, mask])  # fmt: skip


native_group_norm = defop(
    "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, "
    "float eps) -> (Tensor, Tensor, Tensor)",
    cpu=_group_norm_cpu,
    backward={("input", "weight", "bias"): _group_norm_grad},
)
native_group_norm_backward = defop(
    "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, "
    "SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    cpu=_group_norm_backward_cpu,
)


def _group_norm(input, num_groups, weight, bias, eps, cudnn_enabled):
    shape = list(input._data.shape)
    N, C = shape[0], shape[1]
    if C % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape {shape} "
            f"and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != C):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got {name} "
                f"of shape {list(t._data.shape)} and input of shape {shape}"
            )
    hxw = math.prod(shape[2:])
    return dispatch(native_group_norm, [input, weight, bias, N, C, hxw, num_groups, eps])[0]


group_norm = defop(
    "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enabled=True) -> Tensor",
    composite=_group_norm,
)


# ---- batch norm ---------------------------------------------------------------------------------------
def _bn_dims(input: Tensor):
    shape = input._data.shape
    if input.dim() < 2:
        raise RuntimeError(
            f"batch_norm(): expected input to have at least 2 dims, got {input.dim()}"
        )
    return shape[0], shape[1], math.prod(shape[2:])


def _check_channel(t, name, C):
    if t is not None and t.numel() != C:
        raise RuntimeError(f"{name} should contain {C} elements not {t.numel()}")


def _bn_fast_layout(x: Tensor) -> bool:
    from ..shape._format import channels_last, channels_last_3d

    fmt = {4: channels_last, 5: channels_last_3d}.get(x.dim())
    return x.is_contiguous() or (fmt is not None and x.is_contiguous(memory_format=fmt))


def update_running(running_mean, running_var, mean, var, n, momentum) -> None:
    """Training batch norm's running stats from the batch's mean and biased var over n values,
    in place without a version bump, as PyTorch's kernel does (norm_layers_fast's too)."""
    if running_mean is not None:
        rm = running_mean._data
        rm[...] = (1 - momentum) * rm + momentum * mean.astype(rm.dtype)
    if running_var is not None:
        rv = running_var._data
        unbiased = var.astype(np.float64) * n / max(n - 1, 1)
        rv[...] = (1 - momentum) * rv + momentum * unbiased.astype(rv.dtype)


def _batch_norm_cpu(input, weight, bias, running_mean, running_var, training, momentum, eps):
    A, C, S = _bn_dims(input)
    for t, name in (
        (weight, "weight"),
        (bias, "bias"),
        (running_mean, "running_mean"),
        (running_var, "running_var"),
    ):
        _check_channel(t, name, C)
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var")):
        if not training and t is None:  # before the dtype, in torch's words (seed 400)
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    if (training and input._dtype.category != D._FLOAT and not _bn_fast_layout(input)
            and (running_mean is None or running_mean._dtype is input._dtype)):
        # torch 2.13 (measured): a strided integer input in training, its running stats none or of its dtype,
        # reaches a composite whose mean() refuses it before the kernel's dtype check (seed 400)
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_cname(input._dtype)}")  # fmt: skip
    dt = _float_dtype(input, "batch_norm")
    x = _arr(input, dt)
    if training:
        mean, var = np.empty(C, dt.np), np.empty(C, dt.np)
        K.channel_moments(x, A, C, S, mean, var)
        invstd = (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(dt.np)
        update_running(running_mean, running_var, mean, var, A * S, momentum)
        save_mean, save_invstd = mean, invstd
    else:
        mean = _arr(running_mean, dt)
        invstd = (1.0 / np.sqrt(running_var._data.astype(np.float64).reshape(-1) + eps)).astype(
            dt.np
        )
        save_mean = save_invstd = np.empty(0, dt.np)
    out = _apply(x, mean, invstd, weight, bias, A, C, S, 0, 1, dt)
    return (_out(out, input._data.shape, input), _out(save_mean, save_mean.shape, input),
            _out(save_invstd, save_invstd.shape, input))  # fmt: skip


def _batch_norm_backward_cpu(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                             eps, output_mask):  # fmt: skip
    A, C, S = _bn_dims(input)
    dt = _float_dtype(input, "batch_norm_backward")
    if train:
        mean, invstd = _arr(save_mean, dt), _arr(save_invstd, dt)
    else:
        mean = _arr(running_mean, dt)
        invstd = (1.0 / np.sqrt(running_var._data.astype(np.float64).reshape(-1) + eps)).astype(
            dt.np
        )
    gi, gw, gb = _backward(_arr(grad_out, dt), _arr(input, dt), mean, invstd, weight, A, C, S, 0, 1, bool(train),
                           output_mask, dt)  # fmt: skip
    return _grads(gi, gw, gb, output_mask, input, weight, (C,))


def _batch_norm_grad(grads, input, weight, bias, running_mean, running_var, training, eps, result1, result2):
    mask = [True, weight is not None, bias is not None]
    if STATE.grad_enabled:
        return _batch_norm_grad_composite(grads[0], input, weight, running_var, training, eps, mask)
    return dispatch(native_batch_norm_backward, [grads[0], input, weight, running_mean, running_var, result1,
                                                 result2, training, eps, mask])  # fmt: skip


def _batch_norm_grad_composite(go, x, weight, running_var, training, eps, mask):
    dims = (0,) + tuple(range(2, x.dim()))
    bshape = (1, x.shape[1]) + (1,) * (x.dim() - 2)
    g = go * weight.reshape(bshape) if weight is not None else go
    if training:
        xc = x - x.mean(dims, keepdim=True)
        rstd = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
        xhat = xc * rstd
        gi = rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))
    else:
        rstd = (running_var.reshape(bshape) + eps).rsqrt()
        xhat = None
        gi = g * rstd
    gw = None
    if mask[1]:
        if xhat is None:
            raise NotImplementedError("double backward of eval-mode batch_norm w.r.t. weight")
        gw = (go * xhat).sum(dims)
    gb = go.sum(dims) if mask[2] else None
    return gi, gw, gb


native_batch_norm = defop(
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    cpu=_batch_norm_cpu,
    backward={("input", "weight", "bias"): _batch_norm_grad},
    output_differentiability=(True, False, False),
)
native_batch_norm_backward = defop(
    "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
    "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> "
    "(Tensor, Tensor, Tensor)",
    cpu=_batch_norm_backward_cpu,
)
def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    if input.numel() == 0 and input.dim() >= 2:
        # at::_batch_norm_impl_index: no statistics from no samples, so the running stats stay as
        # they are; a fresh tensor still carries the weight and bias into the graph
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        return out + bias[0] if bias is not None else out
    return dispatch(native_batch_norm, [input, weight, bias, running_mean, running_var, training, momentum, eps])[0]


batch_norm = defop(
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
    composite=_batch_norm,
)


def _instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    shape = list(input.shape)
    b, c = shape[0], shape[1]
    x = input.reshape(1, b * c, *shape[2:])
    rep = lambda t: t.repeat(b) if t is not None else None  # noqa: E731
    rm, rv = rep(running_mean), rep(running_var)
    out = dispatch(
        batch_norm,
        [x, rep(weight), rep(bias), rm, rv, use_input_stats, momentum, eps, cudnn_enabled],
    )
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(b, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(b, c).mean(0))
    return out.view(shape)


instance_norm = defop(
    "instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor",
    composite=_instance_norm,
)


# Note [Fused rms_norm forward]
# rms_norm is a composite (CompositeImplicitAutograd in PyTorch: autograd and dispatch modes see
# its mul/mean/add/rsqrt/mul/mul). With nothing to record or show (plain contiguous CPU float32
# or float64 tensors, no grad needed, no mode or forward-AD level) the six ops run as one
# kernel over the rows: 36 -> ~6 us on a (3, 4) input, where PyTorch's composite takes 12 us.
_FUSED_RMS = (np.dtype(np.float32), np.dtype(np.float64))


def _rms_fused(input, weight, N, e):
    a = input._data
    S = STATE
    if (S.td_modes or S.fw_level >= 0 or input.__class__ is not Tensor or a.dtype not in _FUSED_RMS
            or not a.flags.c_contiguous or input._device.type != "cpu" or not a.size or not N
            or (S.grad_enabled and (input._rg or weight is not None and weight._rg))):  # fmt: skip
        return None
    if weight is not None:
        w = weight._data
        if weight.__class__ is not Tensor or w.dtype is not a.dtype or not w.flags.c_contiguous or weight._device.type != "cpu":
            return None
        w = w.reshape(-1)
    else:
        w = a.reshape(-1)[:1]  # unread
    out = np.empty(a.shape, a.dtype)
    LN.rms_norm(a.reshape(-1), w, out.reshape(-1), N, a.dtype.type(e), weight is not None)
    return _make(out, input._dtype)


def _rms_norm(input, normalized_shape, weight, eps):
    ns, _, N = _check_layer_norm(input, normalized_shape, weight, None)
    if input.dtype.category != D._FLOAT:
        raise RuntimeError(f"rms_norm only supports floating point inputs, got {input.dtype}")
    e = D.finfo(input.dtype).eps if eps is None else eps
    r = _rms_fused(input, weight, N, e)
    if r is not None:
        return r
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    out = input * ((input * input).mean(dims, keepdim=True) + e).rsqrt()
    return out * weight if weight is not None else out


rms_norm = defop(
    "rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
    composite=_rms_norm,
)
