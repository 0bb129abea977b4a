"""``torch.distributions.generalized_pareto``'s import path (the class lives in numtorch/distributions/_extra.py)."""

from __future__ import annotations

from ._extra import GeneralizedPareto  # noqa: F401
