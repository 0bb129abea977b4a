"""clamp's argument checks, as Elementwise ``early`` hooks and the clamp router's bound conversion."""

from __future__ import annotations

import copy

from ... import _dtype as D


def clamp_complex(operands):
    # clamp's meta functions refuse a complex input before the out= and overlap checks
    if operands[0]._dtype.category == D._COMPLEX:
        raise NotImplementedError("clamp is not supported for complex types")


def clamp_bounds(x, a, b):
    """clamp (not clamp_min/clamp_max) keeps a floating input's dtype and converts its bounds to
    double: a complex number's imaginary part is refused, a real one is used."""
    if x._dtype.category == D._FLOAT and complex in (type(a), type(b)):
        if any(type(v) is complex and v.imag for v in (a, b)):
            raise RuntimeError("value cannot be converted to type double without overflow")
        a, b = (v.real if type(v) is complex else v for v in (a, b))
    return a, b


def _complex_bound(operands):
    if operands[0]._dtype.category == D._COMPLEX or type(operands[1]) is complex:
        raise NotImplementedError("clamp is not supported for complex types")


def scalar_bound(ew):
    """clamp_min/clamp_max with a Scalar bound: ATen's meta refuses a complex result type (a
    complex bound) before the in-place/out= cast check, where clamp's makes that check first
    (so the clamp router keeps ``ew`` itself). The copy shares ew's compiled kernels."""
    ew = copy.copy(ew)
    ew.early = _complex_bound
    return ew
