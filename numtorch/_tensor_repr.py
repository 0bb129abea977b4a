"""Tensor.__repr__: collect a tensor's metadata for _tensor_str.format_tensor."""

from __future__ import annotations

from . import _dtype as D
from ._tensor_str import format_tensor


def _is_default(dt) -> bool:
    return dt is D.get_default_dtype() or dt is D.default_complex() or dt is D.int64 or dt is D.bool


def tensor_repr(t, tensor_name: str = "tensor") -> str:
    if t._device.type == "meta":
        return _meta_repr(t, tensor_name)
    dev = None if t._device.type == "cpu" else str(t._device if t._device.index is not None else f"{t._device.type}:0")
    fn = t._grad_fn
    return format_tensor(
        t._host(),
        dtype_name=repr(t._dtype),
        is_default_dtype=_is_default(t._dtype),
        device=dev,
        requires_grad=t._rg and fn is None,
        grad_fn=fn.name() if fn is not None else None,
        tensor_name=tensor_name,
    )


def _meta_repr(t, tensor_name: str) -> str:
    # PyTorch prints no values for a meta tensor; like an empty tensor, it names any dtype but
    # the default float
    parts = ["...", "device='meta'", f"size={tuple(t._data.shape)}"]
    if t._dtype is not D.get_default_dtype():
        parts.append(f"dtype={t._dtype!r}")
    fn = t._grad_fn
    if fn is not None:
        parts.append(f"grad_fn=<{fn.name()}>")
    elif t._rg:
        parts.append("requires_grad=True")
    return f"{tensor_name}({', '.join(parts)})"
