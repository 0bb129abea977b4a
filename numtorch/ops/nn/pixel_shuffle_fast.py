"""The fast calls of pixel_shuffle / pixel_unshuffle (Note [Pixel shuffle fast call])."""

from __future__ import annotations

import numpy as np

from ..._tensor import _make
from .._fast_guard import params, plain

# Note [Pixel shuffle fast call]
# F.pixel_shuffle / pixel_unshuffle (and torch.*) of a small input took 2.8-3.0 us where PyTorch
# takes 1.3: the binding's body, dispatch, op.fast and the CPU impl's checks and shape
# arithmetic ran around three NumPy view calls and one copy. For a plain input (_fast_guard.plain;
# not a wide unsigned dtype) and an int factor, with the op's CPU impl still the declared one
# (no numtorch.library kernel registered over it), the call runs the impl's own NumPy calls -
# reshape, transpose, reshape, np.ascontiguousarray - with their arguments planned once per
# (input shape, factor, direction): the same arrays, so the same bits and the same sharing of
# the input's memory where those calls make no copy. Inputs the impl refuses (fewer than 3
# dims, a factor below 1, sizes the factor does not divide) plan False and take the body.
_PLANS: dict = {}  # (shape, factor, unshuffle) -> (split shape, axes, output shape) or False


def _plan(shape, r, unshuffle):
    if len(shape) < 3 or r <= 0:
        return False
    *b, c, h, w = shape
    nb = len(b)
    if unshuffle:
        if h % r or w % r:
            return False
        return ((*b, c, h // r, r, w // r, r), (*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3),
                (*b, c * r * r, h // r, w // r))  # fmt: skip
    if c % (r * r):
        return False
    return ((*b, c // (r * r), r, r, h, w), (*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2),
            (*b, c // (r * r), h * r, w * r))  # fmt: skip


def _make_fast(op, unshuffle, body):
    cpu = op.impls.get("cpu")

    def fast(input, factor):
        if factor.__class__ is int and plain(input) and input._dtype._rank <= 10 and op.impls.get("cpu") is cpu:
            a = input._data
            key = (a.shape, factor, unshuffle)
            p = _PLANS.get(key)
            if p is None:
                if len(_PLANS) >= 256:
                    _PLANS.clear()
                p = _PLANS[key] = _plan(a.shape, factor, unshuffle)
            if p is not False:
                return _make(np.ascontiguousarray(a.reshape(p[0]).transpose(p[1]).reshape(p[2])), input._dtype)
        return body(input, factor)

    return fast


def install(bindings) -> None:
    """Attach the fast calls (numtorch/__init__.py, before _api.install)."""
    from . import resample as R

    ops = {"pixel_shuffle": (R.pixel_shuffle, False), "pixel_unshuffle": (R.pixel_unshuffle, True)}
    for b in bindings:
        if b.module in ("torch", "torch.nn.functional") and b.name in ops and b.fast is None:
            b.fast = (_make_fast(*ops[b.name], b.body), params(b.sig))
