"""nn.functional's fractional max pooling, linear_cross_entropy and helper names; nn.grad; the
FractionalMaxPool, AdaptiveLogSoftmaxWithLoss and CrossMapLRN2d modules."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F
from numtorch.autograd import gradcheck


def _frac_ref(x, k, out, u):
    # ATen's interval rule in float64, written out per window (Note [Fractional max pooling as a gather])
    def starts(s, size, o):
        alpha = (size - k) / (o - 1)
        return [int((i + s) * alpha) - int(s * alpha) for i in range(o - 1)] + [size - k]

    n, c, h, w = x.shape
    res = np.empty((n, c, out, out))
    for a in range(n):
        for b in range(c):
            hs, ws = starts(u[a, b, 1], h, out), starts(u[a, b, 0], w, out)
            for i, r in enumerate(hs):
                for j, q in enumerate(ws):
                    res[a, b, i, j] = x[a, b, r : r + k, q : q + k].max()
    return res


def test_fractional_max_pool2d_values_indices_and_gradient():
    rng = np.random.default_rng(0)
    xv, u = rng.standard_normal((2, 3, 7, 7)), rng.random((2, 3, 2))
    x = numtorch.tensor(xv, requires_grad=True)
    out, idx = F.fractional_max_pool2d(x, 2, output_size=4, return_indices=True, _random_samples=numtorch.tensor(u))
    np.testing.assert_allclose(out.detach().numpy(), _frac_ref(xv, 2, 4, u))
    np.testing.assert_array_equal(np.take_along_axis(xv.reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1), -1),
                                  out.detach().numpy().reshape(2, 3, -1))  # fmt: skip
    s = numtorch.tensor(u)
    assert gradcheck(lambda t: F.fractional_max_pool2d(t, 2, output_size=4, _random_samples=s), (x,))


def test_fractional_max_pool_ratio_unbatched_3d_and_errors():
    x = numtorch.randn(2, 8, 8)
    assert F.fractional_max_pool2d(x, 2, output_ratio=0.5).shape == (2, 4, 4)
    assert F.fractional_max_pool3d(numtorch.randn(1, 2, 5, 6, 7), 2, output_size=(3, 4, 5)).shape == (1, 2, 3, 4, 5)
    with pytest.raises(ValueError, match="requires specifying either an output_size or an output_ratio"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(RuntimeError, match=r"fractional_max_pool2d\(\): pool height 2 too large relative to input height 8"):
        F.fractional_max_pool2d(x, 2, output_size=8)
    with pytest.raises(RuntimeError, match=r"fractional_max_pool3d_out\(\): pool time 2 too large"):
        F.fractional_max_pool3d(numtorch.randn(1, 1, 5, 5, 5), 2, output_size=5)


def test_fractional_max_pool_modules():
    m = numtorch.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), return_indices=True)
    out, idx = m(numtorch.randn(1, 1, 10, 10))
    assert out.shape == idx.shape == (1, 1, 5, 5)
    assert numtorch.nn.FractionalMaxPool3d(2, output_size=2)(numtorch.randn(1, 1, 4, 4, 4)).shape == (1, 1, 2, 2, 2)
    with pytest.raises(ValueError, match="FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"):
        numtorch.nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
        numtorch.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        numtorch.nn.FractionalMaxPool2d(2, output_ratio=1.5)


def test_linear_cross_entropy_is_linear_then_cross_entropy():
    numtorch.manual_seed(0)
    x, w, b = numtorch.randn(4, 3), numtorch.randn(5, 3), numtorch.randn(5)
    t = numtorch.tensor([0, 4, 2, 1])
    got = F.linear_cross_entropy(x, w, t, linear_bias=b, label_smoothing=0.1, reduction="sum")
    want = F.cross_entropy(F.linear(x, w, b), t, label_smoothing=0.1, reduction="sum")
    assert numtorch.allclose(got, want)


def test_helper_names():
    assert F.BroadcastingList2[int] is None and F.DType is int
    f = F.boolean_dispatch("flag", 1, False, lambda x, flag=False: 1, lambda x, flag=False: 0, None, "f")
    assert (f(0), f(0, True), f(0, flag=True), f.__name__) == (0, 1, 1, "f")
    with pytest.raises(AssertionError, match="bad k"):
        F.assert_int_or_pair([1, 2, 3], "k", "bad {}")
    assert "nondeterministic" in F.reproducibility_notes["forward_reproducibility_note"]
    assert F.has_torch_function is numtorch.overrides.has_torch_function


@pytest.mark.parametrize("nd", [1, 2])
def test_nn_grad_matches_autograd_of_the_convolution(nd):
    numtorch.manual_seed(0)
    x = numtorch.randn(2, 4, *(6,) * nd, dtype=numtorch.float64, requires_grad=True)
    w = numtorch.randn(6, 2, *(3,) * nd, dtype=numtorch.float64, requires_grad=True)
    conv = getattr(F, f"conv{nd}d")
    y = conv(x, w, None, 2, 1, 1, 2)
    g = numtorch.randn(y.shape, dtype=numtorch.float64)
    gx, gw = numtorch.autograd.grad(y, (x, w), g)
    grad = numtorch.nn.grad
    got_x = getattr(grad, f"conv{nd}d_input")(x.shape, w, g, stride=2, padding=1, groups=2)
    got_w = getattr(grad, f"conv{nd}d_weight")(x, w.shape, g, stride=2, padding=1, groups=2)
    assert numtorch.allclose(got_x, gx) and numtorch.allclose(got_w, gw)


def test_adaptive_log_softmax_matches_full_log_prob():
    numtorch.manual_seed(0)
    m = numtorch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 7], div_value=2.0).double()
    x = numtorch.randn(6, 8, dtype=numtorch.float64)
    t = numtorch.tensor([0, 3, 4, 6, 7, 9])
    out = m(x, t)
    full = m.log_prob(x)
    assert numtorch.allclose(full.exp().sum(1), numtorch.ones(6, dtype=numtorch.float64))
    assert numtorch.allclose(out.output, full.gather(1, t.unsqueeze(1)).squeeze(1))
    assert numtorch.allclose(out.loss, -out.output.mean())
    assert (m.predict(x) == full.argmax(1)).all()
    out.loss.backward()
    assert m.tail[1][0].weight.grad is not None
    assert m(x[0], t[0]).output.shape == ()
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        m(x[:1], numtorch.tensor([10]))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
        numtorch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 4])


def test_cross_map_lrn2d_interior_channels_and_gradient():
    numtorch.manual_seed(0)
    x = numtorch.randn(1, 5, 2, 2, dtype=numtorch.float64, requires_grad=True)
    y = numtorch.nn.CrossMapLRN2d(3, alpha=0.3, beta=0.75, k=1.0)(x)
    xv = x.detach().numpy()
    # channel 1's window is channels 0..2 (pre_pad = 2): k + alpha / size * sum of squares
    scale = 1.0 + 0.3 / 3 * (xv[0, 0:3] ** 2).sum(0)
    np.testing.assert_allclose(y.detach().numpy()[0, 1], xv[0, 1] * scale**-0.75)
    y.sum().backward()
    assert x.grad.shape == x.shape
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead."):
        numtorch.nn.CrossMapLRN2d(3)(numtorch.ones(1, 2, 2))


def test_conv_tbc_is_conv1d_on_time_batch_channel_layout():
    numtorch.manual_seed(0)
    x = numtorch.randn(7, 2, 3, dtype=numtorch.float64, requires_grad=True)
    w = numtorch.randn(3, 3, 4, dtype=numtorch.float64, requires_grad=True)
    b = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    out = F.conv_tbc(x, w, b, 1)
    xv, wv, bv = x.detach().numpy(), w.detach().numpy(), b.detach().numpy()
    xp = np.pad(xv, ((1, 1), (0, 0), (0, 0)))
    ref = np.stack([np.einsum("kbc,kco->bo", xp[t : t + 3], wv) for t in range(7)]) + bv
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    assert gradcheck(lambda a, c, d: F.conv_tbc(a, c, d, 1), (x, w, b))
    with pytest.raises(RuntimeError, match="Bias must be 1-D"):
        F.conv_tbc(x, w, b.reshape(4, 1))
