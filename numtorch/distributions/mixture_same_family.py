"""``torch.distributions.mixture_same_family``'s import path (the class lives in numtorch/distributions/_multivariate.py)."""

from __future__ import annotations

from ._multivariate import MixtureSameFamily  # noqa: F401
