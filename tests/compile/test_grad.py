"""Compiled functions used in training give eager's gradients (Note [Compiled calls])."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck


def chain(x, y):
    return ((x * y + 1).tanh() - x.sigmoid()) * y.exp()


def test_gradients_equal_eager_and_gradcheck():
    cf = numtorch.compile(chain)
    x = numtorch.randn(4, 3, dtype=numtorch.float64, requires_grad=True)
    y = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    for _ in range(2):
        gx, gy = numtorch.autograd.grad(cf(x, y).sum(), (x, y))
        ex, ey = numtorch.autograd.grad(chain(x, y).sum(), (x, y))
        np.testing.assert_array_equal(gx.numpy(), ex.numpy())
        np.testing.assert_array_equal(gy.numpy(), ey.numpy())
    assert gradcheck(cf, (x, y))
    assert gradgradcheck(cf, (x, y))


def test_no_grad_call_of_the_same_inputs_is_fused_and_detached():
    cf = numtorch.compile(chain)
    x = numtorch.randn(5, requires_grad=True)
    y = numtorch.randn(5)
    with numtorch.no_grad():
        for _ in range(2):
            r = cf(x, y)
    assert not r.requires_grad
    np.testing.assert_array_equal(r.numpy(), chain(x, y).detach().numpy())


def test_training_loop_matches_eager():
    def run(compiled: bool):
        numtorch.manual_seed(0)
        m = numtorch.nn.Sequential(numtorch.nn.Linear(6, 16), numtorch.nn.GELU(), numtorch.nn.Linear(16, 3))
        step = numtorch.compile(m) if compiled else m
        opt = numtorch.optim.SGD(m.parameters(), lr=0.1)
        x, t = numtorch.randn(32, 6), numtorch.randint(0, 3, (32,))
        losses = []
        for _ in range(20):
            opt.zero_grad()
            loss = numtorch.nn.functional.cross_entropy(step(x), t)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    np.testing.assert_array_equal(run(True), run(False))
