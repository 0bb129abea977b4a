"""Elementwise ops: ``core`` (arithmetic, math, the operator dunders and the area's helpers),
``compare``, ``extra`` (more math), ``special``, ``special_fns`` (the rest of torch.special) and ``float_parts`` (nextafter, frexp);
``_elementwise`` holds the engine's argument checks and routing (the code generator is ``numtorch/ops/_pointwise.py``)."""

from . import _elementwise, core, compare, extra, special, special_fns, float_parts  # noqa: F401
from . import prepared_fast  # noqa: F401  (after the modules whose bindings it routes)
from . import learned_fast  # noqa: F401  (after prepared_fast: it wraps lerp's routed body)
from . import close_fast  # noqa: F401  (installed by reduction.arg_fast.install)
from . import where_fast  # noqa: F401  (session 17: after ops.indexing declared where's bindings)
