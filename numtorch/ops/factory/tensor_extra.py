"""Tensor methods for CPU-only facts and Python protocols: get_device, is_pinned/pin_memory,
fill_diagonal_, apply_/map_, __contains__, __reversed__, __dlpack__/__dlpack_device__, and
``numtorch.from_dlpack`` (zero-copy exchange with NumPy, PyTorch or JAX through DLPack)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, _make
from .._registry import public

_KDLCPU = 1


def _get_device(self):
    """-1 for a CPU tensor, else the CUDA device index.

    >>> numtorch.ones(1).get_device()
    -1
    """
    return -1 if self.device.type == "cpu" else (self.device.index or 0)


def _is_pinned(self, device):
    """False: numtorch allocates no page-locked memory.

    >>> numtorch.ones(1).is_pinned()
    False
    """
    return False


def _pin_memory(self, device):
    """Page-locked host memory needs an accelerator; without one this raises as PyTorch does."""
    raise RuntimeError("Cannot access accelerator device when none is available.")


public("get_device", "self", _get_device, relevant=("self",), module="Tensor")
public("is_pinned", "self, device=None", _is_pinned, relevant=("self",), module="Tensor")
public("pin_memory", "self, device=None", _pin_memory, relevant=("self",), module="Tensor")


def _fill_diagonal_(self, fill_value, wrap):
    """Fill the main diagonal in place (every dimension must match beyond 2-d; ``wrap`` restarts tall matrices).

    >>> numtorch.zeros(2, 3).fill_diagonal_(1)
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(self.shape, bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    # masked_fill_ brings the leaf check, the version bump and the gradient (zero on the diagonal);
    # it has no wide unsigned kernel, ATen's fill_diagonal_ does (no gradient there: a where)
    if self._dtype._rank > 10:
        return self.copy_(self.where(_make(~mask, D.bool), fill_value))
    return self.masked_fill_(_make(mask, D.bool), fill_value)


public("fill_diagonal_", "self, fill_value, wrap=False", _fill_diagonal_, relevant=("self",), module="Tensor")


def _apply_(self, callable):  # noqa: A002 - torch's parameter name
    """Replace each element ``x`` by ``callable(x)``, in place (CPU only, slow: a Python call per element).

    >>> numtorch.tensor([1, 2]).apply_(lambda x: x * 10)
    tensor([10, 20])
    """
    if self.requires_grad:
        raise RuntimeError("apply_ is only implemented on CPU tensors that do not require grad")
    vals = [callable(v) for v in self.reshape(-1).tolist()]
    return self.copy_(_make(np.asarray(vals).astype(self.dtype.np).reshape(self.shape), self.dtype))


def _map_(self, tensor, callable):  # noqa: A002
    """Replace each ``x`` by ``callable(x, y)`` with ``y`` from ``tensor`` broadcast to ``self``, in place.

    >>> numtorch.tensor([1, 2]).map_(numtorch.tensor([3, 4]), lambda x, y: x + y)
    tensor([4, 6])
    """
    if self.requires_grad:
        raise RuntimeError("map_ is only implemented on CPU tensors that do not require grad")
    other = tensor.expand(self.shape).reshape(-1).tolist()
    vals = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
    return self.copy_(_make(np.asarray(vals).astype(self.dtype.np).reshape(self.shape), self.dtype))


public("apply_", "self, callable", _apply_, relevant=("self",), module="Tensor")
public("map_", "self, tensor, callable", _map_, relevant=("self", "tensor"), module="Tensor")


def _contains(self, element):
    """``element in tensor``: whether any element equals ``element``.

    >>> 2 in numtorch.tensor([1, 2])
    True
    """
    if not isinstance(element, (Tensor, int, float, complex, bool)):
        raise RuntimeError(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
        )
    return bool((element == self).any().item())


def _reversed(self):
    """``reversed(tensor)``: the tensor flipped along dimension 0 (a 0-d tensor is returned as is).

    >>> reversed(numtorch.tensor([1, 2, 3]))
    tensor([3, 2, 1])
    """
    return self if self.ndim == 0 else self.flip(0)


public("__contains__", "self, element", _contains, relevant=("self",), module="Tensor")
public("__reversed__", "self", _reversed, relevant=("self",), module="Tensor")


def _dlpack(self, stream, max_version, dl_device, copy):
    """A DLPack capsule sharing this tensor's memory (NumPy's exporter)."""
    if self.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    if self.device.type != "cpu":
        raise BufferError("numtorch exports only CPU tensors through DLPack")
    a = self._data
    kw = {} if max_version is None else {"max_version": max_version}
    return a.__dlpack__(**kw) if copy is None else a.__dlpack__(copy=copy, **kw)


def _dlpack_device(self):
    """``(kDLCPU, 0)`` for a CPU tensor."""
    return (_KDLCPU, 0)


public("__dlpack__", "self, *, stream=None, max_version=None, dl_device=None, copy=None", _dlpack,
       relevant=("self",), module="Tensor")  # fmt: skip
public("__dlpack_device__", "self", _dlpack_device, relevant=("self",), module="Tensor")


def from_dlpack(ext_tensor):
    """A tensor sharing memory with any DLPack exporter on the CPU (NumPy arrays, PyTorch or JAX tensors).

    >>> import numpy as np
    >>> numtorch.from_dlpack(np.arange(3.0))
    tensor([0., 1., 2.], dtype=torch.float64)
    """
    from .core import from_numpy

    if hasattr(ext_tensor, "__dlpack_device__"):
        dev, _ = ext_tensor.__dlpack_device__()
        if int(dev) != _KDLCPU:
            raise BufferError(f"numtorch.from_dlpack: device type {int(dev)} is not the CPU (numtorch has no GPU backend loaded)")
    arr = np.from_dlpack(ext_tensor)
    if not arr.flags.writeable:
        arr = arr.view()
    return from_numpy(arr)
