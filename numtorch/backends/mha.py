"""``numtorch.backends.mha``: the switch for PyTorch's fused MultiheadAttention / TransformerEncoder
inference path. numtorch has one path (the composite), so the switch is recorded only."""

from __future__ import annotations

_is_fastpath_enabled: bool = True


def get_fastpath_enabled() -> bool:
    """Whether the fused attention fast path may be used (default True)."""
    return _is_fastpath_enabled


def set_fastpath_enabled(value: bool) -> None:
    """Allow or forbid the fused attention fast path."""
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
