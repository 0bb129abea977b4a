"""``torch.distributions.multivariate_normal``'s import path (the class lives in numtorch/distributions/_multivariate.py)."""

from __future__ import annotations

from ._multivariate import MultivariateNormal  # noqa: F401
