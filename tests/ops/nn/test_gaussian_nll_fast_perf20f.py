"""Note [Gaussian NLL's check and clamp]: F.gaussian_nll_loss checks and clamps var in NumPy
where nothing can see the ops, with the ops' bits (compared with the same call under a dispatch
mode, which takes the ops), and runs the ops otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.autograd import gradcheck
from numtorch.ops.nn import gaussian_nll_fast as G
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


def _spy(monkeypatch):
    calls = {"check": 0, "clamp": 0}
    neg, clamp = G.var_negative, G.clamp_clone

    def spy_neg(var):
        r = neg(var)
        calls["check"] += r is not None
        return r

    def spy_clamp(var, eps):
        r = clamp(var, eps)
        calls["clamp"] += r
        return r

    import numtorch.ops.nn.loss_margin as LM

    monkeypatch.setattr(LM, "var_negative", spy_neg)
    monkeypatch.setattr(LM, "clamp_clone", spy_clamp)
    return calls


def _inputs(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = np.asarray(rng.standard_normal(shape), dtype)
    t = np.asarray(rng.standard_normal(shape), dtype)
    v = np.asarray(np.abs(rng.standard_normal(shape)), dtype)
    flat = v.reshape(-1)
    if flat.size > 5:
        flat[0] = 0.0  # clamped up to eps
        flat[1] = 1e-7  # below eps (float32: below float32(1e-6) too)
        flat[2] = np.float32(1e-6)  # eps's float32 rounding itself
        flat[3] = np.nan  # propagated by clamp
        flat[4] = np.inf
        flat[5] = np.finfo(dtype).tiny / 4  # subnormal
    return x, t, v


def _loss(x, t, v, grad=False, mode=False, **kw):
    a = torch.from_numpy(x.copy()).requires_grad_(grad)
    b = torch.from_numpy(t.copy())
    c = torch.from_numpy(v.copy()).requires_grad_(grad)
    if mode:
        with LoggingTensorMode(), capture_logs() as logs:
            out = F.gaussian_nll_loss(a, b, c, **kw)
            if grad:
                out.sum().backward()
        assert any("clamp_" in line for line in logs), logs
    else:
        out = F.gaussian_nll_loss(a, b, c, **kw)
        if grad:
            out.sum().backward()
    return out, a.grad, c.grad


def _same(r, want):
    if want is None:
        assert r is None
        return
    assert r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
    assert r._data.tobytes() == want._data.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(3, 4), (7,), (2, 3, 5), ()])
@pytest.mark.parametrize("eps", [1e-6, 0.3, 2])
@pytest.mark.parametrize("grad", [False, True])
def test_numpy_route_gives_the_ops_bits(monkeypatch, dtype, reduction, shape, eps, grad):
    x, t, v = _inputs(shape, dtype)
    want = _loss(x, t, v, grad, mode=True, reduction=reduction, eps=eps, full=True)
    calls = _spy(monkeypatch)
    got = _loss(x, t, v, grad, reduction=reduction, eps=eps, full=True)
    assert calls == {"check": 1, "clamp": 1}
    for r, w in zip(got, want, strict=True):
        _same(r, w)


def test_clamp_matches_clamp_over_many_values():
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        v = np.concatenate([rng.standard_normal(500) * 1e-5, np.abs(rng.standard_normal(500)),
                            [np.nan, np.inf, 0.0, -0.0, 1e-6, np.float32(1e-6)]]).astype(dtype)  # fmt: skip
        for eps in (1e-6, 1e-8, 3e-7, 0.5):
            a = torch.from_numpy(v.copy())
            assert G.clamp_clone(a, eps)
            b = torch.from_numpy(v.copy())
            b.clamp_(min=eps)
            assert a._data.tobytes() == b._data.tobytes()


def test_clamp_bumps_the_version_counter():
    a = torch.ones(3)
    before = a._version
    assert G.clamp_clone(a, 1e-6)
    assert a._version == before + 1


@pytest.mark.parametrize("eps", [0.0, -1e-6, float("inf"), float("nan"), True, np.float64(1e-6)])
def test_unusual_eps_takes_the_op(eps):
    assert G.clamp_clone(torch.ones(3), eps) is False


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int64, torch.complex64])
def test_other_dtypes_take_the_ops(dtype):
    v = torch.ones(3, dtype=dtype)
    assert G.var_negative(v) is None
    assert G.clamp_clone(v.clone(), 1e-6) is False


def test_half_loss_takes_the_ops(monkeypatch):
    calls = _spy(monkeypatch)
    x = torch.randn(3, 4).half()
    r = F.gaussian_nll_loss(x, x, torch.ones(3, 4).half())
    assert calls == {"check": 0, "clamp": 0} and r.dtype == torch.float16


def test_readonly_memory_takes_the_op():
    v = torch.ones(3)
    v._data.flags.writeable = False
    assert G.clamp_clone(v, 1e-6) is False


def test_subclass_takes_the_ops():
    class Sub(torch.Tensor):
        pass

    v = torch.ones(3).as_subclass(Sub)
    assert G.var_negative(v) is None
    assert G.clamp_clone(v, 1e-6) is False


def test_negative_var_raises_on_both_routes():
    x = torch.zeros(3)
    v = torch.tensor([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, x, v)
    with LoggingTensorMode(), capture_logs():
        with pytest.raises(ValueError, match="var has negative entry"):
            F.gaussian_nll_loss(x, x, v)
    assert G.var_negative(torch.tensor([1.0, float("nan")])) is False


def test_a_kernel_registered_over_clamp_is_called():
    x = torch.zeros(2, 3)
    v = torch.full((2, 3), 1e-9)
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def kernel(self, min=None, max=None):
        seen.append(min)
        return self

    lib.impl("clamp_", kernel, "CPU")
    try:
        assert G.clamp_clone(v.clone(), 1e-6) is False and G.var_negative(v) is None
        F.gaussian_nll_loss(x, x, v)
        assert seen == [1e-6]
    finally:
        lib._destroy()
    assert G.clamp_clone(v.clone(), 1e-6) is True


def test_var_gradient_flows_through_the_clone():
    x = torch.randn(2, 3, dtype=torch.float64)
    t = torch.randn(2, 3, dtype=torch.float64)
    v = (torch.rand(2, 3, dtype=torch.float64) + 0.5).requires_grad_(True)
    out = F.gaussian_nll_loss(x, t, v)
    assert out.grad_fn is not None
    assert gradcheck(lambda v: F.gaussian_nll_loss(x, t, v), (v,))
