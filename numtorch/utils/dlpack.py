"""numtorch.utils.dlpack: ``from_dlpack`` and ``to_dlpack`` as in ``torch.utils.dlpack``."""

from __future__ import annotations

from ..ops.factory.tensor_extra import from_dlpack

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule sharing ``tensor``'s memory.

    >>> import numpy as np
    >>> np.from_dlpack(numtorch.ones(2)).tolist()  # NumPy reads a numtorch tensor directly
    [1.0, 1.0]
    """
    return tensor.__dlpack__()
