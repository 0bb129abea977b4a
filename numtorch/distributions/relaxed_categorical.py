"""``torch.distributions.relaxed_categorical``'s import path (the class lives in numtorch/distributions/_multivariate.py)."""

from __future__ import annotations

from ._multivariate import ExpRelaxedCategorical, RelaxedOneHotCategorical  # noqa: F401
