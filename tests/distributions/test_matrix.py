"""numtorch/distributions/_matrix.py: LowRankMultivariateNormal, Wishart and LKJCholesky against
explicit formulas on small cases (dense Gaussian algebra, the p = 1 Wishart as a Gamma, the closed
form LKJ density for dim = 2), sample moments, gradients by gradcheck, shapes and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

D = numtorch.distributions
F64 = numtorch.float64
LOG2PI = math.log(2 * math.pi)


def _t(v, grad=False):
    return numtorch.tensor(v, dtype=F64, requires_grad=grad)


_RNG = np.random.default_rng(1)
LOC = _RNG.standard_normal((2, 3))
W = _RNG.standard_normal((2, 3, 2))
DIAG = np.array([0.5, 1.2, 2.0])


def _dense_log_prob(x, mu, cov):
    diff = x - mu
    _, logdet = np.linalg.slogdet(cov)
    return -0.5 * (len(mu) * LOG2PI + logdet + diff @ np.linalg.solve(cov, diff))


def _dense_kl(m0, S0, m1, S1):
    diff = m1 - m0
    return 0.5 * (np.trace(np.linalg.solve(S1, S0)) + diff @ np.linalg.solve(S1, diff) - len(m0)
                  + np.linalg.slogdet(S1)[1] - np.linalg.slogdet(S0)[1])  # fmt: skip


def test_lowrank_matches_dense_gaussian_formulas():
    d = D.LowRankMultivariateNormal(_t(LOC), _t(W), _t(DIAG))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = _RNG.standard_normal((4, 2, 3))
    covs = W @ W.transpose(0, 2, 1) + np.diag(DIAG)
    want = [[_dense_log_prob(x[i, b], LOC[b], covs[b]) for b in range(2)] for i in range(4)]
    np.testing.assert_allclose(d.log_prob(_t(x)).numpy(), want, rtol=1e-12)
    ent = [0.5 * (3 * (1 + LOG2PI) + np.linalg.slogdet(c)[1]) for c in covs]
    np.testing.assert_allclose(d.entropy().numpy(), ent, rtol=1e-12)
    np.testing.assert_allclose(d.covariance_matrix.numpy(), covs, rtol=1e-12)
    np.testing.assert_allclose(d.precision_matrix.numpy(), np.linalg.inv(covs), rtol=1e-10, atol=1e-12)
    L = d.scale_tril.numpy()
    np.testing.assert_allclose(L @ L.transpose(0, 2, 1), covs, rtol=1e-12)
    assert np.allclose(np.triu(L, 1), 0.0)
    np.testing.assert_allclose(d.variance.numpy(), np.diagonal(covs, axis1=1, axis2=2), rtol=1e-12)
    assert d.mean is d.loc and d.mode is d.loc
    e = d.expand((5, 2))
    assert e.batch_shape == (5, 2) and e.cov_factor.shape == (5, 2, 3, 2) and e.log_prob(_t(x[0])).shape == (5, 2)


def test_lowrank_kl_pairs_match_dense_formula():
    S = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
    m = D.MultivariateNormal(_t([0.1, -0.2, 0.3]), _t(S))
    p = D.LowRankMultivariateNormal(_t(LOC), _t(W), _t(DIAG))
    q = D.LowRankMultivariateNormal(_t(LOC[0] * 0.5), _t(W[1]), _t(DIAG * 1.3))
    covs = W @ W.transpose(0, 2, 1) + np.diag(DIAG)
    cq = W[1] @ W[1].T + np.diag(DIAG * 1.3)
    m0 = np.array([0.1, -0.2, 0.3])
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(),
                               [_dense_kl(LOC[b], covs[b], LOC[0] * 0.5, cq) for b in range(2)], rtol=1e-10)  # fmt: skip
    np.testing.assert_allclose(D.kl_divergence(p, m).numpy(), [_dense_kl(LOC[b], covs[b], m0, S) for b in range(2)], rtol=1e-10)
    np.testing.assert_allclose(D.kl_divergence(m, p).numpy(), [_dense_kl(m0, S, LOC[b], covs[b]) for b in range(2)], rtol=1e-10)
    with pytest.raises(ValueError, match="with +different event shapes cannot be computed"):
        D.kl_divergence(p, D.MultivariateNormal(numtorch.zeros(2, dtype=F64), numtorch.eye(2, dtype=F64)))


def test_lowrank_sample_moments():
    numtorch.manual_seed(0)
    d = D.LowRankMultivariateNormal(_t(LOC[0]), _t(W[0]), _t(DIAG))
    s = d.rsample((20000,)).numpy()
    assert s.shape == (20000, 3)
    np.testing.assert_allclose(s.mean(0), LOC[0], atol=0.05)
    np.testing.assert_allclose(np.cov(s.T), W[0] @ W[0].T + np.diag(DIAG), atol=0.1, rtol=0.05)


def test_lowrank_gradcheck():
    x = _t(_RNG.standard_normal((2, 3)))
    assert gradcheck(lambda m, w, dg: D.LowRankMultivariateNormal(m, w, dg).log_prob(x),
                     (_t(LOC, True), _t(W, True), _t(DIAG, True)))  # fmt: skip

    def draw(m, w, dg):
        numtorch.manual_seed(3)  # the same normals for every finite difference
        return D.LowRankMultivariateNormal(m, w, dg).rsample((2,))

    assert gradcheck(draw, (_t(LOC[0], True), _t(W[0], True), _t(DIAG, True)))


def test_lowrank_errors():
    z = numtorch.zeros(3)
    with pytest.raises(ValueError, match="^loc must be at least one-dimensional.$"):
        D.LowRankMultivariateNormal(numtorch.tensor(0.0), numtorch.ones(1, 1), numtorch.ones(1))
    with pytest.raises(ValueError, match=r"^cov_factor must be a batch of matrices with shape 3 x m$"):
        D.LowRankMultivariateNormal(z, numtorch.ones(2, 1), numtorch.ones(3))
    with pytest.raises(ValueError, match=r"^Incompatible batch shapes: loc torch.Size\(\[2, 3\]\)"):
        D.LowRankMultivariateNormal(numtorch.zeros(2, 3), numtorch.ones(4, 3, 1), numtorch.ones(3))
    with pytest.raises(ValueError, match="^Expected parameter cov_diag"):
        D.LowRankMultivariateNormal(z, numtorch.ones(3, 1), numtorch.tensor([1.0, 0.0, 1.0]), validate_args=True)


def _wishart_log_prob(X, nu, S):
    """The textbook Wishart density with the multivariate gamma written out."""
    p = len(S)
    lmg = p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(nu / 2 - j / 2) for j in range(p))
    return ((nu - p - 1) / 2 * np.linalg.slogdet(X)[1] - np.trace(np.linalg.solve(S, X)) / 2
            - nu * p / 2 * math.log(2) - nu / 2 * np.linalg.slogdet(S)[1] - lmg)  # fmt: skip


S2 = np.array([[2.0, 0.4], [0.4, 0.7]])


@pytest.mark.parametrize("kw", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_log_prob_formula(kw):
    P = {"covariance_matrix": S2, "precision_matrix": np.linalg.inv(S2), "scale_tril": np.linalg.cholesky(S2)}[kw]
    d = D.Wishart(_t([2.5, 6.0]), **{kw: _t(P)})
    assert d.batch_shape == (2,) and d.event_shape == (2, 2)
    X = np.array([[1.5, -0.3], [-0.3, 0.8]])
    np.testing.assert_allclose(d.log_prob(_t(X)).numpy(), [_wishart_log_prob(X, nu, S2) for nu in (2.5, 6.0)], rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), [2.5 * S2, 6.0 * S2], rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy()[1], 6.0 * (S2**2 + np.outer(np.diag(S2), np.diag(S2))), rtol=1e-12)
    mode = d.mode.numpy()
    assert np.isnan(mode[0]).all()  # df <= p + 1 has no mode
    np.testing.assert_allclose(mode[1], 3.0 * S2, rtol=1e-12)
    np.testing.assert_allclose(d.precision_matrix.numpy()[0], np.linalg.inv(S2), rtol=1e-12)


def test_wishart_one_dimensional_is_a_gamma():
    # W(nu, s2) on 1 x 1 matrices is Gamma(nu / 2, rate = 1 / (2 s2))
    nu, s2 = _t([2.5, 4.0]), _t([0.7, 3.0])
    w = D.Wishart(nu, covariance_matrix=s2.view(2, 1, 1))
    g = D.Gamma(nu / 2, 1 / (2 * s2))
    x = _t([[0.4, 1.3], [2.0, 7.5]])
    np.testing.assert_allclose(w.log_prob(x.view(2, 2, 1, 1)).numpy(), g.log_prob(x).numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.entropy().numpy(), g.entropy().numpy(), rtol=1e-12)


def test_wishart_sample_moments_and_gradcheck():
    numtorch.manual_seed(0)
    d = D.Wishart(_t(5.0), covariance_matrix=_t(S2))
    s = d.rsample((20000,)).numpy()
    assert s.shape == (20000, 2, 2)
    np.testing.assert_allclose(s.mean(0), 5.0 * S2, rtol=0.05, atol=0.05)
    np.testing.assert_allclose(s.var(0), d.variance.numpy(), rtol=0.1)
    assert np.all(np.linalg.eigvalsh(s) > 0)
    X = _t([[1.5, -0.3], [-0.3, 0.8]])
    L = _t(np.linalg.cholesky(S2), True)
    assert gradcheck(lambda nu, a: D.Wishart(nu, scale_tril=a.tril()).log_prob(X), (_t([3.5, 6.0], True), L))

    def draw(a):
        numtorch.manual_seed(4)  # df fixed: the chi-square draws do not move with the scale
        return D.Wishart(_t(4.0), scale_tril=a.tril()).rsample((2,))

    assert gradcheck(draw, (L,))


def test_wishart_errors_and_warnings():
    eye = numtorch.eye(2)
    with pytest.raises(AssertionError, match="^Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.Wishart(3.0)
    with pytest.raises(ValueError, match=r"^Value of df=1.0 expected to be greater than ndim - 1 = 1.$"):
        D.Wishart(1.0, covariance_matrix=eye)
    with pytest.warns(UserWarning, match="^Low df values detected"):
        D.Wishart(1.5, covariance_matrix=eye)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a valid sample is not reported as singular
        D.Wishart(3.0, covariance_matrix=eye).rsample((3,))
    with pytest.raises(ValueError, match="^Expected value argument"):
        D.Wishart(3.0, covariance_matrix=eye, validate_args=True).log_prob(-eye)


def test_lkj_dim_two_closed_form_and_integral():
    # for dim = 2, L = [[1, 0], [r, sqrt(1 - r^2)]] and r has density (1 - r^2)^(eta-1) / (2^(2 eta - 1) B(eta, eta))
    r = np.linspace(-1 + 1e-9, 1 - 1e-9, 4001)
    L = np.zeros((len(r), 2, 2))
    L[:, 0, 0], L[:, 1, 0], L[:, 1, 1] = 1.0, r, np.sqrt(1 - r**2)
    for eta in (0.7, 1.0, 3.0):
        lp = D.LKJCholesky(2, _t(eta)).log_prob(_t(L)).numpy()
        log_beta = 2 * math.lgamma(eta) - math.lgamma(2 * eta)
        want = (eta - 1) * np.log1p(-(r**2)) - (2 * eta - 1) * math.log(2) - log_beta
        np.testing.assert_allclose(lp, want, rtol=1e-10, atol=1e-12)
    lp = D.LKJCholesky(2, _t(3.0)).log_prob(_t(L)).numpy()
    assert abs(np.trapezoid(np.exp(lp), r) - 1.0) < 1e-6


def test_lkj_sample_and_moments():
    numtorch.manual_seed(0)
    d = D.LKJCholesky(3, _t([2.0, 0.5]))
    assert d.batch_shape == (2,) and d.event_shape == (3, 3) and not d.has_rsample
    L = d.sample((4000,)).numpy()
    assert L.shape == (4000, 2, 3, 3) and np.allclose(np.triu(L, 1), 0.0) and (np.diagonal(L, axis1=2, axis2=3) > 0).all()
    C = L @ L.transpose(0, 1, 3, 2)
    np.testing.assert_allclose(np.diagonal(C, axis1=2, axis2=3), 1.0, rtol=1e-12)
    # C[1, 0]^2 = y_1 ~ Beta(1/2, eta + 1/2): LKJ's marginal variance 1 / (2 eta + dim - 1). PyTorch draws
    # row 2 with y_2 ~ Beta(3/2, eta) (the onion method has Beta(1, eta)), so C[2, 0] = sqrt(y_2) u_0 has
    # variance E[y_2] / 2 = 0.75 / (1.5 + eta), not LKJ's; numtorch keeps PyTorch's sampler.
    off = C[..., [1, 2, 2], [0, 0, 1]]
    np.testing.assert_allclose(off.mean(0), 0.0, atol=0.03)
    np.testing.assert_allclose(off[..., 0].var(0), [1 / 6, 1 / 3], rtol=0.08)
    np.testing.assert_allclose(off[..., 1].var(0), [0.75 / 3.5, 0.75 / 2.0], rtol=0.08)
    e = d.expand((5, 2))
    assert e.sample().shape == (5, 2, 3, 3) and e.log_prob(_t(L[0])).shape == (5, 2)
    v = _t(L[:2, 0])
    # finite differences leave the support, so validation is off
    assert gradcheck(lambda c, x: D.LKJCholesky(3, c, validate_args=False).log_prob(x), (_t([2.0, 0.5], True), v.requires_grad_()))


def test_lkj_errors():
    with pytest.raises(ValueError, match="^Expected dim to be an integer greater than or equal to 2. Found dim=1.$"):
        D.LKJCholesky(1)
    with pytest.raises(ValueError, match="^Expected parameter concentration"):
        D.LKJCholesky(3, -1.0, validate_args=True)
    assert isinstance(D.lkj_cholesky.LKJCholesky(2).support, type(D.constraints.corr_cholesky))
    assert D.wishart.Wishart is D.Wishart and D.lowrank_multivariate_normal.LowRankMultivariateNormal is D.LowRankMultivariateNormal
