"""The fused CUDA nn kernels (Note [Fused CUDA nn kernels]): softmax/log_softmax, layer_norm and
nll_loss/cross_entropy, forward and backward, against the CPU, with their launch counts, and the
composed fallbacks for what they do not take."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(5)


def _run(fn, arrays, dev, grad=True):
    # the first ``grad`` arrays (all: True) are differentiated
    k = len(arrays) if grad is True else int(grad)
    ts = [numtorch.tensor(a, device=dev, requires_grad=i < k and a.dtype.kind == "f") for i, a in enumerate(arrays)]
    out = fn(*ts)
    if not k:
        return out, []
    (out * numtorch.tensor(rng_w(out), device=dev)).sum().backward()
    return out, [t.grad for t in ts if t.requires_grad]


def rng_w(out):
    # a fixed upstream gradient, the same on both devices (a plain sum's gradient hides errors in
    # softmax's backward, whose rows then sum to zero)
    return np.linspace(-1.0, 2.0, max(out.numel(), 1)).reshape(out.shape).astype(out.dtype.np if hasattr(
        out.dtype, "np") else np.float64)  # fmt: skip


def _compare(fn, *arrays, rtol=1e-10, grad=True):
    got, ggot = _run(fn, arrays, "cuda", grad)
    want, gwant = _run(fn, arrays, "cpu", grad)
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=rtol, atol=rtol)
    assert len(ggot) == len(gwant)
    for g, w in zip(ggot, gwant):
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=rtol, atol=rtol)


X = rng.standard_normal((5, 7))
X_INF = X.copy()
X_INF[1, 2:] = -math.inf  # a masked row, as causal attention's
X3 = rng.standard_normal((2, 3, 6))


@pytest.mark.parametrize("dt", [np.float64, np.float32])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_matches_cpu(dt, log):
    tol = 1e-10 if dt == np.float64 else 1e-5
    fn = (lambda x: x.log_softmax(-1)) if log else (lambda x: x.softmax(-1))
    _compare(fn, X.astype(dt), rtol=tol)
    _compare(fn, X3.astype(dt), rtol=tol)
    _compare(lambda x: x.softmax(1), X3.astype(dt), rtol=tol)  # an inner dim: the composed version
    if not log:
        _compare(fn, X_INF.astype(dt), rtol=tol)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_layer_norm_matches_cpu(dt):
    tol = 1e-10 if dt == np.float64 else 1e-5
    w, b = rng.standard_normal(6).astype(dt), rng.standard_normal(6).astype(dt)
    _compare(lambda x, w, b: F.layer_norm(x, (6,), w, b), X3.astype(dt), w, b, rtol=tol)
    _compare(lambda x: F.layer_norm(x, (6,)), X3.astype(dt), rtol=tol)
    _compare(lambda x, w: F.layer_norm(x, (6,), w), X3.astype(dt), w, rtol=tol)
    w2 = rng.standard_normal((3, 6)).astype(dt)
    _compare(lambda x, w: F.layer_norm(x, (3, 6), w, eps=1e-3), X3.astype(dt), w2, rtol=tol)
    _compare(lambda x, w, b: F.layer_norm(x, (6,), w, b), X3[0, 0].astype(dt), w, b, rtol=tol)  # one row


def test_layer_norm_backward_output_mask():
    x = numtorch.tensor(X3, device="cuda")
    w, b = numtorch.ones(6, dtype=numtorch.float64, device="cuda"), numtorch.zeros(6, dtype=numtorch.float64, device="cuda")
    y, mean, rstd = numtorch.ops.aten.native_layer_norm(x, [6], w, b, 1e-5)
    g = numtorch.ones_like(y)
    gi, gw, gb = numtorch.ops.aten.native_layer_norm_backward(g, x, [6], mean, rstd, w, b, [False, True, False])
    assert gi is None and gb is None
    xc = numtorch.tensor(X3)
    _, mc, rc = numtorch.ops.aten.native_layer_norm(xc, [6], w.cpu(), b.cpu(), 1e-5)
    np.testing.assert_allclose(mean.cpu().numpy(), mc.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rstd.cpu().numpy(), rc.numpy(), rtol=1e-12)
    _, gwc, _ = numtorch.ops.aten.native_layer_norm_backward(g.cpu(), xc, [6], mc, rc, w.cpu(), b.cpu(),
                                                             [False, True, False])  # fmt: skip
    np.testing.assert_allclose(gw.cpu().numpy(), gwc.numpy(), rtol=1e-10, atol=1e-12)


T = np.array([2, 0, 6, 3, 6])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_cross_entropy_matches_cpu(reduction, dt):
    tol = 1e-10 if dt == np.float64 else 1e-5
    wt = rng.uniform(0.5, 2.0, 7).astype(dt)
    _compare(lambda x, t: F.cross_entropy(x, t, reduction=reduction), X.astype(dt), T, rtol=tol)
    _compare(lambda x, t, w: F.cross_entropy(x, t, w, reduction=reduction), X.astype(dt), T, wt, rtol=tol, grad=1)
    _compare(lambda x, t: F.cross_entropy(x, t, reduction=reduction, ignore_index=6), X.astype(dt), T, rtol=tol)
    _compare(lambda x, t: F.nll_loss(x, t, reduction=reduction), X.astype(dt), T, rtol=tol)
    _compare(lambda x, t: F.nll_loss(x, t, reduction=reduction), X[0].astype(dt), T[0], rtol=tol)  # one sample


def test_nll_loss_all_ignored_and_zero_weight_with_minus_inf():
    _compare(lambda x, t: F.nll_loss(x, t, ignore_index=6), X, np.full(5, 6), grad=False)
    x = X.copy()
    x[0, 2] = -math.inf
    wt = np.ones(7)
    wt[2] = 0.0
    _compare(lambda x, t, w: F.nll_loss(x, t, w, reduction="sum"), x, T, wt, grad=False)


def _launches(monkeypatch, fn):
    from numtorch.cuda import _fused, _launch

    fn()  # first calls compile and cache
    n = [0]
    for mod in (_launch, _fused):
        real = mod.run
        monkeypatch.setattr(mod, "run", lambda *a, _r=real, **k: n.__setitem__(0, n[0] + 1) or _r(*a, **k))
    fn()
    monkeypatch.undo()
    return n[0]


def test_fused_ops_launch_once(monkeypatch):
    x = numtorch.tensor(X3, device="cuda")
    w, b = numtorch.ones(6, dtype=numtorch.float64, device="cuda"), numtorch.zeros(6, dtype=numtorch.float64, device="cuda")
    t = numtorch.tensor(T, device="cuda")
    assert _launches(monkeypatch, lambda: x.softmax(-1)) == 1
    assert _launches(monkeypatch, lambda: x.log_softmax(-1)) == 1
    assert _launches(monkeypatch, lambda: F.layer_norm(x, (6,), w, b)) == 1
    x2 = numtorch.tensor(X, device="cuda")
    assert _launches(monkeypatch, lambda: F.cross_entropy(x2, t)) == 2  # log_softmax, nll_loss
