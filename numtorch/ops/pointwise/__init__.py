"""Elementwise ops: ``core`` (arithmetic, math, the operator dunders and the area's helpers),
``compare``, ``extra`` (more math) and ``special``; ``_elementwise`` holds the engine's
argument checks and routing (the code generator is ``numtorch/ops/_pointwise.py``)."""

from . import _elementwise, core, compare, extra, special  # noqa: F401
