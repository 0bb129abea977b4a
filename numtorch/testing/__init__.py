"""Testing utilities: ``assert_close`` and the OpInfo table (``numtorch.testing._opinfo``)."""

from __future__ import annotations

from ._comparison import assert_close

__all__ = ["assert_close"]
