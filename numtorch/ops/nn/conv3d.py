"""3-D convolutions: the ``convolution`` op's 5-d path (vol2col kernel + BLAS matmul, and its
backward), and the conv3d / conv_transpose3d composites.

# Note [3-D convolutions plug into convolution]
# ``aten.convolution`` and ``convolution_backward`` are declared once, in conv.py; this module
# cannot be imported from there (it imports conv.py), so it fills conv.ND_IMPLS[3] with its
# forward and backward at import and conv.py hands 5-d weights to them. Autograd, double
# backward and the padding='same' handling therefore come from conv.py unchanged.
"""

from __future__ import annotations

import numpy as np

from ..._dispatch import dispatch
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._registry import defop, public
from . import conv as C

K3 = lazy("numtorch.kernels.cpu.nn.conv3d")
K = lazy("numtorch.kernels.cpu.nn.conv")
_F = "torch.nn.functional"


class _G3:
    """Geometry of one 3-D convolution: sizes of the input (sp) and output (osp) volumes."""

    __slots__ = ("N", "C", "O", "G", "sp", "k", "S", "P", "Dl", "osp")

    def __init__(self, x_shape, w_shape, stride, padding, dilation, transposed, output_padding, groups):  # fmt: skip
        self.N, self.C, self.sp = x_shape[0], x_shape[1], tuple(x_shape[2:])
        self.k, self.S, self.P, self.Dl, self.G = tuple(w_shape[2:]), stride, padding, dilation, groups
        if not transposed:
            self.O = w_shape[0]
            self.osp = tuple((self.sp[i] + 2 * padding[i] - dilation[i] * (self.k[i] - 1) - 1) // stride[i] + 1
                             for i in range(3))  # fmt: skip
        else:
            self.O = w_shape[1] * groups
            self.osp = tuple((self.sp[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (self.k[i] - 1)
                             + output_padding[i] + 1 for i in range(3))  # fmt: skip

    def geo(self, ch, vol, pos) -> np.ndarray:
        """Note [3-D convolution geometry] for volumes ``vol`` of ``ch`` channels, ``pos`` positions."""
        return np.array([ch, *vol, *self.k, *self.S, *self.P, *self.Dl, *pos], np.int64)


def _vol2col(x, n, geo) -> np.ndarray:
    kk, L = int(geo[4] * geo[5] * geo[6]), int(geo[16] * geo[17] * geo[18])
    cols = np.empty((n, int(geo[0]) * kk, L), x.dtype)
    if cols.size:
        fn = K3.vol2col_parallel if cols.size >= PARALLEL_THRESHOLD else K3.vol2col
        fn(x.reshape(-1), cols.reshape(-1), geo)
    return cols


def _col2vol(cols, shape, geo) -> np.ndarray:
    out = np.empty(shape, cols.dtype)
    if out.size:
        fn = K3.col2vol_parallel if cols.size >= PARALLEL_THRESHOLD else K3.col2vol
        fn(np.ascontiguousarray(cols).reshape(-1), out.reshape(-1), geo)
    return out


def _prod(t) -> int:
    return int(np.prod(t))


def _conv_fwd(x, w, g: _G3, half: bool = False):
    geo, L = g.geo(g.C, g.sp, g.osp), _prod(g.osp)
    cols = _vol2col(x, g.N, geo).reshape(g.N, g.G, -1, L)

    def valid():  # the taps inside the input (C.weight_times_cols: half kernels skip the others)
        return _vol2col(np.ones((1, *x.shape[1:]), x.dtype), 1, geo).reshape(1, g.G, -1, L) != 0

    out = C.weight_times_cols(w.reshape(g.G, g.O // g.G, -1), cols, half, valid if any(g.P) else None)
    return out.reshape(g.N, g.O, *g.osp)


def _conv_gi(go, w, g: _G3):
    go4 = go.reshape(g.N, g.G, g.O // g.G, _prod(g.osp))
    dcols = np.matmul(w.reshape(g.G, g.O // g.G, -1).transpose(0, 2, 1), go4)
    return _col2vol(dcols.reshape(g.N, -1, _prod(g.osp)), (g.N, g.C, *g.sp), g.geo(g.C, g.sp, g.osp))


def _conv_gw(go, x, g: _G3, w_shape):
    go4 = go.reshape(g.N, g.G, g.O // g.G, _prod(g.osp))
    cols = _vol2col(x, g.N, g.geo(g.C, g.sp, g.osp)).reshape(g.N, g.G, -1, _prod(g.osp))
    return C._gemm_nt(go4, cols).reshape(w_shape)


def _convt_fwd(x, w, g: _G3):
    x4 = x.reshape(g.N, g.G, g.C // g.G, _prod(g.sp))
    cols = np.matmul(w.reshape(g.G, g.C // g.G, -1).transpose(0, 2, 1), x4)
    return _col2vol(cols.reshape(g.N, -1, _prod(g.sp)), (g.N, g.O, *g.osp), g.geo(g.O, g.osp, g.sp))


def _convt_gi(go, w, g: _G3):
    cols = _vol2col(go, g.N, g.geo(g.O, g.osp, g.sp)).reshape(g.N, g.G, -1, _prod(g.sp))
    return np.matmul(w.reshape(g.G, g.C // g.G, -1), cols).reshape(g.N, g.C, *g.sp)


def _convt_gw(go, x, g: _G3, w_shape):
    cols = _vol2col(go, g.N, g.geo(g.O, g.osp, g.sp)).reshape(g.N, g.G, -1, _prod(g.sp))
    x4 = x.reshape(g.N, g.G, g.C // g.G, _prod(g.sp))
    return C._gemm_nt(x4, cols).reshape(w_shape)


def _params(stride, padding, dilation, output_padding):
    return [C.expand_param(v, n, 3) for v, n in ((stride, "stride"), (padding, "padding"),
                                                 (dilation, "dilation"), (output_padding, "output_padding"))]  # fmt: skip


def convolution3d_cpu(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):  # fmt: skip
    stride, padding, dilation, output_padding = _params(stride, padding, dilation, output_padding)
    C._check_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    dt = C.compute_dtype(input, "slow_conv3d_cpu")
    g = _G3(input._data.shape, weight._data.shape, stride, padding, dilation, transposed, output_padding, groups)  # fmt: skip
    x, w = C.contig(input, dt), C.contig(weight, dt)
    if g.N * g.O * _prod(g.osp) == 0 or x.size == 0 or w.size == 0:
        out = np.zeros((g.N, g.O, *g.osp), dt.np)
    else:
        out = np.ascontiguousarray(_convt_fwd(x, w, g) if transposed else _conv_fwd(x, w, g, input._dtype in C._PADDING_SKIPPED))
    if bias is not None and out.size:
        K.add_channel_bias(out.reshape(-1), C.contig(bias, dt), g.O, _prod(g.osp))
    return _make(out.astype(input._dtype.np, copy=False), input._dtype)


def convolution3d_backward_cpu(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                               transposed, output_padding, groups, output_mask):  # fmt: skip
    stride, padding, dilation, output_padding = _params(stride, padding, dilation, output_padding)
    dt = C.compute_dtype(input, "slow_conv3d_cpu")
    g = _G3(input._data.shape, weight._data.shape, stride, padding, dilation, transposed, output_padding, groups)  # fmt: skip
    go, x, w = (C.contig(t, dt) for t in (grad_output, input, weight))
    empty = go.size == 0 or x.size == 0 or w.size == 0
    res = [None, None, None]
    if output_mask[0]:
        gi = np.zeros(x.shape, dt.np) if empty else (_convt_gi if transposed else _conv_gi)(go, w, g)
        res[0] = C._wrap(gi, input)
    if output_mask[1]:
        gw = np.zeros(w.shape, dt.np) if empty else (_convt_gw if transposed else _conv_gw)(go, x, g, w.shape)
        res[1] = C._wrap(gw, weight)
    if output_mask[2]:
        gb = np.zeros(g.O, dt.np)
        if go.size:
            K.channel_sum(go.reshape(-1), gb, g.O, _prod(g.osp))
        res[2] = _make(gb.astype(grad_output._dtype.np, copy=False), grad_output._dtype)
    return tuple(res)


C.ND_IMPLS[3] = (convolution3d_cpu, convolution3d_backward_cpu)

_T = "Tensor input, Tensor weight, Tensor? bias=None"
_conv3d = defop(f"conv3d({_T}, SymInt[3] stride=1, SymInt[3] padding=0, SymInt[3] dilation=1, SymInt groups=1) -> Tensor",
                composite=C._conv_nd(3, "conv3d"))  # fmt: skip
_conv3d_pad = defop(f'conv3d.padding({_T}, SymInt[3] stride=1, str padding="valid", SymInt[3] dilation=1, SymInt groups=1) -> Tensor',
                    composite=C._conv_nd(3, "conv3d"))  # fmt: skip
_convt3d = defop(f"conv_transpose3d.input({_T}, SymInt[3] stride=1, SymInt[3] padding=0, SymInt[3] output_padding=0, "
                 "SymInt groups=1, SymInt[3] dilation=1) -> Tensor", composite=C._convt_nd(3, "conv_transpose3d"))  # fmt: skip

_DOC3 = ("3-D cross-correlation over (N, C, D, H, W) input.\n\n    >>> numtorch.nn.functional.conv3d("
         "numtorch.ones(1, 1, 3, 3, 3), numtorch.ones(1, 1, 2, 2, 2)).shape\n    torch.Size([1, 1, 2, 2, 2])\n")  # fmt: skip


def _convt3d_body(input, weight, bias, stride, padding, output_padding, groups, dilation):
    """3-D transposed convolution.

    >>> numtorch.nn.functional.conv_transpose3d(numtorch.ones(1, 1, 2, 2, 2), numtorch.ones(1, 1, 2, 2, 2)).shape
    torch.Size([1, 1, 3, 3, 3])
    """
    return dispatch(_convt3d, [input, weight, bias, stride, padding, output_padding, groups, dilation])


for _mod in ("torch", _F):
    public("conv3d", C._CONV_SIG, C._conv_body(_conv3d, _conv3d_pad, _DOC3), relevant=("input", "weight", "bias"),
           module=_mod, ops=(_conv3d, _conv3d_pad))  # fmt: skip
    public("conv_transpose3d", C._CONVT_SIG, _convt3d_body, relevant=("input", "weight", "bias"), module=_mod,
           ops=(_convt3d,))  # fmt: skip
