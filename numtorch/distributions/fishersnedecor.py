"""``torch.distributions.fishersnedecor``'s import path (the class lives in numtorch/distributions/_extra.py)."""

from __future__ import annotations

from ._extra import FisherSnedecor  # noqa: F401
