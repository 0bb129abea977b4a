"""Optimizer updates on CUDA parameters: the CUDA twins of the fused CPU kernels (same element
functions) against the CPU, float64 and float32; a CPU kernel without a CUDA twin refuses."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
optim = numtorch.optim


def _train(make, dev, dtype=numtorch.float64, steps=2):
    numtorch.manual_seed(0)
    m = numtorch.nn.Linear(3, 2).to(dtype).to(dev)
    opt = make(m.parameters())
    x = numtorch.tensor(np.arange(12.0).reshape(4, 3) / 10, dtype=dtype, device=dev)
    for _ in range(steps):
        opt.zero_grad()
        m(x).pow(2).sum().backward()
        opt.step()
    return [p.detach().cpu().numpy() for p in m.parameters()], opt


_OPTS = {
    "sgd": lambda p: optim.SGD(p, lr=0.1),
    "sgd nesterov wd": lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "sgd dampening maximize": lambda p: optim.SGD(p, lr=0.1, momentum=0.5, dampening=0.3, maximize=True),
    "adam": lambda p: optim.Adam(p, lr=0.01, weight_decay=0.1),
    "adamw amsgrad": lambda p: optim.AdamW(p, lr=0.01, amsgrad=True),
    "rmsprop": lambda p: optim.RMSprop(p, lr=0.01, weight_decay=0.1),
    "rmsprop centered momentum": lambda p: optim.RMSprop(p, lr=0.01, momentum=0.9, centered=True),
    "rmsprop centered": lambda p: optim.RMSprop(p, lr=0.01, centered=True, maximize=True),
    "rmsprop momentum": lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5),
    "adagrad": lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5),
    "adadelta": lambda p: optim.Adadelta(p, lr=0.5, weight_decay=0.1),
    "adamax": lambda p: optim.Adamax(p, lr=0.01, weight_decay=0.1),
    "nadam decoupled": lambda p: optim.NAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    "radam": lambda p: optim.RAdam(p, lr=0.01, weight_decay=0.1),
    "asgd": lambda p: optim.ASGD(p, lr=0.01, t0=1),
    "rprop maximize": lambda p: optim.Rprop(p, lr=0.01, maximize=True),
}


@pytest.mark.parametrize("name", list(_OPTS))
def test_updates_match_cpu(name):
    want, _ = _train(_OPTS[name], "cpu")
    got, opt = _train(_OPTS[name], "cuda")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    for state in opt.state.values():
        for k, v in state.items():
            if isinstance(v, numtorch.Tensor) and v.dim():  # scalar states (step, mu_product) may be host ones
                assert v.device.type == "cuda", k


def test_float32_adam_matches_cpu():
    want, _ = _train(_OPTS["adam"], "cpu", numtorch.float32)
    got, _ = _train(_OPTS["adam"], "cuda", numtorch.float32)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


def test_non_contiguous_parameter_is_written_back():
    p = numtorch.nn.Parameter(numtorch.ones(3, 2, device="cuda", dtype=numtorch.float64).t())
    p.grad = numtorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device="cuda", dtype=numtorch.float64)
    optim.SGD([p], lr=0.5).step()
    np.testing.assert_allclose(p.detach().cpu().numpy(), 1 - 0.5 * np.array([[1.0, 2, 3], [4, 5, 6]]))


def test_kernel_without_cuda_twin_refuses():
    def lion_step(p, g, s, flags):  # a CPU kernel with no CUDA twin of its name
        pass

    from numtorch.cuda import _optim  # imported on a CUDA optimizer's first step: this test may run first

    with pytest.raises(NotImplementedError, match="the optimizer kernel lion_step has no CUDA version yet"):
        _optim.twin(lion_step)
