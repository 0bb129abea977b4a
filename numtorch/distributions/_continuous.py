"""Continuous univariate families: Normal, Uniform, Laplace, Exponential, Gamma, Beta, Dirichlet.

Formulas are PyTorch's (torch/distributions/<family>.py); samples come from numtorch's default
generator, so ``numtorch.manual_seed`` makes them repeatable.
"""

from __future__ import annotations

import math
import numbers

from . import constraints
from ._gamma import standard_gamma
from .distribution import Distribution, ExponentialFamily
from .utils import broadcast_all


def _nt():
    import numtorch

    return numtorch


def _expand_params(self, cls, batch_shape, names, _instance):
    nt = _nt()
    new = self._get_checked_instance(cls, _instance)
    batch_shape = nt.Size(batch_shape)
    for n in names:
        setattr(new, n, getattr(self, n).expand(batch_shape))
    Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


class Normal(ExponentialFamily):
    """Normal distribution N(loc, scale^2).

    >>> numtorch.distributions.Normal(0.0, 1.0).log_prob(numtorch.tensor(0.0))
    tensor(-0.9189)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = () if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number) else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Normal, batch_shape, ("loc", "scale"), _instance)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        nt = _nt()
        shape = self._extended_shape(sample_shape)
        eps = nt.randn(shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def sample(self, sample_shape=()):
        with _nt().no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + _nt().erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * _nt().erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + _nt().log(self.scale)


class Uniform(Distribution):
    """Uniform distribution on [low, high).

    >>> numtorch.distributions.Uniform(0.0, 2.0).entropy()
    tensor(0.6931)
    """

    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}  # fmt: skip
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch_shape = () if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) else self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and not bool(self.low.lt(self.high).all()):
            raise ValueError("Uniform is not defined when low>= high")

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Uniform, batch_shape, ("low", "high"), _instance)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.high * float("nan")

    @property
    def stddev(self):
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        rand = _nt().rand(self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return nt.log(lb.mul(ub)) - nt.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return _nt().log(self.high - self.low)


class Laplace(Distribution):
    """Laplace distribution with location ``loc`` and scale ``scale``.

    >>> numtorch.distributions.Laplace(0.0, 1.0).log_prob(numtorch.tensor(0.0))
    tensor(-0.6931)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = () if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number) else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Laplace, batch_shape, ("loc", "scale"), _instance)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def rsample(self, sample_shape=()):
        nt = _nt()
        shape = self._extended_shape(sample_shape)
        eps = nt.finfo(self.loc.dtype).eps
        u = nt.rand(shape, dtype=self.loc.dtype) * (2 - 2 * eps) - (1 - eps)  # open interval (-1, 1)
        return self.loc - self.scale * u.sign() * nt.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -_nt().log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * _nt().expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * _nt().log1p(-2 * term.abs())

    def entropy(self):
        return 1 + _nt().log(2 * self.scale)


class Exponential(ExponentialFamily):
    """Exponential distribution with rate ``rate``.

    >>> numtorch.distributions.Exponential(2.0).mean
    tensor(0.5000)
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Exponential, batch_shape, ("rate",), _instance)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _nt().zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        nt = _nt()
        u = nt.rand(self._extended_shape(sample_shape), dtype=self.rate.dtype)
        return -nt.log1p(-u) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - _nt().exp(-self.rate * value)

    def icdf(self, value):
        return -_nt().log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - _nt().log(self.rate)


class Gamma(ExponentialFamily):
    """Gamma distribution with ``concentration`` (shape) and ``rate``; ``rsample`` is differentiable
    in both (Note [Implicit gamma gradient]).

    >>> numtorch.distributions.Gamma(2.0, 4.0).mean
    tensor(0.5000)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(() if scalar else self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Gamma, batch_shape, ("concentration", "rate"), _instance)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        nt = _nt()
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=nt.finfo(value.dtype).tiny)

    def log_prob(self, value):
        nt = _nt()
        value = nt.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (nt.xlogy(self.concentration, self.rate) + nt.xlogy(self.concentration - 1, value)
                - self.rate * value - nt.lgamma(self.concentration))  # fmt: skip

    def entropy(self):
        nt = _nt()
        c = self.concentration
        return c - nt.log(self.rate) + nt.lgamma(c) + (1.0 - c) * nt.digamma(c)


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex, parameterised by ``concentration``.

    >>> numtorch.distributions.Dirichlet(numtorch.tensor([1.0, 3.0])).mean
    tensor([0.2500, 0.7500])
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True
    _event_params = ("concentration",)

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        nt = _nt()
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = nt.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        g = standard_gamma(self.concentration.expand(shape))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return nt.xlogy(c - 1.0, value).sum(-1) + nt.lgamma(c.sum(-1)) - nt.lgamma(c).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        nt = _nt()
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        return nt.where(mask.unsqueeze(-1), nt.nn.functional.one_hot(mode.argmax(dim=-1), cm1.shape[-1]).to(mode.dtype), mode)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        nt = _nt()
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (nt.lgamma(self.concentration).sum(-1) - nt.lgamma(a0) - (k - a0) * nt.digamma(a0)
                - ((self.concentration - 1.0) * nt.digamma(self.concentration)).sum(-1))  # fmt: skip


class Beta(ExponentialFamily):
    """Beta distribution with ``concentration1`` (alpha) and ``concentration0`` (beta).

    >>> numtorch.distributions.Beta(2.0, 2.0).mean
    tensor(0.5000)
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        nt = _nt()
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number):
            c = nt.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            c = nt.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(c, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        nt = _nt()
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = nt.Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = nt.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()
