"""grid_sample / affine_grid gradients (gradcheck in float64, both operands), the error texts,
and gumbel_softmax's distribution and straight-through gradient."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

F = numtorch.nn.functional


def _t(a):
    return numtorch.from_numpy(a).requires_grad_(True)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d_gradcheck(mode, padding_mode, align_corners):
    rng = np.random.default_rng(1)
    x, g = _t(rng.standard_normal((1, 2, 3, 3))), _t(rng.uniform(-0.9, 0.9, (1, 2, 2, 2)))
    fn = lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners)  # noqa: E731
    assert gradcheck(fn, (x, g), eps=1e-6, atol=1e-5)


def test_grid_sample_3d_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(2)
    x, g = _t(rng.standard_normal((1, 1, 2, 3, 2))), _t(rng.uniform(-0.9, 0.9, (1, 1, 2, 1, 3)))
    fn = lambda x, g: F.grid_sample(x, g, align_corners=False)  # noqa: E731
    assert gradcheck(fn, (x, g), eps=1e-6, atol=1e-5)
    assert gradgradcheck(fn, (x, g), eps=1e-6, atol=1e-5)


def test_affine_grid_gradcheck():
    theta = _t(np.random.default_rng(3).standard_normal((2, 2, 3)))
    assert gradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), (theta,))


def test_identity_affine_grid_samples_the_input_back():
    x = numtorch.randn(2, 3, 5, 4, dtype=numtorch.float64)
    theta = numtorch.tensor([[[1.0, 0, 0], [0, 1, 0]]] * 2, dtype=numtorch.float64)
    for ac in (False, True):
        grid = F.affine_grid(theta, x.shape, align_corners=ac)
        np.testing.assert_allclose(F.grid_sample(x, grid, align_corners=ac).numpy(), x.numpy(), atol=1e-12)


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda: F.grid_sample(numtorch.ones(1, 1, 2, 2), numtorch.zeros(1, 1, 1, 2), mode="area"), ValueError,
         "expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'area'"),
        (lambda: F.grid_sample(numtorch.ones(1, 1, 2, 2), numtorch.zeros(1, 1, 1, 2), padding_mode="edge"),
         ValueError, "expected padding_mode to be 'zeros', 'border', or 'reflection'"),
        (lambda: F.grid_sample(numtorch.ones(1, 1, 2, 2), numtorch.zeros(1, 1, 1, 3), align_corners=False),
         RuntimeError, "expected grid to have size 2 in last dimension"),
        (lambda: F.grid_sample(numtorch.ones(1, 1, 2, 2, 2), numtorch.zeros(1, 1, 1, 1, 3), mode="bicubic",
                               align_corners=False), RuntimeError, "bicubic interpolation only supports 4D input"),
        (lambda: F.affine_grid(numtorch.ones(1, 2, 2), (1, 1, 2, 2), align_corners=False), ValueError,
         "Expected a batch of 2D affine matrices of shape Nx2x3"),
        (lambda: F.affine_grid(numtorch.ones(1, 2, 3), (1, 1, 2), align_corners=False), NotImplementedError,
         "affine_grid only supports 4D and 5D sizes"),
    ],
)  # fmt: skip
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_align_corners_none_warns():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(numtorch.ones(1, 1, 2, 2), numtorch.zeros(1, 1, 1, 2))


def test_gumbel_softmax_soft_and_hard():
    numtorch.manual_seed(0)
    logits = numtorch.log(numtorch.tensor([0.1, 0.3, 0.6], dtype=numtorch.float64)).expand(20000, 3)
    hard = F.gumbel_softmax(logits, hard=True)
    assert set(np.unique(hard.numpy())) == {0.0, 1.0}
    # the Gumbel-max trick: argmax frequencies follow softmax(logits)
    np.testing.assert_allclose(hard.numpy().mean(0), [0.1, 0.3, 0.6], atol=0.015)
    soft = F.gumbel_softmax(logits[:5], tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).numpy(), np.ones(5), rtol=1e-12)
    x = logits[:4].clone().requires_grad_(True)
    y = F.gumbel_softmax(x, hard=True)
    (y * numtorch.arange(3.0, dtype=numtorch.float64)).sum().backward()
    assert x.grad is not None and np.abs(x.grad.numpy()).sum() > 0  # straight-through: soft sample's gradient
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(logits[:1], eps=1e-5)


@pytest.mark.parametrize("size", [(2, 1, 3, 4), (3, 2, 1, 5), (2, 1, 2, 3, 4), (1, 1, 1, 1, 1)])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dt", [numtorch.float32, numtorch.float64, numtorch.float16])
def test_affine_grid_generator_matches_its_composite(size, align_corners, dt):
    # Note [affine_grid_generator is one op]: the NumPy base grid is the composite's, value for value
    from numtorch.ops.nn import sampling

    nd = len(size) - 2
    theta = numtorch.from_numpy(np.random.default_rng(6).standard_normal((size[0], nd, nd + 1))).to(dt)
    got = F.affine_grid(theta, size, align_corners=align_corners)
    want = sampling._affine_grid_generator(theta, list(size), align_corners)
    assert got.dtype == dt and got.shape == want.shape
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=1e-6 if dt != numtorch.float64 else 1e-15)


@pytest.mark.parametrize("size", [(2, 1, 3, 4), (1, 1, 2, 2, 3)])
def test_affine_grid_gradgradcheck_and_meta(size):
    nd = len(size) - 2
    theta = _t(np.random.default_rng(7).standard_normal((size[0], nd, nd + 1)))
    assert gradgradcheck(lambda t: F.affine_grid(t, size, align_corners=True), (theta,))
    meta = numtorch.empty(size[0], nd, nd + 1, device="meta")
    assert F.affine_grid(meta, size, align_corners=False).shape == (size[0], *size[2:], nd)
