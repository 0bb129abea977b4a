"""Pooling (max / avg / adaptive, 1-d via 2-d) and the resampling ops that share the plane
kernels: nearest / bilinear upsampling and reflect / replicate padding (Note [Resampling taps]).

# Note [Resampling taps]
# Upsampling and non-constant padding are one kernel, ``resample2d``: every output row reads two
# input rows (indices + weights) and every output column two input columns. Nearest and padding
# use one tap (weights 1, 0); bilinear uses PyTorch's area_pixel_compute_source_index taps,
# computed in the compute dtype as PyTorch's opmath does. The adjoint kernel is the backward.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._state import STATE
from ..._tensor import Tensor, _make
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._pointwise import _cname
from .._registry import defop
from .conv import compute_dtype, contig

K = lazy("numtorch.kernels.cpu.nn.pooling")


def _pair(v, name: str, op: str, allow_empty=False) -> list:
    if isinstance(v, (int, np.integer)):
        return [int(v), int(v)]
    v = [int(x) for x in v]
    if allow_empty and not v:
        return v
    if len(v) == 1:
        return v * 2
    if len(v) != 2:
        what = {"kernel_size": "kernel_size must either be a single int, or a tuple of two ints",
                "stride": "stride must either be omitted, a single int, or a tuple of two ints",
                "padding": "padding must either be a single int, or a tuple of two ints",
                "dilation": "dilation must be either a single int, or a tuple of two ints"}[name]  # fmt: skip
        raise RuntimeError(f"{op}: {what}")
    return v


def pool_out_size(size, k, pad, stride, dil, ceil_mode) -> int:
    """PyTorch's pooling_output_shape, with its checks."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * dil + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and "
            f"dilation={dil}"
        )
    out = (size + 2 * pad - dil * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _planes(x: Tensor, op: str):
    nd = x.dim()
    if op == "avg_pool2d" and nd < 3:  # its meta function reads input.size(-3) before any check
        raise IndexError("Dimension specified as -3 but tensor has no dimensions" if not nd else
                         f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got -3)")  # fmt: skip
    if op == "max_pool2d" and nd not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if x.dim() not in (3, 4) or any(s == 0 for s in x._data.shape[-3:]):
        raise RuntimeError(
            f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{list(x._data.shape)}"
            if x.dim() not in (3, 4) else f"{op}: Expected input's non-batch dimensions to have positive length,"
            f" but input has a shape of {list(x._data.shape)}"
        )  # fmt: skip
    return x._data.shape[-2], x._data.shape[-1]


# Note [Pool geometry cache]
# The 2-d and 3-d pools' CPU kernels (forward and backward) worked their geometry out of the
# arguments on every call: the int-or-list normalisation, PyTorch's output-size arithmetic and
# each check (3-d: ~10% of a small max_pool3d's fwd+bwd, twice per step). The geometry is a
# function of the input's shape and the arguments only, so a successful one is kept per (shape,
# arguments, op) when every argument is an int, a bool, a string or a list/tuple of ints (a
# list and a tuple of the same ints give the same geometry); anything else, and every call
# that raises, works it out as before. Callers only read what they get back.
_GEOMETRY: dict = {}


def geometry_key(shape, args):
    """The cache key of ``args`` with ``shape``, or None where an argument is of another kind."""
    for a in args:
        c = a.__class__
        if c is list or c is tuple:
            for e in a:
                if e.__class__ is not int:
                    return None
        elif c is not int and c is not bool and c is not str:
            return None
    return (shape, *(tuple(a) if a.__class__ is list else a for a in args))


def cached_geometry(fn, x, *args):
    """``fn(x, *args)``, kept per geometry_key (Note [Pool geometry cache])."""
    key = geometry_key(x._data.shape, args)
    g = _GEOMETRY.get(key) if key is not None else None
    if g is None:
        g = fn(x, *args)
        if key is not None:
            if len(_GEOMETRY) >= 512:
                _GEOMETRY.clear()
            _GEOMETRY[key] = g
    return g


def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, op):
    return cached_geometry(
        _work_out_geometry, x, kernel_size, stride, padding, dilation, ceil_mode, op
    )


def _work_out_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, op):
    k = _pair(kernel_size, "kernel_size", op)
    s = _pair(stride, "stride", op, allow_empty=True) or list(k)
    p = _pair(padding, "padding", op)
    d = _pair(dilation, "dilation", op)
    H, W = _planes(x, op)
    OH = pool_out_size(H, k[0], p[0], s[0], d[0], ceil_mode)
    OW = pool_out_size(W, k[1], p[1], s[1], d[1], ceil_mode)
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}"
        )
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}"
        )
    if OH < 1 or OW < 1:
        C = x._data.shape[-3]
        raise RuntimeError(
            f"Given input size: ({C}x{H}x{W}). Calculated output size: ({C}x{OH}x{OW}). Output size is too small"
        )
    return k, s, p, d, H, W, OH, OW


def _out_shape(x: Tensor, OH, OW):
    return x._data.shape[:-2] + (OH, OW)


def _finish(a: np.ndarray, like: Tensor) -> Tensor:
    return _make(a.astype(like._dtype.np, copy=False), like._dtype)


# ---- max pool -------------------------------------------------------------------------------------
def _max_pool_cpu(self, kernel_size, stride, padding, dilation, ceil_mode):
    k, s, p, d, H, W, OH, OW = _pool_geometry(
        self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d"
    )
    dt = compute_dtype(self, "max_pool2d")
    x = contig(self, dt)
    out = np.empty(_out_shape(self, OH, OW), dt.np)
    idx = np.empty(out.shape, np.int64)
    if out.size:
        fn = K.max_pool2d_parallel if x.size >= PARALLEL_THRESHOLD else K.max_pool2d
        fn(
            x.reshape(-1),
            out.reshape(-1),
            idx.reshape(-1),
            H,
            W,
            k[0],
            k[1],
            s[0],
            s[1],
            p[0],
            p[1],
            d[0],
            d[1],
            OH,
            OW,
        )
    return _finish(out, self), _make(idx, D.int64)


def _max_pool_backward_cpu(
    grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices
):
    return _scatter_max(grad_output, self, indices)


def _scatter_max(grad_output, self, indices):
    dt = compute_dtype(self, "max_pool2d_backward")
    gi = np.empty(self._data.shape, dt.np)
    H, W = self._data.shape[-2:]
    OHW = indices._data.shape[-1] * indices._data.shape[-2]
    if gi.size:
        if OHW:
            K.max_pool_backward(contig(grad_output, dt).reshape(-1), contig(indices, D.int64).reshape(-1),
                                gi.reshape(-1), H * W, OHW)  # fmt: skip
        else:
            gi[...] = 0
    return _finish(gi, self)


def _gather_max(grad, indices):
    """Read ``grad`` (the input-shaped double-backward seed) at the argmax positions."""
    return grad.flatten(-2).gather(-1, indices.flatten(-2)).view_as(indices)


_MP = "int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False"
max_pool2d_with_indices = defop(
    f"max_pool2d_with_indices(Tensor self, {_MP}) -> (Tensor, Tensor)",
    cpu=_max_pool_cpu,
    backward={"self": lambda grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1:
              _max_pool_bwd(grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1)},
)  # fmt: skip
max_pool2d_with_indices_backward = defop(
    "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
    "int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    cpu=_max_pool_backward_cpu,
    backward={"grad_output": lambda grad, indices: _gather_max(grad, indices),
              "self": lambda grad, self: self.new_zeros(self.shape)},
)  # fmt: skip


def _max_pool_bwd(grad, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return dispatch(max_pool2d_with_indices_backward,
                    [grad, self, kernel_size, stride, padding, dilation, ceil_mode, indices])  # fmt: skip


max_pool2d = defop(
    f"max_pool2d(Tensor self, {_MP}) -> Tensor",
    composite=lambda *v: dispatch(max_pool2d_with_indices, list(v))[0],
)
_MP1 = "int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, bool ceil_mode=False"


def _max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    if self.dim() not in (2, 3):
        raise RuntimeError(
            f"max_pool1d() Expected 2D or 3D input tensor, but got {list(self.shape)}"
        )
    k1 = lambda v: [1, *([v] if isinstance(v, int) else list(v))]  # noqa: E731
    st = k1(stride) if (isinstance(stride, int) or len(stride)) else []
    out, idx = dispatch(max_pool2d_with_indices, [self.unsqueeze(-2), k1(kernel_size), st, [0, *_one(padding)],
                                                  [1, *_one(dilation)], ceil_mode])  # fmt: skip
    return out.squeeze(-2), idx.squeeze(-2)


def _one(v):
    return [v] if isinstance(v, int) else list(v)


max_pool1d_with_indices = defop(f"max_pool1d_with_indices(Tensor self, {_MP1}) -> (Tensor, Tensor)",
                                composite=_max_pool1d_with_indices)  # fmt: skip
def _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode):
    # ATen's check_max_pool1d, then its max_pool1d_impl kernel's floating-types dispatch
    sh = list(self.shape)
    if self.dim() not in (2, 3) or 0 in sh[-2:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{sh}")  # fmt: skip
    k, s, p, d = (_one(v) for v in (kernel_size, stride, padding, dilation))
    for name, v, what in (("kernel_size", k, "an int, list of ints or tuple"), ("stride", s, "None, an int, list of ints, or tuple"),
                          ("padding", p, "an int, list of ints, or tuple"), ("dilation", d, "an int, list of ints or tuple")):  # fmt: skip
        if len(v) != 1 and not (name == "stride" and not v):
            raise RuntimeError(f"max_pool1d() {name} must be {what} of ints of size 1 but got size {len(v)}")
    (k,), (p,), (d,) = k, p, d
    s = s[0] if s else k
    for ok, msg in ((k > 0, f"kernel_size must be greater than zero, but got {k}"),
                    (s > 0, f"stride must be greater than zero, but got {s}"),
                    (p >= 0, f"padding must be non-negative, but got {p}"),
                    (p <= k // 2, f"padding should be at most half of kernel size, but got padding={p} and kernel_size={k}"),
                    (d > 0, f"dilation must be greater than zero, but got {d}")):  # fmt: skip
        if not ok:
            raise RuntimeError(f"max_pool1d() {msg}")
    n = sh[-1] + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    ow = n // s + 1
    if ceil_mode and (ow - 1) * s >= sh[-1] + p:
        ow -= 1
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")
    if self._dtype.category != D._FLOAT:
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{_cname(self._dtype)}'")


def _max_pool1d(self, *v):
    # on CPU without a gradient to track ATen runs its own checks and kernel; otherwise it is
    # max_pool1d_with_indices (whose checks are max_pool2d's)
    if self._device.type == "cpu" and not (self.requires_grad and STATE.grad_enabled):
        _check_max_pool1d(self, *v)
    return _max_pool1d_with_indices(self, *v)[0]


max_pool1d = defop(f"max_pool1d(Tensor self, {_MP1}) -> Tensor", composite=_max_pool1d)


# ---- avg pool --------------------------------------------------------------------------------------
def _avg_setup(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    k, s, p, _, H, W, OH, OW = _pool_geometry(
        self, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d"
    )
    return k, s, p, H, W, OH, OW, int(divisor_override or 0)


def _avg_pool_cpu(
    self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    k, s, p, H, W, OH, OW, div = _avg_setup(
        self, kernel_size, stride, padding, ceil_mode, divisor_override
    )
    dt = compute_dtype(self, "avg_pool2d")
    if dt.category == D._INT and dt is not D.int64:  # AT_DISPATCH_FLOATING_TYPES_AND_LONG
        raise NotImplementedError(f"\"avg_pool2d\" not implemented for '{_cname(dt)}'")
    x = contig(self, dt)
    out = np.empty(_out_shape(self, OH, OW), dt.np)
    if out.size:
        fn = K.avg_pool2d_parallel if x.size >= PARALLEL_THRESHOLD else K.avg_pool2d
        fn(
            x.reshape(-1),
            out.reshape(-1),
            H,
            W,
            k[0],
            k[1],
            s[0],
            s[1],
            p[0],
            p[1],
            OH,
            OW,
            bool(count_include_pad),
            div,
        )
    return _finish(out, self)


def _avg_pool_backward_cpu(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override):  # fmt: skip
    k, s, p, H, W, OH, OW, div = _avg_setup(
        self, kernel_size, stride, padding, ceil_mode, divisor_override
    )
    dt = compute_dtype(self, "avg_pool2d_backward")
    gi = np.zeros(self._data.shape, dt.np)
    if gi.size and OH * OW:
        K.avg_pool2d_backward(contig(grad_output, dt).reshape(-1), gi.reshape(-1), H, W, k[0], k[1], s[0], s[1],
                              p[0], p[1], OH, OW, bool(count_include_pad), div)  # fmt: skip
    return _finish(gi, self)


_AP = "int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None"
avg_pool2d = defop(
    f"avg_pool2d(Tensor self, {_AP}) -> Tensor",
    cpu=_avg_pool_cpu,
    backward={"self": lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
              dispatch(avg_pool2d_backward, [grad, self, kernel_size, stride, padding, ceil_mode,
                                             count_include_pad, divisor_override])},
)  # fmt: skip
avg_pool2d_backward = defop(
    "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
    "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
    cpu=_avg_pool_backward_cpu,
    backward={"grad_output": lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
              dispatch(avg_pool2d, [grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override]),
              "self": lambda grad, self: self.new_zeros(self.shape)},
)  # fmt: skip


def _avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad):
    if self.dim() not in (2, 3):
        raise RuntimeError(
            f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(self.shape)}"
        )
    st = [1, *_one(stride)] if (isinstance(stride, int) or len(stride)) else []
    out = dispatch(avg_pool2d, [self.unsqueeze(-2), [1, *_one(kernel_size)], st, [0, *_one(padding)], ceil_mode,
                                count_include_pad, None])  # fmt: skip
    return out.squeeze(-2)


avg_pool1d = defop("avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
                   "bool ceil_mode=False, bool count_include_pad=True) -> Tensor", composite=_avg_pool1d)  # fmt: skip


# ---- adaptive pools ---------------------------------------------------------------------------------
def _adaptive_setup(self, output_size, op):
    osz = _pair(output_size, "kernel_size", op)
    if self.dim() not in (3, 4):
        raise RuntimeError(f"{op}(): Expected 3D or 4D tensor, but got {list(self._data.shape)}")
    for i in range(1, self.dim()):
        if self._data.shape[i] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{list(self._data.shape)} with dimension {i} being empty"
            )
    if any(o < 0 for o in osz):
        raise RuntimeError(
            f"{op}: elements of output_size must be greater than or equal to 0 but received {osz}"
        )
    return self._data.shape[-2], self._data.shape[-1], osz[0], osz[1]


def _adaptive_avg_cpu(self, output_size):
    H, W, OH, OW = _adaptive_setup(self, output_size, "adaptive_avg_pool2d")
    dt = compute_dtype(self, "adaptive_avg_pool2d")
    out = np.empty(_out_shape(self, OH, OW), dt.np)
    if out.size:
        K.adaptive_avg_pool2d(contig(self, dt).reshape(-1), out.reshape(-1), H, W, OH, OW)
    return _finish(out, self)


def _adaptive_avg_backward_cpu(grad_output, self):
    H, W = self._data.shape[-2:]
    OH, OW = grad_output._data.shape[-2:]
    dt = compute_dtype(self, "adaptive_avg_pool2d_backward")
    gi = np.zeros(self._data.shape, dt.np)
    if gi.size and OH * OW:
        K.adaptive_avg_pool2d_backward(
            contig(grad_output, dt).reshape(-1), gi.reshape(-1), H, W, OH, OW
        )
    return _finish(gi, self)


_adaptive_avg_pool2d = defop(
    "_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
    cpu=_adaptive_avg_cpu,
    backward={"self": lambda grad, self: dispatch(_adaptive_avg_pool2d_backward, [grad, self])},
)
_adaptive_avg_pool2d_backward = defop(
    "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
    cpu=_adaptive_avg_backward_cpu,
    backward={"grad_output": lambda grad, grad_output: dispatch(_adaptive_avg_pool2d, [grad, list(grad_output.shape[-2:])]),
              "self": lambda grad, self: self.new_zeros(self.shape)},
)  # fmt: skip
def _adaptive_avg_pool2d_composite(self, output_size):
    # at::adaptive_avg_pool2d: a 1x1 output is mean() over H and W (whose dtype check integer
    # and bool inputs meet); other sizes reach the kernel, which has no integer variant
    if self._dtype.category < D._FLOAT:
        if list(output_size) == [1, 1]:
            return self.mean([-1, -2], keepdim=True)
        if self.numel() == 0 or 0 in list(output_size):  # an empty result: no kernel runs
            return dispatch(_adaptive_avg_pool2d, [self.double(), output_size]).to(self._dtype)
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for '{_cname(self._dtype)}'")
    return dispatch(_adaptive_avg_pool2d, [self, output_size])


adaptive_avg_pool2d = defop("adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
                            composite=_adaptive_avg_pool2d_composite)


def _adaptive_max_cpu(self, output_size):
    H, W, OH, OW = _adaptive_setup(self, output_size, "adaptive_max_pool2d")
    if self._dtype.category < D._FLOAT:  # PyTorch's kernel is floating-only (1-D pools too)
        raise NotImplementedError(f"\"adaptive_max_pool2d\" not implemented for '{_cname(self._dtype)}'")
    dt = compute_dtype(self, "adaptive_max_pool2d")
    out = np.empty(_out_shape(self, OH, OW), dt.np)
    idx = np.empty(out.shape, np.int64)
    if out.size:
        K.adaptive_max_pool2d(
            contig(self, dt).reshape(-1), out.reshape(-1), idx.reshape(-1), H, W, OH, OW
        )
    return _finish(out, self), _make(idx, D.int64)


adaptive_max_pool2d = defop(
    "adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)",
    cpu=_adaptive_max_cpu,
    backward={
        "self": lambda grad, self, result1: dispatch(
            adaptive_max_pool2d_backward, [grad, self, result1]
        )
    },
)
adaptive_max_pool2d_backward = defop(
    "adaptive_max_pool2d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
    cpu=lambda grad_output, self, indices: _scatter_max(grad_output, self, indices),
    backward={"grad_output": lambda grad, indices: _gather_max(grad, indices),
              "self": lambda grad, self: self.new_zeros(self.shape)},
)  # fmt: skip
