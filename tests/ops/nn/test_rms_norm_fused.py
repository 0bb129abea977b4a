"""Note [Fused rms_norm forward]: the one-kernel forward agrees with the composite (which
autograd, modes and strided inputs still take) and with the formula in float64."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from .._harness import op_log


def _ref(x, ns, w, eps):
    xd = x.astype(np.float64)
    dims = tuple(range(x.ndim - len(ns), x.ndim))
    r = xd / np.sqrt((xd * xd).mean(dims, keepdims=True) + eps)
    return r * w if w is not None else r


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ns,with_w", [((8,), True), ((3, 8), True), ((3, 8), False), ((1,), False)])
@pytest.mark.parametrize("eps", [None, 1e-3])
def test_fused_matches_formula_and_composite(dtype, ns, with_w, eps):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((5, 3, 8)) * 2).astype(dtype)[..., : ns[-1]].copy()
    w = rng.standard_normal(ns).astype(dtype) if with_w else None
    e = np.finfo(dtype).eps if eps is None else eps
    xt = numtorch.from_numpy(x)
    wt = None if w is None else numtorch.from_numpy(w)
    fused = F.rms_norm(xt, list(ns), wt, eps)
    assert fused.dtype == xt.dtype and fused.shape == x.shape and fused.grad_fn is None
    tol = 3e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(fused.numpy(), _ref(x, ns, w, e), rtol=tol, atol=tol)
    comp = F.rms_norm(xt.clone().requires_grad_(True), list(ns), wt, eps)  # the composite, recorded
    assert comp.grad_fn is not None
    np.testing.assert_allclose(fused.numpy(), comp.detach().numpy(), rtol=tol, atol=tol)
    strided = F.rms_norm(numtorch.from_numpy(np.asfortranarray(x)), list(ns), wt, eps)  # composite
    np.testing.assert_allclose(strided.numpy(), fused.numpy(), rtol=tol, atol=tol)


def test_modes_see_the_decomposition():
    mode, seen = op_log()
    x = numtorch.randn(2, 4)
    with mode:
        F.rms_norm(x, [4], numtorch.ones(4))
    assert any("rsqrt" in s for s in seen) and any("mean" in s for s in seen)


def test_errors_before_the_fused_path():
    with pytest.raises(RuntimeError, match="rms_norm only supports floating point inputs"):
        F.rms_norm(numtorch.ones(2, 4, dtype=numtorch.int64), [4])
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape as normalized_shape"):
        F.rms_norm(numtorch.ones(2, 4), [4], numtorch.ones(3))


def test_gradcheck_through_the_composite():
    x = numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True)
    w = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda a, b: F.rms_norm(a, [4], b, 1e-5), (x, w))
