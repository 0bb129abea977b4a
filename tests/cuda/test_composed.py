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
