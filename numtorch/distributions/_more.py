"""More families built as PyTorch builds them: Cauchy, HalfNormal, HalfCauchy, Chi2, StudentT, Gumbel,
Pareto, Weibull, InverseGamma, Kumaraswamy, Geometric, NegativeBinomial, Multinomial,
RelaxedBernoulli (LogitRelaxedBernoulli) and OneHotCategoricalStraightThrough."""

from __future__ import annotations

import math
import numbers

from . import constraints
from ._continuous import Exponential, Gamma, Uniform
from ._discrete import Binomial, Categorical, OneHotCategorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, AbsTransform, ExpTransform, PowerTransform, SigmoidTransform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits


def _nt():
    import numtorch

    return numtorch


class _Scalars(Distribution):
    """Shared __init__/expand for families whose parameters broadcast to the batch shape."""

    _params: tuple = ()

    def _setup(self, values, raw, validate_args):
        for name, v in zip(self._params, broadcast_all(*values)):
            setattr(self, name, v)
        first = getattr(self, self._params[0])
        batch = () if all(isinstance(r, numbers.Number) for r in raw) else first.size()
        Distribution.__init__(self, batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        nt = _nt()
        new = self._get_checked_instance(type(self), _instance)
        batch_shape = nt.Size(batch_shape)
        for n in self._params:
            setattr(new, n, getattr(self, n).expand(batch_shape))
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new


class Cauchy(_Scalars):
    """Cauchy (Lorentz) distribution.

    >>> numtorch.distributions.Cauchy(0.0, 1.0).log_prob(numtorch.tensor(0.0))
    tensor(-1.1447)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _params = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self._setup((loc, scale), (loc, scale), validate_args)

    @property
    def mean(self):
        return _nt().full(self._extended_shape(), float("nan"), dtype=self.loc.dtype)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return _nt().full(self._extended_shape(), float("inf"), dtype=self.loc.dtype)

    def rsample(self, sample_shape=()):
        nt = _nt()
        u = nt.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + self.scale * nt.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        return _nt().atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return _nt().tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class Gumbel(TransformedDistribution):
    """Gumbel distribution: ``loc - scale * log(-log U)``.

    >>> numtorch.distributions.Gumbel(0.0, 1.0).log_prob(numtorch.tensor(0.0))
    tensor(-1.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        nt = _nt()
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = nt.finfo(self.loc.dtype)
        base = Uniform(nt.full_like(self.loc, finfo.tiny), nt.full_like(self.loc, 1 - finfo.eps), validate_args=validate_args)
        tfs = [ExpTransform().inv, AffineTransform(loc=0, scale=-nt.ones_like(self.scale)), ExpTransform().inv,
               AffineTransform(loc=self.loc, scale=-self.scale)]  # fmt: skip
        super().__init__(base, tfs, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * 0.57721566490153286060

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + 0.57721566490153286060)


class HalfNormal(TransformedDistribution):
    """``|X|`` for ``X ~ Normal(0, scale)``.

    >>> numtorch.distributions.HalfNormal(1.0).mean
    tensor(0.7979)
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        from ._continuous import Normal

        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return _nt().zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return _nt().where(value >= 0, log_prob, _nt().full_like(log_prob, -math.inf))

    def cdf(self, value):
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfCauchy(TransformedDistribution):
    """``|X|`` for ``X ~ Cauchy(0, scale)``.

    >>> numtorch.distributions.HalfCauchy(1.0).log_prob(numtorch.tensor(0.0))
    tensor(-0.4516)
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return _nt().full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def mode(self):
        return _nt().zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        value = nt.as_tensor(value, dtype=self.base_dist.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return nt.where(value >= 0, log_prob, nt.full_like(log_prob, -math.inf))

    def cdf(self, value):
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class Chi2(Gamma):
    """Chi-squared with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2).

    >>> numtorch.distributions.Chi2(4.0).mean
    tensor(4.)
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, _nt().full_like(df, 0.5), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location and scale.

    >>> numtorch.distributions.StudentT(3.0).log_prob(numtorch.tensor(0.0))
    tensor(-1.0017)
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        nt = _nt()
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = nt.Size(batch_shape)
        new.df, new.loc, new.scale = (self.df.expand(batch_shape), self.loc.expand(batch_shape), self.scale.expand(batch_shape))
        new._chi2 = self._chi2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        nt = _nt()
        m = self.loc.clone()
        return nt.where(self.df <= 1, nt.full_like(m, float("nan")), m)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        nt = _nt()
        m = self.df.clone()
        var = self.scale.pow(2) * m / (m - 2)
        var = nt.where(m <= 2, nt.full_like(var, math.inf), var)
        return nt.where(m <= 1, nt.full_like(var, float("nan")), var)

    def rsample(self, sample_shape=()):
        nt = _nt()
        shape = self._extended_shape(sample_shape)
        X = nt.randn(shape, dtype=self.df.dtype)
        Z = self._chi2.rsample(sample_shape)
        Y = X * nt.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + nt.lgamma(0.5 * self.df) - nt.lgamma(0.5 * (self.df + 1.0))
        return -0.5 * (self.df + 1.0) * nt.log1p(y**2.0 / self.df) - Z

    def entropy(self):
        nt = _nt()
        lbeta = nt.lgamma(0.5 * self.df) + math.lgamma(0.5) - nt.lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (nt.digamma(0.5 * (self.df + 1)) - nt.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)  # fmt: skip


class Pareto(TransformedDistribution):
    """Pareto type-1 distribution: ``scale * exp(Exponential(alpha))``.

    >>> numtorch.distributions.Pareto(1.0, 3.0).mean
    tensor(1.5000)
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class Weibull(TransformedDistribution):
    """Weibull distribution with ``scale`` and ``concentration``.

    >>> numtorch.distributions.Weibull(1.0, 1.0).mean
    tensor(1.)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        nt = _nt()
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(nt.ones_like(self.scale), validate_args=validate_args)
        tfs = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, tfs, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * _nt().exp(_nt().lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self):
        nt = _nt()
        return self.scale.pow(2) * (nt.exp(nt.lgamma(1 + 2 * self.concentration_reciprocal))
                                    - nt.exp(2 * nt.lgamma(1 + self.concentration_reciprocal)))  # fmt: skip

    def entropy(self):
        return (0.57721566490153286060 * (1 - self.concentration_reciprocal)
                + (self.scale * self.concentration_reciprocal).log() + 1)  # fmt: skip


class InverseGamma(TransformedDistribution):
    """``1 / X`` for ``X ~ Gamma(concentration, rate)``.

    >>> numtorch.distributions.InverseGamma(3.0, 2.0).mean
    tensor(1.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-_nt().ones((), dtype=base.rate.dtype)), validate_args=validate_args)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        nt = _nt()
        result = self.rate / (self.concentration - 1)
        return nt.where(self.concentration > 1, result, nt.full_like(result, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        nt = _nt()
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return nt.where(self.concentration > 2, result, nt.full_like(result, math.inf))

    def entropy(self):
        nt = _nt()
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())  # fmt: skip


class Geometric(Distribution):
    """Number of failures before the first success, success probability ``probs``.

    >>> numtorch.distributions.Geometric(probs=numtorch.tensor(0.5)).mean
    tensor(1.)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        probs_or_logits = probs if probs is not None else logits
        batch = () if isinstance(probs_or_logits, numbers.Number) else (self.probs if probs is not None else self.logits).size()
        super().__init__(batch, validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _nt().zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        nt = _nt()
        shape = self._extended_shape(sample_shape)
        tiny = nt.finfo(self.probs.dtype).tiny
        with nt.no_grad():
            u = nt.rand(shape, dtype=self.probs.dtype).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs = nt.where((probs == 1) & (value == 0), nt.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        F = _nt().nn.functional
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class NegativeBinomial(Distribution):
    """Failures before ``total_count`` successes, success probability ``1 - probs`` per trial.

    >>> numtorch.distributions.NegativeBinomial(3.0, probs=numtorch.tensor(0.5)).mean
    tensor(3.)
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}  # fmt: skip
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self):
        return self.total_count * _nt().exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / _nt().sigmoid(-self.logits)

    def sample(self, sample_shape=()):
        nt = _nt()
        with nt.no_grad():
            rate = Gamma(self.total_count, _nt().exp(-self.logits), validate_args=False).sample(sample_shape)
            return nt.poisson(rate)

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        F = nt.nn.functional
        log_unnormalized_prob = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = -nt.lgamma(self.total_count + value) + nt.lgamma(1.0 + value) + nt.lgamma(self.total_count)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization


class Multinomial(Distribution):
    """Counts of ``total_count`` draws from a Categorical.

    >>> numtorch.distributions.Multinomial(4, probs=numtorch.tensor([0.5, 0.5])).mean
    tensor([2., 2.])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    def sample(self, sample_shape=()):
        nt = _nt()
        sample_shape = nt.Size(sample_shape)
        samples = self._categorical.sample(nt.Size((self.total_count,)) + sample_shape)
        shifted_idx = list(range(samples.dim()))
        shifted_idx.append(shifted_idx.pop(0))
        samples = samples.permute(*shifted_idx)
        counts = nt.zeros(samples.shape[:-1] + (self._categorical._num_events,), dtype=self.probs.dtype)
        counts.scatter_add_(-1, samples, nt.ones_like(samples, dtype=self.probs.dtype))
        return counts

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = nt.lgamma(value.sum(-1) + 1)
        log_factorial_xs = nt.lgamma(value + 1).sum(-1)
        logits = nt.where((value == 0) & (logits == -math.inf), nt.zeros_like(logits), logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli sample."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        src = probs if probs is not None else logits
        super().__init__(() if isinstance(src, numbers.Number) else self._param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def rsample(self, sample_shape=()):
        nt = _nt()
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(nt.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        t = self.temperature
        log_t = math.log(t) if isinstance(t, numbers.Number) else t.log()
        return log_t + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """The concrete relaxation of Bernoulli at ``temperature``: values in (0, 1).

    >>> 0 < float(numtorch.distributions.RelaxedBernoulli(numtorch.tensor(0.5), probs=numtorch.tensor(0.3)).rsample()) < 1
    True
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose ``rsample`` passes gradients straight through to the probabilities."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution on (0, 1) with ``concentration1`` (a) and ``concentration0`` (b).

    >>> round(float(numtorch.distributions.Kumaraswamy(1.0, 1.0).mean), 4)
    0.5
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        nt = _nt()
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        finfo = nt.finfo(self.concentration0.dtype)
        base = Uniform(nt.full_like(self.concentration0, 0), nt.full_like(self.concentration0, 1), validate_args=validate_args)
        tfs = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
               PowerTransform(exponent=self.concentration1.reciprocal())]  # fmt: skip
        super().__init__(base, tfs, validate_args=validate_args)
        self._eps = finfo.eps

    @property
    def mean(self):
        nt = _nt()
        a, b = self.concentration1, self.concentration0
        return nt.exp(b.log() + nt.lgamma(1 + 1 / a) + nt.lgamma(b) - nt.lgamma(1 + b + 1 / a))

    @property
    def mode(self):
        log_mode = self.concentration0.reciprocal() * (-self.concentration0).log1p() - (-self.concentration0 * self.concentration1).log1p()
        return log_mode.exp()

    @property
    def variance(self):
        nt = _nt()
        a, b = self.concentration1, self.concentration0
        m2 = nt.exp(b.log() + nt.lgamma(1 + 2 / a) + nt.lgamma(b) - nt.lgamma(1 + b + 2 / a))
        return m2 - self.mean.pow(2)

    def entropy(self):
        nt = _nt()
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = nt.digamma(self.concentration0 + 1) + 0.57721566490153286060
        return t0 + t1 * H0 - nt.log(self.concentration1) - nt.log(self.concentration0)
