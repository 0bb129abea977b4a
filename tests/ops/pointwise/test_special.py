"""Special functions (numtorch/ops/pointwise/special.py): values against PyTorch on random inputs
and special values, polygamma (order first, not covered by OpInfo), errors, torch.special names."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

_SPECIAL = [0.0, -0.0, -1.0, -2.0, -2.5, math.inf, -math.inf, math.nan, 1e-30, 1e20, 0.5, -0.5, 1e-5, 30.0, -30.3, 170.0]


def _inputs(dtype):
    rng = np.random.default_rng(0)
    x = np.concatenate([_SPECIAL, rng.uniform(-20, 20, 300), rng.uniform(0, 5, 300)])
    return x.astype(dtype)


def _check(got, want, rtol):
    got, want = got.numpy(), want.numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)


@pytest.mark.parametrize("name", ["lgamma", "digamma", "angle", "poly1", "poly2", "poly3", "poly5"])
def test_values_match_torch_float64(name):
    x = _inputs(np.float64)
    if name.startswith("poly"):
        n = int(name[4:])
        got, want = numtorch.polygamma(n, numtorch.tensor(x)), torch.polygamma(n, torch.tensor(x))
    else:
        got, want = getattr(numtorch, name)(numtorch.tensor(x)), getattr(torch, name)(torch.tensor(x))
    _check(got, want, 1e-10)


def test_erfinv_matches_torch():
    rng = np.random.default_rng(1)
    x = np.concatenate([[-1.0, 1.0, 1.5, -1.5, 0.0, -0.0, math.nan, 0.7, -0.7, 0.9999999], rng.uniform(-1, 1, 500)])
    _check(numtorch.erfinv(numtorch.tensor(x)), torch.erfinv(torch.tensor(x)), 1e-10)
    _check(numtorch.erfinv(numtorch.tensor(x, dtype=numtorch.float32)), torch.erfinv(torch.tensor(x, dtype=torch.float32)), 1e-5)
    assert math.copysign(1, numtorch.erfinv(numtorch.tensor([-0.0])).item()) == -1


@pytest.mark.parametrize("fn", ["lgamma", "digamma", "erfinv", "angle"])
def test_integer_and_bool_promote_to_float(fn):
    for v in ([1, 2], [True, False]):
        got, want = getattr(numtorch, fn)(numtorch.tensor(v)), getattr(torch, fn)(torch.tensor(v))
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, equal_nan=True)


def test_polygamma_forms_and_grad():
    x = numtorch.tensor([0.7, 1.5, 3.0], dtype=numtorch.float64)
    want = torch.polygamma(2, torch.tensor([0.7, 1.5, 3.0], dtype=torch.float64)).numpy()
    np.testing.assert_allclose(numtorch.polygamma(2, x).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(x.polygamma(2).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(numtorch.special.polygamma(2, x).numpy(), want, rtol=1e-12)
    out = numtorch.empty(3, dtype=numtorch.float64)
    assert numtorch.polygamma(2, x, out=out) is out
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    y = x.clone()
    assert y.polygamma_(2) is y
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12)
    assert numtorch.polygamma(1, numtorch.tensor([1, 2])).dtype == numtorch.float32
    for n in (0, 1, 2):
        a = numtorch.tensor([0.7, 1.5, 3.0], dtype=numtorch.float64, requires_grad=True)
        assert gradcheck(lambda t, n=n: numtorch.polygamma(n, t), (a,))
        assert gradgradcheck(lambda t, n=n: numtorch.polygamma(n, t), (a,))


def test_logcumsumexp_backward_matches_torch():
    rng = np.random.default_rng(2)
    x, g = rng.normal(size=(3, 5)) * 3, rng.normal(size=(3, 5))
    for dim in (0, 1, -1):
        a = numtorch.tensor(x, requires_grad=True)
        numtorch.logcumsumexp(a, dim).backward(numtorch.tensor(g))
        b = torch.tensor(x, requires_grad=True)
        torch.logcumsumexp(b, dim).backward(torch.tensor(g))
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)
    big = numtorch.tensor([1000.0, 1000.0, -1000.0], dtype=numtorch.float64)
    np.testing.assert_allclose(numtorch.logcumsumexp(big, 0).numpy(),
                               torch.logcumsumexp(torch.tensor([1000.0, 1000.0, -1000.0], dtype=torch.float64), 0).numpy())


def test_histc_matches_torch():
    rng = np.random.default_rng(3)
    x = rng.normal(size=200)
    for kw in ({}, {"bins": 7}, {"bins": 4, "min": -1, "max": 1}, {"bins": 3, "min": 5, "max": 5}):
        got = numtorch.histc(numtorch.tensor(x, dtype=numtorch.float32), **kw)
        want = torch.histc(torch.tensor(x, dtype=torch.float32), **kw)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(numtorch.histc(numtorch.tensor([1.0, 1.0]), bins=4).numpy(),
                                  torch.histc(torch.tensor([1.0, 1.0]), bins=4).numpy())


@pytest.mark.parametrize("call, exc, msg", [
    (lambda T: T.polygamma(-1, T.tensor([1.0])), RuntimeError, "polygamma(n, x) does not support negative n."),
    (lambda T: T.tensor([1, 2]).polygamma_(1), RuntimeError, "result type Float can't be cast to the desired output type Long"),
    (lambda T: T.digamma(T.tensor([1 + 1j])), NotImplementedError, "\"digamma\" not implemented for 'ComplexFloat'"),
    (lambda T: T.lgamma(T.tensor([1 + 1j])), NotImplementedError, "\"lgamma_vml_cpu\" not implemented for 'ComplexFloat'"),
    (lambda T: T.erfinv(T.tensor([1 + 1j])), NotImplementedError, "\"erfinv_vml_cpu\" not implemented for 'ComplexFloat'"),
    (lambda T: T.logcumsumexp(T.tensor([1, 2]), 0), NotImplementedError, "\"logcumsumexp_out_cpu\" not implemented for 'Long'"),
    (lambda T: T.logcumsumexp(T.tensor([1.0]), 3), IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 3)"),
    (lambda T: T.histc(T.tensor([1, 2])), NotImplementedError, "\"histogram_cpu\" not implemented for 'Long'"),
    (lambda T: T.histc(T.tensor([1.0]), bins=0), RuntimeError, "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
    (lambda T: T.histc(T.tensor([1.0]), min=2, max=1), RuntimeError, "torch.histc: max must be larger than min"),
])  # fmt: skip
def test_errors_match_torch(call, exc, msg):
    for lib in (torch, numtorch):
        with pytest.raises(exc) as e:
            call(lib)
        assert msg in str(e.value), (lib.__name__, str(e.value))


def test_special_namespace():
    x = np.array([0.1, 0.4, 0.8])
    T, N = torch.tensor(x), numtorch.tensor(x)
    pairs = [("gammaln", (), {}), ("digamma", (), {}), ("psi", (), {}), ("erfinv", (), {}), ("logit", (), {}),
             ("sinc", (), {}), ("round", (), {"decimals": 1}), ("softmax", (0,), {}), ("log_softmax", (0,), {}),
             ("logsumexp", (0,), {})]  # fmt: skip
    for name, args, kw in pairs:
        got = getattr(numtorch.special, name)(N, *args, **kw).numpy()
        np.testing.assert_allclose(got, getattr(torch.special, name)(T, *args, **kw).numpy(), rtol=1e-12, err_msg=name)
    np.testing.assert_allclose(numtorch.special.xlogy(N, N).numpy(), torch.special.xlogy(T, T).numpy(), rtol=1e-12)
    out = numtorch.empty(3, dtype=numtorch.float64)
    assert numtorch.special.gammaln(N, out=out) is out
