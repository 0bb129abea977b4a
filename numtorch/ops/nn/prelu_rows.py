"""_prelu_kernel and its backward by channel rows, through their kernels' compiled entries
(Note [PReLU rows])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import PLAIN_SUBCLASSES as _PL
from ..._tensor import Tensor as _T
from ..._tensor import _make
from ...kernels import lazy
from ..reduction._reduce import _entry

# Note [PReLU rows]
# prelu's weight reaches _prelu_kernel reshaped to (1, C, 1, ...) (or one element), so the
# Pointwise kernel took the broadcast route: strided_layout, three flat_parts and a dispatcher
# call, ~15 us of a 24 us small forward with grad; its backward's NumPy route
# (Note [prelu's backward in NumPy]) cost ~9 us more. Below the dispatcher, for a
# C-contiguous float32/float64 input of a plain class and of 2 to SMALL elements, and a weight
# of its dtype that is one element or one per channel (dim 1), the result is the same
# expressions over (A, C, S) rows (``self if self > 0 else weight * self``; the backward's two,
# written in one pass), in the kernels' C order: a serial kernel through its compiled entry,
# learned per array dtype on the first call.
K = lazy("numtorch.kernels.cpu.nn.layers")
_FLOATS = (D.float32, D.float64)
_FWD: dict = {}
_BWD: dict = {}
COUNT = [0]  # calls served here (tests read it)
# larger: the strided kernel is as fast (131072 elements in rows of 4: 198 us against 186)
SMALL = 8192
_empty = np.empty


def layout(x, w):
    """(C, S) of x's rows for the weight ``w`` (Tensors), or None where the rows do not apply."""
    c = x.__class__
    if (c is not _T and c not in _PL) or x._dtype not in _FLOATS or w._dtype is not x._dtype:
        return None
    a, v = x._data, w._data
    nd = a.ndim
    if not (a.flags.c_contiguous and 1 < a.size <= SMALL and a.dtype is v.dtype) or v.ndim > nd:
        return None
    C = v.size
    if C == 1:
        return 1, 1
    if nd >= 2 and v.ndim == nd and v.shape[1] == C == a.shape[1]:
        return C, a.size // (a.shape[0] * C)
    return None


def _run(store: dict, name: str, args, dt) -> None:
    f = store.get(dt)
    if f is None:
        kernel = getattr(K, name)
        kernel(*args)
        store[dt] = _entry(kernel, args)
    else:
        f(*args)


def rows(a, w, C: int, S: int):
    """prelu_rows of the C-contiguous array ``a`` with the weights ``w`` (one array dtype)."""
    r = _empty(a.shape, a.dtype)
    _run(_FWD, "prelu_rows", (a.ravel(), w.ravel(), r.ravel(), C, S), a.dtype)
    return r


def forward(x, w, lay):
    COUNT[0] += 1
    return _make(rows(x._data, w._data, *lay), x._dtype)


def backward(g, x, w, lay):
    a = x._data
    gi = _empty(a.shape, a.dtype)
    gw = _empty(a.shape, a.dtype)
    args = (g._data.ravel(), a.ravel(), w._data.ravel(), gi.ravel(), gw.ravel(), *lay)
    _run(_BWD, "prelu_rows_backward", args, a.dtype)
    COUNT[0] += 1
    return _make(gi, x._dtype), _make(gw, x._dtype)
