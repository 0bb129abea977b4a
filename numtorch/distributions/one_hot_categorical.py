"""``torch.distributions.one_hot_categorical``'s import path (the class lives in numtorch/distributions/_discrete.py)."""

from __future__ import annotations

from ._discrete import OneHotCategorical  # noqa: F401
