"""``torch.distributions.wishart``'s import path (the class lives in numtorch/distributions/_matrix.py)."""

from __future__ import annotations

from ._matrix import Wishart  # noqa: F401
