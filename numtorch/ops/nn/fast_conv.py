"""Fast calls (Note [Binding fast call]) of conv1d/conv2d (torch and F) and torch.convolution."""

# Note [Convolution fast calls]
# A small conv2d paid ~7 us of layers over its kernel steps (11.5 us beside PyTorch's 4.4):
# the public body, dispatch of the conv2d composite, its int-list parsing and batching,
# dispatch of convolution, _norm_params, _check_conv, compute_dtype and _Geom, each per call.
# On plain CPU operands (ops/_fast_guard.py: no mode, level or autocast region, nothing to
# record) of one dtype, float32 or float64, batched 1-d/2-d input and weight, int (or 1 or n
# ints) stride/padding/dilation, an int groups and, for convolution, transposed False and zero
# output_padding, the checks and the geometry are those of the body, run once per call shape
# (_check_conv with the call's own tensors: any error caches a decline, and the body raises
# it) and cached with _conv_forward's shapes; each call then runs the body's steps (im2col or
# _cols_of's reshape, weight_times_cols' one matmul of a float dtype, the add_channel_bias
# kernel) on the same contiguous arrays, so the values are the body's bit for bit. Empty operands, str padding, another dtype and anything else take the body.
# torch.convolution's bias has no default, so the binding's fast call never sees a None bias:
# there the route is the first step of its body.
# tests/nn/test_fast_conv.py.

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._api import _OVERRIDES
from ..._device import CPU as _CPU
from ..._dispatch import dispatch as _dispatch
from ..._functorch._levels import VMAP_LEVELS as _VMAP
from ..._state import STATE as _STATE
from ..._tensor import NO_TF_SUBCLASSES as _NOTF
from ..._tensor import Tensor as _T
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD
from .._fast_guard import free, or_body, params
from .._fast_guard import plain as _plain_any
from . import conv as _C
from . import conv_gather as _gather
from .conv import K as _KC
from .conv import (
    _as4,
    _blocks,
    _check_conv,
    _col2im,
    _convt_forward,
    _fold_params,
    _geo,
    _Geom,
    _im2col,
    contig,
)
from .fast_nn import _ints

_FLOATS = (D.float32, D.float64)
_empty = np.empty
_GEO: dict = {}  # (dtype, input, weight and bias shapes, stride, padding, dilation, groups) -> the forward plan, or False: decline


def _geometry(key, input, weight, bias):
    g = _GEO.get(key)
    if g is None:
        _, xs, ws, _, s, p, d, groups = key
        g = False
        try:
            _check_conv(input, weight, bias, list(s), list(p), list(d), False, [0] * len(s), groups)
        except RuntimeError:
            pass  # the body raises it
        else:
            g = _Geom(xs, ws, list(s), list(p), list(d), False, [0] * len(s), groups)
            L = g.OH * g.OW
            if g.N * g.O * L == 0 or 0 in xs or 0 in ws:
                g = False  # the body's zeros
            else:  # _conv_forward's steps with its shapes worked out
                direct = g.trivial() and g.H == g.OH and g.W == g.OW  # _cols_of's reshape
                # _im2col's array, allocated in the matmul's shape, and its kernel choice
                ncol = g.N * g.C * g.KH * g.KW * L
                im2col = (
                    (g.N, g.G, ncol // (g.N * g.G * L), L),
                    ncol >= PARALLEL_THRESHOLD,
                )
                g = (direct or im2col, g.N, (g.N, g.C, g.H * g.W), g.args(g.C, g.H, g.W, g.OH, g.OW), L,
                     (g.N, g.G, -1, L), (g.G, g.O // g.G, -1), (g.N, g.O, g.OH, g.OW),
                     g.out_shape(g.N, g.O, g.OH, g.OW), g.O)  # fmt: skip
        if len(_GEO) >= 256:
            _GEO.clear()
        _GEO[key] = g
    return g


def _geometry_ok(input, weight, bias, groups) -> bool:
    """Batched 1-d/2-d operands of one float dtype (the bias of it or None), int groups."""
    n = weight._data.ndim - 2
    dt = input._dtype
    return (
        (n == 1 or n == 2)
        and input._data.ndim == n + 2
        and dt in _FLOATS
        and weight._dtype is dt
        and groups.__class__ is int
        and (bias is None or bias._dtype is dt)
    )


def _operands(input, weight, bias, groups) -> bool:
    """Plain batched 1-d/2-d operands of a (transposed) convolution of one float dtype, the bias
    of it or None, int groups. torch.convolution's route runs in its body, which any subclass
    reaches (vmap's BatchedTensor): only what a binding's fast call takes (Note [Plain
    subclasses])."""
    return (
        _geometry_ok(input, weight, bias, groups)
        and (input.__class__ is _T or input.__class__ in _NOTF)
        and (weight.__class__ is _T or weight.__class__ in _NOTF)
        and _plain_any(input)
        and _plain_any(weight)
        and (bias is None or (bias.__class__ is _T or bias.__class__ in _NOTF) and _plain_any(bias))
    )


def _conv(input, weight, bias, stride, padding, dilation, groups):
    if not _operands(input, weight, bias, groups):
        return _recorded(input, weight, bias, stride, padding, dilation, groups)
    return _conv_run(input, weight, bias, stride, padding, dilation, groups)


# Note [Recording convolution calls]
# conv1d/conv2d with an operand that requires grad went through the public body, dispatch of
# the composite, its _batchify and _ints, then dispatch of convolution, which records the one
# ConvolutionBackward0. Where nothing would see the composite's call (ops/_fast_guard.free(),
# no vmap level, no kernel registered over an aten op) and the operands are plain CPU tensors
# (or Parameters) of one float dtype, batched, with int groups and each parameter an int or n
# ints, the fast call dispatches convolution itself with the arguments the composite passes
# (an int as [v] * n, a sequence as a list): the same node, saved values and kernel (~0.9 us of
# a small call's ~9; calling autograd_call directly was slower than dispatch's generated
# recorder). torch.convolution's body dispatches convolution already.
def _recorded_ints(v, n: int):
    c = v.__class__
    if c is int:
        return [v] * n
    if (c is list or c is tuple) and len(v) == n:
        for x in v:
            if x.__class__ is not int:
                return None
        return list(v)
    return None


def _recorded(input, weight, bias, stride, padding, dilation, groups):
    n = weight._data.ndim - 2
    dt = input._dtype
    if not (
        _STATE.grad_enabled
        and free()
        and not _VMAP
        and not _OVERRIDES[0]
        and (n == 1 or n == 2)
        and input._data.ndim == n + 2
        and dt in _FLOATS
        and weight._dtype is dt
        and groups.__class__ is int
        and (input.__class__ is _T or input.__class__ in _NOTF)
        and (weight.__class__ is _T or weight.__class__ in _NOTF)
        and input._device is _CPU
        and weight._device is _CPU
        and (
            bias is None
            or bias._dtype is dt
            and (bias.__class__ is _T or bias.__class__ in _NOTF)
            and bias._device is _CPU
        )
    ):
        return None
    s, p, d = _recorded_ints(stride, n), _recorded_ints(padding, n), _recorded_ints(dilation, n)
    if s is None or p is None or d is None:
        return None
    args = [input, weight, bias, s, p, d, False, [0] * n, groups]
    return _dispatch(_C._convolution, args)


def _conv_run(input, weight, bias, stride, padding, dilation, groups):
    a, w = input._data, weight._data
    dt = input._dtype
    n = w.ndim - 2
    s, p, d = _ints(stride, n), _ints(padding, n), _ints(dilation, n)
    if s is None or p is None or d is None:
        return None
    key = (dt, a.shape, w.shape, None if bias is None else bias._data.shape, s, p, d, groups)
    g = _geometry(key, input, weight, bias)
    if g is False:
        return None
    direct, N, xshape, args, L, cshape, wshape, oshape, shape, O = g
    x = contig(input, dt)
    if direct is True:
        cols = x.reshape(cshape)
    else:  # _im2col's kernel call, without its wrapper
        cols = _empty(direct[0], x.dtype)
        xf, cf = x.reshape(-1), cols.reshape(-1)
        if not _gather.im2col(xf, cf, N, args):  # Note [im2col of small planes by gather]
            (_KC.im2col_parallel if direct[1] else _KC.im2col)(xf, cf, *args)
    # weight_times_cols of a float dtype: one matmul (C-contiguous, as ascontiguousarray leaves it)
    out = np.matmul(contig(weight, dt).reshape(wshape), cols).reshape(oshape)
    if bias is not None:
        _KC.add_channel_bias(out.reshape(-1), contig(bias, dt), O, L)
    return _make(out.reshape(shape), dt)


def _convolution(
    input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
):
    if transposed is False and output_padding.__class__ in (list, tuple):
        for v in output_padding:
            if v.__class__ is not int or v:
                return None
        if len(output_padding) == weight._data.ndim - 2 and _operands(input, weight, bias, groups):
            return _conv_run(input, weight, bias, stride, padding, dilation, groups)
    return None


# Note [Recorded convolutions take the planned steps]
# A convolution that records (an input or the weight requires grad) runs _convolution_cpu
# below autograd, which worked out _norm_params, _check_conv and _Geom per call (~3.5 us of a
# small conv's ~8). The body first tries _conv_run: the same plan cache and steps as Note
# [Convolution fast calls] (so the same bits), on what that route takes short of its
# plain-operand gate, which dispatch has already passed (modes, autograd and overrides are
# above the CPU kernel); a transposed one takes Note [Transposed convolution fast calls]' plan
# and steps the same way. A decline (another dtype or rank, an error to raise) continues in
# the body.
def _convolution_below(
    input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
):
    if (
        _geometry_ok(input, weight, bias, groups)
        and output_padding.__class__ in (list, tuple)
        and len(output_padding) == weight._data.ndim - 2
    ):
        if transposed is True:  # Note [Transposed convolution fast calls]' plan and steps
            p = (stride, padding, output_padding, groups, dilation)
            return _convt_run(input, weight, bias, *p)
        if transposed is not False:
            return None
        for v in output_padding:
            if v.__class__ is not int or v:
                return None
        return _conv_run(input, weight, bias, stride, padding, dilation, groups)
    return None


_C.FORWARD_ROUTE[0] = _convolution_below


# Note [Transposed convolution fast calls]
# A small conv_transpose1d went public body -> dispatch of the composite -> _batchify and four
# _ints -> dispatch of convolution -> _norm_params, _check_conv, compute_dtype and _Geom: ~17 us
# where PyTorch takes ~7. The fast call takes what Note [Convolution fast calls]' takes (plain
# CPU operands of one float dtype, batched 1-d/2-d, int parameters, int groups), checks and
# builds the geometry once per call shape (transposed, with the output padding; any error
# caches a decline and the body raises it) and runs _convolution_cpu's transposed steps on the
# same arrays (_as4, _convt_forward, ascontiguousarray, add_channel_bias): the body's bits. It
# declines where a kernel registered through numtorch.library replaced convolution's CPU one.


def _convt(input, weight, bias, stride, padding, output_padding, groups, dilation):
    if (
        not _operands(input, weight, bias, groups)
        or _C._convolution.impls.get("cpu") is not _C._convolution_cpu
    ):
        return None
    return _convt_run(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _convt_run(input, weight, bias, stride, padding, output_padding, groups, dilation):
    a, w = input._data, weight._data
    dt = input._dtype
    n = w.ndim - 2
    s, p, op, d = _ints(stride, n), _ints(padding, n), _ints(output_padding, n), _ints(dilation, n)
    if s is None or p is None or op is None or d is None:
        return None
    key = (
        "t",
        dt,
        a.shape,
        w.shape,
        None if bias is None else bias._data.shape,
        s,
        p,
        op,
        d,
        groups,
    )
    g = _GEO.get(key)
    if g is None:
        g = False
        try:
            _check_conv(input, weight, bias, list(s), list(p), list(d), True, list(op), groups)
            geo = _Geom(a.shape, w.shape, list(s), list(p), list(d), True, list(op), groups)
        except Exception:  # noqa: BLE001  (the body raises it)
            pass
        else:
            if geo.N * geo.O * geo.OH * geo.OW and a.size and w.size:  # else the body's zeros
                g = (geo, geo.O, geo.OH * geo.OW, geo.out_shape(geo.N, geo.O, geo.OH, geo.OW))
        if len(_GEO) >= 256:
            _GEO.clear()
        _GEO[key] = g
    if g is False:
        return None
    geo, oc, L, shape = g
    out = np.ascontiguousarray(
        _convt_forward(_as4(contig(input, dt)), _as4(contig(weight, dt)), geo)
    )
    if bias is not None:
        _KC.add_channel_bias(out.reshape(-1), contig(bias, dt), oc, L)
    return _make(out.reshape(shape), dt)


# Note [Unfold and fold fast calls]
# F.unfold / F.fold of a small input spent ~4 us in dispatch, _fold_params' four expand_param
# calls, _fold_planes and _from_planes around a ~1 us im2col/col2im kernel. On a plain CPU
# float32/float64 input with int (or 1 or 2 ints) parameters, the checks (_fold_params and the
# block counts, with the body's order) run once per call shape (any error caches a decline and
# the body raises it) and each call runs the body's steps (_im2col / _col2im on the contiguous
# array, a leading axis added and dropped for unbatched input): the body's bits. Complex, bool,
# half, empty inputs and anything else take the body.


def _fold_plan(key, col: bool):
    g = _GEO.get(key)
    if g is None:
        g = False
        try:
            if col:
                _, shape, out, k, d, p, s = key
                k, d, p, s = _fold_params(list(k), list(d), list(p), list(s))
                N, ckk, L = shape if len(shape) == 3 else (1, *shape)
                H, W = out
                OH, OW = _blocks(H, W, k, d, p, s)
                kk = k[0] * k[1]
                if ckk % kk == 0 and OH * OW == L:
                    C = ckk // kk
                    g = ((N, C, H, W), _geo(C, H, W, k, d, p, s, OH, OW), (N, ckk, L))
            else:
                _, shape, k, d, p, s = key
                k, d, p, s = _fold_params(list(k), list(d), list(p), list(s))
                N, C, H, W = shape if len(shape) == 4 else (1, *shape)
                OH, OW = _blocks(H, W, k, d, p, s)
                if OH >= 1 and OW >= 1:
                    g = (N, _geo(C, H, W, k, d, p, s, OH, OW), OH * OW, (N, C, H, W))
        except Exception:  # noqa: BLE001  (the body raises it)
            g = False
        if len(_GEO) >= 256:
            _GEO.clear()
        _GEO[key] = g
    return g


def _plain_float(input) -> bool:
    return (
        input._dtype in _FLOATS
        and (input.__class__ is _T or input.__class__ in _NOTF)
        and _plain_any(input)
        and input._data.size > 0
    )


def _unfold(input, kernel_size, dilation, padding, stride):
    a = input._data
    nd = a.ndim
    if not (
        (nd == 3 or nd == 4)
        and _plain_float(input)
        and _C.im2col.impls.get("cpu") is _C._im2col_cpu
    ):
        return None
    k, d, p, s = _ints(kernel_size, 2), _ints(dilation, 2), _ints(padding, 2), _ints(stride, 2)
    if k is None or d is None or p is None or s is None:
        return None
    g = _fold_plan((input._dtype, a.shape, k, d, p, s), False)
    if g is False:
        return None
    N, geo, L, xshape = g
    dt = input._dtype
    cols = _im2col(contig(input, dt).reshape(xshape), N, geo, L)
    return _make(cols if nd == 4 else cols[0], dt)


def _fold(input, output_size, kernel_size, dilation, padding, stride):
    a = input._data
    nd = a.ndim
    if not (
        (nd == 2 or nd == 3)
        and _plain_float(input)
        and _C.col2im.impls.get("cpu") is _C._col2im_cpu
    ):
        return None
    o, k, d = _ints(output_size, 2), _ints(kernel_size, 2), _ints(dilation, 2)
    p, s = _ints(padding, 2), _ints(stride, 2)
    if o is None or k is None or d is None or p is None or s is None:
        return None
    g = _fold_plan(("c", a.shape, o, k, d, p, s), True)
    if g is False:
        return None
    shape, geo, cshape = g
    dt = input._dtype
    out = _col2im(contig(input, dt).reshape(cshape), shape, geo)
    return _make(out if nd == 3 else out[0], dt)


def install(bindings) -> None:
    """Attach the fast calls above (before _api.install)."""
    for b in bindings:
        if b.fast is not None or b.module not in ("torch", "torch.nn.functional"):
            continue
        if b.name in ("conv1d", "conv2d"):
            b.fast = (or_body(_conv, b.body), params(b.sig))
        elif b.module == "torch.nn.functional" and b.name in ("unfold", "fold"):
            b.fast = (or_body(_unfold if b.name == "unfold" else _fold, b.body), params(b.sig))
        elif b.name in ("conv_transpose1d", "conv_transpose2d"):
            b.fast = (or_body(_convt, b.body), params(b.sig))
        elif b.name == "convolution" and b.module == "torch" and not hasattr(b.body, "__wrapped__"):
            # its bias has no default, so a None bias misses the binding's fast call (which
            # takes None only for an optional parameter): the route goes in the body, as Note
            # [Prepared binding body]'s
            body = b.body
            b.body = or_body(_convolution, body)
            b.body.__wrapped__ = body
