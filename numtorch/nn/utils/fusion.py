"""Folding an eval-mode BatchNorm into the preceding convolution or linear layer, mirroring
``torch.nn.utils.fusion``: w' = w * gamma / sqrt(var + eps), b' = (b - mean) * gamma / sqrt(var + eps) + beta."""

from __future__ import annotations

import copy

import numtorch

from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` computing ``bn(conv(x))`` (both in eval mode).

    >>> conv, bn = numtorch.nn.Conv2d(2, 3, 1).eval(), numtorch.nn.BatchNorm2d(3).eval()
    >>> x = numtorch.randn(1, 2, 4, 4)
    >>> bool(numtorch.allclose(fuse_conv_bn_eval(conv, bn)(x), bn(conv(x)), atol=1e-6))
    True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)  # fmt: skip
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose: bool = False):
    """The fused (weight, bias) Parameters of a convolution followed by batch norm statistics.

    >>> w, b = fuse_conv_bn_weights(numtorch.ones(1, 1, 1, 1), None, numtorch.zeros(1), numtorch.ones(1), 0.0,
    ...                             numtorch.full((1,), 2.0), numtorch.ones(1))
    >>> w.flatten().tolist(), b.tolist()
    ([2.0], [1.0])
    """
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    conv_b = numtorch.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = numtorch.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = numtorch.zeros_like(bn_rm) if bn_b is None else bn_b
    bn_var_rsqrt = numtorch.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (len(conv_w.shape) - 2)
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` computing ``bn(linear(x))`` (both in eval mode).

    >>> lin, bn = numtorch.nn.Linear(2, 3).eval(), numtorch.nn.BatchNorm1d(3).eval()
    >>> x = numtorch.randn(4, 2)
    >>> bool(numtorch.allclose(fuse_linear_bn_eval(lin, bn)(x), bn(lin(x)), atol=1e-6))
    True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)  # fmt: skip
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused (weight, bias) Parameters of a linear layer followed by batch norm statistics.

    >>> w, b = fuse_linear_bn_weights(numtorch.ones(1, 2), None, numtorch.zeros(1), numtorch.ones(1), 0.0,
    ...                               numtorch.full((1,), 3.0), numtorch.zeros(1))
    >>> w.tolist(), b.tolist()
    ([[3.0, 3.0]], [0.0])
    """
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    linear_b = numtorch.zeros_like(bn_rm) if linear_b is None else linear_b
    bn_scale = bn_w * numtorch.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
