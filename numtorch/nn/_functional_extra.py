"""More of ``torch.nn.functional``: fractional max pooling, ``linear_cross_entropy`` and the helper
names PyTorch's functional module carries (BroadcastingList*, boolean_dispatch, the doc notes).

# Note [Fractional max pooling as a gather]
# As ATen's kernel: per (batch, channel) plane one random sample per spatial dim picks window
# starts ``int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (in - k) / (out - 1)`` (computed
# in the input's float type, so float32 starts match PyTorch's) and the last start ``in - k``. The
# windows become a flat-index tensor; gather + max over the window gives values and argmax, and
# gather's backward is the scatter-add PyTorch's backward does. No kernel of its own.
"""

from __future__ import annotations

import math

import numpy as np

import numtorch

from .._tensor import Tensor
from ..ops._registry import public

_F = "torch.nn.functional"


def _tuple(v, n: int) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def _starts(u: np.ndarray, size: int, out: int, k: int, ftype) -> np.ndarray:
    # u: (planes,) samples; returns (planes, out) window starts (Note [Fractional max pooling as a gather])
    if out <= 1:
        return np.full((u.shape[0], max(out, 0)), size - k, np.int64)
    alpha = ftype(size - k) / ftype(out - 1)
    i = np.arange(out - 1, dtype=ftype)
    s = ((i[None, :] + u[:, None]) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)[:, None]
    return np.concatenate([s, np.full((u.shape[0], 1), size - k, np.int64)], axis=1)


def _fractional(name, input, kernel_size, output_size, output_ratio, samples, nd):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    dims = tuple(input.shape[-nd:])
    batched = input.dim() == nd + 2
    if output_size is None:
        output_size = [int(s * r) for s, r in zip(dims, _tuple(output_ratio, nd))]
    ks, outs = _tuple(kernel_size, nd), _tuple(output_size, nd)
    labels = ("time", "height", "width")[3 - nd :]
    where = "fractional_max_pool2d()" if nd == 2 else "fractional_max_pool3d_out()"
    for lab, s, k, o in zip(labels, dims, ks, outs):
        if o + k - 1 > s:
            raise RuntimeError(f"{where}: pool {lab} {k} too large relative to input {lab} {s}")
    n = input.shape[0] if batched else 1
    c = input.shape[-nd - 1]
    if samples is None:
        samples = numtorch.rand(n, c, nd, dtype=input.dtype)
    ftype = np.float64 if input.dtype is numtorch.float64 else np.float32
    u = samples.detach().numpy().astype(ftype).reshape(n * c, nd)
    # ATen's 2-d kernel takes sample [0] for width and [1] for height; the 3-d one takes t, h, w in order
    order = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_starts(u[:, order[d]], dims[d], outs[d], ks[d], ftype) for d in range(nd)]
    strides = [math.prod(dims[d + 1 :]) for d in range(nd)]
    idx = np.zeros((n * c, *outs, *ks), np.int64)
    for d in range(nd):
        shape = [n * c] + [1] * (2 * nd)
        shape[1 + d] = outs[d]
        shape_k = [1] * (1 + 2 * nd)
        shape_k[1 + nd + d] = ks[d]
        pos = starts[d].reshape(shape) + np.arange(ks[d]).reshape(shape_k)
        idx = idx + pos * strides[d]
    k_total = math.prod(ks)
    index = numtorch.from_numpy(idx.reshape(n, c, -1))
    flat = input.reshape(n, c, -1)
    vals = flat.gather(-1, index).reshape(n, c, *outs, k_total)
    out, arg = vals.max(-1)
    indices = index.reshape(n, c, *outs, k_total).gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if not batched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return out, indices


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):  # fmt: skip
    """Fractional max pooling over 2-d windows at random fractional strides, with indices.

    >>> x = numtorch.arange(16.0).reshape(1, 1, 4, 4)
    >>> numtorch.nn.functional.fractional_max_pool2d_with_indices(x, 2, output_size=2)[0].shape
    torch.Size([1, 1, 2, 2])
    """
    return _fractional("fractional_max_pool2d", input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):  # fmt: skip
    """Fractional max pooling over 2-d windows (Graham, 2014): random fractional strides.

    >>> x = numtorch.arange(16.0).reshape(1, 1, 4, 4)
    >>> numtorch.nn.functional.fractional_max_pool2d(x, 2, output_size=2, _random_samples=numtorch.zeros(1, 1, 2))
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    out = _fractional("fractional_max_pool2d", input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):  # fmt: skip
    """Fractional max pooling over 3-d windows, with indices."""
    return _fractional("fractional_max_pool3d", input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):  # fmt: skip
    """Fractional max pooling over 3-d windows at random fractional strides."""
    out = _fractional("fractional_max_pool3d", input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return out if return_indices else out[0]


_POOL_SIG = "input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None"
for _f in (fractional_max_pool2d, fractional_max_pool2d_with_indices, fractional_max_pool3d,
           fractional_max_pool3d_with_indices):  # fmt: skip
    public(_f.__name__, _POOL_SIG, _f, module=_F)


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias=None, weight=None,
                         reduction: str = "mean", ignore_index=None, label_smoothing: float = 0.0,
                         options=None):  # fmt: skip
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)`` in one call.

    >>> x, w = numtorch.zeros(2, 3), numtorch.zeros(4, 3)
    >>> numtorch.nn.functional.linear_cross_entropy(x, w, numtorch.tensor([0, 1]))
    tensor(1.3863)
    """
    F = numtorch.nn.functional
    logits = F.linear(input, linear_weight, linear_bias)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=-100 if ignore_index is None else ignore_index,
                           label_smoothing=label_smoothing)  # fmt: skip


public("linear_cross_entropy", "input, linear_weight, target, *, linear_bias=None, weight=None, reduction='mean', "
       "ignore_index=None, label_smoothing=0.0, options=None", linear_cross_entropy,
       relevant=("input", "linear_weight", "target"), module=_F)  # fmt: skip


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-d convolution over time-batch-channel input ``(T, B, C_in)`` with weight ``(K, C_in, C_out)``,
    as fairseq's ConvTBC: conv1d on the transposed layout.

    >>> numtorch.nn.functional.conv_tbc(numtorch.ones(5, 2, 3), numtorch.ones(3, 3, 4), numtorch.zeros(4), 1).shape
    torch.Size([5, 2, 4])
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    out = numtorch.nn.functional.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


public("conv_tbc", "input, weight, bias, pad=0", conv_tbc, relevant=("input", "weight", "bias"), module=_F)


# ---- names PyTorch's functional module carries for TorchScript and its docs ------------------
class BroadcastingListCls:
    """``BroadcastingList2[int]``: TorchScript's "int or list of ints" annotation; ``None`` at run time."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = BroadcastingListCls()
DType = int  # PyTorch's alias: a dtype argument annotated as int for TorchScript


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """One function calling ``if_true`` or ``if_false`` by a boolean argument (``return_indices``-style).

    >>> f = boolean_dispatch("flag", 1, False, lambda x, flag=False: "yes", lambda x, flag=False: "no", None, "f")
    >>> f(0), f(0, True), f(0, flag=True)
    ('no', 'yes', 'yes')
    """

    def fn(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is not None and if_false.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = if_true.__doc__ or if_false.__doc__
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn


def assert_int_or_pair(arg, arg_name: str, message: str) -> None:
    """AssertionError(``message.format(arg_name)``) unless ``arg`` is an int or has two entries."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


reproducibility_notes = {
    "forward_reproducibility_note": "This operation may behave nondeterministically when given tensors on a CUDA "
    "device. See :doc:`/notes/randomness` for more information.",
    "backward_reproducibility_note": "This operation may produce nondeterministic gradients when given tensors on a "
    "CUDA device. See :doc:`/notes/randomness` for more information.",
    "cudnn_reproducibility_note": "In some circumstances when given tensors on a CUDA device and using CuDNN, this "
    "operator may select a nondeterministic algorithm to increase performance. If this is undesirable, you can try "
    "to make the operation deterministic (potentially at a performance cost) by setting "
    "``torch.backends.cudnn.deterministic = True``. See :doc:`/notes/randomness` for more information.",
}
sparse_support_notes = {
    "sparse_beta_warning": "\n.. warning::\n    Sparse support is a beta feature and some layout(s)/dtype/device "
    "combinations may not be supported,\n    or may not have autograd support. If you notice missing functionality "
    "please\n    open a feature request.",
}
tf32_notes = {
    "tf32_note": "This operator supports :ref:`TensorFloat32<tf32_on_ampere>`.",
}
