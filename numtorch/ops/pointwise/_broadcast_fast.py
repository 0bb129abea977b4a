"""The broadcast case of an Elementwise op's inlined fast path (Note [Inlined broadcast plans])."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import inline_make_src
from ._ufunc_route import UFUNCS

# Note [Inlined broadcast plans]
# ``x + bias`` ((16, 32) + (32,) float32), ``x * scale[:, None]``, an outer-style ``c + r`` and
# ``x * s`` with a 0-d ``s`` took ~5 us where the same-shape call takes ~1.7: op.fast's inlined
# case wants equal shapes, so the call went op.fast -> Pointwise.binary -> Elementwise.__call__
# -> _fast_call -> expanded_call -> strided_call before a kernel ran. When that body runs the
# row kernel (Note [Broadcast rows]) for two C-contiguous operands of one dtype, it keeps a plan
# under (dtype, shape, shape): the cached layout, the result dtype and the kernel's compiled
# entry for those argument types and the operands' NumPy dtype object (Note [Compiled kernel
# entry]; Note [Two-level broadcast kernels] where the shapes split into rows x inner: then the
# plan holds the output shape and ``inner``, else the layout and 0); for a 0-d operand it keeps
# (None, result dtypes, shape) and takes the op's ufunc (Note [Broadcast ufunc route]). The body
# itself calls a kept entry, and op.fast's broadcast branch looks the plan up and makes the same
# call, so a plan holds only what the body decided for those shapes (its hooks, a learned
# signature, the bound by size of the ufunc); what depends on the call (params of 1,
# C-contiguity, exact ndarrays, the ufunc still served for the dtype) is tested inline. The entry
# unboxes without checking types: the key's dtype and the tests above give it the arrays it was
# compiled for. A miss calls the impl, which takes the body as before.
_MAX_PLANS = 256

_BRANCH = """
        elif _d1 is not None and {y}._dtype is x0._dtype{params}:
            _p = _BP.get((x0._dtype, _d0.shape, _d1.shape))
            if _p is not None and _d0.flags.c_contiguous and _d1.flags.c_contiguous and _d0.__class__ is _nd and _d1.__class__ is _nd:
                _l = _p[0]
                if _l is not None and _d0.dtype is _p[4] and _d1.dtype is _p[4]:
                    if _p[5]:
                        _r = _empty(_l, _p[1])
                        _p[3](_d0, _d1, _r, _p[5]{ps})
                    else:
                        _r = _empty(_l[5], _p[1])
                        _p[3](_l[1], _r.reshape(-1), 0, _l[2], _d0.reshape(-1), 0, _l[3], _d1.reshape(-1), 0, _l[4]{ps})
{make}{zerod}"""

_ZEROD = """
                _u = _UF.get(x0._dtype)
                if _u is not None:
                    _r = _empty(_p[3], _p[1])
                    if _u[2]:
                        _q = _quiet(_IGN)
                        try:
                            _u[0]({ops}, out=_r)
                        finally:
                            _restore(_q)
                    else:
                        _u[0]({ops}, out=_r)
{make}"""


def broadcast_branch(ew, args: list) -> tuple[str, dict]:
    """Source of the broadcast case, placed after the same-shape and number cases of
    Elementwise.inline_fast's binary source, with its names."""
    y, ps = args[1], args[2:]
    params = "".join(f" and {p}.__class__ is _int and {p} == 1" for p in ps)
    zerod = ""
    spec = UFUNCS.get(ew.name)
    if spec is not None and spec[0].nin == 2:  # the ufunc branch's names are bound (_ufunc_route)
        ops = "_d1, _d0" if spec[3] else "_d0, _d1"
        zerod = _ZEROD.format(ops=ops, make=inline_make_src("_r", "_p[2]", " " * 20))
    src = _BRANCH.format(y=y, params=params, ps="".join(f", {p}" for p in ps), zerod=zerod,
                         make=inline_make_src("_r", "_p[2]", " " * 20))  # fmt: skip
    return src, {"_BP": ew._bp, "_int": int}


def keep_plan(ew, dt, d, e, plan) -> None:
    """Remember how the body served same-dtype C-contiguous operands of these shapes."""
    plans = ew._bp
    if len(plans) >= _MAX_PLANS:
        plans.clear()
    plans[dt, d.shape, e.shape] = plan


def row_entry(k, args):
    """The compiled entry of dispatcher ``k`` for ``args`` (which it just ran), or None where
    it has none for them or an array is not an exact native-order ndarray."""
    for a in args:
        if a.__class__ is not int and (a.__class__ is not np.ndarray or not a.dtype.isnative):
            return None
    from numba import typeof

    ov = k.overloads.get(tuple(typeof(a) for a in args))
    return None if ov is None else ov.entry_point


def two_level(dshape: tuple, eshape: tuple, shape: tuple):
    """(roles, inner) of Note [Two-level broadcast kernels] for two operand shapes broadcast to
    ``shape``, or None where they do not split into rows x inner that way."""
    nd = len(shape)
    keep = [k for k in range(nd) if shape[k] != 1]
    full = []  # per operand: whether each kept dim is the output's whole extent
    for s in (dshape, eshape):
        s = (1,) * (nd - len(s)) + tuple(s)
        full.append([s[k] == shape[k] for k in keep])
    for t in range(1, len(keep)):
        roles = ""
        for f in full:
            head, tail = f[:t], f[t:]
            if all(head) and all(tail):
                roles += "a"
            elif all(tail) and not any(head):
                roles += "r"
            elif all(head) and not any(tail):
                roles += "c"
            else:
                break
        if len(roles) == 2 and roles[0] != roles[1]:
            return roles, math.prod(shape[keep[t] :])
    return None
