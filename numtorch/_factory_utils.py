"""Turning Python data (nested lists, NumPy arrays, scalars, tensors) into storage arrays."""

from __future__ import annotations

import numpy as np

from . import _dtype as D


def infer_dtype(data) -> D.dtype:
    """PyTorch's inference for torch.tensor(data): bool < int64 < default float < complex."""
    from ._tensor import Tensor

    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, np.ndarray):
        return D.from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):
        return D.from_numpy_dtype(data.dtype)
    if isinstance(data, bool):
        return D.bool
    if isinstance(data, int):
        return D.int64
    if isinstance(data, float):
        return D.get_default_dtype()
    if isinstance(data, complex):
        return D.default_complex()
    if isinstance(data, (list, tuple)):
        best = None
        for x in data:
            d = infer_dtype(x)
            if best is None or d.category > best.category or (
                d.category == best.category and isinstance(x, (Tensor, np.ndarray, np.generic)) and d._rank > best._rank
            ):
                best = d
        return best if best is not None else D.get_default_dtype()
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def data_to_array(data, dtype: D.dtype | None = None) -> np.ndarray:
    """A fresh C-contiguous array holding ``data`` as ``dtype`` (inferred when None)."""
    from ._tensor import Tensor

    dt = dtype if dtype is not None else infer_dtype(data)
    if isinstance(data, Tensor):
        return np.array(data._host(), dtype=dt.np, copy=True)
    if isinstance(data, (list, tuple)):
        data = _unwrap(data)
    try:
        arr = np.array(data, dtype=dt.np, copy=True)
    except (ValueError, TypeError) as e:
        msg = str(e)
        if "inhomogeneous" in msg or "sequence" in msg:
            raise ValueError(f"expected sequence of equal length lists: {msg}") from None
        raise TypeError(f"can't convert {type(data).__name__} to a tensor: {msg}") from None
    if arr.dtype == object:
        raise TypeError(f"can't convert {type(data).__name__} to a tensor")
    return np.ascontiguousarray(arr)


def _unwrap(seq):
    from ._tensor import Tensor

    out = []
    for x in seq:
        if isinstance(x, Tensor):
            out.append(x._host())
        elif isinstance(x, (list, tuple)):
            out.append(_unwrap(x))
        else:
            out.append(x)
    return out
