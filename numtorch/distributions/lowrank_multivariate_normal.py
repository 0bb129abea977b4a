"""``torch.distributions.lowrank_multivariate_normal``'s import path (the class lives in numtorch/distributions/_matrix.py)."""

from __future__ import annotations

from ._matrix import LowRankMultivariateNormal  # noqa: F401
