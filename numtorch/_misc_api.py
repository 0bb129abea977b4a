"""Top-level odds and ends of PyTorch's API with a CPU meaning: the accelerator error classes,
``from_file`` (a memory-mapped tensor) and shared memory for tensors (``share_memory_`` / ``is_shared``).

# Note [Shared memory moves the root buffer]
# ``share_memory_`` copies the tensor's root NumPy buffer (its storage, Note [Storage is the root
# NumPy buffer]) into a ``multiprocessing.shared_memory`` block and re-points the tensor at it with
# the same offset and strides. The block is unlinked at once: its mapping lives as long as the
# array (and is inherited by processes forked later), and nothing is left in /dev/shm. Tensors that
# viewed the old buffer before the call keep the old, private memory (PyTorch moves the storage
# under every view; numtorch has no storage object that all views point through).
"""

from __future__ import annotations

import os
import weakref
from multiprocessing import shared_memory

import numpy as np

__all__ = ["AcceleratorError", "OutOfMemoryError", "from_file"]


class OutOfMemoryError(RuntimeError):
    """Raised when a device allocation fails (``torch.OutOfMemoryError``, also ``torch.cuda.OutOfMemoryError``)."""


class AcceleratorError(RuntimeError):
    """Raised when an accelerator reports an error (``torch.AcceleratorError``)."""


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False):
    """A CPU tensor of ``size`` elements of ``dtype`` memory-mapped from ``filename``.

    ``shared=True`` maps the file shared (writes reach the file, which is created or grown as needed);
    otherwise the mapping is copy-on-write and the file must hold ``size`` elements.

    >>> import tempfile, numpy as np
    >>> path = tempfile.mktemp(); np.arange(3, dtype=np.float32).tofile(path)
    >>> numtorch.from_file(path, size=3).tolist()
    [0.0, 1.0, 2.0]
    """
    import numtorch

    if device is not None and numtorch.device(device).type != "cpu":
        raise RuntimeError("from_file is only supported for CPU tensors")
    dt = numtorch.get_default_dtype() if dtype is None else dtype
    need = size * dt.itemsize
    path = os.fspath(filename)
    mode = "read-write" if shared else "read-only"
    try:
        fsize = os.path.getsize(path)
    except OSError as e:
        if not shared:
            raise RuntimeError(f"unable to open file <{path}> in {mode} mode: {e.strerror} ({e.errno})") from None
        fsize = 0
    if shared and fsize < need:
        with open(path, "ab") as f:  # PyTorch grows the file to the mapping size
            f.truncate(need)
    elif fsize < need:
        raise RuntimeError(f"file <{path}> size <{fsize}> is smaller than the required mapping size <{need}>")
    if size == 0:
        return numtorch.empty(0, dtype=dt)
    arr = np.memmap(path, dtype=dt.np, mode="r+" if shared else "c", shape=(size,))
    return numtorch.from_numpy(arr.view(np.ndarray))  # a plain ndarray over the mapping (which it keeps alive)


# ---- shared memory (Note [Shared memory moves the root buffer]) ---------------------------------------
_SHARED: dict[int, shared_memory.SharedMemory] = {}  # id(root array) -> its block, while the array lives


def _release(key: int) -> None:
    _SHARED.pop(key).close()


def is_shared_array(a: np.ndarray) -> bool:
    from ._tensor import _root_array

    return id(_root_array(a)) in _SHARED


def share_memory_(self):
    """Move this tensor's memory into shared memory (values kept) and return it; a no-op when already shared.

    >>> t = numtorch.arange(3.0); t.share_memory_() is t, t.is_shared(), t.tolist()
    (True, True, [0.0, 1.0, 2.0])
    """
    from ._tensor import _root_array

    if self._device.type != "cpu" or is_shared_array(self._data):
        return self
    root = _root_array(self._data)
    src = np.ascontiguousarray(root).reshape(-1).view(np.uint8)
    block = shared_memory.SharedMemory(create=True, size=max(src.nbytes, 1))
    block.unlink()  # the mapping stays valid; nothing outlives the process in /dev/shm
    new_root = np.ndarray(root.shape, root.dtype, buffer=block.buf, order="C")
    new_root.reshape(-1).view(np.uint8)[:] = src
    _SHARED[id(new_root)] = block
    weakref.finalize(new_root, _release, id(new_root))
    a = self._data
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0] if root.flags.c_contiguous else 0
    self._data = np.ndarray(a.shape, a.dtype, buffer=new_root.reshape(-1).view(np.uint8), offset=offset,
                            strides=a.strides if root.flags.c_contiguous else None)  # fmt: skip
    return self


def is_shared(self) -> bool:
    """Whether this tensor's memory is in shared memory (after ``share_memory_``).

    >>> numtorch.ones(1).is_shared()
    False
    """
    return self._device.type == "cpu" and is_shared_array(self._data)


def install(tensor_cls) -> None:
    tensor_cls.share_memory_ = share_memory_
    tensor_cls.is_shared = is_shared
    tensor_cls.is_maia = property(lambda self: False, doc="False: no MAIA devices.")
