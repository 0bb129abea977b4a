"""The rest of torch.special (numtorch/ops/pointwise/special_fns.py): values on dense grids and
at special values against mpmath, gradients by gradcheck, the ops PyTorch gives no derivative,
dtypes, overloads and errors. The OpInfo entries cover the moderate ranges against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

from . import special_refs

mp = pytest.importorskip("mpmath")
mp.mp.dps = 40


def _check(name, xs, ref, rtol):
    got = getattr(numtorch.special, name)(numtorch.tensor(xs, dtype=numtorch.float64)).numpy()
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=0, err_msg=name)


@pytest.mark.parametrize("name", sorted(special_refs.GRIDS))
def test_values_match_mpmath_over_the_whole_range(name):
    _check(name, special_refs.grid(name), special_refs.stored()[name], 1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(special_refs.GRIDS))
def test_stored_references_are_mpmath_values(name):
    np.testing.assert_allclose(special_refs.stored()[name], special_refs.mpmath_refs(name), rtol=1e-15, atol=0)


def test_ndtri_inverts_ndtr_down_to_subnormal_probabilities():
    p = np.concatenate([np.geomspace(1e-310, 0.5, 300), 1 - np.geomspace(1e-15, 0.5, 100), [0.25, 0.5, 0.75]])
    got = numtorch.special.ndtri(numtorch.tensor(p, dtype=numtorch.float64)).numpy()
    # one Newton step in 40 digits from each result lands on the true inverse
    want = np.array([float(x - (mp.ncdf(x) - mp.mpf(float(q))) / mp.npdf(x)) for x, q in zip(got, p)])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert got[-2] == 0.0


def test_incomplete_gamma_matches_mpmath_and_sums_to_one():
    a, x = np.meshgrid([0.1, 0.5, 1.0, 2.5, 7.0, 20.0, 100.0], [0.01, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 150.0])
    a, x = a.ravel(), x.ravel()
    A, X = numtorch.tensor(a, dtype=numtorch.float64), numtorch.tensor(x, dtype=numtorch.float64)
    p, q = numtorch.special.gammainc(A, X).numpy(), numtorch.special.gammaincc(A, X).numpy()
    want = np.array([float(mp.gammainc(ai, 0, xi, regularized=True)) for ai, xi in zip(a, x)])
    wantc = np.array([float(mp.gammainc(ai, xi, mp.inf, regularized=True)) for ai, xi in zip(a, x)])
    np.testing.assert_allclose(p, want, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(q, wantc, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(p + q, 1.0, rtol=1e-14)
    assert numtorch.equal(numtorch.igamma(A, X), numtorch.special.gammainc(A, X))


def test_zeta_matches_mpmath_with_either_operand_a_number():
    x, q = np.array([1.5, 2.0, 3.0, 4.5, 10.0]), np.array([0.5, 1.0, 2.0, 3.0, 7.5])
    want = [float(mp.zeta(a, b)) for a, b in zip(x, q)]
    np.testing.assert_allclose(numtorch.special.zeta(numtorch.tensor(x), numtorch.tensor(q)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(numtorch.special.zeta(2.0, numtorch.tensor(q, dtype=numtorch.float64)).numpy(),
                               [float(mp.zeta(2, b)) for b in q], rtol=1e-13)  # fmt: skip
    np.testing.assert_allclose(numtorch.special.zeta(numtorch.tensor(x, dtype=numtorch.float64), 1.0).numpy(),
                               [float(mp.zeta(a)) for a in x], rtol=1e-13)  # fmt: skip


@pytest.mark.parametrize("name, x, want", [
    ("i0e", [math.inf, -math.inf, math.nan, 0.0], [0.0, 0.0, math.nan, 1.0]),
    ("i1", [0.0, -0.0, math.nan, 800.0, -800.0], [0.0, 0.0, math.nan, math.inf, -math.inf]),
    ("modified_bessel_k0", [0.0, -1.0, math.inf, math.nan], [math.inf, math.nan, 0.0, math.nan]),
    ("scaled_modified_bessel_k1", [0.0, -1.0, math.inf], [math.inf, math.nan, 0.0]),
    ("spherical_bessel_j0", [0.0, math.inf, -math.inf], [1.0, 0.0, 0.0]),
    ("ndtri", [0.0, 1.0, 0.5, -1.0, 2.0, math.nan], [-math.inf, math.inf, 0.0, math.nan, math.nan, math.nan]),
    ("log_ndtr", [math.inf, -math.inf], [0.0, -math.inf]),
    ("entr", [-1.0, 0.0, math.inf, math.nan], [-math.inf, 0.0, -math.inf, math.nan]),
    ("erfcx", [-30.0, math.inf, -math.inf, math.nan], [math.inf, 0.0, math.inf, math.nan]),
])  # fmt: skip
def test_special_values(name, x, want):
    got = getattr(numtorch.special, name)(numtorch.tensor(x, dtype=numtorch.float64)).numpy()
    np.testing.assert_array_equal(got, np.array(want))


def test_incomplete_gamma_special_values():
    a = numtorch.tensor([0.0, 0.0, -1.0, math.inf, 1.0, math.inf])
    x = numtorch.tensor([0.0, 1.0, 1.0, 2.0, math.inf, math.inf])
    np.testing.assert_array_equal(numtorch.special.gammainc(a, x).numpy(), [math.nan, 1, math.nan, 0, 1, math.nan])
    np.testing.assert_array_equal(numtorch.special.gammaincc(a, x).numpy(), [math.nan, 0, math.nan, 1, 0, math.nan])


@pytest.mark.parametrize("name, lo, hi", [("i0e", -4, 4), ("i1", -4, 4), ("i1e", -4, 4), ("ndtr", -3, 3),
                                          ("log_ndtr", -8, 3), ("ndtri", 0.05, 0.95), ("entr", 0.1, 3),
                                          ("erfcx", -2, 4)])  # fmt: skip
def test_gradients(name, lo, hi):
    x = numtorch.tensor(np.random.default_rng(1).uniform(lo, hi, 6), dtype=numtorch.float64, requires_grad=True)
    fn = getattr(numtorch.special, name)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_gradients_of_the_binary_ops_and_mvlgamma():
    rng = np.random.default_rng(2)
    x = numtorch.tensor(rng.uniform(-2, 2, 5), dtype=numtorch.float64, requires_grad=True)
    y = numtorch.tensor(rng.uniform(0.1, 3, 5), dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(numtorch.special.xlog1py, (x, y))
    assert gradcheck(lambda q: numtorch.special.zeta(numtorch.tensor(3.0, dtype=numtorch.float64), q), (y,))
    a = numtorch.tensor(rng.uniform(0.5, 4, 5), dtype=numtorch.float64)
    assert gradcheck(lambda t: numtorch.special.gammainc(a, t), (y,))
    assert gradcheck(lambda t: numtorch.igammac(a, t), (y,))
    assert gradcheck(lambda t: numtorch.mvlgamma(t, 3), (numtorch.tensor([2.5, 4.0], dtype=numtorch.float64, requires_grad=True),))
    z = numtorch.zeros(1, dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.grad(numtorch.special.i1(z).sum(), z)[0].item() == 0.5  # the limit at 0


@pytest.mark.parametrize("name, msg", [("zeta", "the derivative for 'zeta' is not implemented."),
                                       ("gammainc", "the derivative for 'igamma: input' is not implemented.")])  # fmt: skip
def test_derivative_PyTorch_does_not_implement_raises_its_error(name, msg):
    a = numtorch.tensor([3.0, 2.0], requires_grad=True)
    y = getattr(numtorch.special, name)(a, numtorch.tensor([1.0, 2.0]))
    with pytest.raises(NotImplementedError, match=msg):
        y.sum().backward()


@pytest.mark.parametrize("name", ["modified_bessel_k0", "spherical_bessel_j0", "scaled_modified_bessel_k1"])
def test_results_without_a_derivative_do_not_require_grad(name):
    x = numtorch.tensor([0.5, 2.0], requires_grad=True)
    assert not getattr(numtorch.special, name)(x).requires_grad
    y = numtorch.special.chebyshev_polynomial_t(x, 3)
    assert not y.requires_grad


def test_dtypes_overloads_and_errors():
    ints = numtorch.tensor([1, 2])
    assert numtorch.special.i0e(ints).dtype == numtorch.float32
    assert numtorch.special.ndtr(numtorch.tensor([True])).dtype == numtorch.float32
    assert numtorch.special.chebyshev_polynomial_t(numtorch.tensor([1], dtype=numtorch.int32),
                                                   numtorch.tensor([3.0], dtype=numtorch.float64)).dtype == numtorch.float64  # fmt: skip
    np.testing.assert_allclose(numtorch.special.chebyshev_polynomial_t(0.5, numtorch.tensor([3, 2])).numpy(), [-1.0, -0.5])
    np.testing.assert_allclose(numtorch.special.xlog1py(2, numtorch.tensor([1.0])).numpy(), [2 * math.log(2)])
    assert numtorch.special.xlog1py(numtorch.tensor([0.0]), numtorch.tensor([math.nan])).isnan().all()
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for 'Long'"):
        numtorch.igamma(ints, ints)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        numtorch.mvlgamma(numtorch.tensor([3.0]), 0)
    np.testing.assert_allclose(numtorch.mvlgamma(numtorch.tensor([3]), 2).numpy(), [1.5502], rtol=1e-4)
    out = numtorch.empty(2)
    assert numtorch.special.i1(numtorch.tensor([0.5, 2.0]), out=out) is out
    t = numtorch.tensor([0.5, 2.0])
    assert t.i0_() is t and numtorch.allclose(t, numtorch.tensor([1.0635, 2.2796]), rtol=1e-4)
    with pytest.raises(TypeError):
        numtorch.special.zeta(2.0, 3.0)


def test_polynomials_at_high_degree_use_the_closed_forms():
    x = numtorch.tensor([0.3, -0.7, 0.99], dtype=numtorch.float64)
    t = np.arccos(x.numpy())
    np.testing.assert_allclose(numtorch.special.chebyshev_polynomial_t(x, 50).numpy(), np.cos(50 * t), rtol=1e-10)
    np.testing.assert_allclose(numtorch.special.chebyshev_polynomial_u(x, 50).numpy(), np.sin(51 * t) / np.sin(t), rtol=1e-10)
    np.testing.assert_array_equal(numtorch.special.chebyshev_polynomial_u(numtorch.tensor([1.0, -1.0]), 10).numpy(), [11.0, 11.0])
    assert numtorch.special.legendre_polynomial_p(x, -1).eq(0).all()
