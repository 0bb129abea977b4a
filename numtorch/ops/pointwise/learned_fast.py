"""The bindings' direct route to a learned prepared call of addcmul, addcdiv, lerp, nan_to_num
and logit (Note [Learned binding calls])."""

from __future__ import annotations

from math import copysign as _copysign

import numpy as np

from ..._device import CPU as _CPU
from ..._ops import OpOverload
from ..._state import STATE
from ..._tensor import Tensor as _T
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from ...kernels import PARALLEL_THRESHOLD as _PT
from .._registry import BINDINGS
from ._learned import args_key

_nd, _empty = np.ndarray, np.empty

# Note [Learned binding calls]
# addcmul(x, a, b), lerp(x, y, 0.3) and nan_to_num(x) reached Note [Learned prepared calls]'s record through
# four layers: the binding's fast call (or lerp's routed body, Note [Prepared binding body]),
# op.fast's gate, the functional impl's key over every argument, then its loop over the
# tensors: ~1.5 us of a 2.9 us addcmul whose kernel entry takes 0.3. These bindings look the
# record up themselves, in the functional impl's own table, under the key that impl would
# build (the first tensor's dtype, Tensor for each tensor, each number's class and value;
# addcmul/addcdiv/lerp build it inline for an int, or a float that is neither zero nor NaN,
# whose keys the impl writes differently; nan_to_num/logit call its args_key), and
# make the checks the layers make, unrolled (Note [Guarded fast paths]: no mode, forward-AD
# level or autocast region, as addcmul/addcdiv have a promote rule; CPU tensors with nothing
# to record), then those the impl makes before its entry (exact classes, one dtype, one shape,
# C-contiguous, at least two elements and below the parallel size). Any miss takes the path
# the binding took before (op.fast, or the routed body), so errors, modes and graphs are its.
COUNT = [0]  # calls served here (tests read it)


def addc(op):
    """addcmul/addcdiv's binding fast call: ``op.fast`` with the learned record in front."""
    impls = op.impls
    impl = impls["cpu"]
    memo = impl.learned

    S = STATE

    def call(x, a, b, value):
        # the layers' tests, unrolled in each call (a helper's frame was ~7% of addcmul's call): no
        # mode, forward-AD level or autocast region, exact CPU Tensors of one dtype with nothing to
        # record, the declared kernel still registered (numtorch.library)
        c = value.__class__
        if (
            (c is int or c is float and value == value and value != 0.0)
            and x.__class__ is _T
            and a.__class__ is _T
            and b.__class__ is _T
            and not (S.td_modes or S.fw_level >= 0 or _AUTOCAST)
        ):
            dt = x._dtype
            f = memo.get((dt, _T, _T, c, value))
            if (
                f is not None
                and a._dtype is dt
                and b._dtype is dt
                and x._device is _CPU
                and a._device is _CPU
                and b._device is _CPU
                and not (S.grad_enabled and (x._rg or a._rg or b._rg))
                and impls.get("cpu") is impl
                and "composite" not in impls
            ):
                d, e1, e2 = x._data, a._data, b._data
                sh = d.shape
                if (
                    d.dtype is f[1]
                    and d.__class__ is _nd
                    and e1.__class__ is _nd
                    and e2.__class__ is _nd
                    and e1.shape == sh
                    and e2.shape == sh
                    and 2 <= d.size < _PT
                    and d.flags.c_contiguous
                    and e1.flags.c_contiguous
                    and e2.flags.c_contiguous
                ):
                    r = _empty(sh, f[5])
                    f[0](d.ravel(), e1.ravel(), e2.ravel(), r.ravel(), *f[4])
                    COUNT[0] += 1
                    return _make(r, f[6])
        return op.fast(x, a, b, value)

    return call


_NONE = type(None)


def one_key(dt, p):
    """args_key(dt, p), built inline for logit's one int, None or nonzero float and for
    nan_to_num's defaults (a float zero, then two Nones)."""
    n = len(p)
    if n == 1:
        a = p[0]
        c = a.__class__
        if c is int or a is None or c is float and a == a and a != 0.0:
            return (dt, c, a)
    elif n == 3:
        a = p[0]
        if a.__class__ is float and a == 0.0 and p[1] is None and p[2] is None:
            return (dt, float, "-0" if _copysign(1.0, a) < 0 else "+0", _NONE, None, _NONE, None)
    return args_key(dt, p)


def one(op):
    """nan_to_num/logit's binding fast call: ``op.fast`` with the learned record in front."""
    impls = op.impls
    impl = impls["cpu"]
    memo = impl.learned

    S = STATE

    def call(x, *p):
        if (
            x.__class__ is _T
            and not (S.td_modes or S.fw_level >= 0 or _AUTOCAST or S.grad_enabled and x._rg)
            and x._device is _CPU
            and impls.get("cpu") is impl
            and "composite" not in impls
        ):  # addc's tests for one tensor
            k = one_key(x._dtype, p)
            f = memo.get(k) if k is not None else None
            if f is not None:
                d = x._data
                if d.dtype is f[1] and d.__class__ is _nd and 2 <= d.size < _PT and d.flags.c_contiguous:
                    r = _empty(d.shape, f[5])
                    f[0](d.ravel(), r.ravel(), *f[4])
                    COUNT[0] += 1
                    return _make(r, f[6])
        return op.fast(x, *p)

    return call


def lerp(body, op):
    """lerp's binding body with the learned record of lerp.Scalar (``op``) in front."""
    impls = op.impls
    impl = impls["cpu"]
    memo = impl.learned
    S = STATE

    def call(*v):
        x, e, w = v[0], v[1], v[2]
        c = w.__class__
        if (
            (c is float and w == w and w != 0.0 or c is int)
            and (len(v) == 3 or v[3] is None)
            and x.__class__ is _T
            and e.__class__ is _T
            and not (S.td_modes or S.fw_level >= 0 or _AUTOCAST)
        ):  # addc's tests for two tensors
            dt = x._dtype
            f = memo.get((dt, _T, c, w))
            if (
                f is not None
                and e._dtype is dt
                and x._device is _CPU
                and e._device is _CPU
                and not (S.grad_enabled and (x._rg or e._rg))
                and impls.get("cpu") is impl
                and "composite" not in impls
            ):
                d, e1 = x._data, e._data
                if (
                    d.dtype is f[1]
                    and d.__class__ is _nd
                    and e1.__class__ is _nd
                    and e1.shape == d.shape
                    and 2 <= d.size < _PT
                    and d.flags.c_contiguous
                    and e1.flags.c_contiguous
                ):
                    r = _empty(d.shape, f[5])
                    f[0](d.ravel(), e1.ravel(), r.ravel(), *f[4])
                    COUNT[0] += 1
                    return _make(r, f[6])
        return body(*v)

    call.__wrapped__ = body
    return call


_WRAP = {"addcmul": addc, "addcdiv": addc, "nan_to_num": one, "logit": one}


def install() -> int:
    """Give the addcmul/addcdiv/lerp bindings (torch and Tensor) their learned calls; the
    number of bindings changed."""
    from .core import _LERP_S

    n = 0
    for b in BINDINGS:
        if b.module not in ("torch", "Tensor", "torch.special"):
            continue
        wrap = _WRAP.get(b.name)
        if wrap is not None and b.fast is not None and b.fast[0].__class__ is OpOverload:
            b.fast = (wrap(b.fast[0]), *b.fast[1:])
            n += 1
        elif b.name == "lerp" and b.fast is None and hasattr(b.body, "__wrapped__"):
            b.body = lerp(b.body, _LERP_S["functional"])
            n += 1
    return n


install()
