"""``torch.distributions.continuous_bernoulli``'s import path (the class lives in numtorch/distributions/_extra.py)."""

from __future__ import annotations

from ._extra import ContinuousBernoulli  # noqa: F401
