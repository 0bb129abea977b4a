"""The out-of-place CPU kernels of gather, take_along_dim, scatter, scatter_add, scatter_reduce,
index_put, index_add/index_copy/index_fill, put, take, masked_fill and masked_scatter try their
binding fast call's core first (Note [Kernels try the fast cores])."""

from __future__ import annotations

from ..._api import _OVERRIDES
from ..._tensor import Tensor
from .core import index_put_op
from .fast_fill import _masked_fill, _scatter_number
from .fast_index import (
    _gather,
    _index_add,
    _index_copy,
    _index_fill,
    _index_put,
    _masked_scatter,
    _put,
    _scatter,
    _scatter_add,
    _scatter_reduce,
    _take,
    _take_along_dim,
)
from .masked import masked_fill, masked_fill_t, masked_scatter, put, take, take_along_dim
from .scatter import (
    gather,
    index_add,
    index_copy,
    index_fill,
    scatter_add,
    scatter_reduce,
    scatter_src,
    scatter_value,
)

# Note [Kernels try the fast cores]
# A call that records (an input requiring grad) skips the binding's fast call and reaches the
# op's CPU kernel through the autograd recorder, which runs the kernel with grad mode off. That
# kernel was the body: index_put's walks the indices' expansion, layout, bounds and offsets
# (~15 us on a small call), take_along_dim's ~11 us, gather's ~5, where the fast call's core
# (Note [Indexing fast calls], Note [Number fill fast routes]) computes the same result bit for
# bit in 1-2 us for every call it takes. So the out-of-place kernels, called with an operand
# that requires grad (a recording call; other calls reach the kernel only where the binding's
# core declined already, or from tests that compare the core with the body, which must keep
# running the body), call that core first. It declines (None) wherever it does at the binding
# (a mode or autocast region, a wide unsigned dtype, a shape, dtype, layout or index it does
# not take, anything that would raise), and then the body runs as before. Nothing observable
# changes: a dispatch mode sees the same aten op (the kernel is below it), a kernel registered
# over the op replaces this one, and while any aten kernel is registered the body runs (Note
# [Fast calls under kernel overrides]); the result is the body's.
# tests/ops/indexing/test_kernel_first_perf20c.py.
_CORES = (
    (gather, _gather),
    (take_along_dim, _take_along_dim),
    (scatter_src, _scatter),
    (scatter_value, _scatter_number),
    (masked_fill, _masked_fill),
    (masked_fill_t, _masked_fill),
    (scatter_add, _scatter_add),
    (scatter_reduce, _scatter_reduce),
    (index_put_op, _index_put),
    (index_add, _index_add),
    (index_copy, _index_copy),
    (index_fill, _index_fill),
    (put, _put),
    (take, _take),
    (masked_scatter, _masked_scatter),
)


def _first(fast, body):
    def cpu(*vals):
        for v in vals:  # a recording call, no kernel registered over any aten op: the core
            if isinstance(v, Tensor) and v._rg and not _OVERRIDES[0]:
                r = fast(*vals)
                return body(*vals) if r is None else r
        return body(*vals)

    cpu.body = body
    return cpu


def install() -> None:
    """Wrap each op's CPU kernel (the package's import, before any call)."""
    for op, fast in _CORES:
        if getattr(op.impls["cpu"], "body", None) is None:
            op.impls["cpu"] = _first(fast, op.impls["cpu"])
