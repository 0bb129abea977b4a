"""numtorch/distributions/_extra.py against torch.distributions: the same formulas, so values
agree to rounding."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def _values(T):
    D, f64 = T.distributions, T.float64
    v = T.tensor([0.2, 0.7, 1.5], dtype=f64)
    w = T.tensor([0.2, 0.7, 0.99], dtype=f64)
    fs = D.FisherSnedecor(T.tensor([3.0, 5, 7], dtype=f64), T.tensor([6.0, 9, 3], dtype=f64))
    # float32: torch's GeneralizedPareto.log_prob compares with a float32 zero and fails in float64
    gp = D.GeneralizedPareto(T.tensor([0.0, 0.1, 0.0]), T.tensor([1.0, 2, 0.5]), T.tensor([0.0, 0.4, -0.3]))
    cb = D.ContinuousBernoulli(T.tensor([0.3, 0.5, 0.9], dtype=f64))
    cbl = D.ContinuousBernoulli(logits=T.tensor([-1.0, 0.001, 2], dtype=f64))
    ln = D.LogisticNormal(T.tensor([0.0, 1], dtype=f64), T.tensor([1.0, 2], dtype=f64))
    vm = D.VonMises(T.tensor([0.0, 1, -2], dtype=f64), T.tensor([0.5, 2, 10], dtype=f64))
    out = [fs.log_prob(v), fs.mean, fs.mode, fs.variance, gp.log_prob(v.float()), gp.cdf(v.float()),
           gp.icdf(T.tensor([0.1, 0.5, 0.9])), gp.mean, gp.variance, gp.entropy(), cb.log_prob(w), cb.mean,
           cb.variance, cb.cdf(w), cb.icdf(w), cb.entropy(), cbl.log_prob(w), cbl.mean,
           ln.log_prob(T.tensor([0.2, 0.3, 0.5], dtype=f64)), vm.log_prob(v), vm.variance]  # fmt: skip
    return [np.asarray(x.detach()) for x in out]


def test_extra_families_match_torch():
    for got, want in zip(_values(numtorch), _values(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-12 if want.dtype == np.float64 else 2e-6, atol=1e-14)


def test_module_paths_match_torch():
    for name in ("cauchy", "chi2", "geometric", "gumbel", "half_cauchy", "half_normal", "inverse_gamma",
                 "kumaraswamy", "multinomial", "negative_binomial", "pareto", "relaxed_bernoulli", "studentT",
                 "weibull", "continuous_bernoulli", "fishersnedecor", "generalized_pareto", "logistic_normal",
                 "von_mises"):  # fmt: skip
        tm = getattr(torch.distributions, name)
        nm = getattr(numtorch.distributions, name)
        for cls in tm.__all__:
            assert hasattr(nm, cls), (name, cls)
