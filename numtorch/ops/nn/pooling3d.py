"""3-D pooling: max (with indices), average and adaptive average / max pools over (N, C, D, H, W)
or (C, D, H, W) input, their backward ops, and the ``F.*_pool3d`` / ``F.lp_pool3d`` functions.
Checks and messages follow ATen's pool3d_shape_check order (Note [3-D pooling geometry] for the
kernels' arguments)."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD, lazy
from .._pointwise import _cname
from .._registry import defop, public
from .conv import compute_dtype, contig
from .layers_extra import _lp_finish
from .pooling import cached_geometry, pool_out_size

K3 = lazy("numtorch.kernels.cpu.nn.pooling3d")
K = lazy("numtorch.kernels.cpu.nn.pooling")
_F = "torch.nn.functional"
_WHAT = {
    "max_pool3d": {"kernel_size": "kernel_size must either be a single int, or a tuple of three ints",
                   "stride": "stride must either be omitted, a single int, or a tuple of three ints",
                   "padding": "padding must either be a single int, or a tuple of three ints",
                   "dilation": "dilation must be either a single int, or a tuple of three ints"},
    "avg_pool3d": {"kernel_size": "kernel_size must be a single int, or a tuple of three ints",
                   "stride": "stride must be omitted, a single int, or a tuple of three ints",
                   "padding": "padding must be a single int, or a tuple of three ints"},
}  # fmt: skip


def _triple(v, name, op, allow_empty=False) -> list:
    if isinstance(v, (int, np.integer)):
        return [int(v)] * 3
    v = [int(x) for x in v]
    if allow_empty and not v:
        return v
    if len(v) == 1:
        return v * 3
    if len(v) != 3:
        raise RuntimeError(f"{op}: {_WHAT[op][name]}")
    return v


def _geometry(x, kernel_size, stride, padding, dilation, ceil_mode, op, check_input_size):
    # Note [Pool geometry cache]
    return cached_geometry(_work_out_geometry, x, kernel_size, stride, padding, dilation, ceil_mode, op,
                           check_input_size)  # fmt: skip


def _work_out_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, op, check_input_size):
    k = _triple(kernel_size, "kernel_size", op)
    s = _triple(stride, "stride", op, allow_empty=True) or list(k)
    p = _triple(padding, "padding", op)
    d = _triple(dilation, "dilation", op) if op == "max_pool3d" else [1, 1, 1]
    if x.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    C, sp = x._data.shape[-4], list(x._data.shape[-3:])
    osp = [pool_out_size(sp[i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(3)]
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")  # fmt: skip
    for i in range(1 if x.dim() == 5 else 0, x.dim()):
        if x._data.shape[i] == 0:
            raise RuntimeError(f"{op}: Expected input's non-batch dimensions to have positive length, but input has a "
                               f"shape of {list(x._data.shape)} and non-batch dimension 0 has length zero!")  # fmt: skip
    if check_input_size and any(sp[i] < k[i] for i in range(3)):
        raise RuntimeError(f"input image (T: {sp[0]} H: {sp[1]} W: {sp[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")  # fmt: skip
    if min(osp) < 1:
        raise RuntimeError(f"Given input size: ({C}x{sp[0]}x{sp[1]}x{sp[2]}). Calculated output size: "
                           f"({C}x{osp[0]}x{osp[1]}x{osp[2]}). Output size is too small")  # fmt: skip
    return np.array([*sp, *k, *s, *p, *d, *osp], np.int64), osp


def _finish(a, like):
    return _make(a.astype(like._dtype.np, copy=False), like._dtype)


def _pick(serial, parallel, n):
    return parallel if n >= PARALLEL_THRESHOLD else serial


# ---- max pool ---------------------------------------------------------------------------------------
def _max_pool3d_cpu(self, kernel_size, stride, padding, dilation, ceil_mode):
    geo, osp = _geometry(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d", False)
    dt = compute_dtype(self, "max_pool3d")
    x = contig(self, dt)
    out = np.empty(self._data.shape[:-3] + tuple(osp), dt.np)
    idx = np.empty(out.shape, np.int64)
    if out.size:
        _pick(K3.max_pool3d, K3.max_pool3d_parallel, x.size)(x.reshape(-1), out.reshape(-1), idx.reshape(-1), geo)
    return _finish(out, self), _make(idx, D.int64)


def scatter_max3d(grad_output, self, indices):
    """grad_input: ``grad_output`` added at the saved argmax positions of each volume."""
    dt = compute_dtype(self, "max_pool3d_with_indices_backward")
    gi = np.zeros(self._data.shape, dt.np)
    odhw = math.prod(indices._data.shape[-3:])
    if gi.size and odhw:
        K.max_pool_backward(contig(grad_output, dt).reshape(-1), contig(indices, D.int64).reshape(-1),
                            gi.reshape(-1), math.prod(self._data.shape[-3:]), odhw)  # fmt: skip
    return _finish(gi, self)


def gather_max3d(grad, indices):
    """Read ``grad`` (the input-shaped double-backward seed) at the argmax positions."""
    return grad.flatten(-3).gather(-1, indices.flatten(-3)).view_as(indices)


_MP = "int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False"
max_pool3d_with_indices = defop(
    f"max_pool3d_with_indices(Tensor self, {_MP}) -> (Tensor, Tensor)",
    cpu=_max_pool3d_cpu,
    backward={"self": lambda grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1: dispatch(
        max_pool3d_with_indices_backward, [grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1])},
)  # fmt: skip
max_pool3d_with_indices_backward = defop(
    "max_pool3d_with_indices_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, "
    "int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    cpu=lambda grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices: scatter_max3d(
        grad_output, self, indices),
    backward={"grad_output": lambda grad, indices: gather_max3d(grad, indices),
              "self": lambda grad, self: self.new_zeros(self.shape)},
)  # fmt: skip
max_pool3d = defop(f"max_pool3d(Tensor self, {_MP}) -> Tensor",
                   composite=lambda *v: dispatch(max_pool3d_with_indices, list(v))[0])  # fmt: skip


# ---- avg pool ----------------------------------------------------------------------------------------
def _avg_setup(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    geo, osp = _geometry(self, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d", True)
    return geo, osp, int(divisor_override or 0)


def _avg_pool3d_cpu(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    geo, osp, div = _avg_setup(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    dt = compute_dtype(self, "avg_pool3d")
    x = contig(self, dt)
    out = np.empty(self._data.shape[:-3] + tuple(osp), dt.np)
    if out.size:
        _pick(K3.avg_pool3d, K3.avg_pool3d_parallel, x.size)(x.reshape(-1), out.reshape(-1), geo,
                                                              bool(count_include_pad), div)  # fmt: skip
    return _finish(out, self)


def _avg_pool3d_backward_cpu(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                             divisor_override):  # fmt: skip
    geo, osp, div = _avg_setup(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    dt = compute_dtype(self, "avg_pool3d_backward")
    gi = np.zeros(self._data.shape, dt.np)
    if gi.size and min(osp) > 0:
        K3.avg_pool3d_backward(contig(grad_output, dt).reshape(-1), gi.reshape(-1), geo, bool(count_include_pad), div)
    return _finish(gi, self)


_AP = ("int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
       "int? divisor_override=None")  # fmt: skip
avg_pool3d = defop(
    f"avg_pool3d(Tensor self, {_AP}) -> Tensor",
    cpu=_avg_pool3d_cpu,
    backward={"self": lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
              dispatch(avg_pool3d_backward, [grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                             divisor_override])},
)  # fmt: skip
avg_pool3d_backward = defop(
    "avg_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, "
    "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
    cpu=_avg_pool3d_backward_cpu,
    backward={"grad_output": lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
              dispatch(avg_pool3d, [grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override]),
              "self": lambda grad, self: self.new_zeros(self.shape)},
)  # fmt: skip


# ---- adaptive pools ----------------------------------------------------------------------------------
def _adaptive_setup(self, output_size, op):
    osz = [int(v) for v in output_size]
    if self.dim() not in (4, 5):
        colon = ":" if op == "adaptive_max_pool3d" else ""
        raise RuntimeError(f"{op}(): Expected 4D or 5D tensor, but got{colon} {list(self._data.shape)}")
    for i in range(1, self.dim()):
        if self._data.shape[i] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{list(self._data.shape)} with dimension {i} being empty"
            )
    if any(o < 0 for o in osz):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(osz)}: "
                           f"{list(self._data.shape[:-3]) + osz}")  # fmt: skip
    if not self._dtype.is_floating_point:  # unlike the windowed pools, ATen has no integer kernel
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{_cname(self._dtype)}'")
    return np.array([*self._data.shape[-3:], *osz], np.int64), osz


def _adaptive_avg_cpu(self, output_size):
    geo, osz = _adaptive_setup(self, output_size, "adaptive_avg_pool3d")
    dt = compute_dtype(self, "adaptive_avg_pool3d_cpu")
    out = np.empty(self._data.shape[:-3] + tuple(osz), dt.np)
    if out.size:
        K3.adaptive_avg_pool3d(contig(self, dt).reshape(-1), out.reshape(-1), geo)
    return _finish(out, self)


def _adaptive_avg_backward_cpu(grad_output, self):
    geo = np.array([*self._data.shape[-3:], *grad_output._data.shape[-3:]], np.int64)
    dt = compute_dtype(self, "adaptive_avg_pool3d_backward_cpu")
    gi = np.zeros(self._data.shape, dt.np)
    if gi.size and grad_output._data.size:
        K3.adaptive_avg_pool3d_backward(contig(grad_output, dt).reshape(-1), gi.reshape(-1), geo)
    return _finish(gi, self)


_adaptive_avg_pool3d = defop(
    "_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
    cpu=_adaptive_avg_cpu,
    backward={"self": lambda grad, self: dispatch(_adaptive_avg_pool3d_backward, [grad, self])},
)
_adaptive_avg_pool3d_backward = defop(
    "_adaptive_avg_pool3d_backward(Tensor grad_output, Tensor self) -> Tensor",
    cpu=_adaptive_avg_backward_cpu,
    backward={"grad_output": lambda grad, grad_output: dispatch(_adaptive_avg_pool3d, [grad, list(grad_output.shape[-3:])]),
              "self": lambda grad, self: self.new_zeros(self.shape)},
)  # fmt: skip
adaptive_avg_pool3d = defop("adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
                            composite=lambda self, output_size: dispatch(_adaptive_avg_pool3d, [self, output_size]))  # fmt: skip


def _adaptive_max_cpu(self, output_size):
    geo, osz = _adaptive_setup(self, output_size, "adaptive_max_pool3d")
    dt = compute_dtype(self, "adaptive_max_pool3d_cpu")
    out = np.empty(self._data.shape[:-3] + tuple(osz), dt.np)
    idx = np.empty(out.shape, np.int64)
    if out.size:
        K3.adaptive_max_pool3d(contig(self, dt).reshape(-1), out.reshape(-1), idx.reshape(-1), geo)
    return _finish(out, self), _make(idx, D.int64)


adaptive_max_pool3d = defop(
    "adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)",
    cpu=_adaptive_max_cpu,
    backward={"self": lambda grad, self, result1: dispatch(adaptive_max_pool3d_backward, [grad, self, result1])},
)
adaptive_max_pool3d_backward = defop(
    "adaptive_max_pool3d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
    cpu=lambda grad_output, self, indices: scatter_max3d(grad_output, self, indices),
    backward={"grad_output": lambda grad, indices: gather_max3d(grad, indices),
              "self": lambda grad, self: self.new_zeros(self.shape)},
)  # fmt: skip


# ---- the public functions ----------------------------------------------------------------------------
def _stride(stride):
    return [] if stride is None else stride


def _f_max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    """3-D max pooling over (N, C, D, H, W) input.

    >>> numtorch.nn.functional.max_pool3d(numtorch.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[7.]]]]])
    """
    out = dispatch(max_pool3d_with_indices, [input, kernel_size, _stride(stride), padding, dilation, ceil_mode])
    return out if return_indices else out[0]


def _f_max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    """3-D max pooling returning (values, indices into each input volume).

    >>> numtorch.nn.functional.max_pool3d_with_indices(numtorch.arange(8.0).reshape(1, 1, 2, 2, 2), 2)[1]
    tensor([[[[[7]]]]])
    """
    return dispatch(max_pool3d_with_indices, [input, kernel_size, _stride(stride), padding, dilation, ceil_mode])


def _t_max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """3-D max pooling (the ``torch.max_pool3d`` form).

    >>> numtorch.max_pool3d(numtorch.ones(1, 2, 2, 2), 2).shape
    torch.Size([1, 1, 1, 1])
    """
    return dispatch(max_pool3d, [input, kernel_size, _stride(stride), padding, dilation, ceil_mode])


def _f_avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """3-D average pooling.

    >>> numtorch.nn.functional.avg_pool3d(numtorch.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[3.5000]]]]])
    """
    return dispatch(avg_pool3d, [input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                                 divisor_override])  # fmt: skip


def _size3(input, output_size, op):
    out = [output_size] * 3 if isinstance(output_size, (int, np.integer)) else list(output_size)
    if len(out) != 3:
        raise RuntimeError(f"{op}: output_size must be 3")
    return [input.shape[-3 + i] if v is None else v for i, v in enumerate(out)]


def _f_adaptive_avg_pool3d(input, output_size):
    """3-D average pooling to a fixed output size.

    >>> numtorch.nn.functional.adaptive_avg_pool3d(numtorch.ones(1, 1, 3, 4, 5), 1)
    tensor([[[[[1.]]]]])
    """
    return dispatch(adaptive_avg_pool3d, [input, _size3(input, output_size, "adaptive_avg_pool3d")])


def _f_adaptive_max_pool3d(input, output_size, return_indices):
    """3-D max pooling to a fixed output size.

    >>> numtorch.nn.functional.adaptive_max_pool3d(numtorch.arange(8.0).reshape(1, 1, 2, 2, 2), 1)
    tensor([[[[[7.]]]]])
    """
    out = dispatch(adaptive_max_pool3d, [input, _size3(input, output_size, "adaptive_max_pool3d")])
    return out if return_indices else out[0]


def _f_adaptive_max_pool3d_with_indices(input, output_size, return_indices):
    """Adaptive 3-D max pooling returning (values, indices).

    >>> numtorch.nn.functional.adaptive_max_pool3d_with_indices(numtorch.arange(8.0).reshape(1, 2, 2, 2), 1)[1]
    tensor([[[[7]]]])
    """
    return dispatch(adaptive_max_pool3d, [input, _size3(input, output_size, "adaptive_max_pool3d")])


def _f_lp_pool3d(input, norm_type, kernel_size, stride, ceil_mode):
    """3-D power-average pooling: (sum of x^p over the window)^(1/p).

    >>> numtorch.nn.functional.lp_pool3d(numtorch.full((1, 1, 2, 2, 2), 2.0), 1, 2)
    tensor([[[[[16.]]]]])
    """
    kd, kh, kw = _triple(kernel_size, "kernel_size", "avg_pool3d")
    out = dispatch(avg_pool3d, [input.pow(norm_type), kernel_size, _stride(stride), 0, ceil_mode, True, None])
    return _lp_finish(out, kd * kh * kw, norm_type)


_MPS = "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False"
public("max_pool3d", _MPS, _f_max_pool3d, module=_F, ops=(max_pool3d_with_indices,))
public("max_pool3d_with_indices", _MPS, _f_max_pool3d_with_indices, module=_F, ops=(max_pool3d_with_indices,))
public("max_pool3d", "input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False", _t_max_pool3d,
       ops=(max_pool3d,))  # fmt: skip
public("avg_pool3d", "input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, "
       "divisor_override=None", _f_avg_pool3d, module=_F, ops=(avg_pool3d,))  # fmt: skip
public("adaptive_avg_pool3d", "input, output_size", _f_adaptive_avg_pool3d, module=_F, ops=(adaptive_avg_pool3d,))
public("adaptive_max_pool3d", "input, output_size, return_indices=False", _f_adaptive_max_pool3d, module=_F,
       ops=(adaptive_max_pool3d,))  # fmt: skip
public("adaptive_max_pool3d_with_indices", "input, output_size, return_indices=False",
       _f_adaptive_max_pool3d_with_indices, module=_F, ops=(adaptive_max_pool3d,))  # fmt: skip
public("lp_pool3d", "input, norm_type, kernel_size, stride=None, ceil_mode=False", _f_lp_pool3d, module=_F)
