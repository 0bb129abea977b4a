"""``torch.distributions.von_mises``'s import path (the class lives in numtorch/distributions/_extra.py)."""

from __future__ import annotations

from ._extra import VonMises  # noqa: F401
