"""Elementwise ops: ``core`` (arithmetic, math, the operator dunders and the area's helpers),
``compare``, ``extra`` (more math), ``special`` and ``special_fns`` (the rest of torch.special);
``_elementwise`` holds the engine's argument checks and routing (the code generator is ``numtorch/ops/_pointwise.py``)."""

from . import _elementwise, core, compare, extra, special, special_fns  # noqa: F401
