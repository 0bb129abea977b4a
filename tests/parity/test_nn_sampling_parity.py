"""affine_grid and grid_sample against torch: values and both gradients for every mode, padding
mode and align_corners, 4-D and 5-D; error texts."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
F, TF = numtorch.nn.functional, torch.nn.functional
_rng = np.random.default_rng(11)

GRID = [((2, 3, 5, 6), (2, 4, 7, 2), m) for m in ("bilinear", "nearest", "bicubic")] + [
    ((2, 2, 4, 5, 3), (2, 3, 2, 4, 3), m) for m in ("bilinear", "nearest")
]


@pytest.mark.parametrize("shape,gshape,mode", GRID)
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_torch(shape, gshape, mode, padding_mode, align_corners):
    x, g = _rng.standard_normal(shape), _rng.uniform(-1.3, 1.3, gshape)
    xn, gn = numtorch.from_numpy(x.copy()).requires_grad_(), numtorch.from_numpy(g.copy()).requires_grad_()
    xt, gt = torch.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(g.copy()).requires_grad_()
    kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    a, b = F.grid_sample(xn, gn, **kw), TF.grid_sample(xt, gt, **kw)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    go = _rng.standard_normal(tuple(b.shape))
    a.backward(numtorch.from_numpy(go)), b.backward(torch.from_numpy(go))
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    if mode == "nearest" and len(shape) == 5:
        # torch returns a zero grid gradient; the 5-D composite leaves the grid out of the graph
        assert gn.grad is None and not gt.grad.any()
    else:
        np.testing.assert_allclose(gn.grad.numpy(), gt.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_grid_sample_2d_double_backward_matches_torch():
    x, g = _rng.standard_normal((1, 2, 4, 3)), _rng.uniform(-1.2, 1.2, (1, 3, 2, 2))
    out = []
    for lib in (numtorch, torch):
        xl, gl = lib.from_numpy(x.copy()).requires_grad_(), lib.from_numpy(g.copy()).requires_grad_()
        y = lib.nn.functional.grid_sample(xl, gl, padding_mode="border", align_corners=False)
        gx, gg = lib.autograd.grad((y * y).sum(), (xl, gl), create_graph=True)
        out.append([t.detach().numpy() for t in (gx, gg, *lib.autograd.grad((gx * gx).sum() + gg.sum(), (xl, gl)))])
    for a, b in zip(*out, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_grid_sample_float32_matches_torch():
    x, g = _rng.standard_normal((2, 3, 8, 9)).astype(np.float32), _rng.uniform(-1, 1, (2, 5, 6, 2)).astype(np.float32)
    a = F.grid_sample(numtorch.from_numpy(x), numtorch.from_numpy(g), align_corners=False)
    b = TF.grid_sample(torch.from_numpy(x), torch.from_numpy(g), align_corners=False)
    assert a.dtype is numtorch.float32
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (2, 1, 2, 3, 4), (1, 2, 1, 1, 1)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(size, align_corners):
    nd = len(size) - 2
    th = _rng.standard_normal((size[0], nd, nd + 1))
    tn, tt = numtorch.from_numpy(th.copy()).requires_grad_(), torch.from_numpy(th.copy()).requires_grad_()
    a, b = F.affine_grid(tn, size, align_corners=align_corners), TF.affine_grid(tt, size, align_corners=align_corners)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)
    a.sum().backward(), b.sum().backward()
    np.testing.assert_allclose(tn.grad.numpy(), tt.grad.numpy(), rtol=1e-12, atol=1e-12)


ERRORS = [
    lambda L, F: F.grid_sample(L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 2), mode="area"),
    lambda L, F: F.grid_sample(L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 2), padding_mode="edge"),
    lambda L, F: F.grid_sample(L.ones(1, 1, 2, 2, 2), L.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 2, 2, dtype=L.int64), L.zeros(1, 1, 1, 2, dtype=L.int64), align_corners=True),
    lambda L, F: L.ops.aten.grid_sampler_2d(L.ones(1, 1, 2, 2, 2), L.zeros(1, 1, 1, 1, 3), 0, 0, False),
    lambda L, F: L.ops.aten.grid_sampler_2d(L.ones(1, 1, 2, 2), L.zeros(2, 1, 1, 2), 0, 0, False),
    lambda L, F: L.ops.aten.grid_sampler_2d(L.ones(1, 1, 0, 2), L.zeros(1, 1, 1, 2), 0, 0, False),
    lambda L, F: F.affine_grid(L.ones(1, 2, 2), (1, 1, 2, 2), align_corners=False),
    lambda L, F: F.affine_grid(L.ones(1, 3, 3), (1, 1, 2, 2, 2), align_corners=False),
    lambda L, F: F.affine_grid(L.ones(1, 2, 3, dtype=L.int64), (1, 1, 2, 2), align_corners=False),
    lambda L, F: F.affine_grid(L.ones(1, 2, 3), (1, 1, 0, 2), align_corners=False),
]


def _outcome(lib, fn):
    try:
        fn(lib, lib.nn.functional)
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return type(e).__name__, str(e)
    return "ok", ""


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    assert _outcome(numtorch, ERRORS[i]) == _outcome(torch, ERRORS[i])
