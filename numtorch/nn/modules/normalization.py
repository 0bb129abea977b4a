"""``nn.LayerNorm``, ``nn.GroupNorm``, ``nn.RMSNorm``, ``nn.LocalResponseNorm`` and the legacy ``nn.CrossMapLRN2d``."""

from __future__ import annotations

import numbers

import numtorch

from ..._tensor import Tensor
from ...autograd.function import Function, once_differentiable
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` dims, with a learnable affine.

    >>> numtorch.nn.LayerNorm(2)(numtorch.tensor([[1.0, 3.0]]))
    tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(numtorch.empty(self.normalized_shape, **kw))
            if bias:
                self.bias = Parameter(numtorch.empty(self.normalized_shape, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")  # fmt: skip


class GroupNorm(Module):
    """Normalize over groups of channels, with a per-channel affine.

    >>> numtorch.nn.GroupNorm(1, 2)(numtorch.tensor([[1.0, 3.0]]))
    tensor([[-1.0000,  1.0000]], grad_fn=<NativeGroupNormBackward0>)
    """

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups, self.num_channels, self.eps, self.affine = (
            num_groups,
            num_channels,
            eps,
            affine,
        )
        if self.affine:
            self.weight = Parameter(numtorch.empty(num_channels, **kw))
            if bias:
                self.bias = Parameter(numtorch.empty(num_channels, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")  # fmt: skip


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) over the trailing ``normalized_shape`` dims, times a learnable weight.

    >>> numtorch.nn.RMSNorm(2)(numtorch.tensor([[3.0, 4.0]]))
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float | None = None, elementwise_affine: bool = True, device=None,
                 dtype=None) -> None:  # fmt: skip
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(
                numtorch.empty(self.normalized_shape, device=device, dtype=dtype)
            )
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class LocalResponseNorm(Module):
    """Normalize over ``size`` neighbouring channels: x / (k + alpha * mean(x^2))^beta.

    >>> numtorch.nn.LocalResponseNorm(2)(numtorch.ones(1, 2, 1)).shape
    torch.Size([1, 2, 1])
    """

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class _CrossMapLRN2dFn(Function):
    # Lua Torch's SpatialCrossMapLRN, kept by PyTorch as is: the running channel window never drops
    # channel 0, and the hand-written backward assumes a symmetric window; both reproduced so
    # values and gradients match PyTorch's.
    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        sq = input * input
        channels = input.size(1)
        pre_pad = int((size - 1) / 2 + 1)
        scales = [sq[:, : min(pre_pad, channels)].sum(1)]
        for c in range(1, channels):
            s = scales[-1]
            if c < channels - pre_pad + 1:
                s = s + sq[:, c + pre_pad - 1]
            if c > pre_pad:
                s = s - sq[:, c - pre_pad]
            scales.append(s)
        scale = numtorch.stack(scales, 1) * (alpha / size) + k
        output = input * scale.pow(-beta)
        ctx.save_for_backward(input, output, scale)
        return output

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        n, channels, h, w = input.shape
        size = ctx.size
        cache_ratio = 2 * ctx.alpha * ctx.beta / size
        inverse_pre_pad = int(size - (size - 1) / 2)
        grad_input = scale.pow(-ctx.beta) * grad_output
        padded = numtorch.zeros(n, channels + size - 1, h, w, dtype=input.dtype)
        padded[:, inverse_pre_pad : inverse_pre_pad + channels] = grad_output * output / scale
        accum = padded[:, : size - 1].sum(1)
        cols = []
        for c in range(channels):
            accum = accum + padded[:, c + size - 1]
            cols.append(grad_input[:, c] - cache_ratio * input[:, c] * accum)
            accum = accum - padded[:, c]
        return numtorch.stack(cols, 1), None, None, None, None


class CrossMapLRN2d(Module):
    """Legacy (Lua Torch) local response normalization across channels of a 4-d input.

    >>> numtorch.nn.CrossMapLRN2d(3)(numtorch.ones(1, 4, 2, 2)).shape
    torch.Size([1, 4, 2, 2])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return _CrossMapLRN2dFn.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
