"""nn ops beyond the OpInfo table: errors (type and text), random conv/pool sweeps against direct
NumPy references, loss variants, running statistics, dropout statistics, backward ops seen by
dispatch modes."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.testing._opinfo.nn.core import (
    avg_pool2d_ref,
    conv2d_ref,
    conv_transpose2d_ref,
    max_pool2d_ref,
)
from numtorch.utils._python_dispatch import TorchDispatchMode


def T(a, grad=False):
    t = numtorch.from_numpy(np.array(a))
    return t.requires_grad_(True) if grad else t


def raises(exc, text):
    return pytest.raises(exc, match=re.escape(text))


# ---- errors ------------------------------------------------------------------------------------------
CONV_ERRORS = [
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 2, 3, 3)), RuntimeError,
     "Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 8, 8] to have 2 channels, but got 3 channels instead"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 1, 3, 3), groups=3), RuntimeError,
     "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of size [[4, 1, 3, 3]] instead"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 9, 9)), RuntimeError,
     "Calculated padded input size per channel: (8 x 8). Kernel size: (9 x 9). Kernel size can't be greater than actual input size"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 3)), RuntimeError,
     "expected stride to be a single integer value or a list of 1 values to match the convolution dimensions, but got stride=[1, 1]"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 3, 3, dtype=numtorch.float64)), RuntimeError,
     "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 3, 3), numtorch.ones(4, dtype=numtorch.float64)),
     RuntimeError, "Input type (float) and bias type (double) should be the same"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 3, 3), numtorch.ones(5)), RuntimeError,
     "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias of size [5] instead"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 3, 3), stride=0), RuntimeError,
     "non-positive stride is not supported"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 3, 3), padding=-1), RuntimeError,
     "negative padding is not supported"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 3, 3), padding="foo"), RuntimeError,
     "Invalid padding string: 'foo'"),
    (lambda: F.conv2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 3, 3, 3), padding="same", stride=2), RuntimeError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv2d(numtorch.ones(3, 8), numtorch.ones(4, 3, 3, 3)), RuntimeError,
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [3, 8]"),
    (lambda: F.conv2d(numtorch.ones(1, 1, 3, 3, dtype=numtorch.bool), numtorch.ones(1, 1, 1, 1, dtype=numtorch.bool)),
     NotImplementedError, "\"slow_conv2d_cpu\" not implemented for 'Bool'"),
    (lambda: F.conv_transpose2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(3, 4, 3, 3), stride=2, output_padding=2),
     RuntimeError, "output padding must be smaller than either stride or dilation, but got output_padding_height: 2 "
     "output_padding_width: 2 stride_height: 2 stride_width: 2 dilation_height: 1 dilation_width: 1"),
    (lambda: F.conv_transpose2d(numtorch.ones(2, 3, 8, 8), numtorch.ones(4, 4, 3, 3)), RuntimeError,
     "Given transposed=1, weight of size [4, 4, 3, 3], expected input[2, 3, 8, 8] to have 4 channels, but got 3 channels instead"),
]  # fmt: skip

POOL_ERRORS = [
    (lambda: F.max_pool2d(numtorch.ones(2, 3, 8, 8), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda: F.max_pool2d(numtorch.ones(2, 3, 8, 8), 9), RuntimeError,
     "Given input size: (3x8x8). Calculated output size: (3x0x0). Output size is too small"),
    (lambda: F.max_pool2d(numtorch.ones(2, 3, 8, 8), 2, stride=0), RuntimeError, "stride should not be zero"),
    (lambda: F.max_pool2d(numtorch.ones(8), 2), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: F.max_pool2d(numtorch.ones(2, 3, 8, 8), (1, 2, 3)), RuntimeError,
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: F.avg_pool2d(numtorch.ones(2, 3, 8, 8), 2, divisor_override=0), RuntimeError, "divisor must be not zero"),
    (lambda: F.adaptive_avg_pool2d(numtorch.ones(2, 3, 0, 4), 2), RuntimeError,
     "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
     "[2, 3, 0, 4] with dimension 2 being empty"),
    (lambda: F.max_pool2d(numtorch.ones(1, 1, 2, 2, dtype=numtorch.bool), 2), NotImplementedError,
     "\"max_pool2d\" not implemented for 'Bool'"),
]  # fmt: skip

OTHER_ERRORS = [
    (lambda: F.pad(numtorch.ones(1, 2, 3, 3), (3, 3, 0, 0), mode="reflect"), RuntimeError,
     "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) at "
     "dimension 3 of input [1, 2, 3, 3]"),
    (lambda: F.pad(numtorch.ones(1, 2, 3, 3), (1, 1, 1)), RuntimeError, "Padding length must be divisible by 2"),
    (lambda: F.pad(numtorch.ones(1, 2, 3, 3), (1, 1), mode="foo"), NotImplementedError, "Unrecognised padding mode foo"),
    (lambda: F.pad(numtorch.ones(1, 2, 3, 3), (1, 1), mode="reflect"), NotImplementedError,
     "Padding size 2 is not supported for 4D input tensor."),
    (lambda: F.pad(numtorch.ones(1, 2, 3), (1, 1), mode="reflect", value=2.0), RuntimeError,
     'Padding mode "reflect" doesn\'t take in value argument'),
    (lambda: F.pad(numtorch.ones(1, 2, 3), (4, 4), mode="circular"), RuntimeError,
     "Padding value causes wrapping around more than once."),
    (lambda: F.interpolate(numtorch.ones(1, 1, 2, 2), size=5, scale_factor=2), ValueError,
     "only one of size or scale_factor should be defined"),
    (lambda: F.interpolate(numtorch.ones(1, 1, 2, 2)), ValueError, "either size or scale_factor should be defined"),
    (lambda: F.interpolate(numtorch.ones(1, 1, 2, 2), scale_factor=2, align_corners=True), ValueError,
     "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"),
    (lambda: F.interpolate(numtorch.ones(1, 2, 3), scale_factor=2, mode="bilinear"), NotImplementedError,
     "Got 3D input, but bilinear mode needs 4D input"),
    (lambda: F.pixel_shuffle(numtorch.ones(1, 3, 2, 2), 2), RuntimeError,
     "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but "
     "input.size(-3)=3 is not divisible by 4"),
    (lambda: F.one_hot(numtorch.tensor([0, 3]), 2), RuntimeError, "Class values must be smaller than num_classes."),
    (lambda: F.one_hot(numtorch.tensor([0, -1])), RuntimeError, "Class values must be non-negative."),
    (lambda: F.one_hot(numtorch.tensor([0.0, 1.0])), RuntimeError,
     "one_hot is only applicable to index tensor of type LongTensor."),
    (lambda: F.one_hot(numtorch.tensor([], dtype=numtorch.int64)), RuntimeError,
     "Can not infer total number of classes from empty tensor."),
    (lambda: F.embedding(numtorch.tensor([5]), numtorch.ones(3, 2)), IndexError, "index out of range in self"),
    (lambda: F.embedding(numtorch.tensor([1.0]), numtorch.ones(3, 2)), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
     "torch.FloatTensor instead (while checking arguments for embedding)"),
    (lambda: F.embedding(numtorch.tensor([1]), numtorch.ones(3, 2), padding_idx=3), AssertionError,
     "Padding_idx must be within num_embeddings"),
    (lambda: F.glu(numtorch.ones(3, 3)), RuntimeError, "Halving dimension must be even, but dimension 1 is size 3"),
    (lambda: F.glu(numtorch.tensor(1.0)), RuntimeError, "glu does not support scalars because halving size must be even"),
    (lambda: F.dropout(numtorch.ones(2), 1.5), ValueError, "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: F.gelu(numtorch.ones(2), approximate="foo"), RuntimeError, "approximate argument must be either none or tanh."),
    (lambda: F.elu(numtorch.tensor([1, 2])), NotImplementedError, "\"elu_cpu\" not implemented for 'Long'"),
    (lambda: F.layer_norm(numtorch.ones(2, 3), (4,)), RuntimeError,
     "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"),
    (lambda: F.layer_norm(numtorch.ones(2, 3), (3,), numtorch.ones(4)), RuntimeError,
     "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and normalized_shape = [3]"),
    (lambda: F.group_norm(numtorch.ones(2, 3, 4), 2), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 3, 4] and "
     "num_groups=2"),
    (lambda: F.batch_norm(numtorch.ones(1, 3), None, None, training=True), ValueError,
     "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])"),
    (lambda: F.batch_norm(numtorch.ones(2, 3), numtorch.zeros(3), numtorch.ones(3), numtorch.ones(4)), RuntimeError,
     "weight should contain 3 elements not 4"),
    (lambda: F.scaled_dot_product_attention(numtorch.ones(1, 2, 2), numtorch.ones(1, 2, 2), numtorch.ones(1, 2, 2),
                                            attn_mask=numtorch.ones(2, 2), is_causal=True), RuntimeError,
     "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"),
]  # fmt: skip

LOSS_ERRORS = [
    (lambda: F.cross_entropy(numtorch.ones(3, 4), numtorch.tensor([0, 1])), ValueError,
     "Expected input batch_size (3) to match target batch_size (2)."),
    (lambda: F.nll_loss(numtorch.tensor(1.0), numtorch.tensor(0)), ValueError, "Expected 1 or more dimensions (got 0)"),
    (lambda: F.cross_entropy(numtorch.ones(2, 4, 3), numtorch.zeros(2, 4, dtype=numtorch.int64)), RuntimeError,
     "Expected target size [2, 3], got [2, 4]"),
    (lambda: F.cross_entropy(numtorch.ones(2, 4), numtorch.tensor([0, 5])), IndexError, "Target 5 is out of bounds."),
    # a negative target other than ignore_index (the bounds check reads targets as uint64 first)
    (lambda: F.cross_entropy(numtorch.ones(3, 4), numtorch.tensor([-100, 1, -1])), IndexError,
     "Target -1 is out of bounds."),
    (lambda: F.cross_entropy(numtorch.ones(2, 4), numtorch.tensor([0.0, 1.0])), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    (lambda: F.cross_entropy(numtorch.ones(2), numtorch.ones(2, dtype=numtorch.int64)), RuntimeError,
     "Expected floating point type for target with class probabilities, got Long"),
    (lambda: F.nll_loss(numtorch.ones(2, 4), numtorch.tensor([0, 1]), weight=numtorch.ones(3)), RuntimeError,
     "weight tensor should be defined either for all 4 classes or no classes but got weight tensor of shape: [3]"),
    (lambda: F.cross_entropy(numtorch.ones(2, 4), numtorch.tensor([0, 1]), reduction="foo"), ValueError,
     "foo is not a valid value for reduction"),
    (lambda: F.nll_loss(numtorch.ones(2, 4, 3, 3), numtorch.zeros(2, 3, 4, dtype=numtorch.int64)), RuntimeError,
     "size mismatch (got input: [2, 4, 3, 3] , target: [2, 3, 4]"),
    (lambda: F.mse_loss(numtorch.tensor([1, 2]), numtorch.tensor([1, 2])), NotImplementedError,
     "\"mse_cpu\" not implemented for 'Long'"),
    (lambda: F.binary_cross_entropy(numtorch.tensor([1.5]), numtorch.tensor([1.0])), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: F.binary_cross_entropy(numtorch.tensor([0.5]), numtorch.tensor([[1.0]])), ValueError,
     "Using a target size (torch.Size([1, 1])) that is different to the input size (torch.Size([1])) is deprecated. "
     "Please ensure they have the same size."),
    (lambda: F.binary_cross_entropy_with_logits(numtorch.tensor([0.5]), numtorch.tensor([[1.0]])), ValueError,
     "Target size (torch.Size([1, 1])) must be the same as input size (torch.Size([1]))"),
    (lambda: F.smooth_l1_loss(numtorch.ones(3), numtorch.ones(3), beta=-1.0), RuntimeError,
     "smooth_l1_loss does not support negative values for beta."),
    (lambda: F.huber_loss(numtorch.ones(3), numtorch.ones(3), delta=0.0), RuntimeError,
     "huber_loss does not support non-positive values for delta."),
    (lambda: F.kl_div(numtorch.tensor([1, 2]), numtorch.tensor([1, 2]), reduction="sum"), RuntimeError,
     "kl_div: Integral inputs not supported."),
]  # fmt: skip


@pytest.mark.parametrize(
    "case", CONV_ERRORS + POOL_ERRORS + OTHER_ERRORS + LOSS_ERRORS, ids=lambda c: c[2][:50]
)
def test_errors_have_pytorch_type_and_text(case):
    fn, exc, text = case
    with raises(exc, text):
        fn()


# ---- random sweeps against direct references ------------------------------------------------------------
def _conv_cases(seed, n=24):
    r = np.random.default_rng(seed)
    for _ in range(n):
        groups = int(r.choice([1, 2, 3]))
        cin, cout = groups * int(r.integers(1, 3)), groups * int(r.integers(1, 3))
        k = (int(r.integers(1, 4)), int(r.integers(1, 4)))
        s = (int(r.integers(1, 3)), int(r.integers(1, 3)))
        d = (int(r.integers(1, 3)), int(r.integers(1, 3)))
        p = (int(r.integers(0, 3)), int(r.integers(0, 3)))
        h = d[0] * (k[0] - 1) + 1 + int(r.integers(0, 5))
        w = d[1] * (k[1] - 1) + 1 + int(r.integers(0, 5))
        yield (
            (int(r.integers(1, 3)), cin, h, w),
            (cout, cin // groups) + k,
            s,
            p,
            d,
            groups,
            bool(r.integers(0, 2)),
        )


@pytest.mark.parametrize("case", list(_conv_cases(1)), ids=str)
def test_conv2d_random_shapes_match_direct_convolution(case, rng):
    xs, ws, s, p, d, g, bias = case
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    b = rng.standard_normal(ws[0]) if bias else None
    got = F.conv2d(T(x), T(w), T(b) if bias else None, s, p, d, g)
    np.testing.assert_allclose(got.numpy(), conv2d_ref(x, w, b, s, p, d, g), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case", list(_conv_cases(2, 12)), ids=str)
def test_conv_transpose2d_random_shapes_match_scatter_reference(case, rng):
    xs, ws, s, p, d, g, bias = case
    wt_shape = (xs[1], ws[0] // g, ws[2], ws[3])  # (C_in, C_out / groups, kH, kW)
    p = (min(p[0], d[0] * (ws[2] - 1)), min(p[1], d[1] * (ws[3] - 1)))
    op = tuple(int(min(s[i], d[i]) > 1) for i in range(2))
    x, w = rng.standard_normal(xs), rng.standard_normal(wt_shape)
    got = F.conv_transpose2d(T(x), T(w), None, s, p, op, g, d)
    np.testing.assert_allclose(
        got.numpy(), conv_transpose2d_ref(x, w, None, s, p, op, g, d), rtol=1e-10, atol=1e-10
    )


@pytest.mark.parametrize("seed", range(6))
def test_conv2d_gradients_random_shapes(seed):
    xs, ws, s, p, d, g, _ = next(_conv_cases(100 + seed, 1))
    r = np.random.default_rng(seed)
    x, w, b = (
        T(r.standard_normal(xs), True),
        T(r.standard_normal(ws), True),
        T(r.standard_normal(ws[0]), True),
    )
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, s, p, d, g), (x, w, b), eps=1e-6, atol=1e-6)


def _pool_cases(seed, n=20):
    r = np.random.default_rng(seed)
    for _ in range(n):
        k = (int(r.integers(1, 4)), int(r.integers(1, 4)))
        s = (int(r.integers(1, 4)), int(r.integers(1, 4)))
        d = (int(r.integers(1, 3)), int(r.integers(1, 3)))
        p = tuple(int(r.integers(0, ((k[i] - 1) * d[i] + 1) // 2 + 1)) for i in range(2))
        yield k, s, p, d, bool(r.integers(0, 2))


@pytest.mark.parametrize("case", list(_pool_cases(3)), ids=str)
def test_max_pool2d_random_configs_match_window_loops(case, rng):
    k, s, p, d, ceil = case
    x = rng.standard_normal((2, 3, 9, 8))
    out, idx = F.max_pool2d(T(x), k, s, p, d, ceil, return_indices=True)
    want, want_idx = max_pool2d_ref(x, k, s, p, d, ceil, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), want_idx)


@pytest.mark.parametrize("case", list(_pool_cases(4)), ids=str)
def test_avg_pool2d_random_configs_match_window_loops(case, rng):
    k, s, p, _, ceil = case
    p = (min(p[0], k[0] // 2), min(p[1], k[1] // 2))
    x = rng.standard_normal((2, 3, 9, 8))
    for cip in (True, False):
        got = F.avg_pool2d(T(x), k, s, p, ceil, cip)
        np.testing.assert_allclose(got.numpy(), avg_pool2d_ref(x, k, s, p, ceil, cip), rtol=1e-12)


@pytest.mark.parametrize("case", list(_pool_cases(5, 4)), ids=str)
def test_pool_gradients_and_double_backward(case, rng):
    k, s, p, d, ceil = case
    x = T(rng.standard_normal((1, 2, 6, 5)), True)
    assert gradcheck(lambda x: F.max_pool2d(x, k, s, p, d, ceil), (x,))
    assert gradgradcheck(lambda x: F.max_pool2d(x, k, s, p, d, ceil), (x,))
    p = (min(p[0], k[0] // 2), min(p[1], k[1] // 2))
    assert gradgradcheck(lambda x: F.avg_pool2d(x, k, s, p, ceil, False), (x,))


def test_float32_conv_and_float16_inputs_keep_their_dtype(rng):
    x, w = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((4, 3, 3, 3))
    out32 = F.conv2d(T(x.astype(np.float32)), T(w.astype(np.float32)))
    assert out32.dtype is numtorch.float32
    np.testing.assert_allclose(out32.numpy(), conv2d_ref(x, w), rtol=1e-4, atol=1e-4)
    out16 = F.conv2d(T(x.astype(np.float16)), T(w.astype(np.float16)))
    assert out16.dtype is numtorch.float16
    np.testing.assert_allclose(out16.numpy(), conv2d_ref(x, w), rtol=2e-2, atol=5e-2)
    assert F.max_pool2d(T(x.astype(np.float16)), 2).dtype is numtorch.float16
    assert F.gelu(T(x.astype(np.float16))).dtype is numtorch.float16


def test_empty_batch_convolution_and_pooling():
    assert F.conv2d(numtorch.ones(0, 3, 8, 8), numtorch.ones(4, 3, 3, 3)).shape == (0, 4, 6, 6)
    assert F.max_pool2d(numtorch.ones(0, 3, 8, 8), 2).shape == (0, 3, 4, 4)


# ---- losses ------------------------------------------------------------------------------------------
def test_cross_entropy_with_every_target_ignored_is_nan():
    out = F.cross_entropy(numtorch.zeros(2, 3), numtorch.tensor([-100, -100]))
    assert np.isnan(out.item())
    assert (
        F.cross_entropy(numtorch.zeros(2, 3), numtorch.tensor([-100, -100]), reduction="sum").item()
        == 0.0
    )


def test_cross_entropy_gradient_is_softmax_minus_one_hot(rng):
    x = T(rng.standard_normal((4, 5)), True)
    t = np.array([0, 4, 2, 2])
    F.cross_entropy(x, T(t)).backward()
    z = x.detach().numpy()
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), (p - np.eye(5)[t]) / 4, rtol=1e-10)


def test_cross_entropy_uint8_targets_and_nd_gradients(rng):
    x = T(rng.standard_normal((2, 3, 4)), True)
    t = rng.integers(0, 3, (2, 4))
    a = F.cross_entropy(x, T(t.astype(np.uint8)), reduction="none")
    b = F.cross_entropy(x, T(t), reduction="none")
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy())
    assert gradcheck(lambda x: F.cross_entropy(x, T(t), label_smoothing=0.3, ignore_index=1), (x,))


def test_legacy_size_average_reduce_arguments_warn_and_apply(rng):
    x, y = T(rng.standard_normal(4)), T(rng.standard_normal(4))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        out = F.mse_loss(x, y, size_average=False)
    np.testing.assert_allclose(out.item(), ((x.numpy() - y.numpy()) ** 2).sum())


def test_mse_loss_broadcasting_warns(rng):
    with pytest.warns(UserWarning, match="Using a target size"):
        out = F.mse_loss(numtorch.zeros(3, 1), numtorch.ones(3))
    assert out.item() == 1.0


def test_weighted_mse_and_l1_losses():
    x, t, w = numtorch.tensor([1.0, 2.0]), numtorch.tensor([0.0, 0.0]), numtorch.tensor([1.0, 3.0])
    assert F.mse_loss(x, t, weight=w).item() == pytest.approx((1 + 12) / 4)
    assert F.l1_loss(x, t, weight=w, reduction="sum").item() == pytest.approx(7.0)
    with raises(ValueError, "Weights and input must have the same size."):
        F.mse_loss(x, t, weight=numtorch.ones(3))


def test_kl_div_mean_warns_and_batchmean_divides_by_batch(rng):
    x, t = T(np.log(rng.random((4, 3)))), T(rng.random((4, 3)))
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        mean = F.kl_div(x, t)
    total = F.kl_div(x, t, reduction="sum").item()
    assert mean.item() == pytest.approx(total / 12)
    assert F.kl_div(x, t, reduction="batchmean").item() == pytest.approx(total / 4)


# ---- batch norm running statistics --------------------------------------------------------------------
def test_batch_norm_updates_running_stats_with_unbiased_variance(rng):
    x = rng.standard_normal((5, 3, 4))
    rm, rv = numtorch.zeros(3, dtype=numtorch.float64), numtorch.ones(3, dtype=numtorch.float64)
    v0 = rm._version
    F.batch_norm(T(x), rm, rv, training=True, momentum=0.25)
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2), ddof=1)
    np.testing.assert_allclose(rm.numpy(), 0.25 * mean, rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.75 + 0.25 * var, rtol=1e-12)
    assert rm._version == v0  # updated in place without a version bump, as PyTorch's kernel does
    out = F.batch_norm(T(x), rm, rv, training=False)
    want = (x - rm.numpy()[:, None]) / np.sqrt(rv.numpy()[:, None] + 1e-5)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


def test_batch_norm_eval_mode_gradients(rng):
    rm, rv = T(rng.standard_normal(3)), T(rng.random(3) + 0.5)
    x, w, b = (
        T(rng.standard_normal((4, 3)), True),
        T(rng.standard_normal(3), True),
        T(rng.standard_normal(3), True),
    )
    assert gradcheck(lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False), (x, w, b))


# ---- dropout -----------------------------------------------------------------------------------------
def test_dropout_statistics_and_scaling_with_a_seed():
    numtorch.manual_seed(0)
    y = F.dropout(numtorch.ones(200, 500), 0.3).numpy()
    assert abs((y == 0).mean() - 0.3) < 0.01
    np.testing.assert_allclose(np.unique(y), [0.0, 1 / 0.7], rtol=1e-6)
    numtorch.manual_seed(0)
    np.testing.assert_array_equal(F.dropout(numtorch.ones(200, 500), 0.3).numpy(), y)


def test_dropout_gradient_uses_the_same_mask():
    numtorch.manual_seed(1)
    x = numtorch.ones(50, 40, requires_grad=True)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_dropout_eval_and_edge_probabilities_return_input_or_zeros():
    x = numtorch.ones(3)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    np.testing.assert_array_equal(F.dropout(x, 1.0).numpy(), [0.0, 0.0, 0.0])


def test_inplace_dropout_writes_into_its_input():
    numtorch.manual_seed(2)
    x = numtorch.ones(100, 10)
    assert F.dropout(x, 0.5, inplace=True) is x
    assert set(np.unique(x.numpy())) == {0.0, 2.0}


def test_feature_dropout_zeroes_whole_channels():
    numtorch.manual_seed(3)
    a = F.dropout2d(numtorch.ones(40, 30, 3, 3), 0.5).numpy()
    assert np.all(a.min(axis=(2, 3)) == a.max(axis=(2, 3)))
    assert abs((a == 0).mean() - 0.5) < 0.05
    b = F.dropout1d(numtorch.ones(30, 4), 0.5).numpy()  # unbatched (C, L)
    assert np.all(b.min(axis=1) == b.max(axis=1))


def test_alpha_dropout_keeps_mean_and_variance():
    numtorch.manual_seed(4)
    x = numtorch.randn(400, 500)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02


# ---- embedding ----------------------------------------------------------------------------------------
def test_embedding_weight_gradients(rng):
    idx = T(np.array([[0, 2, 5], [2, 2, 1]]))
    w = T(rng.standard_normal((6, 3)), True)
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))
    assert gradgradcheck(lambda w: F.embedding(idx, w, padding_idx=2), (w,))
    out = F.embedding(idx, w, padding_idx=2, scale_grad_by_freq=True)
    out.backward(numtorch.ones_like(out))
    want = np.zeros((6, 3))
    want[[0, 1, 5]] = 1.0
    np.testing.assert_allclose(w.grad.numpy(), want)


def test_embedding_max_norm_renormalizes_referenced_rows_in_place():
    w = numtorch.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    F.embedding(numtorch.tensor([0, 1]), w, max_norm=1.0)
    np.testing.assert_allclose(np.linalg.norm(w.numpy(), axis=1), [1.0, 0.5, 10.0], rtol=1e-6)


# ---- in-place activations, dispatch modes, overrides -------------------------------------------------------
@pytest.mark.parametrize("name", ["relu", "leaky_relu", "elu", "selu", "celu", "hardtanh", "relu6", "silu", "mish",
                                  "hardsigmoid", "hardswish"])  # fmt: skip
def test_inplace_activation_flag_writes_into_its_input(name, rng):
    x = T(rng.standard_normal(6).astype(np.float32))
    want = getattr(F, name)(x.clone())
    v = x._version
    out = getattr(F, name)(x, inplace=True)
    assert out is x and x._version > v
    np.testing.assert_allclose(x.numpy(), want.numpy())


def test_hard_activations_compute_in_their_own_dtype_with_pytorchs_ends():
    # float32 arithmetic as PyTorch's scalar_t kernels (a float64 evaluation rounds differently
    # in some of these points), hardswish_backward 0 at -3 and grad_output at 3 as PyTorch 2.x
    x = np.array([-4, -3, -2.9999998, -1.7, -0.3, 0.1, 1.3, 2.9, 3, 4, np.nan], np.float32)
    g = np.linspace(0.3, 1.7, x.size).astype(np.float32)
    f3, f6, h = np.float32(3), np.float32(6), np.float32(0.5)
    c = np.minimum(np.maximum(x + f3, np.float32(0)), f6)
    np.testing.assert_array_equal(F.hardswish(T(x)).numpy(), x * c / f6)
    np.testing.assert_array_equal(F.hardsigmoid(T(x)).numpy(), c / f6)
    xt = T(x, grad=True)
    F.hardswish(xt).backward(T(g))
    want = np.where(x <= -f3, np.float32(0), np.where(x < f3, g * (x / f3 + h), g))
    assert xt.grad.dtype == numtorch.float32
    np.testing.assert_array_equal(xt.grad.numpy(), want)


def test_typed_constants_keep_float32_kernels_in_float32():
    # typed constants keep float32 kernels in float32 (a bare 1 or 0.5 is a float64 in Numba):
    # the bits of the float32 formula, which a float64 evaluation rounds differently
    rng = np.random.default_rng(5)
    x, t, g = (rng.standard_normal(1000).astype(np.float32) * 3 for _ in "xtg")
    f1, h, b = np.float32(1), np.float32(0.5), np.float32(1.5)
    s = F.sigmoid(T(x)).numpy()
    np.testing.assert_array_equal(numtorch.ops.aten.silu_backward(T(g), T(x)).numpy(), g * s * (f1 + x * (f1 - s)))
    d = x - t
    np.testing.assert_array_equal(F.smooth_l1_loss(T(x), T(t), reduction="none", beta=1.5).numpy(),
                                  np.where(np.abs(d) < b, h * d * d / b, np.abs(d) - h * b))
    np.testing.assert_array_equal(F.huber_loss(T(x), T(t), reduction="none", delta=1.5).numpy(),
                                  np.where(np.abs(d) < b, h * d * d, b * (np.abs(d) - h * b)))
    # gelu's tanh form and logit likewise (numtorch's own tanh/log inside)
    k, c = np.float32(math.sqrt(2 / math.pi)), np.float32(0.044715)
    u = numtorch.tanh(T(k * (x + c * (x * x * x)))).numpy()
    np.testing.assert_array_equal(F.gelu(T(x), approximate="tanh").numpy(), h * x * (f1 + u))
    p = np.clip(F.sigmoid(T(x)).numpy(), np.float32(1e-3), f1 - np.float32(1e-3))
    np.testing.assert_array_equal(numtorch.logit(T(p), 1e-3).numpy(), numtorch.log(T(p / (f1 - p))).numpy())


class Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


BACKWARD_OPS = [
    (
        lambda x: F.conv2d(
            x, numtorch.ones(2, 2, 3, 3, dtype=numtorch.float64, requires_grad=True)
        ),
        "aten.convolution_backward.default",
    ),
    (lambda x: F.max_pool2d(x, 2), "aten.max_pool2d_with_indices_backward.default"),
    (lambda x: F.avg_pool2d(x, 2), "aten.avg_pool2d_backward.default"),
    (lambda x: F.adaptive_avg_pool2d(x, 3), "aten._adaptive_avg_pool2d_backward.default"),
    (lambda x: F.layer_norm(x, (4,)), "aten.native_layer_norm_backward.default"),
    (
        lambda x: F.batch_norm(x, None, None, training=True),
        "aten.native_batch_norm_backward.default",
    ),
    (lambda x: F.group_norm(x, 2), "aten.native_group_norm_backward.default"),
    (lambda x: F.relu(x), "aten.threshold_backward.default"),
    (lambda x: F.gelu(x), "aten.gelu_backward.default"),
    (
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
        "aten.upsample_bilinear2d_backward.default",
    ),
    (lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect"), "aten.reflection_pad2d_backward.default"),
    (lambda x: F.mse_loss(x, numtorch.zeros(1, 2, 4, 4)), "aten.mse_loss_backward.default"),
    (
        lambda x: F.cross_entropy(x, numtorch.zeros(1, 4, 4, dtype=numtorch.int64)),
        "aten.nll_loss2d_backward.default",
    ),
]


@pytest.mark.parametrize("case", BACKWARD_OPS, ids=lambda c: c[1])
def test_backward_helpers_are_ops_that_dispatch_modes_see(case, rng):
    fn, op = case
    x = T(rng.standard_normal((1, 2, 4, 4)), True)
    y = fn(x)
    with Log() as log:
        y.sum().backward()
    assert op in log.ops, log.ops


def test_functional_ops_honour_torch_function_overrides():
    class Spy(numtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return func.__name__

    s = numtorch.ones(2).as_subclass(Spy)
    assert F.relu(s) == "relu"
    assert F.conv2d(s, numtorch.ones(1)) == "conv2d"
    assert F.cross_entropy(s, numtorch.ones(1)) == "cross_entropy"


def test_nll_loss_ignores_negative_ignore_index_targets():
    x = numtorch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], dtype=numtorch.float64, requires_grad=True)
    t = numtorch.tensor([-100, 2])
    loss = F.nll_loss(x, t)
    assert loss.item() == 0.6  # only the second row counts
    loss.backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, -1.0]]


def test_layer_norm_records_only_its_first_output():
    # the generated recorder's tuple case: grad_fn on the output, none on mean/rstd, and the
    # saved mean/rstd (result1/result2) that the backward formula reads
    x = numtorch.randn(2, 3, dtype=numtorch.float64, requires_grad=True)
    out, mean, rstd = numtorch.ops.aten.native_layer_norm.default(x, [3], None, None, 1e-5)
    assert out.grad_fn.name() == "NativeLayerNormBackward0" and out.requires_grad
    assert mean.grad_fn is None and rstd.grad_fn is None and not mean.requires_grad
    fn = lambda t: numtorch.ops.aten.native_layer_norm.default(t, [3], None, None, 1e-5)[0]  # noqa: E731
    assert numtorch.autograd.gradcheck(fn, (x,))
    y, idx = numtorch.ops.aten.max_pool2d_with_indices.default(x.view(1, 1, 2, 3), [1, 2], [1, 2], [0, 0], [1, 1], False)
    assert y.grad_fn is not None and idx.grad_fn is None  # int64 indices: no history
