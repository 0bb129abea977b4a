"""``torch.distributions.gamma``'s import path (the class lives in numtorch/distributions/_continuous.py)."""

from __future__ import annotations

from ._continuous import Gamma  # noqa: F401
