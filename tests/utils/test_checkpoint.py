"""numtorch.utils.checkpoint: recomputation gives the plain run's values and gradients."""

from __future__ import annotations

import pytest

import numtorch
from numtorch.utils.checkpoint import checkpoint, checkpoint_sequential


def _net():
    numtorch.manual_seed(0)
    return numtorch.nn.Sequential(numtorch.nn.Linear(4, 8), numtorch.nn.Dropout(0.5), numtorch.nn.Tanh(),
                                  numtorch.nn.Linear(8, 2)).double()  # fmt: skip


def _grads(net, x):
    return [p.grad.clone() for p in net.parameters()] + [x.grad.clone()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_values_and_gradients_match_the_plain_run_with_dropout(use_reentrant):
    net = _net()
    x = numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True)
    numtorch.manual_seed(1)
    ref = net(x).sum()
    ref.backward()
    want = _grads(net, x)
    net.zero_grad()
    x.grad = None
    numtorch.manual_seed(1)
    out = checkpoint(net, x, use_reentrant=use_reentrant).sum()
    out.backward()
    assert abs(out.item() - ref.item()) < 1e-12
    for a, b in zip(_grads(net, x), want):
        assert (a - b).abs().max().item() < 1e-12


def test_non_reentrant_reaches_parameters_without_input_grad():
    net = _net()
    checkpoint(net, numtorch.randn(3, 4, dtype=numtorch.float64), use_reentrant=False).sum().backward()
    assert net[0].weight.grad is not None


def test_reentrant_warns_without_grad_inputs_and_without_the_flag():
    net = _net()
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(net, numtorch.randn(3, 4, dtype=numtorch.float64), use_reentrant=True)
    assert not y.requires_grad
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        checkpoint(net, numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True))


def test_checkpoint_sequential_matches():
    net = _net().eval()
    x = numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True)
    ref = net(x)
    out = checkpoint_sequential(net, 2, x, use_reentrant=False)
    assert (out - ref).abs().max().item() < 1e-12
    out.sum().backward()
    assert x.grad is not None
