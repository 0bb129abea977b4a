"""``torch.distributions.chi2``'s import path (the class lives in numtorch/distributions/_more.py)."""

from __future__ import annotations

from ._more import Chi2  # noqa: F401
