"""``torch.distributions.uniform``'s import path (the class lives in numtorch/distributions/_continuous.py)."""

from __future__ import annotations

from ._continuous import Uniform  # noqa: F401
