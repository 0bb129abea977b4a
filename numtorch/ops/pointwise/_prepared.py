"""Elementwise calls with prepared parameters (Note [Elementwise prepared signatures])."""

from __future__ import annotations

from math import copysign as _copysign

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, _make
from ...kernels import PARALLEL_THRESHOLD
from .._pointwise import big_prefix, kernel_scalar
from ._ufunc_route import learn_ufunc

_nd, _empty = np.ndarray, np.empty

# Note [Elementwise prepared signatures]
# Note [Elementwise fast signatures] serves one or two operands with every parameter 1 and no
# ``prep`` hook. Every other functional call (clamp(x, -3, 4), addcmul, lerp(x, y, 0.3),
# nan_to_num, round(x, decimals=2), logit, the shifts, add(x, y, alpha=2), pow(2.0, x) with its
# number first) took the general path each time: promotion, the hooks, broadcasting, ``run``:
# 6-10 us where PyTorch takes 1.3. A
# hook's result is a function of the compute dtype, the operands' kinds and the values of the
# Python numbers among operands and parameters (the checks PyTorch's argument conversion makes,
# the kernel's derived parameters). So after a general call whose operands are contiguous
# tensors of one dtype and shape (the compute dtype, at least two elements), or Python numbers,
# the kernel, the numbers as the kernel takes them and the prepared parameters are kept under
# a key of exactly those: the first tensor's dtype, and each number's type and value (a float zero
# with its sign; a NaN never compares equal, so it is never found). The next call with that key
# runs the kernel directly: nothing the general path decides can differ. Value-dependent
# checks on tensor data keep calls on the general path (integer division by zero), as do
# float16, bfloat16 and complex computes, out= and in-place calls. At most _MAX keys per op.
_MAX = 64


def _key(operands, params):
    """(key, the operands as the kernel takes them: flat data, numbers left for the caller,
    the first tensor's data, whether every array is an exact ndarray of the first's dtype
    object), or None where the call does not qualify."""
    d = None
    key, args = [], []
    exact = True
    for x in operands:
        c = x.__class__
        if c is Tensor:
            e = x._data
            if d is None:
                d, dt, nd = e, x._dtype, e.dtype
                if d.size < 2 or not d.flags.c_contiguous:
                    return None
                key.append(dt)
            elif x._dtype is not dt or e.shape != d.shape or not e.flags.c_contiguous:
                return None
            else:
                key.append(None)
                exact = exact and e.dtype is nd
            exact = exact and e.__class__ is _nd
            args.append(e.ravel())  # a view: the data is C-contiguous
        elif c is float:
            key.append((c, x, _copysign(1.0, x)) if x == 0.0 else (c, x))
            args.append(None)
        elif c is int or c is bool:
            key.append((c, x))
            args.append(None)
        else:
            return None
    if d is None:
        return None
    for p in params:
        c = p.__class__
        if c is float:
            key.append((c, p, _copysign(1.0, p)) if p == 0.0 else (c, p))
        elif c is int or c is bool:
            key.append((c, p))
        elif p is None:
            key.append(())
        else:
            return None
    return tuple(key), args, d, exact


def prepared_call(ew, operands, params):
    """The result of a call whose key was learned, else None."""
    k = _key(operands, params)
    if k is None:
        return None
    f = ew._prepared.get(k[0])
    if f is None:
        return None
    scalars, pvals, serial, big, res_np, res, entry = f
    args, d = k[1], k[2]
    for i, v in scalars:
        args[i] = v
    dest = _empty(d.shape, res_np)
    flat = dest.ravel() if d.ndim != 1 else dest
    if d.size >= PARALLEL_THRESHOLD:
        big(*args, flat, *pvals)
    elif entry and k[3] and d.dtype is entry[1]:  # Note [Prepared kernel entry]
        entry[0](*args, flat, *pvals)
    else:
        serial(*args, flat, *pvals)
        if not entry:
            entry += learned_entry(serial, (*args, flat, *pvals), d.dtype, k[3])
    return _make(dest, res)


# Note [Prepared kernel entry]
# The prepared call's kernel dispatcher typed its four or five arguments on every call (~1 us
# of a 4 us clamp(x, -3, 4)). As Note [Compiled kernel entry] does for two tensors, the first
# prepared call of a key finds the compiled overload for its argument types and later calls
# of that key call its entry point. The numbers and parameters are the record's own objects
# (fixed per key), the arrays are tested each call: exact ndarrays of the learned dtype object
# (flat views of C-contiguous data, so their layout is the learned one).
def learned_entry(disp, args, dt, exact):
    """[entry point of ``disp``'s overload for ``args``, dtype object], or [the dispatcher
    itself (which checks types), None] where no native-order exact-ndarray overload is found."""
    from numba import typeof

    ov = disp.overloads.get(tuple(typeof(a) for a in args))
    return [ov.entry_point, dt] if ov is not None and dt.isnative and exact else [disp, None]


def learn_prepared(ew, pw, operands, params, kparams, compute, result, scalar_as):
    """Keep the kernel of a general call that succeeded, when its key qualifies; ``scalar_as``:
    the general path's number conversion (_elementwise.scalar_as)."""
    if compute.category == D._COMPLEX or compute in (D.float16, D.bfloat16):
        return
    if ew.zero_div is not None and compute.category <= D._INT:
        return
    k = _key(operands, params)
    if k is None or next(x for x in operands if x.__class__ is Tensor)._dtype is not compute:
        return
    scalars = [(i, scalar_as(x, compute)) for i, x in enumerate(operands) if not isinstance(x, Tensor)]
    pat = "".join("a" if isinstance(x, Tensor) else "s" for x in operands)
    pvals = [kernel_scalar(p, scalar_as(p, compute), compute) for p in kparams]
    if len(ew._prepared) >= _MAX:
        ew._prepared.clear()
    ew._prepared[k[0]] = (scalars, pvals, pw.kernel("c_" + pat), pw.kernel(big_prefix() + pat),
                          result.np, result, [])  # fmt: skip
    if not scalars and not params and len(operands) <= 2:  # Note [Ufunc route]
        learn_ufunc(ew, compute, result)
