"""Gradient clipping of CUDA gradients (Note [CUDA gradient clipping]): the few-launch path
against the CPU's clipping for norm types 2, 1 and inf, foreach on and off, one-element and
single gradients (eager's magnitude, not a rounded root of its square), non-finite norms, and the
cases that keep eager's path (mixed dtypes, strided gradients, half)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.cuda import _clip

from ._sim import requires_cuda

pytestmark = requires_cuda
clip_grad_norm_ = numtorch.nn.utils.clip_grad_norm_

_SHAPES = [(3, 5), (70,), (1,), (2, 2, 3), (200,)]


def _params(dev, dtype=numtorch.float32, shapes=_SHAPES, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    ps = []
    for shp in shapes:
        p = numtorch.nn.Parameter(numtorch.zeros(shp, dtype=dtype, device=dev))
        p.grad = numtorch.tensor(rng.standard_normal(shp) * scale, dtype=dtype, device=dev)
        ps.append(p)
    return ps


def _grads(ps):
    return [p.grad.cpu().numpy() for p in ps]


def _count_fast(monkeypatch):
    calls = {"norm": 0, "scale": 0}
    norm, scale = _clip.total_norm, _clip.scale_

    def counted_norm(*a):
        r = norm(*a)
        calls["norm"] += r is not None
        return r

    def counted_scale(*a):
        r = scale(*a)
        calls["scale"] += r
        return r

    monkeypatch.setattr(_clip, "total_norm", counted_norm)
    monkeypatch.setattr(_clip, "scale_", counted_scale)
    return calls


@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, "inf"])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_matches_cpu(monkeypatch, dtype, norm_type, foreach):
    calls = _count_fast(monkeypatch)
    norm_type = float(norm_type)
    cuda, cpu = _params("cuda", dtype), _params("cpu", dtype)
    tc = clip_grad_norm_(cuda, 0.5, norm_type, foreach=foreach)
    tp = clip_grad_norm_(cpu, 0.5, norm_type, foreach=foreach)
    assert calls == {"norm": 1, "scale": 1}
    assert tc.device.type == "cuda" and tc.dtype == dtype and tc.shape == ()
    rtol = 1e-6 if dtype == numtorch.float32 else 1e-13
    np.testing.assert_allclose(tc.cpu().numpy(), tp.numpy(), rtol=rtol)
    want = np.linalg.norm(
        np.concatenate([g.ravel() for g in _grads(_params("cpu", numtorch.float64))]), norm_type
    )
    np.testing.assert_allclose(float(tc), want, rtol=1e-5)
    for gc, gp in zip(_grads(cuda), _grads(cpu), strict=True):
        np.testing.assert_allclose(gc, gp, rtol=rtol, atol=1e-30)
    np.testing.assert_allclose(
        float(numtorch.nn.utils.get_total_norm([p.grad for p in cuda], norm_type)), 0.5, rtol=1e-5
    )


def test_small_norm_leaves_gradients_and_bumps_versions():
    cuda = _params("cuda", scale=1e-3)
    before, versions = _grads(cuda), [p.grad._version for p in cuda]
    clip_grad_norm_(cuda, 10.0)
    for b, a in zip(before, _grads(cuda), strict=True):
        np.testing.assert_array_equal(a, b)  # coefficient clamped to exactly 1
    assert [p.grad._version for p in cuda] == [v + 1 for v in versions]


def test_one_gradient_and_one_element_match_eager_exactly():
    # eager's norm of one element is its magnitude, not the root of its rounded square
    for shapes in ([(1,)], [(1,), (1,)], [(7,)]):
        for nt in (2.0, 1.0, math.inf):
            cuda = _params("cuda", shapes=shapes, seed=3, scale=1.7)
            grads = [p.grad for p in cuda]
            fast = numtorch.nn.utils.get_total_norm(grads, nt)
            norms = [numtorch.linalg.vector_norm(g, nt) for g in grads]
            eager = numtorch.linalg.vector_norm(numtorch.stack(norms), nt)
            assert float(fast) == float(eager), (shapes, nt)


def test_large_gradient_many_chunks():
    # more elements than one block's chunk: several partials per gradient
    cuda, cpu = _params("cuda", shapes=[(1000,), (3,)]), _params("cpu", shapes=[(1000,), (3,)])
    for nt in (2.0, 1.0, math.inf):
        a = numtorch.nn.utils.get_total_norm([p.grad for p in cuda], nt)
        b = numtorch.nn.utils.get_total_norm([p.grad for p in cpu], nt)
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-6)


@pytest.mark.filterwarnings("ignore:invalid value encountered")
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_nonfinite(bad):
    for nt in (2.0, 1.0, math.inf):
        cuda = _params("cuda")
        g = cuda[1].grad.cpu()
        g[3] = bad
        cuda[1].grad = g.cuda()
        with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
            clip_grad_norm_(cuda, 1.0, nt, error_if_nonfinite=True)
        total = clip_grad_norm_(cuda, 1.0, nt)
        want = math.nan if math.isnan(bad) else math.inf
        assert float(total) == want or (math.isnan(want) and math.isnan(float(total)))
        cpu = _params("cpu")
        gp = cpu[1].grad
        gp[3] = bad
        clip_grad_norm_(cpu, 1.0, nt)
        for a, b in zip(_grads(cuda), _grads(cpu), strict=True):
            np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_eager_paths_still_agree(monkeypatch):
    calls = _count_fast(monkeypatch)
    # mixed dtypes, a strided gradient, half, other norm types: eager's path, same values as CPU
    for make in (
        lambda dev: (
            _params(dev, numtorch.float32, [(3, 4)]) + _params(dev, numtorch.float64, [(5,)])
        ),
        lambda dev: _params(dev, numtorch.float16, [(3, 4), (5,)]),
    ):
        for nt in (2.0, 3.0, math.inf):
            cuda, cpu = make("cuda"), make("cpu")
            a, b = clip_grad_norm_(cuda, 0.3, nt), clip_grad_norm_(cpu, 0.3, nt)
            np.testing.assert_allclose(
                a.cpu().numpy().astype(float), b.numpy().astype(float), rtol=2e-3
            )
            for gc, gp in zip(_grads(cuda), _grads(cpu), strict=True):
                np.testing.assert_allclose(gc.astype(float), gp.astype(float), rtol=2e-3, atol=1e-6)
    cuda, cpu = _params("cuda", shapes=[(3, 3)]), _params("cpu", shapes=[(3, 3)])
    for ps in (cuda, cpu):
        ps[0].grad = ps[0].grad.detach().t()  # strided
    a, b = clip_grad_norm_(cuda, 0.3), clip_grad_norm_(cpu, 0.3)
    np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-6)
    np.testing.assert_allclose(_grads(cuda)[0], _grads(cpu)[0], rtol=1e-6)
    assert calls == {"norm": 0, "scale": 0}


def test_clip_grads_with_norm_given_total():
    cuda, cpu = _params("cuda"), _params("cpu")
    numtorch.nn.utils.clip_grads_with_norm_(cuda, 1.0, numtorch.tensor(7.5, device="cuda"))
    numtorch.nn.utils.clip_grads_with_norm_(cpu, 1.0, numtorch.tensor(7.5))
    for a, b in zip(_grads(cuda), _grads(cpu), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # a total of another dtype: eager's coefficient, cast by mul_
    cuda, cpu = _params("cuda"), _params("cpu")
    numtorch.nn.utils.clip_grads_with_norm_(
        cuda, 1.0, numtorch.tensor(7.5, dtype=numtorch.float64, device="cuda")
    )
    numtorch.nn.utils.clip_grads_with_norm_(cpu, 1.0, numtorch.tensor(7.5, dtype=numtorch.float64))
    for a, b in zip(_grads(cuda), _grads(cpu), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
