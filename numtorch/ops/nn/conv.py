"""Convolutions: ``convolution`` (im2col kernel + BLAS matmul), its ``convolution_backward``,
the conv1d/conv2d/conv_transpose composites, and im2col/col2im (``F.unfold`` / ``F.fold``).

# Note [Convolutions are 2-D inside]
# The kernels only know 2-D geometry (Note [Convolution geometry]); a 1-D convolution runs as a
# 2-D one over (N, C, 1, L) with stride/padding/dilation 1/0/1 in the added dimension. Grouped
# weights are reshaped to (G, OC/G, C/G*KH*KW) so one batched matmul serves every group.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._tensor import Tensor, _make
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._formula_np import plain as _plain_formula
from .._pointwise import _cname
from .._registry import defop, public
from . import conv_gather as _gather

K = lazy("numtorch.kernels.cpu.nn.conv")
aten = _ops.aten  # Note [Composite bodies are below the Python API]
_F = "torch.nn.functional"
_LEGACY = {
    "float32": "torch.FloatTensor",
    "float64": "torch.DoubleTensor",
    "float16": "torch.HalfTensor", "bfloat16": "torch.BFloat16Tensor",
}


def expand_param(v, name: str, n: int) -> list:
    """An int-list argument of ``n`` spatial dims, with PyTorch's message for a wrong length."""
    if v.__class__ is list and len(v) == n and all(x.__class__ is int for x in v):
        return list(v)  # already n Python ints (the schema parser's usual result)
    vals = [int(v)] * n if isinstance(v, (int, np.integer)) else [int(x) for x in v]
    if len(vals) == 1 and n != 1:
        vals = vals * n
    if len(vals) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={vals}"
        )
    return vals


def compute_dtype(x: Tensor, opname: str) -> D.dtype:
    """The dtype a kernel runs in: float16 computes in float32, bool/complex are refused."""
    dt = x._dtype
    if dt is D.bool or dt.category == D._COMPLEX:
        raise NotImplementedError(f"\"{opname}\" not implemented for '{_cname(dt)}'")
    return D.float32 if dt is D.float16 else dt


def contig(x: Tensor, dt: D.dtype) -> np.ndarray:
    """``x``'s data as a C-contiguous array of ``dt`` (copied only when needed)."""
    a = x._data
    if a.__class__ is np.ndarray and a.dtype is dt.np and a.flags.c_contiguous:
        return a  # what ascontiguousarray returns, without its argument parsing
    return np.ascontiguousarray(a, dtype=dt.np)


def _sizes(t: Tensor) -> str:
    return str(list(t._data.shape))


def _check_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    # kernel-side code: array attributes, not the public methods' __torch_function__ gates
    k = weight._data.ndim
    if input._data.ndim != k:
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight {_sizes(weight)}, but got "
            f"{input._data.ndim}-dimensional input of size {_sizes(input)} instead"
        )
    if padding and min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if output_padding and min(output_padding) < 0:
        raise RuntimeError("negative output_padding is not supported")
    if stride and min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if dilation and min(dilation) <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ws = weight._data.shape
    if ws[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
            f"weight of size {list(ws)} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
            f"got weight of size [{list(ws)}] instead"
        )
    c = input._data.shape[1]
    if not transposed:
        if c != ws[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {list(ws)}, expected input{_sizes(input)} to "
                f"have {ws[1] * groups} channels, but got {c} channels instead"
            )
        nb = ws[0]
        xs = input._data.shape
        small = False
        for i in range(k - 2):  # a loop, not two comprehensions and any(): ~1 us of a small conv
            small = small or xs[2 + i] + 2 * padding[i] < dilation[i] * (ws[2 + i] - 1) + 1
        if small:
            pads = [xs[2 + i] + 2 * padding[i] for i in range(k - 2)]
            kers = [dilation[i] * (ws[2 + i] - 1) + 1 for i in range(k - 2)]
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, pads))}). Kernel size: "
                f"({' x '.join(map(str, kers))}). Kernel size can't be greater than actual input size"
            )
        head = "Given"
    else:
        if c != ws[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(ws)}, expected input{_sizes(input)} to have "
                f"{ws[0]} channels, but got {c} channels instead"
            )
        nb = ws[1] * groups
        head = "Given transposed=1,"
        for op, s, d in zip(output_padding, stride, dilation, strict=False):
            if op >= s and op >= d:
                raise RuntimeError(
                    "output padding must be smaller than either stride or dilation, but got "
                    + _opad_text(output_padding, stride, dilation)
                )
        ins = list(input._data.shape[2:])
        outs = [(ins[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (ws[2 + i] - 1)
                + output_padding[i] + 1 for i in range(k - 2)]  # fmt: skip
        if any(o < 1 for o in outs):
            if k == 3:  # PyTorch reports 1-D sizes as 2-D (1 x L)
                ins, outs = [1, *ins], [1, *outs]
            raise RuntimeError(
                f"Given input size per channel: ({' x '.join(map(str, ins))}). Calculated output "
                f"size per channel: ({' x '.join(map(str, outs))}). Output size is too small"
            )
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != nb):
        raise RuntimeError(
            f"{head} weight of size {list(ws)}, expected bias to be 1-dimensional with {nb} elements, "
            f"but got bias of size {_sizes(bias)} instead"
        )
    _check_types(input, weight, bias)


def _opad_text(op, st, dl) -> str:
    if len(op) == 1:
        op, st, dl = [0, *op], [1, *st], [1, *dl]
    return (
        f"output_padding_height: {op[0]} output_padding_width: {op[1]} stride_height: {st[0]} "
        f"stride_width: {st[1]} dilation_height: {dl[0]} dilation_width: {dl[1]}"
    )


def _check_types(input, weight, bias):
    if input._dtype is not weight._dtype:
        if input._dtype is D.float32:
            raise RuntimeError(
                f"Input type ({_LEGACY.get(input._dtype.name, input._dtype.name)}) and weight type "
                f"({_LEGACY.get(weight._dtype.name, weight._dtype.name)}) should be the same or input "
                "should be a MKLDNN tensor and weight is a dense tensor"
            )
        raise RuntimeError(
            f"expected scalar type {_cname(input._dtype)} but found {_cname(weight._dtype)}"
        )
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(
            f"Input type ({_SCALAR.get(input._dtype.name, input._dtype.name)}) and bias type "
            f"({_SCALAR.get(bias._dtype.name, bias._dtype.name)}) should be the same"
        )


_SCALAR = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
}


class _Geom:
    """2-D geometry of one convolution (Note [Convolutions are 2-D inside])."""

    __slots__ = ("N", "C", "H", "W", "O", "KH", "KW", "S", "P", "Dl", "OH", "OW", "G", "one_d")

    def __init__(
        self, x_shape, w_shape, stride, padding, dilation, transposed, output_padding, groups
    ):
        self.one_d = len(x_shape) == 3
        if self.one_d:
            x_shape = (x_shape[0], x_shape[1], 1, x_shape[2])
            w_shape = (w_shape[0], w_shape[1], 1, w_shape[2])
            stride, padding, dilation = [1, *stride], [0, *padding], [1, *dilation]
            output_padding = [0, *output_padding]
        self.N, self.C, self.H, self.W = x_shape
        self.G = groups
        self.KH, self.KW = w_shape[2], w_shape[3]
        self.S, self.P, self.Dl = stride, padding, dilation
        if not transposed:
            self.O = w_shape[0]
            self.OH = (self.H + 2 * padding[0] - dilation[0] * (self.KH - 1) - 1) // stride[0] + 1
            self.OW = (self.W + 2 * padding[1] - dilation[1] * (self.KW - 1) - 1) // stride[1] + 1
        else:
            self.O = w_shape[1] * groups
            self.OH = (
                (self.H - 1) * stride[0]
                - 2 * padding[0]
                + dilation[0] * (self.KH - 1)
                + output_padding[0]
                + 1
            )
            self.OW = (
                (self.W - 1) * stride[1]
                - 2 * padding[1]
                + dilation[1] * (self.KW - 1)
                + output_padding[1]
                + 1
            )

    def out_shape(self, n, c, h, w):
        return (n, c, w) if self.one_d else (n, c, h, w)

    def args(self, C, H, W, OH, OW):
        """Kernel geometry for planes of C channels, H x W, producing OH x OW positions."""
        return (C, H, W, self.KH, self.KW, self.S[0], self.S[1], self.P[0], self.P[1],
                self.Dl[0], self.Dl[1], OH, OW)  # fmt: skip

    def trivial(self) -> bool:
        return self.KH == self.KW == 1 and self.S == [1, 1] and self.P == [0, 0]


def _im2col(x: np.ndarray, n, geo_args, L) -> np.ndarray:
    C, KH, KW = geo_args[0], geo_args[3], geo_args[4]
    cols = np.empty((n, C * KH * KW, L), x.dtype)
    if cols.size and not _gather.im2col(x.reshape(-1), cols.reshape(-1), n, geo_args):
        fn = K.im2col_parallel if cols.size >= PARALLEL_THRESHOLD else K.im2col
        fn(x.reshape(-1), cols.reshape(-1), *geo_args)
    return cols


def _col2im(cols: np.ndarray, shape, geo_args) -> np.ndarray:
    out = np.empty(shape, cols.dtype)
    if out.size:
        fn = K.col2im_parallel if cols.size >= PARALLEL_THRESHOLD else K.col2im
        fn(np.ascontiguousarray(cols).reshape(-1), out.reshape(-1), *geo_args)
    return out


def _cols_of(x, g: _Geom, C, H, W, OH, OW):
    """im2col of (N, C, H, W) ``x`` for this geometry, as (N, G, C/G*KH*KW, OH*OW)."""
    if g.trivial() and H == OH and W == OW:
        cols = x.reshape(g.N, C, H * W)
    else:
        cols = _im2col(x, g.N, g.args(C, H, W, OH, OW), OH * OW)
    return cols.reshape(g.N, g.G, -1, OH * OW)


def _gemm_nt(a4, b4):
    """sum over n of a4[n, g] @ b4[n, g].T for (N, G, A, L) and (N, G, B, L).

    Batched per-sample products summed in chunks: no transposed copies of the big operands, and
    BLAS calls small enough to stay single-threaded (one multi-threaded GEMM over N*L was 20x
    slower on a loaded 2-core machine, benchmarks/bench_nn.py Conv).
    """
    N, G, A, _ = a4.shape
    B = b4.shape[2]
    if N == 1:  # the loop's one product, added to zeros as it is there (-0.0 becomes 0.0)
        out = np.matmul(a4[0], b4[0].transpose(0, 2, 1))
        out += 0.0
        return out
    out = np.zeros((G, A, B), np.result_type(a4, b4))
    chunk = max(1, min(N, (1 << 20) // max(G * A * B, 1)))
    bt = b4.transpose(0, 1, 3, 2)
    for n0 in range(0, N, chunk):
        out += np.matmul(a4[n0 : n0 + chunk], bt[n0 : n0 + chunk]).sum(0)
    return out


# PyTorch 2.13's CPU float16 convolution multiplies the padding taps as its float kernels do
# (its bfloat16 slow_conv still skips them): tests/parity test_half_conv_skips_padded_taps
_PADDING_SKIPPED = (D.bfloat16,)


def weight_times_cols(wm, cols, half: bool, valid):
    """``wm @ cols`` for (G, O/G, K) weights and (N, G, K, L) columns of a convolution.

    PyTorch's bfloat16 slow_conv kernels skip the taps that fall on the zero padding, where
    its float (and float16) kernels multiply them: 0 * NaN there is NaN, and a NaN or inf
    weight over the padding must not reach a bfloat16 output (fuzz, session 8). Only a
    non-finite weight can tell the two apart, so only then are its taps added one by one,
    masked by ``valid()``: the (1, G, K, L) taps inside the input (None: no padding).
    """
    if not half or valid is None or np.isfinite(wm).all():
        return np.matmul(wm, cols)
    bad = ~np.isfinite(wm)
    out = np.matmul(np.where(bad, 0, wm), cols)
    gi, oi, ki = np.nonzero(bad)
    with np.errstate(invalid="ignore"):  # inf * 0 inside the input is NaN, as in PyTorch
        terms = np.where(valid()[:, gi, ki], wm[gi, oi, ki][:, None] * cols[:, gi, ki], 0)
    np.add.at(out, (slice(None), gi, oi), terms.astype(out.dtype, copy=False))
    return out


def _conv_forward(x, w, g: _Geom, half: bool = False):
    """Non-transposed convolution of contiguous 4-D arrays -> (N, O, OH, OW)."""
    cols = _cols_of(x, g, g.C, g.H, g.W, g.OH, g.OW)
    args = g.args(g.C, g.H, g.W, g.OH, g.OW)
    L = g.OH * g.OW

    def valid():
        return _im2col(np.ones((1, *x.shape[1:]), x.dtype), 1, args, L).reshape(1, g.G, -1, L) != 0

    out = weight_times_cols(w.reshape(g.G, g.O // g.G, -1), cols, half, None if g.P == [0, 0] else valid)
    return out.reshape(g.N, g.O, g.OH, g.OW)


def _conv_input_grad(go, w, g: _Geom):
    """grad_input of a non-transposed convolution (the transposed convolution of ``go``)."""
    go4 = go.reshape(g.N, g.G, g.O // g.G, g.OH * g.OW)
    dcols = np.matmul(w.reshape(g.G, g.O // g.G, -1).transpose(0, 2, 1), go4)
    if g.trivial() and g.H == g.OH and g.W == g.OW:
        return dcols.reshape(g.N, g.C, g.H, g.W)
    dcols = dcols.reshape(g.N, -1, g.OH * g.OW)
    return _col2im(dcols, (g.N, g.C, g.H, g.W), g.args(g.C, g.H, g.W, g.OH, g.OW))


def _conv_weight_grad(go, x, g: _Geom, w_shape):
    go4 = go.reshape(g.N, g.G, g.O // g.G, g.OH * g.OW)
    cols = _cols_of(x, g, g.C, g.H, g.W, g.OH, g.OW)
    return _gemm_nt(go4, cols).reshape(w_shape)


def _convt_forward(x, w, g: _Geom):
    """Transposed convolution: col2im of W^T x (the input grad of the matching convolution)."""
    cin_g = g.C // g.G
    x4 = x.reshape(g.N, g.G, cin_g, g.H * g.W)
    cols = np.matmul(w.reshape(g.G, cin_g, -1).transpose(0, 2, 1), x4)
    if g.trivial() and g.H == g.OH and g.W == g.OW:
        return cols.reshape(g.N, g.O, g.OH, g.OW)
    cols = cols.reshape(g.N, -1, g.H * g.W)
    return _col2im(cols, (g.N, g.O, g.OH, g.OW), g.args(g.O, g.OH, g.OW, g.H, g.W))


def _convt_input_grad(go, w, g: _Geom):
    cols = _cols_of(go, g, g.O, g.OH, g.OW, g.H, g.W)
    out = np.matmul(w.reshape(g.G, g.C // g.G, -1), cols)
    return out.reshape(g.N, g.C, g.H, g.W)


def _convt_weight_grad(go, x, g: _Geom, w_shape):
    cols = _cols_of(go, g, g.O, g.OH, g.OW, g.H, g.W)
    x4 = x.reshape(g.N, g.G, g.C // g.G, g.H * g.W)
    return _gemm_nt(x4, cols).reshape(w_shape)


def _as4(a: np.ndarray) -> np.ndarray:
    return a.reshape(a.shape[0], a.shape[1], 1, a.shape[2]) if a.ndim == 3 else a


# Note [3-D convolutions plug into convolution] (conv3d.py): spatial rank -> (forward, backward)
ND_IMPLS: dict = {}


def _norm_params(weight, stride, padding, dilation, output_padding):
    n = weight._data.ndim - 2
    if n not in (1, 2):
        raise NotImplementedError(
            f"numtorch implements 1-d, 2-d and 3-d convolutions, got a {n}-d weight"
        )
    return (expand_param(stride, "stride", n), expand_param(padding, "padding", n),
            expand_param(dilation, "dilation", n), expand_param(output_padding, "output_padding", n))  # fmt: skip


FORWARD_ROUTE: list = [None]  # Note [Recorded convolutions take the planned steps] (fast_conv.py)


def _convolution_cpu(
    input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
):
    route = FORWARD_ROUTE[0]
    if route is not None:
        out = route(
            input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
        )
        if out is not None:
            return out
    if weight._data.ndim - 2 in ND_IMPLS and input._data.ndim == weight._data.ndim:
        return ND_IMPLS[weight._data.ndim - 2][0](input, weight, bias, stride, padding, dilation,
                                              transposed, output_padding, groups)  # fmt: skip
    stride, padding, dilation, output_padding = _norm_params(
        weight, stride, padding, dilation, output_padding
    )
    _check_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    dt = compute_dtype(input, "slow_conv2d_cpu")
    g = _Geom(
        input._data.shape,
        weight._data.shape,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
    )
    x, w = _as4(contig(input, dt)), _as4(contig(weight, dt))
    if g.N * g.O * g.OH * g.OW == 0 or x.size == 0 or w.size == 0:
        out = np.zeros((g.N, g.O, g.OH, g.OW), dt.np)
    else:
        out = _convt_forward(x, w, g) if transposed else _conv_forward(x, w, g, input._dtype in _PADDING_SKIPPED)
        out = np.ascontiguousarray(out)
    if bias is not None and out.size:
        K.add_channel_bias(out.reshape(-1), contig(bias, dt), g.O, g.OH * g.OW)
    out = out.reshape(g.out_shape(g.N, g.O, g.OH, g.OW))
    return _make(out.astype(input._dtype.np, copy=False), input._dtype)


def _convolution_backward_cpu(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                              transposed, output_padding, groups, output_mask):  # fmt: skip
    if weight._data.ndim - 2 in ND_IMPLS:
        return ND_IMPLS[weight._data.ndim - 2][1](grad_output, input, weight, bias_sizes, stride, padding, dilation,
                                              transposed, output_padding, groups, output_mask)  # fmt: skip
    dt = compute_dtype(input, "slow_conv2d_cpu")
    g = _backward_geom(input, weight, stride, padding, dilation, transposed, output_padding, groups)
    go, x, w = _as4(contig(grad_output, dt)), _as4(contig(input, dt)), _as4(contig(weight, dt))
    w4 = (g.O, g.C // g.G, g.KH, g.KW) if not transposed else (g.C, g.O // g.G, g.KH, g.KW)
    empty = go.size == 0 or x.size == 0 or w.size == 0
    res = [None, None, None]
    if output_mask[0]:
        if empty:
            gi = np.zeros(x.shape, dt.np)
        else:
            gi = _convt_input_grad(go, w, g) if transposed else _conv_input_grad(go, w, g)
        res[0] = _wrap(gi, input)
    if output_mask[1]:
        if empty:
            gw = np.zeros(w4, dt.np)
        else:
            gw = _convt_weight_grad(go, x, g, w4) if transposed else _conv_weight_grad(go, x, g, w4)
        res[1] = _wrap(gw, weight)
    if output_mask[2]:
        gb = np.zeros(g.O, dt.np)
        if go.size:
            K.channel_sum(go.reshape(-1), gb, g.O, g.OH * g.OW)
        res[2] = _make(gb.astype(grad_output._dtype.np, copy=False), grad_output._dtype)
    return tuple(res)


_BWD_GEOM: dict = {}  # (shapes, parameters) -> _Geom: Note [Convolution backward geometry]


# Note [Convolution backward geometry]
# A small convolution's backward worked out _norm_params' four expand_param calls and a _Geom
# per call (~2 us of ~7). The geometry depends only on the shapes and the int parameters, which
# the forward checked, so it is kept per (shapes, parameters); a call whose parameters are not
# int sequences is worked out each time. A _Geom is never written after __init__.
def _backward_geom(input, weight, stride, padding, dilation, transposed, output_padding, groups):
    n = weight._data.ndim - 2
    key = None
    lists = (stride, padding, dilation, output_padding)
    if all(v.__class__ is list and len(v) == n for v in lists):  # n each: the flat key is unambiguous
        key = (input._data.shape, weight._data.shape, *stride, *padding, *dilation, *output_padding,
               transposed, groups)  # fmt: skip
        g = _BWD_GEOM.get(key)
        if g is not None:
            return g
    stride, padding, dilation, output_padding = _norm_params(
        weight, stride, padding, dilation, output_padding
    )
    xs, ws = input._data.shape, weight._data.shape
    g = _Geom(xs, ws, stride, padding, dilation, transposed, output_padding, groups)
    if key is not None and groups.__class__ is int and all(v.__class__ is int for v in key[2:-2]):
        if len(_BWD_GEOM) >= 256:
            _BWD_GEOM.clear()
        _BWD_GEOM[key] = g
    return g


def _wrap(a: np.ndarray, like: Tensor) -> Tensor:
    a = np.ascontiguousarray(a.reshape(like._data.shape), dtype=like._dtype.np)
    return _make(a, like._dtype)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):  # fmt: skip
    return dispatch(_convolution_backward, [grad_output, input, weight, bias_sizes, stride, padding,
                                            dilation, transposed, output_padding, groups, list(output_mask)])  # fmt: skip


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    return dispatch(
        _convolution,
        [input, weight, bias, stride, padding, dilation, transposed, output_padding, groups],
    )


def _conv_grads(grad, input, weight, stride, padding, dilation, transposed, output_padding, groups,
                grad_input_mask):  # fmt: skip
    # derivatives.yaml's formula: one convolution_backward for the inputs that need a gradient
    # (Note [Joint formulas' grad_input_mask]); under Note [Backward formulas in NumPy]'s gate
    # its CPU body, called directly, is the op's arithmetic without dispatch (any size: the
    # same kernels)
    p = (stride, padding, dilation, transposed, output_padding, groups, grad_input_mask)
    if _plain_formula(grad, input, weight, any_size=True):
        return _convolution_backward_cpu(grad, input, weight, None, *p)
    sizes = [grad.shape[1]] if grad_input_mask[2] else None
    return convolution_backward(grad, input, weight, sizes, *p)


def _conv_double_backward(grads, grad_output, input, weight, stride, padding, dilation, transposed,
                          output_padding, groups, output_mask):  # fmt: skip
    # convolution_backward is bilinear in (grad_output, input) and (grad_output, weight):
    # differentiate each term with the convolution ops themselves.
    ggi, ggw, ggb = (g if m else None for g, m in zip(grads, output_mask, strict=False))
    p = (stride, padding, dilation, transposed, output_padding, groups)
    d_go = None
    if ggi is not None:
        d_go = convolution(ggi, weight, None, *p)
    if ggw is not None or ggb is not None:
        wt = ggw if ggw is not None else aten.zeros_like.default(weight)
        t = convolution(input, wt, ggb, *p)
        d_go = t if d_go is None else d_go + t
    d_x = (
        convolution_backward(grad_output, input, ggw, None, *p, [True, False, False])[0]
        if ggw is not None
        else None
    )
    d_w = (
        convolution_backward(grad_output, ggi, weight, None, *p, [False, True, False])[1]
        if ggi is not None
        else None
    )
    return d_go, d_x, d_w


_P = "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups"
_convolution = defop(
    f"convolution(Tensor input, Tensor weight, Tensor? bias, {_P}) -> Tensor",
    cpu=_convolution_cpu,
    backward={("input", "weight", "bias"): _conv_grads},
)
_convolution_backward = defop(
    f"convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, {_P}, "
    "bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    cpu=_convolution_backward_cpu,
    backward={("grad_output", "input", "weight"): _conv_double_backward},
)


# ---- conv1d / conv2d / conv_transpose ------------------------------------------------------------
def _ints(v, n: int) -> list:
    return [int(v)] * n if isinstance(v, (int, np.integer)) else list(v)


def _batchify(input, n_spatial: int, fname: str):
    if input.dim() == n_spatial + 2:
        return input, False
    if input.dim() == n_spatial + 1:
        return input.unsqueeze(0), True
    raise RuntimeError(
        f"Expected {n_spatial + 1}D (unbatched) or {n_spatial + 2}D (batched) input to {fname}, but got "
        f"input of size: {_sizes(input)}"
    )


def _same_padding(input, weight, stride, dilation, n):
    stride, dilation = expand_param(stride, "stride", n), expand_param(dilation, "dilation", n)
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, extra = [], []
    for i in range(n):
        total = dilation[i] * (weight._data.shape[2 + i] - 1)
        left.append(total // 2)
        extra.append(total - total // 2 - total // 2)
    if any(extra):
        pad = []
        for e in reversed(extra):
            pad += [0, e]
        input = aten.pad.default(input, pad)
    return input, left


def _conv_nd(n, fname):
    def impl(input, weight, bias, stride, padding, dilation, groups):
        x, unbatched = _batchify(input, n, fname)
        stride, dilation = (
            _ints(stride, n),
            _ints(dilation, n),
        )  # int[n] arguments, as the schema parses them
        if isinstance(padding, str):
            if padding == "valid":
                padding = [0] * n
            elif padding == "same":
                x, padding = _same_padding(x, weight, stride, dilation, n)
            else:
                raise RuntimeError(f"Invalid padding string: '{padding}'")
        else:
            padding = _ints(padding, n)
        out = convolution(x, weight, bias, stride, padding, dilation, False, [0] * n, groups)
        return out.squeeze(0) if unbatched else out

    return impl


def _convt_nd(n, fname):
    def impl(input, weight, bias, stride, padding, output_padding, groups, dilation):
        x, unbatched = _batchify(input, n, fname)
        stride, padding, output_padding, dilation = (
            _ints(v, n) for v in (stride, padding, output_padding, dilation)
        )
        out = convolution(x, weight, bias, stride, padding, dilation, True, output_padding, groups)
        return out.squeeze(0) if unbatched else out

    return impl


_T = "Tensor input, Tensor weight, Tensor? bias=None"
_conv1d = defop(f"conv1d({_T}, SymInt[1] stride=1, SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor",
                composite=_conv_nd(1, "conv1d"))  # fmt: skip
_conv1d_pad = defop(f'conv1d.padding({_T}, SymInt[1] stride=1, str padding="valid", SymInt[1] dilation=1, SymInt groups=1) -> Tensor',
                    composite=_conv_nd(1, "conv1d"))  # fmt: skip
_conv2d = defop(f"conv2d({_T}, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
                composite=_conv_nd(2, "conv2d"))  # fmt: skip
_conv2d_pad = defop(f'conv2d.padding({_T}, SymInt[2] stride=1, str padding="valid", SymInt[2] dilation=1, SymInt groups=1) -> Tensor',
                    composite=_conv_nd(2, "conv2d"))  # fmt: skip
_convt1d = defop(f"conv_transpose1d({_T}, SymInt[1] stride=1, SymInt[1] padding=0, SymInt[1] output_padding=0, "
                 "SymInt groups=1, SymInt[1] dilation=1) -> Tensor", composite=_convt_nd(1, "conv_transpose1d"))  # fmt: skip
_convt2d = defop(f"conv_transpose2d.input({_T}, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] output_padding=0, "
                 "SymInt groups=1, SymInt[2] dilation=1) -> Tensor", composite=_convt_nd(2, "conv_transpose2d"))  # fmt: skip


def _conv_body(op, op_pad, doc):
    def body(input, weight, bias, stride, padding, dilation, groups):
        chosen = op_pad if isinstance(padding, str) else op
        return dispatch(chosen, [input, weight, bias, stride, padding, dilation, groups])

    body.__doc__ = doc
    return body


_CONV_SIG = "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1"
_CONVT_SIG = "input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1"
_DOCS = {
    "conv1d": "1-D cross-correlation over (N, C, L) input.\n\n    >>> numtorch.nn.functional.conv1d("
    "numtorch.ones(1, 1, 4), numtorch.ones(1, 1, 2))\n    tensor([[[2., 2., 2.]]])\n",
    "conv2d": "2-D cross-correlation over (N, C, H, W) input.\n\n    >>> numtorch.nn.functional.conv2d("
    "numtorch.ones(1, 1, 3, 3), numtorch.ones(1, 1, 2, 2)).shape\n    torch.Size([1, 1, 2, 2])\n",
    "conv_transpose1d": "1-D transposed convolution.\n\n    >>> numtorch.nn.functional.conv_transpose1d("
    "numtorch.ones(1, 1, 2), numtorch.ones(1, 1, 2))\n    tensor([[[1., 2., 1.]]])\n",
    "conv_transpose2d": "2-D transposed convolution.\n\n    >>> numtorch.nn.functional.conv_transpose2d("
    "numtorch.ones(1, 1, 2, 2), numtorch.ones(1, 1, 2, 2)).shape\n    torch.Size([1, 1, 3, 3])\n",
}
for _mod in ("torch", _F):
    public("conv1d", _CONV_SIG, _conv_body(_conv1d, _conv1d_pad, _DOCS["conv1d"]), relevant=("input", "weight", "bias"),
           module=_mod, ops=(_conv1d, _conv1d_pad))  # fmt: skip
    public("conv2d", _CONV_SIG, _conv_body(_conv2d, _conv2d_pad, _DOCS["conv2d"]), relevant=("input", "weight", "bias"),
           module=_mod, ops=(_conv2d, _conv2d_pad))  # fmt: skip
    for _name, _op in (("conv_transpose1d", _convt1d), ("conv_transpose2d", _convt2d)):

        def _tbody(*v, _op=_op):
            return dispatch(_op, list(v))

        _tbody.__doc__ = _DOCS[_name]
        public(
            _name, _CONVT_SIG, _tbody, relevant=("input", "weight", "bias"), module=_mod, ops=(_op,)
        )


def _conv_public(*v):
    """The generic convolution, as ``torch.convolution``.

    >>> numtorch.convolution(numtorch.ones(1, 1, 3), numtorch.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1)
    tensor([[[2., 2.]]])
    """
    return dispatch(_convolution, list(v))


public("convolution", "input, weight, bias, stride, padding, dilation, transposed, output_padding, groups",
       _conv_public, relevant=("input", "weight", "bias"), ops=(_convolution,))  # fmt: skip


# ---- im2col / col2im (F.unfold / F.fold) -------------------------------------------------------------
def _fold_params(kernel_size, dilation, padding, stride):
    k, d, p, s = (expand_param(v, n, 2) for v, n in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                                     (padding, "padding"), (stride, "stride")))  # fmt: skip
    # im2col_shape_check's order and texts
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} kernel_width: {k[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} dilation_width: {d[1]}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} stride_width: {s[1]}")
    return k, d, p, s


def _blocks(H, W, k, d, p, s):
    return (
        (H + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1,
        (W + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1,
    )


def _geo(C, H, W, k, d, p, s, OH, OW):
    return (C, H, W, k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], OH, OW)


def _fold_planes(self: Tensor, name: str) -> list:
    """The real arrays im2col/col2im move (PyTorch's kernels take floating, complex and bool input):
    a complex input's two parts, a bool input as int64 (col2im's overlapping sum stays nonzero)."""
    dt = self._dtype
    if dt.category <= D._INT and dt is not D.bool:
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for '{_cname(dt)}'")
    if dt.category == D._COMPLEX:
        return [np.ascontiguousarray(self._data.real), np.ascontiguousarray(self._data.imag)]
    return [contig(self, D.int64 if dt is D.bool else compute_dtype(self, name))]


def _from_planes(planes: list, dt: D.dtype) -> Tensor:
    out = planes[0] + 1j * planes[1] if len(planes) == 2 else planes[0]
    return _make(np.ascontiguousarray(out, dtype=dt.np), dt)


def _im2col_cpu(self, kernel_size, dilation, padding, stride):
    k, d, p, s = _fold_params(kernel_size, dilation, padding, stride)
    if self.dim() not in (3, 4):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size and non-zero "
                           f"dimensions, but got: {list(self._data.shape)}")  # fmt: skip
    batched = self.dim() == 4
    planes = [x if batched else x[None] for x in _fold_planes(self, "im2col")]
    N, C, H, W = planes[0].shape
    OH, OW = _blocks(H, W, k, d, p, s)
    if OH < 1 or OW < 1:
        raise RuntimeError(
            f"Given input with spatial size ({H}, {W}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), "
            f"padding=({p[0]}, {p[1]}), calculated shape of the array of sliding blocks as ({OH}, {OW}), but its "
            "components must be at least one."
        )
    cols = [_im2col(x, N, _geo(C, H, W, k, d, p, s, OH, OW), OH * OW) for x in planes]
    return _from_planes([c if batched else c[0] for c in cols], self._dtype)


def _col2im_cpu(self, output_size, kernel_size, dilation, padding, stride):
    k, d, p, s = _fold_params(kernel_size, dilation, padding, stride)
    H, W = expand_param(output_size, "output_size", 2)
    if self.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possible 0 batch size and non-zero "
                           f"dimensions, but got: {list(self._data.shape)}")  # fmt: skip
    batched = self.dim() == 3
    planes = [c if batched else c[None] for c in _fold_planes(self, "col2im")]
    cols = planes[0]
    kk = k[0] * k[1]
    if cols.shape[1] % kk:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={cols.shape[1]} and kernel_size=({k[0]}, {k[1]})"
        )
    OH, OW = _blocks(H, W, k, d, p, s)
    if OH * OW != cols.shape[2]:
        raise RuntimeError(
            f"Given output_size=({H}, {W}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), padding="
            f"({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's dimension 2 to match the calculated "
            f"number of sliding blocks {OH} * {OW} = {OH * OW}, but got input.size(2)={cols.shape[2]}."
        )
    C = cols.shape[1] // kk
    outs = [_col2im(c, (cols.shape[0], C, H, W), _geo(C, H, W, k, d, p, s, OH, OW)) for c in planes]
    return _from_planes([o if batched else o[0] for o in outs], self._dtype)


im2col = defop(
    "im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor",
    cpu=_im2col_cpu,
    backward={"self": lambda grad, self, kernel_size, dilation, padding, stride: dispatch(
        col2im, [grad, list(self.shape[-2:]), kernel_size, dilation, padding, stride])},
)  # fmt: skip
col2im = defop(
    "col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, "
    "int[2] stride) -> Tensor",
    cpu=_col2im_cpu,
    backward={"self": lambda grad, kernel_size, dilation, padding, stride: dispatch(
        im2col, [grad, kernel_size, dilation, padding, stride])},
)  # fmt: skip
