"""``numtorch.nn.grad``: gradients of the convolutions with respect to their input or weight, as
functions (``conv2d_input(input_size, weight, grad_output, ...)``), computed by autograd through
the convolution itself, so they always agree with its backward."""

from __future__ import annotations

import numtorch

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _grad(nd: int, wrt: str, input, weight, grad_output, stride, padding, dilation, groups):
    with numtorch.enable_grad():
        x = input.detach().requires_grad_(wrt == "input")
        w = weight.detach().requires_grad_(wrt == "weight")
        out = getattr(numtorch.nn.functional, f"conv{nd}d")(x, w, None, stride, padding, dilation, groups)
        (g,) = numtorch.autograd.grad(out, x if wrt == "input" else w, grad_output)
    return g


def _input_fn(nd: int):
    def fn(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        x = numtorch.zeros(tuple(input_size), dtype=grad_output.dtype)
        return _grad(nd, "input", x, weight, grad_output, stride, padding, dilation, groups)

    fn.__name__ = f"conv{nd}d_input"
    fn.__doc__ = f"Gradient of conv{nd}d with respect to its input (of size ``input_size``)."
    return fn


def _weight_fn(nd: int):
    def fn(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        w = numtorch.zeros(tuple(weight_size), dtype=grad_output.dtype)
        return _grad(nd, "weight", input, w, grad_output, stride, padding, dilation, groups)

    fn.__name__ = f"conv{nd}d_weight"
    fn.__doc__ = f"Gradient of conv{nd}d with respect to its weight (of size ``weight_size``)."
    return fn


conv1d_input, conv2d_input, conv3d_input = _input_fn(1), _input_fn(2), _input_fn(3)
conv1d_weight, conv2d_weight, conv3d_weight = _weight_fn(1), _weight_fn(2), _weight_fn(3)
