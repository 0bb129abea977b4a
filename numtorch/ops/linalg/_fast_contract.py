"""Fast calls (Note [Binding fast call]) of inner, tensordot and einsum."""

# Note [Contraction fast calls]
# inner went wrapper -> body -> dispatch(inner) -> its composite -> dispatch(tensordot) -> its
# composite (checks, the equation) -> dispatch(einsum) -> einsum_compute: 46 us for a (2, 3)
# by (4, 3) product, PyTorch's 4. With no dispatch mode, forward-AD level or autocast region
# and nothing to record, plain CPU operands of one dtype (float32/float64; einsum: any one
# dtype einsum_compute takes) whose contracted sizes are equal (tensordot sums a size-1 one
# against a larger one first: the body) run einsum_compute on the equation the body builds
# (Note [einsum plans]), as the einsum op's CPU kernel does: the body's values, dtype and
# strides. Anything else, errors included, takes the body (einsum: returns None, Note
# [Tensor-list binding fast call]). tests/ops/linalg/test_contract_fast.py compares both.

from __future__ import annotations

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from ._contract import einsum_compute, product

_FLOATS = (D.float32, D.float64)


def _plain2(a, b) -> bool:
    S = _STATE
    dt = a._dtype
    return not (S.td_modes or S.fw_level >= 0 or _AUTOCAST or b._dtype is not dt or dt not in _FLOATS
                or a._device is not _CPU or b._device is not _CPU or S.grad_enabled and (a._rg or b._rg))  # fmt: skip


def _contract(a, b, da, db, eq_of):
    """tensordot's result over these dims, or None where its composite would sum a size-1 dim."""
    sa, sb = a._data.shape, b._data.shape
    for x, y in zip(da, db, strict=True):
        if (
            x.__class__ is not int
            or y.__class__ is not int
            or not (-len(sa) <= x < len(sa) and -len(sb) <= y < len(sb))
        ):
            return None
        if sa[x] != sb[y]:
            return None
    arr, dt = einsum_compute(eq_of(a, b, da, db), [a, b])
    return _make(arr, dt)


def inner_fast(body, eq_of):
    """The fast call ``fn(input, other)`` of torch.inner."""

    def fast(input, other):
        if (
            _plain2(input, other)
            and input._data.ndim
            and other._data.ndim
            and input._data.shape[-1] == other._data.shape[-1]
        ):
            x, y = input._data, other._data
            if x.ndim == 2 and y.ndim == 2 and x.shape[1] > 1 and x.shape[0] and y.shape[0]:
                # matrices: einsum "ab,cb->ac", whose plan (_pair) is product(x, y.T) (no sum,
                # no batch, reshapes to the shapes they have, the result as it is): ~4 us of
                # planning keys and checks less
                return _make(product(x, y.T), input._dtype)
            return _contract(input, other, [-1], [-1], eq_of)
        return body(input, other, None)

    return fast


def tensordot_fast(body, dims_of, eq_of):
    """The fast call ``fn(a, b, dims)`` of torch.tensordot."""

    def fast(a, b, dims):
        if _plain2(a, b) and dims.__class__ is not _Tensor:
            da, db = dims_of(a, b, dims)  # its errors are the body's first
            if len(da) == len(db):
                r = _contract(a, b, da, db, eq_of)
                if r is not None:
                    return r
        return body(a, b, dims, None)

    return fast


def einsum(args):
    """The fast call of torch.einsum(equation, *operands) (None: the body)."""
    S = _STATE
    if S.td_modes or S.fw_level >= 0 or _AUTOCAST or len(args) < 2 or args[0].__class__ is not str:
        return None
    ops = args[1:]
    if len(ops) == 1 and (ops[0].__class__ is list or ops[0].__class__ is tuple):
        ops = ops[0]
    if not ops:
        return None
    g = S.grad_enabled
    for t in ops:
        if t.__class__ is not _Tensor or t._device is not _CPU or g and t._rg:
            return None
    arr, dt = einsum_compute(args[0], list(ops))
    return _make(arr, dt)
