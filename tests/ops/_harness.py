"""Helpers shared by the OpInfo-driven tests: NumPy <-> numtorch conversion of samples, and the
non-contiguous layouts the value tests replay every sample in."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch.testing._opinfo import op_db


def to_nt(x, requires_grad=False):
    if isinstance(x, np.ndarray):
        t = numtorch.from_numpy(x.copy())
        if x.ndim and not x.flags.c_contiguous:
            # rebuild the same non-contiguous layout: a strided view of a wider tensor
            t = numtorch.from_numpy(np.repeat(x, 2, axis=-1))[..., ::2]
        if requires_grad:
            t.requires_grad_(True)
        return t
    if isinstance(x, list):
        return [to_nt(v, requires_grad) for v in x]
    if isinstance(x, tuple):
        return tuple(to_nt(v, requires_grad) for v in x)
    if isinstance(x, dict):  # keyword arguments (e.g. a loss's class weights), never differentiated
        return {k: to_nt(v) for k, v in x.items()}
    return x


def to_np(x):
    if isinstance(x, numtorch.Tensor):
        return x.detach().numpy()
    if isinstance(x, (tuple, list)):
        # a named tuple (torch.return_types-like) cannot be built from a generator
        return type(x)(to_np(v) for v in x) if type(x) in (tuple, list) else tuple(to_np(v) for v in x)
    return x


def cases(filter_fn=lambda info: True, dtypes=None):
    for info in op_db:
        if not filter_fn(info):
            continue
        for dt in dtypes or info.dtypes:
            yield info, dt


def ids(case):
    info, dt = case
    return f"{info.name}-{dt}"


# ---- non-contiguous layouts ---------------------------------------------------------------------------
# Each layout turns a NumPy array into a numtorch view with the same values and a different memory
# layout, or returns None where the layout does not apply (a transpose of a 1-d array is itself).
# Storage outside the view holds a sentinel (NaN, the dtype's max), so a kernel that ignores
# strides or the storage offset reads it and the comparison fails.


def _sentinel(dtype):
    if dtype.kind == "f" or dtype.kind == "c":
        return np.nan
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max


def _embed(x, base_shape, index):
    base = np.full(base_shape, _sentinel(x.dtype), dtype=x.dtype)
    base[index] = x
    return numtorch.from_numpy(base)[index]


def _transposed(x):
    if x.ndim < 2:
        return None
    return numtorch.from_numpy(np.ascontiguousarray(np.swapaxes(x, -1, -2))).transpose(-1, -2)


def _permuted(x):
    if x.ndim < 3:
        return None
    perm = tuple(reversed(range(x.ndim)))  # its own inverse
    return numtorch.from_numpy(np.ascontiguousarray(x.transpose(perm))).permute(perm)


def _offset(x):
    """A slice that starts one element in on every dim: storage offset > 0, padded strides."""
    if x.ndim == 0:
        return _embed(x, (2,), 1)
    return _embed(x, tuple(n + 1 for n in x.shape), (slice(1, None),) * x.ndim)


def _stepped(x):
    """Every 2nd row and every 3rd column (every 3rd element for 1-d)."""
    if x.ndim == 0:
        return None
    steps = [1] * x.ndim
    steps[0], steps[-1] = (2, 3) if x.ndim > 1 else (3, 3)
    return _embed(x, tuple(n * k for n, k in zip(x.shape, steps)), tuple(slice(None, None, k) for k in steps))


LAYOUTS = {"transposed": _transposed, "permuted": _permuted, "offset": _offset, "stepped": _stepped}


def expanded(x):
    """(values, view): ``x``'s first slice along its first dim of size > 1, expanded back to ``x``'s
    shape with stride 0. The values change, so the caller gives the reference the returned array;
    an expanded view is read-only (PyTorch refuses to write through it)."""
    dims = [d for d, n in enumerate(x.shape) if n > 1]
    if not dims:
        return None
    first = np.take(x, [0], axis=dims[0])
    return np.broadcast_to(first, x.shape).copy(), numtorch.from_numpy(first.copy()).expand(*x.shape)


def to_nt_layout(x, layout):
    """Like ``to_nt``, with every array (also inside lists and tuples) in ``layout``; also returns
    how many arrays took the layout, so a caller can tell a sample it did not change."""
    if isinstance(x, np.ndarray):
        t = LAYOUTS[layout](x)
        return (to_nt(x), 0) if t is None else (t, 1)
    if isinstance(x, (list, tuple)):
        pairs = [to_nt_layout(v, layout) for v in x]
        return type(x)(p[0] for p in pairs), sum(p[1] for p in pairs)
    return to_nt(x), 0


def op_log():
    """(mode, seen): a TorchDispatchMode that records the name of every op it sees into ``seen``."""
    from numtorch.utils._python_dispatch import TorchDispatchMode

    seen: list = []

    class OpLog(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    return OpLog(), seen
