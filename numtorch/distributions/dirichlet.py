"""``torch.distributions.dirichlet``'s import path (the class lives in numtorch/distributions/_continuous.py)."""

from __future__ import annotations

from ._continuous import Dirichlet  # noqa: F401
