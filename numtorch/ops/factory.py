"""Factories: tensor, as_tensor, from_numpy, empty/zeros/ones/full and their *_like forms."""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._device import CPU, to_device
from .._dispatch import dispatch
from .._factory_utils import data_to_array, infer_dtype
from .._tensor import Tensor, _make
from ._registry import defop, public

_FACTORY_KW = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"


def size_arg(size, fname: str = "") -> tuple:
    """Normalise ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size(...))`` to a tuple."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    try:
        out = tuple(int(s) if not isinstance(s, Tensor) else int(s.item()) for s in size)
    except (TypeError, ValueError):
        got = ", ".join(type(s).__name__ for s in size)
        raise TypeError(
            f"{fname}() received an invalid combination of arguments - got ({got}), but expected "
            "one of: (tuple of ints size, *, torch.dtype dtype = None, torch.device device = None)"
        ) from None
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(out)}")
    return out


def finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        t.requires_grad_(True)
    return t


def _dt(dtype) -> D.dtype:
    return D.get_default_dtype() if dtype is None else D.to_dtype(dtype)


def _fill_impl(fill):
    def impl(size, dtype=None, layout=None, device=None, pin_memory=None):
        dt = _dt(dtype)
        return _make(fill(tuple(size), dt.np), dt)

    return impl


def _full_impl(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    dt = D.to_dtype(dtype) if dtype is not None else D.result_type_of([], [], [fill_value])
    return _make(np.full(tuple(size), fill_value, dt.np), dt)


_empty = defop(f"empty.memory_format(SymInt[] size, *, {_FACTORY_KW}, MemoryFormat? memory_format=None) -> Tensor",
               cpu=lambda size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None:
               _make(np.empty(tuple(size), _dt(dtype).np), _dt(dtype)))  # fmt: skip
_zeros = defop(f"zeros(SymInt[] size, *, {_FACTORY_KW}) -> Tensor", cpu=_fill_impl(np.zeros))
_ones = defop(f"ones(SymInt[] size, *, {_FACTORY_KW}) -> Tensor", cpu=_fill_impl(np.ones))
_full = defop(f"full(SymInt[] size, Scalar fill_value, *, {_FACTORY_KW}) -> Tensor", cpu=_full_impl)


def _sized(op, name):
    def body(size, out, dtype, layout, device, requires_grad, pin_memory):
        sz = size_arg(size, name)
        dev = to_device(device)
        t = dispatch(op, [list(sz), dtype, None, dev, None] + ([None] if op is _empty else []))
        if out is not None:
            out.resize_(sz).copy_(t)
            return out
        return finish(t, requires_grad)

    body.__doc__ = f"""A tensor of the given shape filled by ``{name}``.

    >>> numtorch.{name}(2, 3).shape
    torch.Size([2, 3])
    """
    public(name, "*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, "
           "pin_memory=False", body, relevant=(), ops=(op,))  # fmt: skip


for _op, _name in ((_empty, "empty"), (_zeros, "zeros"), (_ones, "ones")):
    _sized(_op, _name)


def _full_body(size, fill_value, out, dtype, layout, device, requires_grad, pin_memory):
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it).

    >>> numtorch.full((2,), 7)
    tensor([7, 7])
    """
    t = dispatch(_full, [list(size_arg((size,), "full")), fill_value, dtype, None, to_device(device), None])
    return finish(t, requires_grad)


public("full", "size, fill_value, *, out=None, dtype=None, layout=None, device=None, "
       "requires_grad=False, pin_memory=False", _full_body, relevant=(), ops=(_full,))  # fmt: skip


def _like(op, name, extra=""):
    def body(input, *rest):
        *fill, dtype, layout, device, requires_grad, memory_format = rest
        dt = input._dtype if dtype is None else D.to_dtype(dtype)
        dev = input._device if device is None else to_device(device)
        args = [list(input._data.shape), *fill, dt, None, dev, None]
        if op is _empty:
            args.append(None)
        return finish(dispatch(op, args), requires_grad)

    body.__doc__ = f"""``{name}`` with the shape (and by default dtype and device) of ``input``.

    >>> numtorch.{name}(numtorch.zeros(2, dtype=numtorch.int32)).dtype
    torch.int32
    """
    sig = f"input, {extra}*, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None"
    public(name, sig, body, relevant=("input",), ops=(op,))


_like(_empty, "empty_like")
_like(_zeros, "zeros_like")
_like(_ones, "ones_like")
_like(_full, "full_like", "fill_value, ")


def _tensor_body(data, dtype, device, requires_grad, pin_memory):
    """Copy ``data`` (nested lists, scalars, arrays, tensors) into a new tensor.

    >>> numtorch.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    """
    dt = infer_dtype(data) if dtype is None else D.to_dtype(dtype)
    t = _make(data_to_array(data, dt), dt)
    dev = to_device(device)
    if dev is not CPU and dev.type != "cpu":
        t = t.to(dev)
    return finish(t, requires_grad)


public("tensor", "data, *, dtype=None, device=None, requires_grad=False, pin_memory=False",
       _tensor_body, relevant=())  # fmt: skip


def _as_tensor_body(data, dtype, device):
    """Share ``data``'s memory when it is already a tensor or array of the right dtype.

    >>> numtorch.as_tensor([1.5, 2.5])
    tensor([1.5000, 2.5000])
    """
    dt = None if dtype is None else D.to_dtype(dtype)
    if isinstance(data, Tensor):
        r = data if dt is None or dt is data._dtype else data.to(dt)
        return r if device is None else r.to(device)
    if isinstance(data, np.ndarray) and (dt is None or dt.np == data.dtype) and device in (None, "cpu", CPU):
        return from_numpy(data)
    return _tensor_body(data, dt, device, False, False)


public("as_tensor", "data, dtype=None, device=None", _as_tensor_body, relevant=())


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing ``ndarray``'s memory.

    >>> numtorch.from_numpy(np.zeros(2, dtype=np.int32))
    tensor([0, 0], dtype=torch.int32)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    if not ndarray.flags.writeable:
        import warnings

        warnings.warn("The given NumPy array is not writable, and PyTorch does not support "
                      "non-writable tensors.", UserWarning, stacklevel=2)  # fmt: skip
    return _make(ndarray, D.from_numpy_dtype(ndarray.dtype))
