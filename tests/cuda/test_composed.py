"""Ops composed from CUDA ops (softmax, log_softmax, mse_loss and their backward ops) and a small
training step, CUDA against CPU."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(1)


def _pair(shape):
    h = rng.standard_normal(shape)
    return (numtorch.tensor(h, requires_grad=True),
            numtorch.tensor(h, device="cuda", requires_grad=True))  # fmt: skip


@pytest.mark.parametrize("fn", [lambda x: x.softmax(-1), lambda x: x.log_softmax(0), lambda x: F.softmax(x, 1)],
                         ids=["softmax", "log_softmax", "F.softmax"])  # fmt: skip
def test_softmax_family_values_and_gradients(fn):
    c, g = _pair((3, 4))
    w = numtorch.tensor(rng.standard_normal((3, 4)))
    (fn(c) * w).sum().backward()
    (fn(g) * w.cuda()).sum().backward()
    np.testing.assert_allclose(fn(g).detach().cpu().numpy(), fn(c).detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g.grad.cpu().numpy(), c.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_values_and_gradients(reduction):
    c, g = _pair((2, 3))
    t = rng.standard_normal((2, 3))
    lc = F.mse_loss(c, numtorch.tensor(t), reduction=reduction)
    lg = F.mse_loss(g, numtorch.tensor(t, device="cuda"), reduction=reduction)
    np.testing.assert_allclose(lg.detach().cpu().numpy(), lc.detach().numpy(), rtol=1e-12)
    lc.sum().backward()
    lg.sum().backward()
    np.testing.assert_allclose(g.grad.cpu().numpy(), c.grad.numpy(), rtol=1e-12)


def test_composed_ops_check_arguments_first():
    with pytest.raises(IndexError, match="Dimension out of range"):
        numtorch.ones(2, 3, device="cuda").softmax(2)


def test_mlp_training_steps_match_cpu():
    numtorch.manual_seed(0)
    cpu = numtorch.nn.Sequential(numtorch.nn.Linear(4, 6), numtorch.nn.ReLU(), numtorch.nn.Linear(6, 2)).double()
    gpu = numtorch.nn.Sequential(numtorch.nn.Linear(4, 6), numtorch.nn.ReLU(), numtorch.nn.Linear(6, 2)).double()
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    x, y = rng.standard_normal((5, 4)), rng.standard_normal((5, 2))
    losses = {}
    for name, m, dev in (("cpu", cpu, "cpu"), ("cuda", gpu, "cuda")):
        xs, ys = numtorch.tensor(x, device=dev), numtorch.tensor(y, device=dev)
        losses[name] = []
        for _ in range(2):
            m.zero_grad()
            loss = F.mse_loss(m(xs), ys)
            loss.backward()
            with numtorch.no_grad():
                for p in m.parameters():
                    p.sub_(p.grad * 0.1)
            losses[name].append(loss.item())
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-12)
    assert losses["cuda"][1] < losses["cuda"][0]
    assert all(p.device.type == "cuda" for p in gpu.parameters())


H = rng.standard_normal((3, 4))
_CALLS = {
    "fill_": lambda x: x.clone().fill_(2.5),
    "fill_ view": lambda x: _then(x.clone(), lambda y: y[:, 1].fill_(-1.0)),
    "zero_": lambda x: x.clone().zero_(),
    "setitem": lambda x: _then(x.clone(), lambda y: y.__setitem__((slice(None), 0), 7.0)),
    "cat": lambda x: numtorch.cat([x, x[:1], x[1:] * 2]),
    "cat dim1": lambda x: numtorch.cat([x, x.t().contiguous().t()], dim=1),
    "stack": lambda x: numtorch.stack([x, x + 1], dim=1),
    "any": lambda x: (x > 1).any(),
    "any dim": lambda x: (x > 0).any(1, keepdim=True),
    "all": lambda x: (x > -5).all(),
    "all dim": lambda x: (x > 0).all(0),
    "var": lambda x: x.var(),
    "var dim": lambda x: x.var(1, correction=0, keepdim=True),
    "std": lambda x: x.std(0),
    "outer": lambda x: numtorch.outer(x[0], x[1]),
}


def _then(t, fn):
    fn(t)
    return t


@pytest.mark.parametrize("name", list(_CALLS))
def test_composed_ops_match_cpu(name):
    fn = _CALLS[name]
    want = fn(numtorch.tensor(H))
    got = fn(numtorch.tensor(H, device="cuda"))
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_cat_checks_like_pytorch():
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        numtorch.cat([numtorch.ones(2, 3, device="cuda"), numtorch.ones(2, 4, device="cuda")])
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        numtorch.cat([numtorch.ones(2, device="cuda"), numtorch.ones(2)])
    r = numtorch.cat([numtorch.ones(2, device="cuda", dtype=numtorch.int64), numtorch.ones(1, device="cuda")])
    assert r.dtype == numtorch.float32 and r.cpu().tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, 0, float("inf"), -float("inf")])
def test_norm_over_dims_as_on_cpu(p):
    h = rng.standard_normal((3, 4)).astype(np.float32)
    h[0, 0] = 0.0
    x, xc = numtorch.tensor(h), numtorch.tensor(h, device="cuda")
    for dim in ((1,), (0, 1), (-2,)):
        np.testing.assert_allclose(xc.norm(p, dim).cpu().numpy(), x.norm(p, dim).numpy(), rtol=1e-6)
    # one element per output is |x| with no power and root: the float32 square of 1e-30 underflows
    t = numtorch.full((3, 1), 1e-30)
    want = np.full(3, 1.0 if p == 0 else 1e-30, np.float32)
    np.testing.assert_array_equal(t.norm(p, 1).numpy(), want)
    np.testing.assert_array_equal(t.cuda().norm(p, 1).cpu().numpy(), want)
