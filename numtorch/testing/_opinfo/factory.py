"""OpInfos for numtorch/ops/factory.py."""

from __future__ import annotations

OPINFOS: list = []
