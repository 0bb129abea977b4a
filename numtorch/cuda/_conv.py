"""CUDA convolution (1-d, 2-d and 3-d (Note [CUDA conv3d by depth taps]), grouped, strided, dilated, transposed; float16 through float32:
Note [Half convolution and pooling on CUDA]) and its backward as
im2col / col2im kernels plus the CUDA matmul (Note [CUDA im2col layout]); ``F.unfold`` /
``F.fold`` on the same kernels; max/avg/adaptive-avg pooling and their backward as direct kernels
(numtorch/kernels/cuda/conv.py).

Argument checks, geometry and messages are the CPU op's own (numtorch/ops/nn/conv.py's
``_check_conv`` / ``_Geom``, pooling.py's ``_pool_geometry``): they read only shapes and dtypes.
The matmuls, reshapes and sums here are numtorch ops on CUDA tensors, below the Autograd key.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..kernels import lazy
from ..ops.nn import conv as C
from ..ops.nn import pooling as PL
from . import _conv3d
from . import _pointwise as P
from . import _storage as S
from ._composed import _check
from ._launch import launch

K = lazy("numtorch.kernels.cuda.conv")
_FLOATS = (D.float32, D.float64)


def _float(t: Tensor, name: str) -> D.dtype:
    if t._dtype not in _FLOATS:
        raise P.not_implemented(name, t._dtype)
    return t._dtype


def _t(a: S.CudaArray, dt: D.dtype, like: Tensor) -> Tensor:
    return _make(a, dt, Tensor, like._device)


def _c0(a: S.CudaArray, npdt) -> S.CudaArray:
    # contiguous from element 0 (the kernels index the root array)
    if a.offset == 0 and a.contiguous and a.dtype == npdt:
        return a
    from ._install import contiguous_copy

    return contiguous_copy(a, npdt)


def _im2col(x: Tensor, g, N, Cn, H, W, OH, OW) -> Tensor:
    """(Cn*KH*KW, N, OH*OW) columns of ``x`` (N, Cn, H, W) (Note [CUDA im2col layout])."""
    dt = x._dtype
    a = P.cast(x._data, dt.np)
    cols = S.empty((Cn * g.KH * g.KW, N, OH * OW), dt.np)
    launch(K.im2col, Cn * N * OH * OW, a.root, a.offset, cols.root, N, *g.args(Cn, H, W, OH, OW))
    return _t(cols, dt, x)


def _col2im(cols: Tensor, g, N, Cn, H, W, OH, OW) -> Tensor:
    """(N, Cn, H, W) sums of (Cn*KH*KW, N, OH*OW) ``cols``."""
    dt = cols._dtype
    c = _c0(cols._data, dt.np)
    out = S.empty((N, Cn, H, W), dt.np)
    launch(K.col2im, out.size, c.root, out.root, N, *g.args(Cn, H, W, OH, OW))
    return _t(out, dt, cols)


def _rs(t: Tensor, shape) -> Tensor:
    """``t.reshape(shape)`` (Note [Storage-level CUDA views]), a copy where ``t`` is strided; the
    reshape op only where the sizes do not match (its error)."""
    a = S.reshaped(t._data, shape)
    if a is None and t._data.size:  # strided: a copy, as reshape's clone
        from ._install import contiguous_copy

        a = S.reshaped(contiguous_copy(t._data, t._data.dtype), shape)
    return t.reshape(shape) if a is None else _make(a, t._dtype, Tensor, t._device)


def _tr(t: Tensor) -> Tensor:
    """``t.transpose(1, 2)`` of a 3-d ``t``: a matmul operand (Note [Storage-level CUDA views])."""
    return _make(S.permuted(t._data, (0, 2, 1)), t._dtype, Tensor, t._device)


def _swap01(t: Tensor, first: int, second: int, shape) -> Tensor:
    # ``t`` read as (first, second, rest) with its first two dims swapped, contiguous, as ``shape``
    a = S.reshaped(t._data, (first, second, -1))
    if a is None:  # strided: the public ops (a copy)
        return t.reshape(first, second, -1).permute(1, 0, 2).contiguous().reshape(shape)
    p = S.permuted(a, (1, 0, 2))
    if not p.contiguous:
        from ._install import contiguous_copy

        p = contiguous_copy(p, p.dtype)
    return _rs(_make(p, t._dtype, Tensor, t._device), shape)


def _channels_first(t: Tensor, G: int) -> Tensor:
    # (N, Ch, ...) -> (G, Ch/G, N * spatial): the layout the batched matmuls take
    ch = t.shape[1]
    return _swap01(t, t.shape[0], ch, (G, ch // G, -1))


def _batch_first(t: Tensor, ch: int, n: int, shape) -> Tensor:
    # (G, ch/G, n * spatial) -> ``shape`` (n, ch, ...)
    return _swap01(t, ch, n, shape)


def _setup(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    if weight.dim() - 2 not in (1, 2):
        raise NotImplementedError("numtorch.cuda: only 1-d and 2-d convolutions run on CUDA yet")
    stride, padding, dilation, output_padding = C._norm_params(weight, stride, padding, dilation, output_padding)
    C._check_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    _float(input, "slow_conv2d")
    return C._Geom(input._data.shape, weight._data.shape, stride, padding, dilation, transposed, output_padding,
                   groups)  # fmt: skip


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    _check(input, weight, bias)
    if weight.dim() == 5:  # Note [CUDA conv3d by depth taps]
        return _conv3d.forward(convolution, input, weight, bias, stride, padding, dilation, transposed,
                               output_padding, groups)  # fmt: skip
    g = _setup(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    x = _rs(input, (g.N, g.C, g.H, g.W))
    K_ = g.KH * g.KW
    if g.N * g.O * g.OH * g.OW == 0 or x.numel() == 0 or weight.numel() == 0:
        from ._install import fill

        out = S.empty(g.out_shape(g.N, g.O, g.OH, g.OW), input._dtype.np)
        fill(out, input._dtype.np.type(0))
        y = _t(out, input._dtype, input)
    elif not transposed:
        cols = _rs(_im2col(x, g, g.N, g.C, g.H, g.W, g.OH, g.OW), (g.G, g.C // g.G * K_, -1))
        y = _rs(weight, (g.G, g.O // g.G, -1)).matmul(cols)
        y = _batch_first(y, g.O, g.N, g.out_shape(g.N, g.O, g.OH, g.OW))
    else:
        cols = _tr(_rs(weight, (g.G, g.C // g.G, -1))).matmul(_channels_first(x, g.G))
        y = _rs(_col2im(cols, g, g.N, g.O, g.OH, g.OW, g.H, g.W), g.out_shape(g.N, g.O, g.OH, g.OW))
    if bias is not None:
        y = y + _rs(bias, (1, g.O) + (1,) * (y.dim() - 2))
    return y


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):  # fmt: skip
    _check(grad_output, input, weight)
    if weight.dim() == 5:
        return _conv3d.backward(convolution_backward, grad_output, input, weight, bias_sizes, stride, padding,
                                dilation, transposed, output_padding, groups, output_mask)  # fmt: skip
    g = _setup(input, weight, None, stride, padding, dilation, transposed, output_padding, groups)
    go = _rs(grad_output, (g.N, g.O, g.OH, g.OW))
    x = _rs(input, (g.N, g.C, g.H, g.W))
    res = [None, None, None]
    if g.N * g.O * g.OH * g.OW == 0 or x.numel() == 0 or weight.numel() == 0:
        z = [input, weight, None]
        for i in range(2):
            if output_mask[i]:
                res[i] = z[i].new_zeros(z[i].shape)
        if output_mask[2]:
            res[2] = grad_output.new_zeros((g.O,))
        return tuple(res)
    if not transposed:
        go3 = _channels_first(go, g.G)  # (G, O/G, N*L)
        if output_mask[0]:
            dcols = _tr(_rs(weight, (g.G, g.O // g.G, -1))).matmul(go3)
            res[0] = _rs(_col2im(dcols, g, g.N, g.C, g.H, g.W, g.OH, g.OW), input.shape)
        if output_mask[1]:
            cols = _rs(_im2col(x, g, g.N, g.C, g.H, g.W, g.OH, g.OW), (g.G, g.C // g.G * g.KH * g.KW, -1))
            res[1] = _rs(go3.matmul(_tr(cols)), weight.shape)
    else:
        cols = _rs(_im2col(go, g, g.N, g.O, g.OH, g.OW, g.H, g.W), (g.G, g.O // g.G * g.KH * g.KW, -1))
        if output_mask[0]:
            gi = _rs(weight, (g.G, g.C // g.G, -1)).matmul(cols)
            res[0] = _batch_first(gi, g.C, g.N, input.shape)
        if output_mask[1]:
            res[1] = _rs(_channels_first(x, g.G).matmul(_tr(cols)), weight.shape)
    if output_mask[2]:
        res[2] = go.sum([0, 2, 3])
    return tuple(res)


# ---- im2col / col2im (F.unfold / F.fold) ---------------------------------------------------------
class _FoldGeom:
    """The geometry interface of ``_Geom`` that the im2col / col2im launches read."""

    def __init__(self, k, d, p, s):
        self.KH, self.KW, self.k, self.d, self.p, self.s = k[0], k[1], k, d, p, s

    def args(self, Cn, H, W, OH, OW):
        return C._geo(Cn, H, W, self.k, self.d, self.p, self.s, OH, OW)


def _meta(name, vals):
    from ..ops._registry import OPS
    from ._install import _meta_of

    return _meta_of(OPS[name], vals)


def im2col(self, kernel_size, dilation, padding, stride):
    _check(self)
    res = _meta("aten::im2col", [self, kernel_size, dilation, padding, stride])
    _float(self, "im2col")
    g = _FoldGeom(*C._fold_params(kernel_size, dilation, padding, stride))
    x = self if self.dim() == 4 else _rs(self, (1, *self.shape))
    N, Cn, H, W = x.shape
    OH, OW = C._blocks(H, W, g.k, g.d, g.p, g.s)
    cols = _im2col(x, g, N, Cn, H, W, OH, OW)  # (Cn*K, N, L)
    return _swap01(cols, cols.shape[0], N, res._data.shape)


def col2im(self, output_size, kernel_size, dilation, padding, stride):
    _check(self)
    res = _meta("aten::col2im", [self, output_size, kernel_size, dilation, padding, stride])
    _float(self, "col2im")
    g = _FoldGeom(*C._fold_params(kernel_size, dilation, padding, stride))
    H, W = C.expand_param(output_size, "output_size", 2)
    x = self if self.dim() == 3 else _rs(self, (1, *self.shape))
    N, CK, _ = x.shape
    OH, OW = C._blocks(H, W, g.k, g.d, g.p, g.s)
    out = _col2im(_swap01(x, N, CK, (CK, N, -1)), g, N, CK // (g.KH * g.KW), H, W, OH, OW)
    return _rs(out, res._data.shape)


# ---- pooling -------------------------------------------------------------------------------------
def max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    _check(self)
    k, s, p, d, H, W, OH, OW = PL._pool_geometry(self, kernel_size, stride, padding, dilation, ceil_mode,
                                                 "max_pool2d")  # fmt: skip
    dt = _float(self, "max_pool2d")
    x = P.cast(self._data, dt.np)
    out = S.empty(self._data.shape[:-2] + (OH, OW), dt.np)
    idx = S.empty(out.shape, np.int64)
    launch(K.max_pool2d, out.size, x.root, x.offset, out.root, idx.root, H, W, k[0], k[1], s[0], s[1], p[0], p[1],
           d[0], d[1], OH, OW)  # fmt: skip
    return _t(out, dt, self), _t(idx, D.int64, self)


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
                                     indices):  # fmt: skip
    from ._install import fill

    _check(grad_output, self, indices)
    dt = _float(self, "max_pool2d_backward")
    gi = S.empty(self._data.shape, dt.np)
    fill(gi, dt.np.type(0))
    g = P.cast(grad_output._data, dt.np)
    ind = _c0(indices._data, np.dtype(np.int64))
    H, W = self._data.shape[-2:]
    OH, OW = indices._data.shape[-2:]
    launch(K.max_pool2d_backward, g.size, g.root, g.offset, ind.root, gi.root, H * W, OH * OW)
    return _t(gi, dt, self)


def avg_pool2d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):  # fmt: skip
    _check(self)
    k, s, p, H, W, OH, OW, div = PL._avg_setup(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    dt = _float(self, "avg_pool2d")
    x = P.cast(self._data, dt.np)
    out = S.empty(self._data.shape[:-2] + (OH, OW), dt.np)
    launch(K.avg_pool2d, out.size, x.root, x.offset, out.root, H, W, k[0], k[1], s[0], s[1], p[0], p[1], OH, OW,
           bool(count_include_pad), div)  # fmt: skip
    return _t(out, dt, self)


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):  # fmt: skip
    _check(grad_output, self)
    k, s, p, H, W, OH, OW, div = PL._avg_setup(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    dt = _float(self, "avg_pool2d_backward")
    g = P.cast(grad_output._data, dt.np)
    gi = S.empty(self._data.shape, dt.np)
    launch(K.avg_pool2d_backward, gi.size, g.root, g.offset, gi.root, H, W, k[0], k[1], s[0], s[1], p[0], p[1], OH,
           OW, bool(count_include_pad), div)  # fmt: skip
    return _t(gi, dt, self)


def _adaptive_dims(self, output_size, nd, name):
    """((D, H, W), (OD, OH, OW)) of an adaptive pool, a 2-d one with depth 1, after the CPU
    op's checks (its dtype refusal names the CUDA kernel)."""
    if nd == 2:
        H, W, OH, OW = PL._adaptive_setup(self, output_size, name)
        return (1, H, W), (1, OH, OW)
    from ..ops.nn.pooling3d import _adaptive_setup

    try:
        osz = tuple(_adaptive_setup(self, output_size, name)[1])
    except NotImplementedError as e:
        raise NotImplementedError(str(e).replace("_cpu", "_cuda")) from None
    return tuple(self._data.shape[-3:]), osz


def adaptive_avg_pool(self, output_size, nd):
    """_adaptive_avg_pool2d (``nd`` 2) or 3d: one kernel, a 2-d pool having depth 1."""
    _check(self)
    name = f"adaptive_avg_pool{nd}d"
    dims, osz = _adaptive_dims(self, output_size, nd, name)
    dt = _float(self, name)
    x = P.cast(self._data, dt.np)
    out = S.empty(self._data.shape[:-nd] + osz[3 - nd:], dt.np)
    launch(K.adaptive_avg_pool3d, out.size, x.root, x.offset, out.root, *dims, *osz)
    return _t(out, dt, self)


def adaptive_avg_pool_backward(grad_output, self, nd):
    _check(grad_output, self)
    dt = _float(self, f"adaptive_avg_pool{nd}d_backward")
    dims = (1,) * (3 - nd) + tuple(self._data.shape[-nd:])
    osz = (1,) * (3 - nd) + tuple(grad_output._data.shape[-nd:])
    g = P.cast(grad_output._data, dt.np)
    gi = S.empty(self._data.shape, dt.np)
    launch(K.adaptive_avg_pool3d_backward, gi.size, g.root, g.offset, gi.root, *dims, *osz)
    return _t(gi, dt, self)


def adaptive_max_pool(self, output_size, nd):
    """adaptive_max_pool2d (``nd`` 2) or 3d: one thread per output element, the CPU kernel's
    window and pick (a 2-d pool runs the 3-d kernel with one depth)."""
    _check(self)
    name = f"adaptive_max_pool{nd}d"
    dims, osz = _adaptive_dims(self, output_size, nd, name)
    dt = _float(self, name)
    x = P.cast(self._data, dt.np)
    out = S.empty(self._data.shape[:-nd] + osz[3 - nd:], dt.np)
    idx = S.empty(out.shape, np.int64)
    launch(K.adaptive_max_pool3d, out.size, x.root, x.offset, out.root, idx.root, *dims, *osz)
    return _t(out, dt, self), _t(idx, D.int64, self)


def adaptive_max_pool_backward(grad_output, self, indices, nd):
    """Each output's gradient added at its input index (max_pool2d's backward kernel, a plane
    being the last ``nd`` dims)."""
    from ._install import fill

    _check(grad_output, self, indices)
    dt = _float(self, f"adaptive_max_pool{nd}d_backward")
    gi = S.empty(self._data.shape, dt.np)
    fill(gi, dt.np.type(0))
    g = P.cast(grad_output._data, dt.np)
    ind = _c0(indices._data, np.dtype(np.int64))
    plane, oplane = math.prod(self._data.shape[-nd:]), math.prod(indices._data.shape[-nd:])
    if g.size:
        launch(K.max_pool2d_backward, g.size, g.root, g.offset, ind.root, gi.root, plane, oplane)
    return _t(gi, dt, self)


# Note [Half convolution and pooling on CUDA]
# float16 runs on float32 copies of the operands (the float32 matmul accumulates, as cuDNN's half
# convolutions with float compute), and each float result is rounded to half once. Only when
# every floating operand is half: a mixed call reaches the op's own dtype check and message.
def _via_float32(fn):
    def impl(*vals):
        floats = [v for v in _tensors(vals) if v._dtype.is_floating_point]
        if not floats or any(v._dtype is not D.float16 for v in floats):
            return fn(*vals)
        return _round(fn(*[_widen(v) for v in vals]))

    impl.__wrapped__ = fn
    return impl


def _tensors(vals):
    for v in vals:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (x for x in v if isinstance(x, Tensor))


def _widen(v):
    if isinstance(v, Tensor) and v._dtype is D.float16:
        return v.float()
    if isinstance(v, (list, tuple)) and any(isinstance(x, Tensor) for x in v):
        return type(v)(_widen(x) for x in v)
    return v


def _round(r):
    if isinstance(r, Tensor):
        return r.half() if r._dtype is D.float32 else r
    if isinstance(r, (list, tuple)):
        return type(r)(_round(x) for x in r)
    return r


IMPLS = {
    name: _via_float32(fn)
    for name, fn in {
        "aten::_adaptive_avg_pool2d": lambda self, output_size: adaptive_avg_pool(self, output_size, 2),
        "aten::_adaptive_avg_pool2d_backward": lambda g, self: adaptive_avg_pool_backward(g, self, 2),
        "aten::_adaptive_avg_pool3d": lambda self, output_size: adaptive_avg_pool(self, output_size, 3),
        "aten::_adaptive_avg_pool3d_backward": lambda g, self: adaptive_avg_pool_backward(g, self, 3),
        "aten::convolution": convolution,
        "aten::convolution_backward": convolution_backward,
        "aten::im2col": im2col,
        "aten::col2im": col2im,
        "aten::max_pool2d_with_indices": max_pool2d_with_indices,
        "aten::adaptive_max_pool2d": lambda self, output_size: adaptive_max_pool(self, output_size, 2),
        "aten::adaptive_max_pool3d": lambda self, output_size: adaptive_max_pool(self, output_size, 3),
        "aten::adaptive_max_pool2d_backward": lambda g, self, indices: adaptive_max_pool_backward(g, self, indices, 2),
        "aten::adaptive_max_pool3d_backward": lambda g, self, indices: adaptive_max_pool_backward(g, self, indices, 3),
        "aten::max_pool2d_with_indices_backward": max_pool2d_with_indices_backward,
        "aten::avg_pool2d": avg_pool2d,
        "aten::avg_pool2d_backward": avg_pool2d_backward,
        "aten::max_pool3d_with_indices": lambda self, *a: _conv3d.max_pool3d_with_indices(
            max_pool2d_with_indices, self, *a),
        "aten::max_pool3d_with_indices_backward": _conv3d.max_pool3d_with_indices_backward,
        "aten::avg_pool3d": lambda self, *a: _conv3d.avg_pool3d(avg_pool2d, self, *a),
        "aten::avg_pool3d_backward": lambda g, self, *a: _conv3d.avg_pool3d_backward(avg_pool2d_backward, g, self, *a),
    }.items()
}
