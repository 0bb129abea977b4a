"""Learned prepared calls of an Elementwise op's functional impl (Note [Learned prepared calls])."""

from __future__ import annotations

from math import copysign as _copysign

import numpy as np

from ..._tensor import Tensor, _make
from ...kernels import PARALLEL_THRESHOLD as _PT
from ._prepared import _key

_nd, _empty = np.ndarray, np.empty

# Note [Learned prepared calls]
# addcmul(x, a, b), lerp(x, y, 0.3), logit(x), nan_to_num(x): op.fast's gate passed, the
# functional impl still built operand and parameter lists, ran Elementwise.__call__'s preamble
# and the prepared key over every operand (Note [Elementwise prepared signatures]) before the
# learned entry (Note [Prepared kernel entry]): ~2 us of a 3.5 us addcmul. An op with prepared
# parameters (an Elementwise whose fast signatures are off) gets a functional impl that keeps,
# per op, the learned record under a key of the first tensor's dtype and each other argument's
# type and value (a tensor only as its class; a float zero with its sign, as -0.0 == 0.0; a
# NaN never, as NaN != NaN); a later call with that key whose tensors are C-contiguous exact ndarrays of the
# entry's dtype object and of the first's shape and dtype, below the parallel size, runs the
# entry directly. Every check the general path makes is a function of that key, which passed
# them before. Ops with a ufunc (Note [Ufunc route]) keep the engine's unary/binary impl, whose
# inlined fast path holds that route.
MEMOS: list = []  # every learned table (tests empty them)


def args_key(dt, vals):
    """(dtype, class[, value] per argument) or None (Note [Learned prepared calls])."""
    k = [dt]
    for a in vals:
        c = a.__class__
        if c is Tensor:
            k.append(c)
            continue
        if c is float:
            if a == 0.0:  # the sign is the value's own: -0.0 == 0.0
                a = "-0" if _copysign(1.0, a) < 0 else "+0"
            elif a != a:
                return None
        elif c is not int and c is not bool and a is not None:
            return None
        k.append(c)
        k.append(a)
    return tuple(k)


def learned(ew, general, n: int):
    """``general`` (the functional impl: n operands, then the parameters) with the learned
    calls in front."""
    memo: dict = {}
    MEMOS.append(memo)

    def functional(*v):
        x = v[0]
        if x.__class__ is not Tensor:
            return general(*v)
        d = x._data
        k = args_key(x._dtype, v[1:]) if d.flags.c_contiguous and 2 <= d.size < _PT else None
        if k is None:
            return general(*v)
        f = memo.get(k)
        if f is not None and d.dtype is f[1] and d.__class__ is _nd:
            args = list(f[3])
            args[0] = d.ravel()
            dt, edt = x._dtype, f[1]
            for i in f[2]:
                t = v[i]
                e = t._data
                if (
                    t._dtype is not dt
                    or e.shape != d.shape
                    or not e.flags.c_contiguous
                    or e.__class__ is not _nd
                    or e.dtype is not edt
                ):
                    return general(*v)
                args[i] = e.ravel()
            r = _empty(d.shape, f[5])
            f[0](*args, r.ravel(), *f[4])
            return _make(r, f[6])
        r = general(*v)
        if f is None:
            _learn(ew, memo, k, v, n, d)
        return r

    functional.learned = memo  # prepared_fast's routed bindings dispatch to it
    return functional


def _learn(ew, memo, k, v, n, d):
    operands, params = list(v[:n]), list(v[n:])
    tpos = tuple(i for i in range(1, n) if operands[i].__class__ is Tensor)
    for i in tpos:
        e = operands[i]._data
        if (
            operands[i]._dtype is not operands[0]._dtype
            or e.shape != d.shape
            or not e.flags.c_contiguous
        ):
            return
    key = _key(operands, params)
    rec = ew._prepared.get(key[0]) if key is not None else None
    if rec is None or not rec[6] or rec[6][1] is not d.dtype:  # no compiled entry learned yet
        return
    template = [None] * n
    for i, val in rec[0]:
        template[i] = val
    if len(memo) >= 64:
        memo.clear()
    memo[k] = (rec[6][0], rec[6][1], tpos, tuple(template), tuple(rec[1]), rec[4], rec[5])
