"""numtorch/distributions/_matrix.py (LowRankMultivariateNormal, Wishart, LKJCholesky) against
torch.distributions: the same formulas on the same parameters, so values agree to rounding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(0)
LOC = _RNG.standard_normal((3, 4))
W = _RNG.standard_normal((3, 4, 2))
DIAG = _RNG.uniform(0.5, 2.0, (4,))
X = _RNG.standard_normal((5, 3, 4))
_A = _RNG.standard_normal((2, 3, 3))
SIGMA = _A @ _A.transpose(0, 2, 1) + np.eye(3)
DF = np.array([2.5, 7.0])  # 2.5 < p: the low-df branch
_V = _RNG.standard_normal((4, 2, 3, 3))
VALUES = _V @ _V.transpose(0, 1, 3, 2) + np.eye(3)


def _lowrank_values(T):
    D, f = T.distributions, T.float64
    loc, w, d = T.tensor(LOC, dtype=f), T.tensor(W, dtype=f), T.tensor(DIAG, dtype=f)
    p = D.LowRankMultivariateNormal(loc, w, d)
    q = D.LowRankMultivariateNormal(loc[0] * 0.5, w[1], d * 1.3)
    m = D.MultivariateNormal(loc, T.tensor(np.eye(4) * 2 + 0.3, dtype=f))
    e = p.expand((2, 3))
    out = [p.log_prob(T.tensor(X, dtype=f)), p.entropy(), p.mean, p.mode, p.variance, p.stddev, p.scale_tril,
           p.covariance_matrix, p.precision_matrix, e.log_prob(T.tensor(X[:2], dtype=f)), e.entropy(),
           D.kl_divergence(p, q), D.kl_divergence(q, p), D.kl_divergence(p, m), D.kl_divergence(m, p)]  # fmt: skip
    return [np.asarray(o.detach()) for o in out]


def _wishart_values(T):
    D, f = T.distributions, T.float64
    s, df, v = T.tensor(SIGMA, dtype=f), T.tensor(DF, dtype=f), T.tensor(VALUES, dtype=f)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw, P in (("covariance_matrix", s), ("precision_matrix", s), ("scale_tril", T.linalg.cholesky(s))):
            d = D.Wishart(df, **{kw: P})
            out += [d.log_prob(v), d.entropy(), d.mean, d.mode, d.variance, d.covariance_matrix, d.precision_matrix,
                    d.scale_tril, d.expand((3, 2)).log_prob(v[0])]  # fmt: skip
        d = D.Wishart(5.0, covariance_matrix=s[0])
        out += [d.log_prob(v), d.entropy(), d.mean, d.variance]
    return [np.asarray(o.detach()) for o in out]


def _lkj_values(T, samples):
    D, f = T.distributions, T.float64
    out = []
    for (dim, conc), L in zip(((2, 0.5), (3, [0.5, 1.0, 2.5]), (5, 1.7)), samples):
        d = D.LKJCholesky(dim, T.tensor(conc, dtype=f))
        v = T.tensor(L, dtype=f)
        out += [d.log_prob(v), d.expand((2,) + tuple(d.batch_shape)).log_prob(v.unsqueeze(1))]
    return [np.asarray(o.detach()) for o in out]


def _close(got, want):
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_lowrank_multivariate_normal_matches_torch():
    for got, want in zip(_lowrank_values(numtorch), _lowrank_values(torch), strict=True):
        _close(got, want)


def test_wishart_matches_torch():
    for got, want in zip(_wishart_values(numtorch), _wishart_values(torch), strict=True):
        _close(got, want)


def test_lkj_cholesky_matches_torch():
    torch.manual_seed(0)
    samples = [torch.distributions.LKJCholesky(dim, torch.tensor(c, dtype=torch.float64)).sample((4,)).numpy()
               for dim, c in ((2, 0.5), (3, [0.5, 1.0, 2.5]), (5, 1.7))]  # fmt: skip
    for got, want in zip(_lkj_values(numtorch, samples), _lkj_values(torch, samples), strict=True):
        _close(got, want)


def test_samples_lie_in_torch_support():
    numtorch.manual_seed(0)
    nd, td = numtorch.distributions, torch.distributions
    lkj = nd.LKJCholesky(4, numtorch.tensor([0.3, 3.0], dtype=numtorch.float64)).sample((50,))
    assert bool(td.constraints.corr_cholesky.check(torch.tensor(lkj.numpy())).all())
    w = nd.Wishart(numtorch.tensor(DF[1]), covariance_matrix=numtorch.tensor(SIGMA)).rsample((50,))
    assert bool(td.constraints.positive_definite.check(torch.tensor(w.numpy())).all())


def _message(T, make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            make(T)
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            return type(e).__name__.lstrip("_"), str(e)  # torch's LinAlgError class is named _LinAlgError
    return None


@pytest.mark.parametrize("make", [
    lambda T: T.distributions.LowRankMultivariateNormal(T.tensor(0.0), T.ones(1, 1), T.ones(1)),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3), T.ones(3)),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(2, 1), T.ones(3)),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(2)),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(2, 3), T.ones(4, 3, 1), T.ones(3)),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), -T.ones(3), validate_args=True),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3), validate_args=True).log_prob(T.zeros(2)),
    lambda T: T.distributions.kl_divergence(T.distributions.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)),
                                            T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3))),
    lambda T: T.distributions.kl_divergence(T.distributions.MultivariateNormal(T.zeros(3), T.eye(3)),
                                            T.distributions.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2))),
    lambda T: T.distributions.kl_divergence(T.distributions.LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)),
                                            T.distributions.MultivariateNormal(T.zeros(3), T.eye(3))),
    lambda T: T.distributions.Wishart(3.0),
    lambda T: T.distributions.Wishart(3.0, covariance_matrix=T.eye(2), scale_tril=T.eye(2)),
    lambda T: T.distributions.Wishart(3.0, covariance_matrix=T.ones(2)),
    lambda T: T.distributions.Wishart(1.0, covariance_matrix=T.eye(2)),
    lambda T: T.distributions.Wishart(T.tensor([3.0, 0.5]), covariance_matrix=T.eye(2)),
    lambda T: T.distributions.Wishart(3.0, covariance_matrix=-T.eye(2), validate_args=True),
    lambda T: T.distributions.Wishart(3.0, covariance_matrix=T.eye(2), validate_args=True).log_prob(-T.eye(2)),
    lambda T: T.distributions.LKJCholesky(1),
    lambda T: T.distributions.LKJCholesky(3, -1.0, validate_args=True),
    lambda T: T.distributions.LKJCholesky(2, 1.0, validate_args=True).log_prob(T.eye(2) * 2),
])  # fmt: skip
def test_errors_match_torch(make):
    got, want = _message(numtorch, make), _message(torch, make)
    assert want is not None and got is not None
    assert got == want


def test_module_paths_and_constraints_match_torch():
    for name in ("lowrank_multivariate_normal", "wishart", "lkj_cholesky"):
        for cls in getattr(torch.distributions, name).__all__:
            nc, tc = getattr(getattr(numtorch.distributions, name), cls), getattr(torch.distributions, cls)
            assert nc.has_rsample == tc.has_rsample
            assert type(nc.support).__name__ == type(tc.support).__name__
    assert sorted(numtorch.distributions.LowRankMultivariateNormal.arg_constraints) == sorted(
        torch.distributions.LowRankMultivariateNormal.arg_constraints)  # fmt: skip
    w = numtorch.distributions.Wishart(3.0, covariance_matrix=numtorch.eye(2))
    assert repr(w.arg_constraints["df"]) == repr(torch.distributions.Wishart(3.0, covariance_matrix=torch.eye(2)).arg_constraints["df"])
