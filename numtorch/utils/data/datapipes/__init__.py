"""DataPipes (``iter`` and ``map`` families) and their decorators."""

from __future__ import annotations

from . import iter, map  # noqa: A004  (PyTorch's submodule names)
from .datapipe import DataChunk, DFIterDataPipe, IterDataPipe, MapDataPipe
