"""``torch.distributions.relaxed_bernoulli``'s import path (the classes live in numtorch/distributions/_more.py)."""

from __future__ import annotations

from ._more import LogitRelaxedBernoulli, RelaxedBernoulli  # noqa: F401
