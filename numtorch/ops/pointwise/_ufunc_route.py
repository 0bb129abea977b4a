"""The NumPy ufunc route of an Elementwise op's inlined fast path (Note [Ufunc route])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import inline_make_src
from .._quiet import IGNORE, quiet, restore

# Note [Ufunc route]
# A plain same-dtype, same-shape call of a binary pointwise op spent ~0.8 us of its 1.5 us
# in np.empty, three ravel views and the kernel entry (Note [Compiled kernel entry]); NumPy's
# own ufunc allocates and loops in ~0.4 us. For the ops below, the ufunc gives the kernel's
# bits (values, dtype, C-contiguous layout; checked over signed zeros, infinities, NaNs with
# payloads, subnormals and integer limits in tests/ops/pointwise/test_ufunc_route.py), so once
# an op's fast signature is learned for a dtype (Note [Elementwise fast signatures]) op.fast
# calls the ufunc for N-d operands (NumPy returns a scalar for 0-d ones: those keep the
# kernel). Float ufuncs that can raise a floating-point flag run under Note [Quiet
# floating-point flags] (the kernel warns about nothing). One freedom is taken: where both
# operands are NaN, which of the two payloads the result keeps is each loop's own (NumPy's
# vector body and its scalar tail pick different operands; the kernel's ``self + alpha *
# other`` is compiled as ``alpha * other + self``, hence add's swapped operands, which agree
# with it in NumPy's vector body). PyTorch documents no payload either. maximum/minimum are
# swapped too: NumPy keeps the second operand of max(-0.0, 0.0), the kernel the first. Left
# out: fmax/fmin (NumPy's vector body and scalar tail keep different zeros), sign (NaN), rint
# on integers (NumPy returns float64), and everything whose NumPy loop is not correctly
# rounded (exp, log, sin, ...).
# The route is for small operands only (UFUNC_MAX elements), where the call's overhead is the
# cost: several of NumPy's loops are far slower per element than the kernels (131072 float32:
# logical_not 87 us against the kernel's 8, logical_and/or/xor 111 against 14, copysign 75
# against 20, reciprocal 30 against 18; the sweep's large cases lost up to 10x), while at 256
# elements the slowest costs ~0.15 us more than its kernel and the route saves ~0.3-0.4.
#
# name -> (ufunc, categories it serves, quiet for floats, operands swapped)
UFUNCS = {
    "add": (np.add, "bif", True, True),
    "sub": (np.subtract, "if", True, False),
    "rsub": (np.subtract, "if", True, True),
    "mul": (np.multiply, "bif", True, False),
    "div": (np.true_divide, "f", True, False),
    "copysign": (np.copysign, "f", False, False),
    "maximum": (np.maximum, "bif", False, True),
    "minimum": (np.minimum, "bif", False, True),
    # exact in IEEE arithmetic (no rounding), as the kernels' libm calls; integer fmod by zero
    # raises in the body
    "fmod": (np.fmod, "f", True, False),
    "hypot": (np.hypot, "f", True, False),
    "nextafter": (np.nextafter, "f", True, False),
    "eq": (np.equal, "bif", False, False),
    "ne": (np.not_equal, "bif", False, False),
    "lt": (np.less, "bif", False, False),
    "le": (np.less_equal, "bif", False, False),
    "gt": (np.greater, "bif", False, False),
    "ge": (np.greater_equal, "bif", False, False),
    "logical_and": (np.logical_and, "bif", True, False),
    "logical_or": (np.logical_or, "bif", True, False),
    "logical_xor": (np.logical_xor, "bif", True, False),
    "bitwise_and": (np.bitwise_and, "bi", False, False),
    "bitwise_or": (np.bitwise_or, "bi", False, False),
    "bitwise_xor": (np.bitwise_xor, "bi", False, False),
    # NumPy's shifts give 0 (left) or the sign fill (right) for a count < 0 or >= the width,
    # as c10's; learned from the prepared path (their kernels take the width as a parameter)
    "bitwise_left_shift": (np.left_shift, "i", False, False),
    "bitwise_right_shift": (np.right_shift, "i", False, False),
    "neg": (np.negative, "if", False, False),
    "abs": (np.absolute, "if", False, False),
    "sqrt": (np.sqrt, "f", True, False),
    "reciprocal": (np.reciprocal, "f", True, False),
    "floor": (np.floor, "f", True, False),
    "ceil": (np.ceil, "f", True, False),
    "trunc": (np.trunc, "f", True, False),
    "round": (np.rint, "f", True, False),
    "logical_not": (np.logical_not, "bif", True, False),
    "bitwise_not": (np.invert, "bi", False, False),
    "isnan": (np.isnan, "f", False, False),
    "isinf": (np.isinf, "f", False, False),
    "isfinite": (np.isfinite, "f", False, False),
    "signbit": (np.signbit, "f", False, False),
}
_CATS = "bifc"
UFUNC_MAX = 256
# the dtypes the kernels' fast signatures hold (no float16, bfloat16, complex, wide unsigned)
_SERVED = {
    np.dtype(t)
    for t in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float32, np.float64)
}


def learn_ufunc(ew, compute: D.dtype, result: D.dtype) -> None:
    """Serve ``compute`` operands of ``ew`` (an Elementwise whose fast signature was just
    learned for that dtype) by its ufunc where the table has one giving the result dtype."""
    spec = UFUNCS.get(ew.name)
    if spec is None or compute.np not in _SERVED or _CATS[compute.category] not in spec[1]:
        return
    uf = spec[0]
    if (
        uf.nin != len(ew.inputs)
        or uf.resolve_dtypes((compute.np,) * uf.nin + (None,))[-1] != result.np
    ):
        return
    ew._uf[compute] = (uf, result, spec[2] and compute.category == D._FLOAT)


_BRANCH = """
            _u = _UF.get(x0._dtype)
            if _u is not None and _d0.ndim and _d0.size <= _UMAX and {exact}{params}:
                if _u[2]:
                    _q = _quiet(_IGN)
                    try:
                        _r = _u[0]({ops})
                    finally:
                        _restore(_q)
                else:
                    _r = _u[0]({ops})
{make}"""


def ufunc_branch(ew, kind: str, args: list) -> tuple[str, dict]:
    """Source of the ufunc case, placed before the kernel entry in Pointwise.inline_fast's
    same-dtype case (whose test has bound _d0, _d1 and checked the shapes), with its names."""
    spec = UFUNCS.get(ew.name)
    n = 1 if kind == "unary" else 2
    if spec is None or spec[0].nin != n:
        return "", {}
    d = ["_d0", "_d1"][:n]
    exact = " and ".join(f"{a}.__class__ is _nd" for a in d)
    params = "".join(f" and {p} == 1" for p in args[n:])
    ops = ", ".join(reversed(d) if spec[3] else d)
    src = _BRANCH.format(
        exact=exact, params=params, ops=ops, make=inline_make_src("_r", "_u[1]", " " * 16)
    )
    return src, {"_UF": ew._uf, "_quiet": quiet, "_restore": restore, "_IGN": IGNORE, "_UMAX": UFUNC_MAX}
