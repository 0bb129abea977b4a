"""The binding fast call of where(condition, input, other) and Tensor.where (Note [Where fast call])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import Tensor, _make
from .._fast_guard import or_body, params, plain
from .._registry import BINDINGS

# Note [Where fast call]
# where(c, x, y) of three same-shape tensors went binding -> _where_body (argument checks, the
# overload pick) -> op.fast -> _where_cpu's select: ~2.2 us against PyTorch's 1.55. For a bool
# condition and two plain tensors of one dtype and the condition's shape (_fast_guard: no mode,
# level or autocast region, nothing to record, no wide unsigned dtype), with where.self's CPU
# kernel still the declared one (a numtorch.library kernel over it takes the body), the binding
# runs the kernel's own select (np.where into a new C-contiguous array). Anything else - numbers,
# broadcasting, promotion, a uint8 condition (its deprecation warning), out= - takes the body.


def _where(condition, input, other):
    if (
        condition.__class__ is Tensor
        and input.__class__ is Tensor
        and other.__class__ is Tensor
        and condition._dtype is D.bool
        and input._dtype is other._dtype
        and input._dtype._rank <= 10
        and plain(input)
        and other._device is _CPU
        and condition._device is _CPU
        and not (other._rg and _STATE.grad_enabled)
        and _IMPL[0] is _IMPL[1].impls.get("cpu")
    ):
        c, a, b = condition._data, input._data, other._data
        if c.shape == a.shape == b.shape:
            if a.size <= _PUTMASK_MAX and c.flags.c_contiguous and a.flags.c_contiguous and b.flags.c_contiguous:
                # the same select as np.where, by a copy of ``other`` and a masked write of
                # ``input`` at the same flat positions (0.6 against 0.9 us small; slower than
                # np.where for large inputs: 85 against 76 us at 131072 float32)
                r = b.copy()
                np.putmask(r, c, a)
                return _make(r, input._dtype)
            return _make(np.where(c, a, b), input._dtype)
    return None


def _where_fn(condition, input=None, other=None, out=None):
    if out is None and input is not None and other is not None:
        return _where(condition, input, other)
    return None


def _where_method(self, condition, other):
    return _where(condition, self, other)


_IMPL: list = []
_PUTMASK_MAX = 4096


def install() -> int:
    """Attach the fast calls to where's bindings (at import, after ops.indexing declared them)."""
    from ..indexing.masked import _where_cpu, where_self

    _IMPL[:] = [_where_cpu, where_self]
    n = 0
    for b in BINDINGS:
        if b.name == "where" and b.fast is None and b.module in ("torch", "Tensor"):
            b.fast = (
                or_body(_where_fn if b.module == "torch" else _where_method, b.body),
                params(b.sig),
            )
            n += 1
    return n


install()
