"""``torch.distributions.poisson``'s import path (the class lives in numtorch/distributions/_discrete.py)."""

from __future__ import annotations

from ._discrete import Poisson  # noqa: F401
