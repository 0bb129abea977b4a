"""numtorch.nn.functional: ops declared with ``module="torch.nn.functional"`` are exported here
by ``numtorch/__init__.py``; the functions PyTorch writes in Python (argument handling over the
aten ops: pools, interpolate, norms, losses with their legacy ``size_average``/``reduce``) are
declared below with ``public`` so they get the same ``__torch_function__`` gate."""

from __future__ import annotations

import math
import warnings

import numtorch

from .._dispatch import dispatch
from ..ops.nn import conv as _conv
from ..ops.nn import loss as _loss
from ..ops.nn import loss_pointwise as _lp
from ..ops.nn import normalization as _norm
from ..ops.nn import pooling as _pool
from ..ops.nn import resample as _rs
from ..ops.nn.sampling import GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES  # noqa: F401
from ..ops._registry import public

_F = "torch.nn.functional"


def _fn(name: str, sig: str, relevant=("input",)):
    """Declare the decorated function as ``numtorch.nn.functional.<name>`` (with its gate)."""

    def deco(body):
        public(name, sig, body, relevant=relevant, module=_F)
        return body

    return deco


# ---- reductions (torch.nn._reduction) -------------------------------------------------------------
class _Reduction:
    @staticmethod
    def get_enum(reduction: str) -> int:
        if reduction == "none":
            return 0
        if reduction == "mean":
            return 1
        if reduction == "elementwise_mean":
            warnings.warn(
                "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                stacklevel=3,
            )
            return 1
        if reduction == "sum":
            return 2
        raise ValueError(f"{reduction} is not a valid value for reduction")

    @staticmethod
    def legacy_get_string(size_average, reduce, emit_warning=True) -> str:
        warning = (
            "size_average and reduce args will be deprecated, please use reduction='{}' instead."
        )
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        ret = ("mean" if size_average else "sum") if reduce else "none"
        if emit_warning:
            warnings.warn(warning.format(ret), stacklevel=3)
        return ret


def _enum(size_average, reduce, reduction) -> int:
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return _Reduction.get_enum(reduction)


# ---- pooling -----------------------------------------------------------------------------------------
def _stride(stride):
    return [] if stride is None else stride


@_fn(
    "max_pool2d",
    "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False",
)
def _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    """2-D max pooling; with ``return_indices`` also the flat argmax positions.

    >>> numtorch.nn.functional.max_pool2d(numtorch.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    args = [input, kernel_size, _stride(stride), padding, dilation, ceil_mode]
    if return_indices:
        return dispatch(_pool.max_pool2d_with_indices, args)
    return dispatch(_pool.max_pool2d, args)


@_fn("max_pool2d_with_indices", "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, "
     "return_indices=False")  # fmt: skip
def _max_pool2d_with_indices(
    input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
):
    """2-D max pooling returning (values, indices).

    >>> numtorch.nn.functional.max_pool2d_with_indices(numtorch.ones(1, 1, 2, 2), 2)[1]
    tensor([[[[0]]]])
    """
    return dispatch(
        _pool.max_pool2d_with_indices,
        [input, kernel_size, _stride(stride), padding, dilation, ceil_mode],
    )


@_fn(
    "max_pool1d",
    "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False",
)
def _max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    """1-D max pooling over (N, C, L) input.

    >>> numtorch.nn.functional.max_pool1d(numtorch.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[3., 2.]]])
    """
    args = [input, kernel_size, _stride(stride), padding, dilation, ceil_mode]
    return dispatch(_pool.max_pool1d_with_indices if return_indices else _pool.max_pool1d, args)


@_fn("avg_pool2d", "input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, "
     "divisor_override=None")  # fmt: skip
def _avg_pool2d(
    input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    """2-D average pooling.

    >>> numtorch.nn.functional.avg_pool2d(numtorch.ones(1, 1, 2, 2), 2)
    tensor([[[[1.]]]])
    """
    return dispatch(_pool.avg_pool2d, [input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                                       divisor_override])  # fmt: skip


@_fn(
    "avg_pool1d",
    "input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True",
)
def _avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad):
    """1-D average pooling.

    >>> numtorch.nn.functional.avg_pool1d(numtorch.tensor([[[1.0, 3.0]]]), 2)
    tensor([[[2.]]])
    """
    return dispatch(
        _pool.avg_pool1d,
        [input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad],
    )


def _adaptive_size(input, output_size, n):
    if isinstance(output_size, int):
        output_size = [output_size] * n
    out = list(output_size)
    if len(out) != n:
        raise RuntimeError(f"adaptive pool: output_size must be {n}")
    return [input.shape[-n + i] if v is None else v for i, v in enumerate(out)]


@_fn("adaptive_avg_pool2d", "input, output_size")
def _adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size.

    >>> numtorch.nn.functional.adaptive_avg_pool2d(numtorch.ones(1, 1, 4, 4), 1)
    tensor([[[[1.]]]])
    """
    return dispatch(_pool.adaptive_avg_pool2d, [input, _adaptive_size(input, output_size, 2)])


@_fn("adaptive_max_pool2d", "input, output_size, return_indices=False")
def _adaptive_max_pool2d(input, output_size, return_indices):
    """Max pooling to a fixed output size.

    >>> numtorch.nn.functional.adaptive_max_pool2d(numtorch.arange(4.0).reshape(1, 1, 2, 2), 1)
    tensor([[[[3.]]]])
    """
    out = dispatch(_pool.adaptive_max_pool2d, [input, _adaptive_size(input, output_size, 2)])
    return out if return_indices else out[0]


@_fn("adaptive_avg_pool1d", "input, output_size")
def _adaptive_avg_pool1d(input, output_size):
    """1-D average pooling to a fixed output size.

    >>> numtorch.nn.functional.adaptive_avg_pool1d(numtorch.tensor([[[1.0, 3.0]]]), 1)
    tensor([[[2.]]])
    """
    if input.dim() not in (2, 3):  # checkDimRange, before the 2-D op's own checks
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_avg_pool1d)")  # fmt: skip
    size = _adaptive_size(input, output_size, 1)
    return dispatch(_pool.adaptive_avg_pool2d, [input.unsqueeze(-2), [1, size[0]]]).squeeze(-2)


@_fn("adaptive_max_pool1d", "input, output_size, return_indices=False")
def _adaptive_max_pool1d(input, output_size, return_indices):
    """1-D max pooling to a fixed output size.

    >>> numtorch.nn.functional.adaptive_max_pool1d(numtorch.tensor([[[1.0, 3.0]]]), 1)
    tensor([[[3.]]])
    """
    size = _adaptive_size(input, output_size, 1)
    out, idx = dispatch(_pool.adaptive_max_pool2d, [input.unsqueeze(-2), [1, size[0]]])
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


@_fn("max_pool1d_with_indices", "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, "
     "return_indices=False")  # fmt: skip
def _max_pool1d_with_indices(
    input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
):
    """1-D max pooling returning (values, indices).

    >>> numtorch.nn.functional.max_pool1d_with_indices(numtorch.tensor([[[1.0, 3.0]]]), 2)[1]
    tensor([[[1]]])
    """
    return dispatch(
        _pool.max_pool1d_with_indices,
        [input, kernel_size, _stride(stride), padding, dilation, ceil_mode],
    )


@_fn("adaptive_max_pool2d_with_indices", "input, output_size, return_indices=False")
def _adaptive_max_pool2d_with_indices(input, output_size, return_indices):
    """Adaptive 2-D max pooling returning (values, indices).

    >>> numtorch.nn.functional.adaptive_max_pool2d_with_indices(numtorch.ones(1, 2, 2), 1)[1]
    tensor([[[0]]])
    """
    return _adaptive_max_pool2d(input, output_size, True)


@_fn("adaptive_max_pool1d_with_indices", "input, output_size, return_indices=False")
def _adaptive_max_pool1d_with_indices(input, output_size, return_indices):
    """Adaptive 1-D max pooling returning (values, indices).

    >>> numtorch.nn.functional.adaptive_max_pool1d_with_indices(numtorch.tensor([[[1.0, 3.0]]]), 1)[1]
    tensor([[[1]]])
    """
    return _adaptive_max_pool1d(input, output_size, True)


# ---- resampling -------------------------------------------------------------------------------------
@_fn("pad", "input, pad, mode='constant', value=None")
def _pad(input, pad, mode, value):
    """Pad the last dims: ``pad`` lists (left, right) pairs from the last dim backwards.

    >>> numtorch.nn.functional.pad(numtorch.ones(1, 2), (1, 1))
    tensor([[0., 1., 1., 0.]])
    """
    return dispatch(_rs.pad, [input, list(pad), mode, value])


def _interp_sizes(input, size, scale_factor, recompute_scale_factor):
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                )
            out = [int(s) for s in size]
        else:
            out = [int(size)] * dim
        return out, [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please provide input "
                "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
            )
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dim
    out = [int(math.floor(float(input.shape[i + 2]) * scales[i])) for i in range(dim)]
    return out, ([None] * dim if recompute_scale_factor else scales)


@_fn("interpolate", "input, size=None, scale_factor=None, mode='nearest', align_corners=None, "
     "recompute_scale_factor=None, antialias=False")  # fmt: skip
def _interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias):
    """Resize the spatial dims ('nearest', 'linear', 'bilinear').

    >>> numtorch.nn.functional.interpolate(numtorch.ones(1, 1, 2), scale_factor=2).shape
    torch.Size([1, 1, 4])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                "trilinear"
            )
    elif align_corners is None:
        align_corners = False
    if antialias:
        raise NotImplementedError("numtorch does not implement antialiased interpolation")
    out, scales = _interp_sizes(input, size, scale_factor, recompute_scale_factor)
    nd = input.dim()
    if mode == "nearest" and nd == 3:
        return dispatch(_rs.upsample_nearest1d, [input, out, scales[0]])
    if mode == "nearest" and nd == 4:
        return dispatch(_rs.upsample_nearest2d, [input, out, scales[0], scales[1]])
    if mode == "linear" and nd == 3:
        return dispatch(_rs.upsample_linear1d, [input, out, align_corners, scales[0]])
    if mode == "bilinear" and nd == 4:
        return dispatch(_rs.upsample_bilinear2d, [input, out, align_corners, scales[0], scales[1]])
    needs = {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode)
    if needs is not None and nd != needs and 3 <= nd <= 5:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {needs}D input")
    if 3 <= nd <= 5 and (mode in ("nearest", "trilinear", "area", "nearest-exact") or (mode, nd) == ("bicubic", 4)):
        # modes PyTorch has and numtorch does not: their own message, not PyTorch's bad-mode text
        raise NotImplementedError(f"numtorch does not implement interpolate(mode='{mode}') for {nd}D input; it "
                                  "implements nearest (3D/4D), linear (3D) and bilinear (4D)")  # fmt: skip
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: nearest | linear | "
        f"bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
    )


@_fn("upsample", "input, size=None, scale_factor=None, mode='nearest', align_corners=None")
def _upsample(input, size, scale_factor, mode, align_corners):
    """Deprecated alias of :func:`interpolate`.

    >>> numtorch.nn.functional.upsample(numtorch.ones(1, 1, 1, 1), scale_factor=2).shape
    torch.Size([1, 1, 2, 2])
    """
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return _interpolate(input, size, scale_factor, mode, align_corners, None, False)


@_fn("upsample_nearest", "input, size=None, scale_factor=None")
def _upsample_nearest(input, size, scale_factor):
    """Deprecated: ``interpolate(..., mode='nearest')``.

    >>> numtorch.nn.functional.upsample_nearest(numtorch.ones(1, 1, 1, 1), scale_factor=2).shape
    torch.Size([1, 1, 2, 2])
    """
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return _interpolate(input, size, scale_factor, "nearest", None, None, False)


@_fn("upsample_bilinear", "input, size=None, scale_factor=None")
def _upsample_bilinear(input, size, scale_factor):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``.

    >>> numtorch.nn.functional.upsample_bilinear(numtorch.ones(1, 1, 2, 2), scale_factor=2).shape
    torch.Size([1, 1, 4, 4])
    """
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return _interpolate(input, size, scale_factor, "bilinear", True, None, False)


@_fn("unfold", "input, kernel_size, dilation=1, padding=0, stride=1")
def _unfold(input, kernel_size, dilation, padding, stride):
    """Extract sliding local blocks (im2col): (N, C, H, W) -> (N, C*kh*kw, L).

    >>> numtorch.nn.functional.unfold(numtorch.ones(1, 1, 3, 3), 2).shape
    torch.Size([1, 4, 4])
    """
    return dispatch(_conv.im2col, [input, kernel_size, dilation, padding, stride])


@_fn("fold", "input, output_size, kernel_size, dilation=1, padding=0, stride=1")
def _fold(input, output_size, kernel_size, dilation, padding, stride):
    """Sum sliding local blocks back into an image (col2im), the adjoint of :func:`unfold`.

    >>> numtorch.nn.functional.fold(numtorch.ones(1, 4, 4), (3, 3), 2)[0, 0, 1]
    tensor([2., 4., 2.])
    """
    return dispatch(_conv.col2im, [input, output_size, kernel_size, dilation, padding, stride])


for _name, _op in (("pixel_shuffle", _rs.pixel_shuffle), ("pixel_unshuffle", _rs.pixel_unshuffle)):

    def _shuffle(input, factor, _op=_op):
        return dispatch(_op, [input, factor])

    _shuffle.__doc__ = f"""Rearrange channels and space (``{_name}``).

    >>> numtorch.nn.functional.{_name}(numtorch.ones(1, 4, 2, 2), 2).shape
    torch.Size([1, {"1, 4, 4" if _name == "pixel_shuffle" else "16, 1, 1"}])
    """
    _arg = "upscale_factor" if _name == "pixel_shuffle" else "downscale_factor"
    public(_name, f"input, {_arg}", _shuffle, module=_F, ops=(_op,))
    public(_name, f"input, {_arg}", _shuffle, module="torch", ops=(_op,))


# ---- activations written in Python in PyTorch --------------------------------------------------------
@_fn("softmin", "input, dim=None, _stacklevel=3, dtype=None")
def _softmin(input, dim, _stacklevel, dtype):
    """softmax(-x) along ``dim``.

    >>> numtorch.nn.functional.softmin(numtorch.tensor([0.0, 0.0]), 0)
    tensor([0.5000, 0.5000])
    """
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call to include dim=X "
                      "as an argument.", stacklevel=_stacklevel)  # fmt: skip
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


@_fn("softsign", "input")
def _softsign(input):
    """x / (1 + |x|).

    >>> numtorch.nn.functional.softsign(numtorch.tensor([1.0, -3.0]))
    tensor([ 0.5000, -0.7500])
    """
    return input / (input.abs() + 1)


@_fn("tanhshrink", "input")
def _tanhshrink(input):
    """x - tanh(x).

    >>> numtorch.nn.functional.tanhshrink(numtorch.tensor([0.0]))
    tensor([0.])
    """
    return input - input.tanh()


@_fn("sigmoid", "input")
def _sigmoid(input):
    """1 / (1 + exp(-x)).

    >>> numtorch.nn.functional.sigmoid(numtorch.tensor([0.0]))
    tensor([0.5000])
    """
    return input.sigmoid()


@_fn("tanh", "input")
def _tanh(input):
    """Hyperbolic tangent.

    >>> numtorch.nn.functional.tanh(numtorch.tensor([0.0]))
    tensor([0.])
    """
    return input.tanh()


@_fn("normalize", "input, p=2.0, dim=1, eps=1e-12, out=None", relevant=("input", "out"))
def _normalize(input, p, dim, eps, out):
    """x / max(||x||_p, eps) along ``dim``.

    >>> numtorch.nn.functional.normalize(numtorch.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return numtorch.div(input, denom, out=out)


# ---- normalization -----------------------------------------------------------------------------------
def _verify_batch_size(size) -> None:
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


@_fn(
    "layer_norm",
    "input, normalized_shape, weight=None, bias=None, eps=1e-05",
    relevant=("input", "weight", "bias"),
)
def _layer_norm(input, normalized_shape, weight, bias, eps):
    """Normalize over the trailing ``normalized_shape`` dims, then scale and shift.

    >>> numtorch.nn.functional.layer_norm(numtorch.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    ns = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return dispatch(_norm.layer_norm, [input, ns, weight, bias, eps, True])


@_fn("batch_norm", "input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, "
     "eps=1e-05", relevant=("input", "running_mean", "running_var", "weight", "bias"))  # fmt: skip
def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    """Batch normalization over (N, C, ...) input; updates the running stats when training.

    >>> numtorch.nn.functional.batch_norm(numtorch.tensor([[1.0], [3.0]]), None, None, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    _loss.forbid_grad("native_batch_norm", "running_mean", running_mean)
    _loss.forbid_grad("native_batch_norm", "running_var", running_var)
    if training:
        _verify_batch_size(input.size())
    return dispatch(
        _norm.batch_norm,
        [input, weight, bias, running_mean, running_var, training, momentum, eps, True],
    )


@_fn(
    "group_norm",
    "input, num_groups, weight=None, bias=None, eps=1e-05",
    relevant=("input", "weight", "bias"),
)
def _group_norm(input, num_groups, weight, bias, eps):
    """Normalize over groups of channels.

    >>> numtorch.nn.functional.group_norm(numtorch.tensor([[1.0, 3.0]]), 1)
    tensor([[-1.0000,  1.0000]])
    """
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _verify_batch_size(
        [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:])
    )
    return dispatch(_norm.group_norm, [input, num_groups, weight, bias, eps, True])


@_fn("instance_norm", "input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, "
     "momentum=0.1, eps=1e-05", relevant=("input", "running_mean", "running_var", "weight", "bias"))  # fmt: skip
def _instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps):
    """Normalize each channel of each sample over its spatial positions.

    >>> numtorch.nn.functional.instance_norm(numtorch.tensor([[[1.0, 3.0]]]))
    tensor([[[-1.0000,  1.0000]]])
    """
    if use_input_stats:
        size = input.size()
        prod = 1
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {size}"
            )
    return dispatch(_norm.instance_norm, [input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                                          eps, True])  # fmt: skip


@_fn("rms_norm", "input, normalized_shape, weight=None, eps=None", relevant=("input", "weight"))
def _rms_norm(input, normalized_shape, weight, eps):
    """x / sqrt(mean(x^2) + eps) over the trailing ``normalized_shape`` dims, times ``weight``.

    >>> numtorch.nn.functional.rms_norm(numtorch.tensor([[3.0, 4.0]]), (2,))
    tensor([[0.8485, 1.1314]])
    """
    ns = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return dispatch(_norm.rms_norm, [input, ns, weight, eps])


# ---- losses ------------------------------------------------------------------------------------------------
_LOSS = ("input", "target", "weight")


@_fn("nll_loss", "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'",
     relevant=_LOSS)  # fmt: skip
def _nll_loss(input, target, weight, size_average, ignore_index, reduce, reduction):
    """Negative log likelihood of class-index targets given log-probabilities (N, C, ...).

    >>> numtorch.nn.functional.nll_loss(numtorch.tensor([[-1.0, -2.0]]), numtorch.tensor([1]))
    tensor(2.)
    """
    return dispatch(
        _loss.nll_loss_nd,
        [input, target, weight, _enum(size_average, reduce, reduction), ignore_index],
    )


@_fn("cross_entropy", "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, "
     "reduction='mean', label_smoothing=0.0", relevant=_LOSS)  # fmt: skip
def _cross_entropy(
    input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing
):
    """Cross entropy of logits (N, C, ...) against class indices or class probabilities.

    >>> numtorch.nn.functional.cross_entropy(numtorch.zeros(1, 2), numtorch.tensor([0]))
    tensor(0.6931)
    """
    red = _enum(size_average, reduce, reduction)
    return dispatch(
        _loss.cross_entropy_loss, [input, target, weight, red, ignore_index, label_smoothing]
    )


def _size_warning(input, target):
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). This will "
            "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=4,
        )


def _weighted(errors, weight, input, reduction):
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    w = errors * weight
    if reduction == "none":
        return w
    if reduction == "sum":
        return w.sum()
    if reduction == "mean":
        return w.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _elementwise_loss(name, op, doc):
    def body(input, target, size_average, reduce, reduction, weight):
        _size_warning(input, target)
        if size_average is not None or reduce is not None:
            reduction = _Reduction.legacy_get_string(size_average, reduce)
        x, t = _lp.same_shape_pair(input, target) or numtorch.broadcast_tensors(input, target)
        if weight is not None:
            err = (x - t) * (x - t) if name == "mse_loss" else (x - t).abs()
            return _weighted(err, weight, input, reduction)
        return dispatch(op, [x, t, _Reduction.get_enum(reduction)])

    body.__doc__ = doc
    public(name, "input, target, size_average=None, reduce=None, reduction='mean', weight=None", body,
           relevant=_LOSS, module=_F, ops=(op,))  # fmt: skip


_elementwise_loss(
    "mse_loss",
    _lp.mse_loss,
    "Mean squared error.\n\n    >>> numtorch.nn.functional.mse_loss("
    "numtorch.tensor([1.0, 3.0]), numtorch.zeros(2))\n    tensor(5.)\n",
)
_elementwise_loss(
    "l1_loss",
    _lp.l1_loss,
    "Mean absolute error.\n\n    >>> numtorch.nn.functional.l1_loss("
    "numtorch.tensor([1.0, -3.0]), numtorch.zeros(2))\n    tensor(2.)\n",
)


@_fn("smooth_l1_loss", "input, target, size_average=None, reduce=None, reduction='mean', beta=1.0",
     relevant=("input", "target"))  # fmt: skip
def _smooth_l1_loss(input, target, size_average, reduce, reduction, beta):
    """Squared error below ``beta``, absolute error above it.

    >>> numtorch.nn.functional.smooth_l1_loss(numtorch.tensor([0.5, 3.0]), numtorch.zeros(2))
    tensor(1.3125)
    """
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    # before the reduction's check, as torch (Note [Loss bodies skip a same-shape broadcast])
    x, t = _lp.same_shape_pair(input, target) or numtorch.broadcast_tensors(input, target)
    return _lp.smooth_l1_checked(x, t, _Reduction.get_enum(reduction), beta)


@_fn("huber_loss", "input, target, reduction='mean', delta=1.0, weight=None", relevant=_LOSS)
def _huber_loss(input, target, reduction, delta, weight):
    """Squared error below ``delta``, delta-scaled absolute error above it.

    >>> numtorch.nn.functional.huber_loss(numtorch.tensor([0.5, 3.0]), numtorch.zeros(2))
    tensor(1.3125)
    """
    _size_warning(input, target)
    x, t = _lp.same_shape_pair(input, target) or numtorch.broadcast_tensors(input, target)
    if weight is None:
        return _lp.huber_checked(x, t, _Reduction.get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    w = _lp.huber_checked(x, t, 0, delta) * weight
    if reduction == "none":
        return w
    if reduction == "sum":
        return w.sum()
    if reduction == "mean":
        return w.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


@_fn("binary_cross_entropy", "input, target, weight=None, size_average=None, reduce=None, reduction='mean'",
     relevant=_LOSS)  # fmt: skip
def _binary_cross_entropy(input, target, weight, size_average, reduce, reduction):
    """Binary cross entropy of probabilities in [0, 1].

    >>> numtorch.nn.functional.binary_cross_entropy(numtorch.tensor([0.5]), numtorch.tensor([1.0]))
    tensor(0.6931)
    """
    red = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) is "
            "deprecated. Please ensure they have the same size."
        )
    _loss.forbid_grad("binary_cross_entropy", "weight", weight)
    if weight is not None:
        weight = weight.expand(numtorch.broadcast_shapes(target.size(), weight.size()))
    return dispatch(_lp.binary_cross_entropy, [input, target, weight, red])


@_fn("binary_cross_entropy_with_logits", "input, target, weight=None, size_average=None, reduce=None, "
     "reduction='mean', pos_weight=None", relevant=("input", "target", "weight", "pos_weight"))  # fmt: skip
def _bce_with_logits(input, target, weight, size_average, reduce, reduction, pos_weight):
    """Binary cross entropy of logits (a fused, stable sigmoid + BCE).

    >>> numtorch.nn.functional.binary_cross_entropy_with_logits(numtorch.tensor([0.0]), numtorch.tensor([1.0]))
    tensor(0.6931)
    """
    red = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    _loss.forbid_grad("binary_cross_entropy_with_logits", "weight", weight)
    _loss.forbid_grad("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    return dispatch(_lp.binary_cross_entropy_with_logits, [input, target, weight, pos_weight, red])


@_fn("kl_div", "input, target, size_average=None, reduce=None, reduction='mean', log_target=False",
     relevant=("input", "target"))  # fmt: skip
def _kl_div(input, target, size_average, reduce, reduction, log_target):
    """KL divergence with ``input`` in log space.

    >>> numtorch.nn.functional.kl_div(numtorch.tensor([0.0]), numtorch.tensor([1.0]), reduction='sum')
    tensor(0.)
    """
    if size_average is not None or reduce is not None:
        red = _Reduction.legacy_get_string(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
            "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to "
            "behave the same as 'batchmean' in the next major release.",
            stacklevel=3,
        )
        red = "mean"
    else:
        red = "sum" if reduction == "batchmean" else reduction
    out = dispatch(_lp.kl_div, [input, target, _Reduction.get_enum(red), log_target])
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


def _pair_loss(name, op, doc):
    def body(input1, input2, target, margin, size_average, reduce, reduction):
        return dispatch(
            op, [input1, input2, target, margin, _enum(size_average, reduce, reduction)]
        )

    body.__doc__ = doc
    public(name, "input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean'", body,
           relevant=("input1", "input2", "target"), module=_F, ops=(op,))  # fmt: skip


_pair_loss("margin_ranking_loss", _lp.margin_ranking_loss, "max(0, -y (x1 - x2) + margin).\n\n    >>> "
           "numtorch.nn.functional.margin_ranking_loss(numtorch.tensor([1.0]), numtorch.tensor([2.0]), "
           "numtorch.tensor([1.0]))\n    tensor(1.)\n")  # fmt: skip
_pair_loss("cosine_embedding_loss", _lp.cosine_embedding_loss, "1 - cos(x1, x2) for y = 1, max(0, cos - margin) "
           "for y = -1.\n\n    >>> numtorch.nn.functional.cosine_embedding_loss(numtorch.tensor([[1.0, 0.0]]), "
           "numtorch.tensor([[1.0, 0.0]]), numtorch.tensor([1.0]))\n    tensor(0.)\n")  # fmt: skip


# the rest of the functional namespace lives in _functional_extra (this file is at its line cap)
from typing import TYPE_CHECKING  # noqa: E402,F401

from .._tensor import Tensor  # noqa: E402,F401
from ..overrides import (handle_torch_function, has_torch_function, has_torch_function_unary,  # noqa: E402,F401
                         has_torch_function_variadic)  # fmt: skip
from . import grad  # noqa: E402,F401
from ._functional_extra import (DType, BroadcastingList1, BroadcastingList2, BroadcastingList3,  # noqa: E402,F401
                                assert_int_or_pair, boolean_dispatch, reproducibility_notes, sparse_support_notes,
                                tf32_notes)  # fmt: skip
