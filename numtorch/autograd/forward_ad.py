"""Forward-mode AD (dual numbers): dual_level, make_dual, unpack_dual."""

from __future__ import annotations
