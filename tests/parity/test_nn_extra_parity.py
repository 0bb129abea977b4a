"""Fractional max pooling, CrossMapLRN2d, AdaptiveLogSoftmaxWithLoss and linear_cross_entropy
against torch from the same inputs, samples and weights."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numtorch  # noqa: E402


@pytest.mark.parametrize("nd,dtype", [(2, np.float32), (2, np.float64), (3, np.float32)])
def test_fractional_max_pool_values_indices_grads(nd, dtype):
    rng = np.random.default_rng(nd)
    xv = rng.standard_normal((2, 3) + (11,) * nd).astype(dtype)
    u = rng.random((2, 3, nd)).astype(dtype)
    g = rng.standard_normal((2, 3) + (4, 5, 6)[:nd]).astype(dtype)
    res = []
    for lib in (numtorch, torch):
        x = lib.tensor(xv, requires_grad=True)
        fn = getattr(lib.nn.functional, f"fractional_max_pool{nd}d")
        out, idx = fn(x, 3, output_size=(4, 5, 6)[:nd], return_indices=True, _random_samples=lib.tensor(u))
        out.backward(lib.tensor(g))
        res.append((out.detach().numpy(), idx.numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-6)


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_cross_map_lrn2d(size):
    rng = np.random.default_rng(size)
    xv, g = rng.standard_normal((2, 7, 3, 3)), rng.standard_normal((2, 7, 3, 3))
    res = []
    for lib in (numtorch, torch):
        x = lib.tensor(xv, requires_grad=True)
        y = lib.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=2)(x)
        y.backward(lib.tensor(g))
        res.append((y.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-12)


def test_adaptive_log_softmax_from_torch_weights():
    torch.manual_seed(0)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[4, 8], div_value=2.0, head_bias=True)
    nm = numtorch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[4, 8], div_value=2.0, head_bias=True)
    nm.load_state_dict({k: numtorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal((7, 8)).astype(np.float32), np.array([0, 5, 11, 3, 7, 8, 1])
    a, b = nm(numtorch.tensor(x), numtorch.tensor(t)), tm(torch.tensor(x), torch.tensor(t))
    np.testing.assert_allclose(a.output.detach().numpy(), b.output.detach().numpy(), rtol=1e-5, atol=1e-6)
    a.loss.backward()
    b.loss.backward()
    for (n, p), (_, q) in zip(nm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=n)
    np.testing.assert_allclose(nm.log_prob(numtorch.tensor(x)).detach().numpy(),
                               tm.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)  # fmt: skip
    assert nm.predict(numtorch.tensor(x)).tolist() == tm.predict(torch.tensor(x)).tolist()


def test_linear_cross_entropy():
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((5, 3)), rng.standard_normal((6, 3)), rng.standard_normal(6)
    t = np.array([0, 5, 2, 2, 1])
    vals = [lib.nn.functional.linear_cross_entropy(lib.tensor(x), lib.tensor(w), lib.tensor(t), linear_bias=lib.tensor(b),
                                                   label_smoothing=0.2, ignore_index=2).item()
            for lib in (numtorch, torch)]  # fmt: skip
    assert abs(vals[0] - vals[1]) < 1e-12


def test_muon_close_to_torch_bfloat16_iteration():
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((6, 4)).astype(np.float32)
    grads = [rng.standard_normal((6, 4)).astype(np.float32) for _ in range(3)]
    res = []
    for lib in (numtorch, torch):
        w = lib.nn.Parameter(lib.tensor(w0))
        opt = lib.optim.Muon([w], lr=0.02, adjust_lr_fn="match_rms_adamw")
        for g in grads:
            w.grad = lib.tensor(g)
            opt.step()
        res.append(w.detach().numpy())
    # torch iterates in bfloat16, numtorch in float32: equal to bfloat16's precision
    np.testing.assert_allclose(res[0], res[1], atol=3e-3)
    assert np.abs(res[1] - w0).max() > 0.02  # the step moved the weights well beyond the tolerance
