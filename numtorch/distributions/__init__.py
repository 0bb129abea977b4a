"""numtorch.distributions: probability distributions with PyTorch's API, shapes, checks and messages.

``rsample`` is differentiable for the reparameterisable families (Normal, Uniform, Laplace,
Exponential, Gamma, Beta, Dirichlet, LogNormal, MultivariateNormal, LowRankMultivariateNormal, Wishart,
RelaxedOneHotCategorical);
``log_prob`` is differentiable everywhere. Samples come from numtorch's default generator.

>>> d = numtorch.distributions.Normal(numtorch.tensor(0.0), numtorch.tensor(1.0))
>>> d.log_prob(numtorch.tensor(0.0))
tensor(-0.9189)
"""

from __future__ import annotations

from . import constraints, transforms
from ._continuous import Beta, Dirichlet, Exponential, Gamma, Laplace, Normal, Uniform
from ._discrete import Bernoulli, Binomial, Categorical, OneHotCategorical, Poisson
from ._multivariate import (
    ExpRelaxedCategorical, LogNormal, MixtureSameFamily, MultivariateNormal, RelaxedOneHotCategorical,
)  # fmt: skip
from ._more import (
    Cauchy, Chi2, Geometric, Gumbel, HalfCauchy, HalfNormal, InverseGamma, Kumaraswamy, LogitRelaxedBernoulli,
    Multinomial, NegativeBinomial, OneHotCategoricalStraightThrough, Pareto, RelaxedBernoulli, StudentT, Weibull,
)  # fmt: skip
from . import (  # noqa: E402 - torch's per-family import paths
    bernoulli, beta, binomial, categorical, dirichlet, exp_family, exponential, gamma, laplace, log_normal,
    mixture_same_family, multivariate_normal, normal, one_hot_categorical, poisson, relaxed_categorical, uniform,
)  # fmt: skip
from ._extra import ContinuousBernoulli, FisherSnedecor, GeneralizedPareto, LogisticNormal, VonMises  # noqa: E402
from . import (  # noqa: E402
    continuous_bernoulli, fishersnedecor, generalized_pareto, logistic_normal, von_mises,
    cauchy, chi2, geometric, gumbel, half_cauchy, half_normal, inverse_gamma, kumaraswamy, multinomial,
    negative_binomial, pareto, relaxed_bernoulli, studentT, weibull,
)  # fmt: skip
from ._matrix import LKJCholesky, LowRankMultivariateNormal, Wishart  # noqa: E402
from . import lkj_cholesky, lowrank_multivariate_normal, wishart  # noqa: E402
from .constraint_registry import biject_to, transform_to
from .distribution import Distribution, ExponentialFamily
from .independent import Independent
from .kl import kl_divergence, register_kl
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform, PowerTransform,
    SigmoidTransform, SoftmaxTransform, SoftplusTransform, StickBreakingTransform, TanhTransform, Transform,
    identity_transform, CatTransform, CorrCholeskyTransform, CumulativeDistributionTransform, LowerCholeskyTransform,
    PositiveDefiniteTransform, ReshapeTransform, StackTransform,
)  # fmt: skip

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "ComposeTransform",
    "Dirichlet", "Distribution", "ExpRelaxedCategorical", "ExpTransform", "Exponential", "ExponentialFamily",
    "Gamma", "Independent", "IndependentTransform", "Laplace", "LogNormal", "MixtureSameFamily",
    "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "PowerTransform", "RelaxedOneHotCategorical",
    "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StickBreakingTransform", "TanhTransform",
    "Transform", "TransformedDistribution", "Uniform", "biject_to", "constraints", "identity_transform",
    "kl_divergence", "register_kl", "transform_to", "transforms", "Cauchy", "Chi2", "Geometric", "Gumbel",
    "HalfCauchy", "HalfNormal", "InverseGamma", "Kumaraswamy", "LogitRelaxedBernoulli", "Multinomial",
    "NegativeBinomial", "OneHotCategoricalStraightThrough", "Pareto", "RelaxedBernoulli", "StudentT", "Weibull",
    "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "ReshapeTransform", "StackTransform", "ContinuousBernoulli", "FisherSnedecor", "GeneralizedPareto", "LogisticNormal", "VonMises",
    "LKJCholesky", "LowRankMultivariateNormal", "Wishart",
]  # fmt: skip
