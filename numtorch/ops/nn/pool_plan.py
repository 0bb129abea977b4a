"""The plan caches' runner (Note [Pool plans]): fast_nn's windowed pools and adaptive_fast's
adaptive pools store (kernel, its geometry arguments, output shape, with indices, view shape)
per call key and run it."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import _make, _view
from ..reduction._reduce import _entry

_BUILTIN = len.__class__  # a compiled entry's class (Note [Compiled kernel entry])
_empty = np.empty
_I64 = np.dtype(np.int64)
_DT_I64 = D.int64


def run(plans: dict, key, input, make, indices=False):
    """The planned kernel's values (``indices``: with its indices) for ``input``, or None where
    ``make()`` - called on the key's first call, the plan or None - declined. From the plan's
    second call its kernel runs through the compiled entry of the first call's types (the key
    holds the input's dtype; the arrays are 1-d C-contiguous: ``ravel`` views a C-contiguous
    input, else makes np.ascontiguousarray's C-order copy). A plan with a view shape returns
    the view of its result that the body's squeeze makes (Note [Adaptive pool plans])."""
    plan = plans.get(key)
    if plan is None:
        plan = learn(plans, key, make())
    return execute(plans, key, plan, input, indices) if plan else None


def learn(plans: dict, key, plan):
    """Store ``plan`` (None: the key declines, stored as False) for ``key``; returns it."""
    plan = plan or False
    if len(plans) >= 256:
        plans.clear()
    plans[key] = plan
    return plan


def execute(plans: dict, key, plan, input, indices=False):
    """``run``'s call of a stored plan (not False) on ``input``: what a caller that looked the
    key up itself calls (fast_nn's pools: no ``make`` closure per call)."""
    fn, args, oshape, with_idx, vshape = plan
    a = input._data
    out = _empty(oshape, a.dtype)
    if fn.__class__ is not _BUILTIN:  # the plan's first call: its compiled entry from now on
        if with_idx:
            idx = _empty(oshape, _I64)
            call = (a.ravel(), out.ravel(), idx.ravel(), *args)
        else:
            call = (a.ravel(), out.ravel(), *args)
        fn(*call)
        plans[key] = (_entry(fn, call), args, oshape, with_idx, vshape)
    elif with_idx:
        idx = _empty(oshape, _I64)
        fn(a.ravel(), out.ravel(), idx.ravel(), *args)
    else:
        fn(a.ravel(), out.ravel(), *args)
    r = _make(out, input._dtype)
    if vshape is not None:
        r = _view(r, out.reshape(vshape))
    if not indices:
        return r
    i = _make(idx, _DT_I64)
    return r, (i if vshape is None else _view(i, idx.reshape(vshape)))
