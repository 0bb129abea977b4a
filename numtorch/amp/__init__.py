"""numtorch.amp: ``autocast`` (Note [Autocast key]), ``GradScaler``, ``custom_fwd``/``custom_bwd``."""

from __future__ import annotations

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
