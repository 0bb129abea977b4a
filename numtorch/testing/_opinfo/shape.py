"""OpInfos for numtorch/ops/shape.py."""

from __future__ import annotations

OPINFOS: list = []
