"""``torch.distributions.log_normal``'s import path (the class lives in numtorch/distributions/_multivariate.py)."""

from __future__ import annotations

from ._multivariate import LogNormal  # noqa: F401
