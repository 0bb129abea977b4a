"""OpInfos for numtorch/ops/nn/: activations, convolution and pooling (``core``), the rest of the
area (``layers``; ``core.OPINFOS`` already includes them)."""

from . import core, layers  # noqa: F401

OPINFOS = core.OPINFOS
