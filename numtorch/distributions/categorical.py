"""``torch.distributions.categorical``'s import path (the class lives in numtorch/distributions/_discrete.py)."""

from __future__ import annotations

from ._discrete import Categorical  # noqa: F401
