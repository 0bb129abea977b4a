"""Storages over NumPy memory: ``UntypedStorage`` (the bytes of a tensor's root buffer),
``TypedStorage`` (the same bytes seen as one dtype) and the legacy ``FloatStorage``, ...
classes, as ``torch.storage``.

# Note [Storage is the root NumPy buffer]
# A tensor's storage is the NumPy array at the root of its view chain (``_root_array``): every
# view of one tensor shares it, as PyTorch's views share a StorageImpl. ``UntypedStorage`` holds
# that buffer reinterpreted as uint8 (no copy), so ``data_ptr``, ``nbytes`` and writes through the
# storage are those of the tensor's memory.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _dtype as D

__all__ = ["TypedStorage", "UntypedStorage"]


def _bytes_of(root: np.ndarray) -> np.ndarray:
    if not root.flags.c_contiguous:  # only a foreign, non-contiguous root: its own copy
        root = np.ascontiguousarray(root)
    return root.reshape(-1).view(np.uint8)


def _check_index(i: int, n: int) -> int:
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        raise IndexError(f"index {i} out of range for storage of size {n}")
    return j


class UntypedStorage:
    """Raw bytes on a device: ``t.untyped_storage()`` or ``UntypedStorage(nbytes)``.

    >>> numtorch.ones(2).untyped_storage().nbytes()
    8
    """

    is_sparse = False
    is_cuda = False

    def __init__(self, *args, device=None) -> None:
        if device is not None and str(device) != "cpu":
            raise RuntimeError("UntypedStorage: only the cpu device is available")
        if not args:
            self._buf = np.zeros(0, np.uint8)
        elif len(args) == 1 and isinstance(args[0], np.ndarray):
            self._buf = args[0]
        elif len(args) == 1 and isinstance(args[0], int):
            self._buf = np.zeros(args[0], np.uint8)
        else:
            self._buf = np.array(list(args[0]), np.uint8)

    @property
    def device(self):
        from ._device import CPU

        return CPU

    def size(self) -> int:
        return int(self._buf.size)

    def nbytes(self) -> int:
        return int(self._buf.size)

    def __len__(self) -> int:
        return int(self._buf.size)

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._buf.__array_interface__["data"][0]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return UntypedStorage(self._buf[i])
        return int(self._buf[_check_index(i, len(self))])

    def __setitem__(self, i, v) -> None:
        if isinstance(i, slice):
            self._buf[i] = v
        else:
            self._buf[_check_index(i, len(self))] = v

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._buf.tolist()

    def fill_(self, value) -> UntypedStorage:
        self._buf[...] = value
        return self

    def copy_(self, source, non_blocking=None) -> UntypedStorage:
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size mismatch: {self.nbytes()} vs {source.nbytes()} bytes")
        self._buf[...] = source._buf
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage(self._buf.copy())

    def cpu(self) -> UntypedStorage:
        return self

    def untyped(self) -> UntypedStorage:
        return self

    def resizable(self) -> bool:
        return self._buf.base is None and self._buf.flags.owndata

    def resize_(self, size: int) -> UntypedStorage:
        if not self.resizable():
            raise RuntimeError("Trying to resize storage that is not resizable")
        new = np.zeros(size, np.uint8)
        new[: min(size, self._buf.size)] = self._buf[:size]
        self._buf = new
        return self

    def is_shared(self) -> bool:
        from ._misc_api import is_shared_array

        return is_shared_array(self._buf)

    def is_pinned(self, device="cuda") -> bool:
        return False

    def type(self, dtype=None, non_blocking=False) -> str:
        return "torch.storage.UntypedStorage"

    def __repr__(self) -> str:
        body = "".join(f" {v}\n" for v in self._buf.tolist())
        return f"{body}[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"


def _warn_typed() -> None:
    warnings.warn(
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
        "storage class. This should only matter to you if you are using storages directly.  To access "
        "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
        UserWarning,
        stacklevel=4,
    )


class TypedStorage:
    """Deprecated: an UntypedStorage seen as elements of one dtype (``t.storage()``).

    >>> numtorch.TypedStorage([1, 2], dtype=numtorch.int64).tolist()
    [1, 2]
    """

    is_sparse = False
    is_cuda = False

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, _internal=False) -> None:
        if not _internal:
            _warn_typed()
        self.dtype = dtype or D.get_default_dtype()
        if wrap_storage is not None:
            self._untyped_storage = wrap_storage
        elif not args:
            self._untyped_storage = UntypedStorage(device=device)
        elif len(args) == 1 and isinstance(args[0], int):
            self._untyped_storage = UntypedStorage(args[0] * self.dtype.itemsize, device=device)
        else:
            data = np.asarray(list(args[0]), dtype=self.dtype.np)
            self._untyped_storage = UntypedStorage(data.view(np.uint8), device=device)

    @property
    def _arr(self) -> np.ndarray:
        b = self._untyped_storage._buf
        n = b.size // self.dtype.itemsize
        return b[: n * self.dtype.itemsize].view(self.dtype.np)

    @property
    def device(self):
        return self._untyped_storage.device

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def __getitem__(self, i):
        if isinstance(i, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._arr[_check_index(i, len(self))].item()

    def __setitem__(self, i, v) -> None:
        if isinstance(i, slice):
            self._arr[i] = v
        else:
            self._arr[_check_index(i, len(self))] = v

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._arr.tolist()

    def __array__(self, dtype=None, copy=None):
        return self._arr if dtype is None else self._arr.astype(dtype)

    def fill_(self, value) -> TypedStorage:
        self._arr[...] = value
        return self

    def copy_(self, source, non_blocking=None) -> TypedStorage:
        self._arr[...] = np.asarray(source)
        return self

    def clone(self) -> TypedStorage:
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype, _internal=True)

    def cpu(self) -> TypedStorage:
        return self

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def is_pinned(self, device="cuda") -> bool:
        return False

    def pickle_storage_type(self) -> str:
        return _LEGACY_BY_DTYPE[self.dtype].__name__

    def type(self, dtype=None, non_blocking=False) -> str:
        return f"torch.{self.pickle_storage_type()}"

    def __repr__(self) -> str:
        body = "".join(f" {v}\n" for v in self.tolist())
        return f"{body}[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {len(self)}]"


class _LegacyStorageMeta(type):
    dtype: D.dtype

    def __instancecheck__(cls, obj) -> bool:
        return type(obj) is TypedStorage and obj.dtype is cls.dtype or type.__instancecheck__(cls, obj)


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """``FloatStorage(3)`` and friends: a TypedStorage of the class's dtype."""

    def __new__(cls, *args, device=None, wrap_storage=None):
        _warn_typed()
        return TypedStorage(*args, dtype=cls.dtype, device=device, wrap_storage=wrap_storage, _internal=True)


_LEGACY_BY_DTYPE = {}
for _name, _dt in (("Float", D.float32), ("Double", D.float64), ("Half", D.float16), ("BFloat16", D.bfloat16),
                   ("Long", D.int64),
                   ("Int", D.int32), ("Short", D.int16), ("Char", D.int8), ("Byte", D.uint8), ("Bool", D.bool),
                   ("ComplexFloat", D.complex64), ("ComplexDouble", D.complex128)):  # fmt: skip
    _LEGACY_BY_DTYPE[_dt] = _LegacyStorageMeta(f"{_name}Storage", (_LegacyStorage,), {"dtype": _dt, "__module__": "numtorch"})
    globals()[f"{_name}Storage"] = _LEGACY_BY_DTYPE[_dt]

_STORAGE_CLASSES = {UntypedStorage, TypedStorage, *_LEGACY_BY_DTYPE.values()}


def is_storage(obj, /) -> bool:
    """True for an UntypedStorage or TypedStorage.

    >>> numtorch.is_storage(numtorch.ones(1).untyped_storage()), numtorch.is_storage(numtorch.ones(1))
    (True, False)
    """
    return type(obj) in _STORAGE_CLASSES


def untyped_storage_of(t) -> UntypedStorage:
    """Note [Storage is the root NumPy buffer]."""
    from ._tensor import _root_array

    if t._device.type != "cpu":
        raise NotImplementedError("storage of a non-CPU tensor")
    return UntypedStorage(_bytes_of(_root_array(t._data)))


def typed_storage_of(t) -> TypedStorage:
    return TypedStorage(wrap_storage=untyped_storage_of(t), dtype=t._dtype, _internal=True)
