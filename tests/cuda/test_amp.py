"""amp on CUDA: autocast("cuda") records its state (Note [Autocast is state only]) instead of
disabling itself, and GradScaler("cuda") scales, unscales and skips inf steps on CUDA tensors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda


def test_autocast_cuda_is_enabled_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with numtorch.autocast("cuda"):
            assert numtorch.is_autocast_enabled("cuda")
        with numtorch.cuda.amp.autocast():
            assert numtorch.is_autocast_enabled()
    assert not numtorch.is_autocast_enabled("cuda")


# the simulator computes with NumPy scalars, in its own threads: inf * 0 warns there
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_grad_scaler_on_cuda_tensors():
    p = numtorch.nn.Parameter(numtorch.ones(3, device="cuda", dtype=numtorch.float64))
    opt = numtorch.optim.SGD([p], lr=0.5)
    scaler = numtorch.amp.GradScaler("cuda", init_scale=4.0)
    assert scaler.is_enabled()
    scaler.scale((p * numtorch.tensor([1.0, 2.0, 3.0], device="cuda", dtype=numtorch.float64)).sum()).backward()
    np.testing.assert_allclose(p.grad.cpu().numpy(), [4.0, 8.0, 12.0])
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(p.detach().cpu().numpy(), [0.5, 0.0, -0.5])
    opt.zero_grad()
    scaler.scale(p.sum() * float("inf")).backward()
    scaler.step(opt)  # skipped: inf gradients
    scaler.update()
    np.testing.assert_allclose(p.detach().cpu().numpy(), [0.5, 0.0, -0.5])
    assert scaler.get_scale() == 2.0
