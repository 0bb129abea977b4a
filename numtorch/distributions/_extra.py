"""FisherSnedecor, GeneralizedPareto, ContinuousBernoulli, LogisticNormal and VonMises, built as
PyTorch builds them (same formulas, so values and gradients agree to rounding)."""

from __future__ import annotations

import math

from . import constraints
from ._continuous import Gamma, Normal
from ._more import _Scalars
from .distribution import Distribution, ExponentialFamily
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits


def _nt():
    import numtorch

    return numtorch


class FisherSnedecor(_Scalars):
    """Fisher-Snedecor (F) distribution with ``df1`` and ``df2`` degrees of freedom.

    >>> numtorch.distributions.FisherSnedecor(4.0, 6.0).mean
    tensor(1.5000)
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True
    _params = ("df1", "df2")

    def __init__(self, df1, df2, validate_args=None):
        self._setup((df1, df2), (df1, df2), validate_args)

    @property
    def _gammas(self):
        return Gamma(self.df1 * 0.5, self.df1), Gamma(self.df2 * 0.5, self.df2)

    @property
    def mean(self):
        nt = _nt()
        return nt.where(self.df2 <= 2, math.nan, self.df2 / (self.df2 - 2))

    @property
    def mode(self):
        nt = _nt()
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return nt.where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self):
        nt = _nt()
        df2 = nt.where(self.df2 <= 4, math.nan, self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        nt = _nt()
        shape = self._extended_shape(sample_shape)
        g1, g2 = self._gammas
        tiny = nt.finfo(self.df1.dtype).tiny
        x2 = g2.rsample(sample_shape).view(shape).clamp(min=tiny)
        return (g1.rsample(sample_shape).view(shape) / x2).clamp(min=tiny)

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2, ct3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * nt.log(value)
        t3 = (ct1 + ct2) * nt.log1p(ct3 * value)
        return t1 + t2 - t3


class GeneralizedPareto(_Scalars):
    """Generalized Pareto distribution (loc, scale, concentration; TensorFlow Probability's form).

    >>> numtorch.distributions.GeneralizedPareto(0.0, 1.0, 0.0).log_prob(numtorch.tensor(1.0))
    tensor(-1.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True
    _params = ("loc", "scale", "concentration")

    def __init__(self, loc, scale, concentration, validate_args=None):
        self._setup((loc, scale, concentration), (loc, scale, concentration), validate_args)

    def _safe(self):
        nt = _nt()
        eq_zero = nt.isclose(self.concentration, nt.tensor(0.0, dtype=self.concentration.dtype))
        return eq_zero, nt.where(eq_zero, nt.ones_like(self.concentration), self.concentration)

    def rsample(self, sample_shape=()):
        nt = _nt()
        return self.icdf(nt.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype))

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe = self._safe()
        y = 1 / safe + nt.ones_like(z)
        where_nonzero = nt.where(y == 0, y, y * nt.log1p(safe * z))
        return -self.scale.log() - nt.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe = self._safe()
        return nt.where(eq_zero, -z, -nt.log1p(safe * z) / safe)

    def log_cdf(self, value):
        nt = _nt()
        return nt.log1p(-nt.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        nt = _nt()
        eq_zero, safe = self._safe()
        logu = nt.log1p(-value)
        return nt.where(eq_zero, self.loc - self.scale * logu, self.loc + self.scale / safe * nt.expm1(-safe * logu))

    @property
    def mean(self):
        nt = _nt()
        valid = self.concentration < 1
        safe = nt.where(valid, self.concentration, 0.5)
        return nt.where(valid, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self):
        nt = _nt()
        valid = self.concentration < 0.5
        safe = nt.where(valid, self.concentration, 0.25)
        return nt.where(valid, self.scale**2 / ((1 - safe) ** 2 * (1 - 2 * safe)), math.nan)

    def entropy(self):
        return _nt().broadcast_to(self.scale.log() + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        nt = _nt()
        upper = nt.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)


class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli on [0, 1] (Loaiza-Ganem and Cunningham, 2019), by ``probs`` or ``logits``.

    >>> numtorch.distributions.ContinuousBernoulli(numtorch.tensor(0.3)).mean
    tensor(0.4066)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        nt = _nt()
        if probs is not None:
            scalar = not isinstance(probs, nt.Tensor)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not self.arg_constraints["probs"].check(self.probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            scalar = not isinstance(logits, nt.Tensor)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(() if scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        nt = _nt()
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = nt.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = new._param = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = new._param = self.logits.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _outside_unstable_region(self):
        nt = _nt()
        return nt.max(nt.le(self.probs, self._lims[0]), nt.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        nt = _nt()
        return nt.where(self._outside_unstable_region(), self.probs, self._lims[0] * nt.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        nt = _nt()
        cut = self._cut_probs()
        below = nt.where(cut <= 0.5, cut, nt.zeros_like(cut))
        above = nt.where(cut >= 0.5, cut, nt.ones_like(cut))
        log_norm = nt.log(nt.abs(nt.log1p(-cut) - nt.log(cut))) - nt.where(
            cut <= 0.5, nt.log1p(-2.0 * below), nt.log(2.0 * above - 1.0)
        )
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return nt.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        nt = _nt()
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (nt.log1p(-cut) - nt.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x**2) * x
        return nt.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        nt = _nt()
        cut = self._cut_probs()
        v = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 + 1.0 / (nt.log1p(-cut) - nt.log(cut)) ** 2
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return nt.where(self._outside_unstable_region(), v, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=()):
        nt = _nt()
        with nt.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        nt = _nt()
        return self.icdf(nt.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = nt.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut**value * (1.0 - cut) ** (1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = nt.where(self._outside_unstable_region(), cdfs, value)
        return nt.where(value <= 0.0, nt.zeros_like(value), nt.where(value >= 1.0, nt.ones_like(value), unbounded))

    def icdf(self, value):
        nt = _nt()
        cut = self._cut_probs()
        inner = (nt.log1p(-cut + value * (2.0 * cut - 1.0)) - nt.log1p(-cut)) / (nt.log(cut) - nt.log1p(-cut))
        return nt.where(self._outside_unstable_region(), inner, value)

    def entropy(self):
        nt = _nt()
        lp0, lp1 = nt.log1p(-self.probs), nt.log(self.probs)
        return self.mean * (lp0 - lp1) - self._cont_bern_log_norm() - lp0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        nt = _nt()
        out = nt.max(x <= self._lims[0] - 0.5, x > self._lims[1] - 0.5)
        cut = nt.where(out, x, (self._lims[0] - 0.5) * nt.ones_like(x))
        log_norm = nt.log(nt.abs(nt.expm1(cut))) - nt.log(nt.abs(cut))
        taylor = 0.5 * x + x**2 / 24.0 - x**4 / 2880.0
        return nt.where(out, log_norm, taylor)


class LogisticNormal(TransformedDistribution):
    """A Normal pushed through the stick-breaking transform onto the simplex.

    >>> numtorch.distributions.LogisticNormal(numtorch.zeros(2), numtorch.ones(2)).event_shape
    torch.Size([3])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale


# Abramowitz and Stegun 9.8.1-9.8.4, as PyTorch's von_mises.py evaluates them
_COEF_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
               [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3])  # fmt: skip
_COEF_LARGE = ([0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
                -0.1647633e-1, 0.392377e-2],
               [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
                0.1787654e-1, -0.420059e-2])  # fmt: skip


def _eval_poly(y, coef):
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    nt = _nt()
    y = (x / 3.75) ** 2
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return nt.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """The circular von Mises distribution (angles in radians, taken modulo 2 pi).

    >>> numtorch.distributions.VonMises(numtorch.tensor(0.0), numtorch.tensor(1.0)).log_prob(numtorch.tensor(0.0))
    tensor(-1.0690)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def log_prob(self, value):
        nt = _nt()
        if self._validate_args:
            self._validate_sample(value)
        lp = self.concentration * nt.cos(value - self.loc)
        return lp - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    def sample(self, sample_shape=()):
        # Best and Fisher (1979) rejection sampler in float64, as PyTorch's
        nt = _nt()
        with nt.no_grad():
            loc, kappa = self.loc.double(), self.concentration.double()
            tau = 1 + (1 + 4 * kappa**2).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
            r = nt.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho**2) / (2 * rho))
            shape = self._extended_shape(sample_shape)
            x = nt.zeros(shape, dtype=nt.float64)
            done = nt.zeros(shape, dtype=nt.bool)
            while not done.all():
                u1, u2, u3 = nt.rand((3,) + tuple(shape), dtype=nt.float64).unbind()
                z = nt.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                x = nt.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
                done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=self.__dict__.get("_validate_args"))  # fmt: skip

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        k = self.concentration
        return 1 - (_log_modified_bessel_fn(k, order=1) - _log_modified_bessel_fn(k, order=0)).exp()
