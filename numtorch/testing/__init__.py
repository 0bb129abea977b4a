"""numtorch.testing: ``assert_close``, ``make_tensor``, ``FileCheck`` and the OpInfo table
(``numtorch.testing._opinfo``)."""

from __future__ import annotations

from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor
from ._filecheck import FileCheck

__all__ = ["FileCheck", "assert_allclose", "assert_close", "make_tensor"]
