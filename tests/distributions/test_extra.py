"""numtorch/distributions/_extra.py: densities integrate to one, special cases match the simpler
families, log_prob gradients by gradcheck, sample shapes and moments."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

D = numtorch.distributions
F64 = numtorch.float64


def _t(v, grad=False):
    return numtorch.tensor(v, dtype=F64, requires_grad=grad)


def _integral(d, lo, hi, n=20001):
    x = np.linspace(lo, hi, n)
    return np.trapezoid(d.log_prob(_t(x)).exp().numpy(), x)


@pytest.mark.parametrize("build, lo, hi", [
    (lambda: D.FisherSnedecor(_t(5.0), _t(9.0)), 1e-9, 200.0),
    (lambda: D.GeneralizedPareto(_t(0.1), _t(2.0), _t(-0.3)), 0.1, 0.1 + 2.0 / 0.3 - 1e-9),
    (lambda: D.ContinuousBernoulli(_t(0.2)), 0.0, 1.0),
    (lambda: D.ContinuousBernoulli(_t(0.4995)), 0.0, 1.0),
    (lambda: D.VonMises(_t(1.0), _t(3.0)), -math.pi, math.pi),
])  # fmt: skip
def test_densities_integrate_to_one(build, lo, hi):
    assert abs(_integral(build(), lo, hi) - 1.0) < 2e-3


def test_special_cases_and_closed_forms():
    x = _t([0.3, 1.0, 2.5])
    np.testing.assert_allclose(D.GeneralizedPareto(_t(0.0), _t(2.0), _t(0.0)).log_prob(x).numpy(),
                               D.Exponential(_t(0.5)).log_prob(x).numpy(), rtol=1e-12)  # fmt: skip
    d1, d2 = 4.0, 7.0
    want = [math.lgamma((d1 + d2) / 2) - math.lgamma(d1 / 2) - math.lgamma(d2 / 2) + d1 / 2 * math.log(d1 / d2)
            + (d1 / 2 - 1) * math.log(v) - (d1 + d2) / 2 * math.log1p(d1 / d2 * v) for v in (0.3, 1.0, 2.5)]  # fmt: skip
    np.testing.assert_allclose(D.FisherSnedecor(_t(d1), _t(d2)).log_prob(x).numpy(), want, rtol=1e-12)
    assert D.FisherSnedecor(_t([3.0]), _t([2.0])).mean.isnan().all()
    cb = D.ContinuousBernoulli(_t([0.2, 0.8]))
    u = _t([0.25, 0.75])
    np.testing.assert_allclose(cb.cdf(cb.icdf(u)).numpy(), u.numpy(), rtol=1e-12)
    ln = D.LogisticNormal(_t([0.0, 1.0]), _t([1.0, 2.0]))
    assert ln.event_shape == (3,) and ln.sample((4,)).shape == (4, 3)
    np.testing.assert_allclose(ln.sample((5,)).sum(-1).numpy(), 1.0, rtol=1e-12)


def test_log_prob_gradients():
    x = _t([0.4, 1.3])
    assert gradcheck(lambda a, b: D.FisherSnedecor(a, b).log_prob(x), (_t([3.0, 4.0], True), _t([5.0, 6.0], True)))
    assert gradcheck(lambda p: D.ContinuousBernoulli(p).log_prob(_t([0.2, 0.9])), (_t([0.3, 0.7], True),))
    assert gradcheck(lambda m, k: D.VonMises(m, k).log_prob(x), (_t([0.1, 0.2], True), _t([0.5, 5.0], True)))
    def gp(s, c):
        numtorch.manual_seed(1)  # the same uniforms for every finite difference
        return D.GeneralizedPareto(_t(0.0), s, c).rsample((3,))

    assert gradcheck(gp, (_t(1.5, True), _t(0.2, True)))


def test_samples_have_shapes_and_moments():
    numtorch.manual_seed(0)
    vm = D.VonMises(_t([0.5, -2.0]), _t([4.0, 8.0]))
    s = vm.sample((4000,))
    assert s.shape == (4000, 2) and (s.abs() <= math.pi).all()
    np.testing.assert_allclose(np.angle(np.exp(1j * s.numpy()).mean(0)), [0.5, -2.0], atol=0.05)
    fs = D.FisherSnedecor(_t(5.0), _t(12.0)).rsample((4000,))
    assert abs(fs.mean().item() - 12.0 / 10.0) < 0.1
    assert D.ContinuousBernoulli(logits=_t([0.0, 2.0])).sample((3,)).shape == (3, 2)
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        D.ContinuousBernoulli()
