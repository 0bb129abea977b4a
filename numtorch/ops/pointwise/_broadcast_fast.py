"""The broadcast case of an Elementwise op's inlined fast path (Note [Inlined broadcast plans])."""

from __future__ import annotations

from ..._tensor import inline_make_src
from ._ufunc_route import UFUNCS

# Note [Inlined broadcast plans]
# ``x + bias`` ((16, 32) + (32,) float32), ``x * scale[:, None]``, an outer-style ``c + r`` and
# ``x * s`` with a 0-d ``s`` took ~5 us where the same-shape call takes ~1.7: op.fast's inlined
# case wants equal shapes, so the call went op.fast -> Pointwise.binary -> Elementwise.__call__
# -> _fast_call -> expanded_call -> strided_call before NumPy's broadcasting ufunc ran (Note
# [Broadcast ufunc route]). When that body takes the ufunc for two C-contiguous operands of one
# dtype, it keeps a plan under (dtype, shape, shape): the broadcast shape and the result's NumPy
# dtype. op.fast's broadcast branch looks the plan up and calls the same ufunc into the same
# C-order result, so the plan holds only what the body decided for those shapes (its bound by
# size, the op's hooks, a learned signature); what depends on the call (the ufunc still served
# for the dtype, params of 1, C-contiguity, exact ndarrays) is tested inline. A miss calls the
# impl, which takes the body as before.
_MAX_PLANS = 256

_BRANCH = """
        elif _d1 is not None and {y}._dtype is x0._dtype{params}:
            _u = _UF.get(x0._dtype)
            _p = _BP.get((x0._dtype, _d0.shape, _d1.shape))
            if _u is not None and _p is not None and _d0.flags.c_contiguous and _d1.flags.c_contiguous and _d0.__class__ is _nd and _d1.__class__ is _nd:
                _r = _empty(_p[0], _p[1])
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
    Elementwise.inline_fast's binary source, with its names ("" where the op has no ufunc)."""
    spec = UFUNCS.get(ew.name)
    if spec is None or spec[0].nin != 2:
        return "", {}
    y, ps = args[1], args[2:]
    params = "".join(f" and {p}.__class__ is _int and {p} == 1" for p in ps)
    ops = "_d1, _d0" if spec[3] else "_d0, _d1"
    src = _BRANCH.format(y=y, params=params, ops=ops, make=inline_make_src("_r", "_u[1]", " " * 16))
    return src, {"_BP": ew._bp, "_int": int}


def keep_plan(ew, dt, d, e, shape, result_np) -> None:
    """Remember that the body served same-dtype C-contiguous operands of these shapes by the
    op's ufunc into an ``shape`` result of ``result_np``."""
    plans = ew._bp
    if len(plans) >= _MAX_PLANS:
        plans.clear()
    plans[dt, d.shape, e.shape] = (shape, result_np)
