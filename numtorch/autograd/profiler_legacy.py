"""``torch.autograd.profiler_legacy``: the pre-Kineto profiler API, served by the same dispatcher
profiler (numtorch has one implementation)."""

from __future__ import annotations

from .profiler import profile  # noqa: F401

__all__ = ["profile"]
