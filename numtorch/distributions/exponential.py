"""``torch.distributions.exponential``'s import path (the class lives in numtorch/distributions/_continuous.py)."""

from __future__ import annotations

from ._continuous import Exponential  # noqa: F401
