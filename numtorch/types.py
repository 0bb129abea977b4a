"""Type aliases for annotations, as ``torch.types``."""

from __future__ import annotations

from typing import IO, Any, Union

from ._device import device as _device
from ._size import Size
from ._sym import SymBool, SymFloat, SymInt
from ._tensor import Tensor
from .storage import TypedStorage, UntypedStorage

__all__ = ["BoolLikeType", "Device", "FileLike", "FloatLikeType", "IntLikeType", "Number", "PySymType", "Size",
           "Storage", "SymBool", "SymFloat", "SymInt", "Tensor", "py_sym_types"]  # fmt: skip

Number = Union[int, float, bool]
IntLikeType = Union[int, SymInt]
FloatLikeType = Union[float, SymFloat]
BoolLikeType = Union[bool, SymBool]
py_sym_types = (SymInt, SymFloat, SymBool)
PySymType = Union[SymInt, SymFloat, SymBool]
Device = Union[_device, str, int, None]
Storage = Union[TypedStorage, UntypedStorage]
FileLike = Union[str, IO[bytes], Any]
