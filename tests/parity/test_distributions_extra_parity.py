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


def _transform_values(T):
    D, tr, f = T.distributions, T.distributions.transforms, T.float64
    rng = np.random.default_rng(0)
    x = T.tensor(rng.standard_normal((2, 6)), dtype=f)
    m = T.tensor(rng.standard_normal((2, 3, 3)), dtype=f)
    c, lc, pd = tr.CorrCholeskyTransform(), tr.LowerCholeskyTransform(), tr.PositiveDefiniteTransform()
    r = tr.ReshapeTransform((6,), (2, 3))
    ct = tr.CatTransform([tr.ExpTransform(), tr.identity_transform], dim=1, lengths=[2, 4])
    st = tr.StackTransform([tr.ExpTransform(), tr.AffineTransform(1.0, 2.0)], dim=0)
    cd = tr.CumulativeDistributionTransform(D.Normal(T.tensor(0.0, dtype=f), T.tensor(1.0, dtype=f)))
    mc = D.constraints.MixtureSameFamilyConstraint(D.constraints.positive)
    out = [c(x), c.inv(c(x)), c.log_abs_det_jacobian(x, c(x)), lc(m), lc.inv(lc(m)), pd(m), pd.inv(pd(m)), r(x),
           ct(x), ct.inv(ct(x)), ct.log_abs_det_jacobian(x, ct(x)), st(x), st.inv(st(x)),
           st.log_abs_det_jacobian(x, st(x)), cd(x), cd.inv(cd(x)), cd.log_abs_det_jacobian(x, cd(x)),
           mc.check(T.tensor([[1.0, 2], [-1, 3]]))]  # fmt: skip
    return [np.asarray(o.detach()) for o in out]


def test_extra_transforms_match_torch():
    for got, want in zip(_transform_values(numtorch), _transform_values(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
