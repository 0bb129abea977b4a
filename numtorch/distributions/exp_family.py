"""``torch.distributions.exp_family``'s import path (the class lives in numtorch/distributions/distribution.py)."""

from __future__ import annotations

from .distribution import ExponentialFamily  # noqa: F401
