"""``torch.distributions.bernoulli``'s import path (the class lives in numtorch/distributions/_discrete.py)."""

from __future__ import annotations

from ._discrete import Bernoulli  # noqa: F401
