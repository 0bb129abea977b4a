"""Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d."""

from __future__ import annotations

import re

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F
from numtorch import nn
from numtorch.testing._opinfo.nn.core import conv2d_ref


def test_conv2d_parameters_init_and_forward(rng):
    numtorch.manual_seed(0)
    conv = nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, groups=2, dtype=numtorch.float64)
    assert conv.weight.shape == (6, 2, 3, 2) and conv.bias.shape == (6,)
    bound = 1 / np.sqrt(2 * 3 * 2)  # fan_in = C_in/groups * kH * kW
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    x = rng.standard_normal((2, 4, 7, 6))
    out = conv(numtorch.from_numpy(x))
    want = conv2d_ref(x, conv.weight.detach().numpy(), conv.bias.detach().numpy(), 2, 1, 1, 2)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-10, atol=1e-12)
    assert repr(conv) == "Conv2d(4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), groups=2)"


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv2d_padding_modes_pad_then_convolve(mode, rng):
    conv = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode, dtype=numtorch.float64)
    x = numtorch.from_numpy(rng.standard_normal((1, 2, 5, 6)))
    want = F.conv2d(F.pad(x, (2, 2, 1, 1), mode=mode), conv.weight, conv.bias)
    np.testing.assert_allclose(conv(x).detach().numpy(), want.detach().numpy())


def test_conv_same_padding_keeps_the_size():
    conv = nn.Conv2d(1, 2, (4, 3), padding="same", dilation=(1, 2))
    assert conv(numtorch.ones(1, 1, 7, 9)).shape == (1, 2, 7, 9)
    assert (
        repr(conv)
        == "Conv2d(1, 2, kernel_size=(4, 3), stride=(1, 1), padding=same, dilation=(1, 2))"
    )
    assert nn.Conv1d(1, 1, 4, padding="same")(numtorch.ones(1, 1, 5)).shape == (1, 1, 5)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"groups": 0}, "groups must be a positive integer"),
        ({"groups": 2}, "in_channels must be divisible by groups"),
        ({"padding": "full"}, "Invalid padding string 'full'"),
        (
            {"padding": "same", "stride": 2},
            "padding='same' is not supported for strided convolutions",
        ),
        ({"padding_mode": "mirror"}, "padding_mode must be one of"),
    ],
)
def test_conv_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        nn.Conv2d(3, 4, 3, **kwargs)


def test_conv1d_and_unbatched_input():
    conv = nn.Conv1d(2, 3, 3, bias=False)
    assert (
        conv.bias is None
        and repr(conv) == "Conv1d(2, 3, kernel_size=(3,), stride=(1,), bias=False)"
    )
    assert conv(numtorch.ones(2, 7)).shape == (3, 5)


def test_conv_transpose2d_shapes_output_size_and_gradient(rng):
    ct = nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, dtype=numtorch.float64)
    assert ct.weight.shape == (2, 4, 3, 3)
    x = numtorch.from_numpy(rng.standard_normal((1, 2, 4, 5)))
    assert ct(x).shape == (1, 4, 7, 9)
    assert ct(x, output_size=[8, 10]).shape == (1, 4, 8, 10)
    with pytest.raises(
        ValueError, match="requested an output size of \\[9, 10\\], but valid sizes range from"
    ):
        ct(x, output_size=[9, 10])
    ct(x).sum().backward()
    assert ct.weight.grad.shape == (2, 4, 3, 3) and ct.bias.grad.shape == (4,)
    with pytest.raises(
        ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'
    ):
        nn.ConvTranspose2d(2, 4, 3, padding_mode="reflect")
    assert (
        repr(nn.ConvTranspose1d(2, 4, 3)) == "ConvTranspose1d(2, 4, kernel_size=(3,), stride=(1,))"
    )


def test_conv_backward_fills_every_parameter_grad():
    conv = nn.Conv2d(1, 32, 3)
    x = numtorch.ones(4, 1, 8, 8, requires_grad=True)
    conv(x).sum().backward()
    np.testing.assert_allclose(conv.bias.grad.numpy(), np.full(32, 4 * 36.0))
    np.testing.assert_allclose(conv.weight.grad.numpy(), np.full((32, 1, 3, 3), 4 * 36.0))
    assert x.grad.shape == (4, 1, 8, 8)


@pytest.mark.parametrize(
    "x_shape, w_shape, kwargs, sizes",
    [
        ((2, 4, 1, 5), (4, 3, 1, 2), {"padding": (1, 0)}, "(1 x 5). Calculated output size per channel: (-1 x 6)"),
        ((1, 4, 2), (4, 3, 1), {"padding": 1}, "(1 x 2). Calculated output size per channel: (1 x 0)"),
    ],
)  # fmt: skip
def test_conv_transpose_output_too_small_raises(x_shape, w_shape, kwargs, sizes):
    fn = F.conv_transpose2d if len(x_shape) == 4 else F.conv_transpose1d
    pattern = "Given input size per channel: " + re.escape(sizes)
    with pytest.raises(RuntimeError, match=pattern):
        fn(numtorch.randn(*x_shape), numtorch.randn(*w_shape), **kwargs)


@pytest.mark.parametrize(
    "stride, padding, dilation", [(1, 0, 1), (2, 1, 1), (1, 2, 2), ((2, 3), (0, 2), (3, 1))]
)
def test_conv2d_gradients_match_finite_differences_across_geometries(stride, padding, dilation):
    # im2col / col2im skip out-of-bounds taps by hoisted ranges: padding, stride and dilation mix
    x = numtorch.randn(2, 3, 7, 6, dtype=numtorch.float64, requires_grad=True)
    w = numtorch.randn(4, 3, 3, 2, dtype=numtorch.float64, requires_grad=True)
    kw = {"stride": stride, "padding": padding, "dilation": dilation}
    ref = conv2d_ref(x.detach().numpy(), w.detach().numpy(), None, **kw)
    np.testing.assert_allclose(F.conv2d(x, w, **kw).detach().numpy(), ref, atol=1e-12)
    assert numtorch.autograd.gradcheck(lambda a, b: F.conv2d(a, b, **kw), (x, w))
    xt = x[:, :, :4, :4].detach().requires_grad_()
    wt = w.transpose(0, 1).detach().requires_grad_()
    assert numtorch.autograd.gradcheck(lambda a, b: F.conv_transpose2d(a, b, **kw), (xt, wt))
