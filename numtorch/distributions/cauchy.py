"""``torch.distributions.cauchy``'s import path (the class lives in numtorch/distributions/_more.py)."""

from __future__ import annotations

from ._more import Cauchy  # noqa: F401
