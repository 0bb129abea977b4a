"""F.glu's binding fast call (Note [GLU fast call])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import PLAIN_SUBCLASSES as _PL
from ..._tensor import Tensor as _T
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD as _PT
from .._fast_guard import plain as _plain
from ..reduction._reduce import _entry

# Note [GLU fast call]
# F.glu(x) ran the body, dispatch, op.fast's gate, then _glu_cpu: the dim checks through
# Tensor.dim() and _wrap_dim, ascontiguousarray, astype and Numba's typing of five arguments,
# ~2.4 us of layers around a 0.3 us kernel (3.75 us against PyTorch's 2.7). A plain call (no mode,
# forward-AD level or autocast region, a plain CPU float32/float64 tensor with nothing to record,
# glu's declared kernel still registered) on a C-contiguous input with an int dim whose size is
# even and nonzero runs glu's kernel through its compiled entry (learned from the dispatcher's
# first call, per array dtype): the body's bits, as _glu_cpu computes them in the input's own
# dtype. Anything else, errors included, is the body's.
COUNT = [0]  # calls served here (tests read it)
_FLOATS = (D.float32, D.float64)
_empty = np.empty


def make(op, cpu, kernels, body):
    """The fast call of F.glu(input, dim) for the op ``op`` whose declared kernel is ``cpu``;
    ``kernels``: the module holding the glu kernel."""
    impls = op.impls
    entries: dict = {}

    def call(input, dim=-1):
        c = input.__class__
        if (c is _T or c in _PL) and dim.__class__ is int and input._dtype in _FLOATS and _plain(input):
            a = input._data
            nd = a.ndim
            if nd and -nd <= dim < nd and a.flags.c_contiguous and 1 < a.size < _PT and impls.get("cpu") is cpu:
                d = dim + nd if dim < 0 else dim
                sh = a.shape
                n = sh[d]
                if not n & 1:
                    A = B = 1
                    for s in sh[:d]:
                        A *= s
                    for s in sh[d + 1 :]:
                        B *= s
                    h = n >> 1
                    out = _empty(sh[:d] + (h,) + sh[d + 1 :], a.dtype)
                    args = (a.ravel(), out.ravel(), A, h, B)
                    f = entries.get(a.dtype)
                    if f is None:
                        k = kernels.glu
                        k(*args)
                        entries[a.dtype] = _entry(k, args)
                    else:
                        f(*args)
                    COUNT[0] += 1
                    return _make(out, input._dtype)
        return body(input, dim)

    call.__wrapped__ = body
    return call
