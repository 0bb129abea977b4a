"""OpInfos for numtorch/ops/factory/: factories (``core``) and random sampling (``random``)."""

from . import core, random

OPINFOS = core.OPINFOS + random.OPINFOS
