"""numtorch.distributions: reparameterised gradients, sample moments, KL, constraints, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck
from numtorch.distributions import (
    Bernoulli, Beta, Binomial, Categorical, Dirichlet, Exponential, Gamma, Independent, Laplace, LogNormal,
    MixtureSameFamily, MultivariateNormal, Normal, OneHotCategorical, Poisson, RelaxedOneHotCategorical,
    TransformedDistribution, Uniform, biject_to, constraints, kl_divergence, register_kl, transforms,
)  # fmt: skip

F64 = numtorch.float64


def T(*v):
    return numtorch.tensor(list(v) if len(v) > 1 else v[0], dtype=F64)


def _seeded_rsample(build):
    def f(*params):
        numtorch.manual_seed(3)
        return build(*params).rsample((5,))

    return f


@pytest.mark.parametrize(
    "build,params",
    [
        (lambda m, s: Normal(m, s), (T(0.3, -1.0), T(1.5, 0.5))),
        (lambda lo, hi: Uniform(lo, hi), (T(-1.0, 0.0), T(2.0, 3.0))),
        (lambda m, s: Laplace(m, s), (T(0.3, -1.0), T(1.5, 0.5))),
        (lambda r: Exponential(r), (T(0.5, 2.0),)),
        (lambda m, s: LogNormal(m, s), (T(0.3, -1.0), T(1.5, 0.5))),
        (lambda m, L: MultivariateNormal(m, scale_tril=L.tril()), (T(0.3, -1.0), numtorch.tensor([[1.0, 0.0], [0.3, 0.5]], dtype=F64))),
        (lambda lg: RelaxedOneHotCategorical(T(0.7), logits=lg), (T(0.1, -0.4, 0.3),)),
    ],
)  # fmt: skip
def test_rsample_is_differentiable(build, params):
    ps = tuple(p.clone().requires_grad_(True) for p in params)
    assert gradcheck(_seeded_rsample(build), ps)


@pytest.mark.parametrize(
    "build,params,value",
    [
        (lambda m, s: Normal(m, s), (T(0.3, -1.0), T(1.5, 0.5)), T(0.1, 0.7)),
        (lambda c, r: Gamma(c, r), (T(0.7, 3.0), T(2.0, 0.5)), T(0.4, 2.5)),
        (lambda a, b: Beta(a, b), (T(0.7, 3.0), T(2.0, 0.5)), T(0.4, 0.9)),
        (lambda c: Dirichlet(c), (T(0.7, 3.0, 1.5),), T(0.2, 0.5, 0.3)),
        (lambda m, C: MultivariateNormal(m, (C + C.mT) / 2),  # cholesky's gradient is the symmetric one
         (T(0.3, -1.0), numtorch.tensor([[2.0, 0.3], [0.3, 0.5]], dtype=F64)), T(0.1, 0.7)),
        (lambda lg: Categorical(logits=lg), (T(0.3, -1.0, 2.0),), numtorch.tensor([0, 2])),
        (lambda p: Bernoulli(probs=p), (T(0.3, 0.8),), T(1.0, 0.0)),
        (lambda p: Binomial(5, probs=p), (T(0.3, 0.8),), T(2.0, 5.0)),
        (lambda r: Poisson(r), (T(0.5, 4.0),), T(1.0, 3.0)),
    ],
)  # fmt: skip
def test_log_prob_gradients(build, params, value):
    ps = tuple(p.clone().requires_grad_(True) for p in params)
    assert gradcheck(lambda *q: build(*q).log_prob(value), ps)


def test_gamma_implicit_gradient_keeps_the_cdf_fixed():
    from numtorch.distributions._gamma import regularized_gamma_p, standard_gamma_grad

    a, x = np.array([0.3, 1.0, 4.0, 30.0]), np.array([0.2, 0.8, 5.0, 28.0])
    u = regularized_gamma_p(a, x)
    h = 1e-6
    # move alpha, solve P(alpha + h, x') = u by Newton: dx/dalpha by finite differences
    xp = x.copy()
    for _ in range(50):
        pdf = np.exp((a + h - 1) * np.log(xp) - xp - np.array([math.lgamma(v) for v in a + h]))
        xp -= (regularized_gamma_p(a + h, xp) - u) / pdf
    np.testing.assert_allclose(standard_gamma_grad(x, a), (xp - x) / h, rtol=1e-4)


def test_gamma_rsample_gradient_is_unbiased():
    numtorch.manual_seed(0)
    c = T(2.5).requires_grad_(True)
    Gamma(c, T(1.0)).rsample((20000,)).mean().backward()
    assert abs(c.grad.item() - 1.0) < 0.03  # d/dc E[X] = d/dc c = 1


@pytest.mark.parametrize(
    "d",
    [Normal(T(0.3), T(1.5)), Uniform(T(-1.0), T(2.0)), Laplace(T(0.3), T(1.5)), Exponential(T(2.0)),
     Gamma(T(2.0), T(3.0)), Beta(T(2.0), T(3.0)), LogNormal(T(0.0), T(0.5)), Poisson(T(3.0)),
     Binomial(7, probs=T(0.3)), Bernoulli(probs=T(0.3))],
    ids=lambda d: type(d).__name__,
)  # fmt: skip
def test_sample_moments_match_mean_and_variance(d):
    numtorch.manual_seed(1)
    s = d.sample((40000,)).numpy()
    mean, var = d.mean.item(), d.variance.item()
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / s.size)
    assert abs(s.var() - var) < 0.05 * var


def test_categorical_and_mixture_sampling():
    numtorch.manual_seed(2)
    probs = T(0.2, 0.3, 0.5)
    s = Categorical(probs=probs).sample((30000,)).numpy()
    np.testing.assert_allclose(np.bincount(s, minlength=3) / s.size, probs.numpy(), atol=0.015)
    oh = OneHotCategorical(probs=probs).sample((10,))
    assert oh.shape == (10, 3) and (oh.sum(-1) == 1).all()
    mix = MixtureSameFamily(Categorical(probs=T(0.3, 0.7)), Normal(T(-2.0, 2.0), T(0.5, 0.5)))
    x = mix.sample((30000,)).numpy()
    assert abs(x.mean() - mix.mean.item()) < 0.05


def test_kl_matches_monte_carlo():
    numtorch.manual_seed(4)
    p, q = Gamma(T(2.0), T(1.5)), Gamma(T(3.0), T(1.0))
    x = p.sample((200000,))
    mc = (p.log_prob(x) - q.log_prob(x)).mean().item()
    assert abs(kl_divergence(p, q).item() - mc) < 0.01
    p, q = Normal(T(0.0), T(1.0)), Normal(T(1.0), T(2.0))
    assert abs(kl_divergence(p, q).item() - (math.log(2) + (1 + 1) / 8 - 0.5)) < 1e-12


def test_register_kl_and_missing_pair():
    class MyNormal(Normal):
        pass

    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Poisson"):
        kl_divergence(Normal(0.0, 1.0), Poisson(1.0))

    @register_kl(MyNormal, Poisson)
    def _kl(p, q):
        return numtorch.tensor(7.0)

    assert kl_divergence(MyNormal(0.0, 1.0), Poisson(1.0)).item() == 7.0
    assert kl_divergence(MyNormal(0.0, 1.0), Normal(0.0, 1.0)).item() == 0.0  # inherits Normal-Normal


def test_validation_errors():
    with pytest.raises(ValueError, match=r"Expected parameter scale \(Tensor of shape \(1,\)\) of distribution Normal"):
        Normal(numtorch.tensor([0.0]), numtorch.tensor([-1.0]))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        Bernoulli(probs=0.3, logits=0.3)
    with pytest.raises(ValueError, match=r"Value is not broadcastable with batch_shape\+event_shape"):
        Normal(numtorch.zeros(2), 1.0).log_prob(numtorch.zeros(3))
    with pytest.raises(ValueError, match="to be within the support \\(Boolean\\(\\)\\)"):
        Bernoulli(probs=0.3).log_prob(numtorch.tensor(0.5))
    Normal(numtorch.tensor([0.0]), numtorch.tensor([-1.0]), validate_args=False)  # no check when disabled
    assert repr(Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"


def test_constraints_and_biject_to():
    x = T(-3.0, 0.0, 2.5)
    for c in (constraints.positive, constraints.unit_interval, constraints.interval(-2.0, 5.0), constraints.greater_than(1.0)):
        t = biject_to(c)
        y = t(x)
        assert bool(c.check(y).all())
        np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-9, atol=1e-9)
    s = biject_to(constraints.simplex)(T(0.3, -1.0))
    assert s.shape == (3,) and bool(constraints.simplex.check(s))
    assert repr(constraints.interval(0.0, 1.0)) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert constraints.independent(constraints.real, 1).event_dim == 1


@pytest.mark.parametrize(
    "t", [transforms.ExpTransform(), transforms.SigmoidTransform(), transforms.TanhTransform(), transforms.SoftplusTransform(),
          transforms.AffineTransform(T(1.0), T(-2.0)), transforms.PowerTransform(T(3.0))],
    ids=lambda t: type(t).__name__,
)  # fmt: skip
def test_transform_log_det_is_the_derivative(t):
    x = T(0.3, 0.9, 1.7)
    x_req = x.clone().requires_grad_(True)
    y = t(x_req)
    (dy,) = numtorch.autograd.grad(y.sum(), x_req)
    np.testing.assert_allclose(t.log_abs_det_jacobian(x, t(x)).numpy(), np.log(np.abs(dy.numpy())), rtol=1e-9)
    np.testing.assert_allclose(t.inv(t(x)).numpy(), x.numpy(), rtol=1e-9)


def test_transformed_and_independent_shapes():
    base = Normal(numtorch.zeros(4, 3), numtorch.ones(4, 3))
    d = Independent(base, 1)
    assert (d.batch_shape, d.event_shape) == ((4,), (3,))
    assert d.log_prob(numtorch.zeros(4, 3)).shape == (4,)
    td = TransformedDistribution(Normal(T(0.0), T(1.0)), [transforms.ExpTransform()])
    np.testing.assert_allclose(td.log_prob(T(2.0)).item(), LogNormal(T(0.0), T(1.0)).log_prob(T(2.0)).item())
    e = Normal(T(0.0), T(1.0)).expand((3, 2))
    assert e.batch_shape == (3, 2) and e.sample().shape == (3, 2)
