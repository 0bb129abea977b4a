"""``torch.distributions.half_normal``'s import path (the class lives in numtorch/distributions/_more.py)."""

from __future__ import annotations

from ._more import HalfNormal  # noqa: F401
