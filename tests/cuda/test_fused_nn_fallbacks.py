"""Ops whose CPU route is a fused kernel (grid_sampler_2d, multi_margin_loss,
multilabel_margin_loss_forward and their backward ops, affine_grid_generator) keep their
composites on CUDA: values and gradients against CPU (each loss or sample feeds an affine_grid)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(3)

CASES = [
    ("multi_margin_loss", (3, 4), np.array([0, 3, 1]), {"p": 2, "margin": 0.5}),
    ("multilabel_margin_loss", (3, 4), np.array([[0, 3, -1, 1], [1, 1, 2, 0], [-1, 0, 0, 0]]), {}),
    ("grid_sample", (1, 2, 3, 3), rng.uniform(-1.2, 1.2, (1, 2, 2, 2)), {"align_corners": False}),
]


@pytest.mark.parametrize("name,shape,other,kw", CASES, ids=[c[0] for c in CASES])
def test_cuda_matches_cpu(name, shape, other, kw):
    h = rng.standard_normal(shape)
    res = []
    for dev in ("cpu", "cuda"):
        x = numtorch.tensor(h, device=dev, requires_grad=True)
        o = numtorch.tensor(other, device=dev, requires_grad=other.dtype.kind == "f")
        y = getattr(F, name)(x, o, **kw)
        theta = (y.reshape(-1)[:1] * numtorch.arange(1.0, 7.0, dtype=y.dtype, device=dev)).reshape(1, 2, 3)
        y = F.affine_grid(theta, (1, 1, 2, 3), align_corners=False)
        (y * y).sum().backward()
        res.append([y.detach().cpu().numpy(), x.grad.cpu().numpy()] + ([o.grad.cpu().numpy()] if o.grad is not None else []))
    for a, b in zip(*res, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
