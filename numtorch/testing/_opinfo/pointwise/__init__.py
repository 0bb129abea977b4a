"""OpInfos for numtorch/ops/pointwise/: elementwise math (``core``) and special functions (``special``)."""

from . import core, special

OPINFOS = core.OPINFOS + special.OPINFOS
