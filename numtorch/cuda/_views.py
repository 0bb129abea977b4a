"""The view ops a model calls most on CUDA tensors (view, t, transpose), straight on the
CudaArray metadata.

# Note [CUDA view fast paths]
# Every CUDA view op otherwise runs its CPU kernel on a stand-in ndarray and reads the result's
# strides back (_install._view_rule, Note [CUDA storage]): a stand-in tensor, the CPU op, then
# view_of, ~28 us of host time each on the GPU, and a GPT training step makes ~300 of them
# (view, t, transpose.int). For a contiguous ``view`` (the CPU op's own NumPy-reshape branch, a
# unit innermost stride) and a ``t``/``transpose`` of a tensor with dims, the result's metadata
# is the input's reshaped or permuted, built here directly and wrapped by the CPU ops' ``_view``
# (shared version counter, base): the same strides and offset the stand-in route gives. Every
# other case, errors included, goes that route.
"""

from __future__ import annotations

from .._tensor import _view, _wrap_dim
from ..ops.shape.core import _infer_size
from . import _storage as S


def install(OPS, view_rule) -> dict:
    """The fast view impls, each falling back to ``view_rule`` of its op."""
    slow_view, slow_t, slow_transpose = (view_rule(OPS[n]) for n in ("aten::view", "aten::t", "aten::transpose.int"))

    def view(self, size):
        a = self._data
        if a.size and a.contiguous and (not a.ndim or a.estrides[-1] == 1):
            r = S.reshaped(a, _infer_size(size, a.size))  # _infer_size raises the CPU op's errors
            if r is not None:
                return _view(self, r)
        return slow_view(self, size)

    def t(self):
        a = self._data
        return _view(self, S.permuted(a, (1, 0))) if a.ndim == 2 else slow_t(self)

    def transpose(self, dim0, dim1):
        a = self._data
        nd = a.ndim
        if not nd or type(dim0) is not int or type(dim1) is not int:
            return slow_transpose(self, dim0, dim1)
        perm = list(range(nd))
        d0, d1 = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
        perm[d0], perm[d1] = d1, d0
        return _view(self, S.permuted(a, perm))

    return {"aten::view": view, "aten::t": t, "aten::transpose.int": transpose}
