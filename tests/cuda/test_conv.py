"""conv1d/conv2d/conv_transpose2d, unfold/fold and max/avg/adaptive-avg pooling on CUDA against the CPU, values and
gradients (float64, tiny sizes: the simulator runs a Python thread per CUDA thread)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(7)
X = rng.standard_normal((1, 2, 4, 4))
X[0, 1, 2, 2] = np.nan  # pooling: NaN wins the max, as in PyTorch
XF = np.nan_to_num(X)
X1 = rng.standard_normal((2, 2, 5))
W = rng.standard_normal((2, 1, 2, 2))


def _run(fn, arrays, dev):
    ts = [numtorch.tensor(a, device=dev, requires_grad=True) for a in arrays]
    out = fn(*ts)
    w = numtorch.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape), device=dev)
    (out * w).sum().backward()
    return [out.detach()] + [t.grad for t in ts]


_CALLS = {
    "conv2d groups stride pad dilation bias": (
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
        [XF, W, rng.standard_normal(2)]),
    "conv1d": (lambda x, w: F.conv1d(x, w, padding=1, stride=2), [X1, rng.standard_normal((1, 2, 2))]),
    "conv_transpose2d": (lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
                         [XF[:, :, :2, :3], rng.standard_normal((2, 1, 2, 2))]),
    "unfold": (lambda x: F.unfold(x, (2, 3), dilation=(1, 1), padding=1, stride=(2, 1)), [XF]),
    "fold": (lambda x: F.fold(x, (3, 4), 2, padding=(0, 1), stride=2), [rng.standard_normal((1, 8, 3))]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, 2, 1), [XF]),
    "max_pool2d nan dilation ceil": (lambda x: F.max_pool2d(x, 2, 2, dilation=2, ceil_mode=True), [X]),
    "max_pool1d": (lambda x: F.max_pool1d(x, 2), [X1]),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, 2, 1), [XF]),
    "avg_pool2d no pad count ceil": (lambda x: F.avg_pool2d(x, 2, 2, 1, ceil_mode=True, count_include_pad=False),
                                     [XF]),
    "avg_pool2d divisor": (lambda x: F.avg_pool2d(x, 2, 1, divisor_override=3), [XF]),
    "adaptive_avg_pool2d overlapping": (lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [XF[:, :, :, :3]]),
    "adaptive_avg_pool2d larger": (lambda x: F.adaptive_avg_pool2d(x, (5, 1)), [XF[:, :1, :3]]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(_CALLS))
def test_values_and_grads_match_cpu(name):
    fn, arrays = _CALLS[name]
    want, got = _run(fn, arrays, "cpu"), _run(fn, arrays, "cuda")
    for g, w in zip(got, want, strict=True):
        assert g.device.type == "cuda" and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-10, atol=1e-12, equal_nan=True)


def test_errors_are_pytorchs():
    x = numtorch.tensor(XF, device="cuda")
    w = numtorch.tensor(W, device="cuda")
    with pytest.raises(RuntimeError, match=r"expected input\[1, 2, 4, 4\] to have 1 channels, but got 2 channels"):
        F.conv2d(x, w)
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        F.conv2d(x, numtorch.zeros(1, 2, 5, 5, dtype=numtorch.float64, device="cuda"))
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        F.conv2d(x, numtorch.tensor(W), groups=2)


def _cnn_run(x, dev):
    numtorch.manual_seed(0)
    nn = numtorch.nn
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8, 3))
    model = model.double().to(dev)
    opt = numtorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    xt, t = numtorch.tensor(x, device=dev), numtorch.tensor([0, 2], device=dev)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = F.cross_entropy(model(xt), t)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().cpu().numpy() for p in model.parameters()]


def test_small_cnn_trains_as_on_cpu():
    x = rng.standard_normal((2, 1, 6, 6))
    want, got = _cnn_run(x, "cpu"), _cnn_run(x, "cuda")
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    for g, w in zip(got[1], want[1], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_half_conv_and_pools_compute_in_float32():
    # Note [Half convolution and pooling on CUDA]: the float32 result of the half values, rounded once
    F = numtorch.nn.functional
    g = np.random.default_rng(0)
    x = numtorch.from_numpy(g.standard_normal((2, 2, 6, 6)).astype(np.float16))
    w = numtorch.from_numpy(g.standard_normal((3, 2, 3, 3)).astype(np.float16))
    xc, wc = x.cuda().requires_grad_(), w.cuda().requires_grad_()
    xf, wf = x.float().requires_grad_(), w.float().requires_grad_()
    got, want = F.conv2d(xc, wc, padding=1), F.conv2d(xf, wf, padding=1)
    assert got.dtype is numtorch.float16
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().half().numpy())
    got.float().sum().backward()
    want.sum().backward()
    assert xc.grad.dtype is numtorch.float16
    np.testing.assert_array_equal(wc.grad.cpu().numpy(), wf.grad.half().numpy())
    for pool in (lambda t: F.max_pool2d(t, 2), lambda t: F.avg_pool2d(t, 3, 1, 1), lambda t: F.adaptive_avg_pool2d(t, 4)):
        r = pool(x.cuda())
        assert r.dtype is numtorch.float16
        np.testing.assert_array_equal(r.cpu().numpy(), pool(x.float()).half().numpy())
    with pytest.raises(RuntimeError) as cpu_error:  # mixed dtypes: the op's own check, as on the CPU
        F.conv2d(x, w.float())
    with pytest.raises(RuntimeError, match=str(cpu_error.value)):
        F.conv2d(xc.detach(), wc.detach().float())


def test_conv3d_values_and_grads_match_cpu():
    # Note [CUDA conv3d by depth taps]: depth stride, padding and dilation pick the taps' runs
    g = np.random.default_rng(3)
    x, w, b = g.standard_normal((1, 2, 5, 3, 4)), g.standard_normal((4, 1, 3, 2, 2)), g.standard_normal(4)
    got, want = (_run(lambda x, w, b: F.conv3d(x, w, b, (2, 1, 1), (1, 0, 1), (1, 1, 2), 2), [x, w, b], dev)
                 for dev in ("cuda", "cpu"))  # fmt: skip
    for a, c in zip(got, want):
        np.testing.assert_allclose(a.cpu().numpy(), c.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kw", [dict(stride=(2, 1, 1), padding=(1, 0, 1), output_padding=(1, 0, 0), groups=2),
                                dict(stride=(1, 2, 1), padding=(0, 1, 0), dilation=(2, 1, 1))])  # fmt: skip
def test_conv_transpose3d_values_and_grads_match_cpu(kw):
    # Note [CUDA conv3d by depth taps], transposed: each tap's run lands on a strided output slice
    g = np.random.default_rng(5)
    # weight (C_in, C_out / groups, KD, KH, KW): two output channels either way
    x, w = g.standard_normal((1, 2, 3, 3, 2)), g.standard_normal((2, 2 // kw.get("groups", 1), 2, 2, 2))
    b = g.standard_normal(2)
    got, want = (_run(lambda x, w, b: F.conv_transpose3d(x, w, b, **kw), [x, w, b], dev) for dev in ("cuda", "cpu"))
    for a, c in zip(got, want):
        assert a.shape == c.shape
        np.testing.assert_allclose(a.cpu().numpy(), c.numpy(), rtol=1e-10, atol=1e-12)


def test_max_pool3d_values_indices_and_grads_match_cpu():
    # Note [CUDA max_pool3d by depth taps]: NaN wins, ties keep the first position (d, h, w)
    x = np.random.default_rng(4).standard_normal((1, 2, 5, 4, 5))
    x[0, 1, 2, 2, 2], x[0, 0, 1, 1, 1] = np.nan, x[0, 0, 1, 1, 2]
    outs = []
    for dev in ("cpu", "cuda"):
        t = numtorch.tensor(x, device=dev, requires_grad=True)
        y, i = F.max_pool3d(t, (3, 2, 2), (2, 1, 2), (1, 1, 0), ceil_mode=True, return_indices=True)
        (numtorch.nan_to_num(y) * numtorch.linspace(-1, 1, y.numel(), device=dev, dtype=y.dtype).reshape(y.shape)).sum().backward()
        outs.append([a.detach().cpu().numpy() for a in (y, i, t.grad)])
    for got, want in zip(outs[1], outs[0]):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kw", [dict(count_include_pad=True), dict(count_include_pad=False), dict(divisor_override=3)])
def test_avg_pool3d_values_and_grads_match_cpu(kw):
    # Note [CUDA avg_pool3d by depth taps]: the divisor's three cases
    x = np.random.default_rng(5).standard_normal((1, 2, 5, 4, 5))
    got, want = (_run(lambda t: F.avg_pool3d(t, (3, 2, 3), (2, 1, 2), 1, ceil_mode=True, **kw), [x], dev)
                 for dev in ("cuda", "cpu"))  # fmt: skip
    for a, c in zip(got, want):
        np.testing.assert_allclose(a.cpu().numpy(), c.numpy(), rtol=1e-12, atol=1e-14)
