"""Backward formulas of pow, sinc, the inverse trigonometric and hyperbolic functions, tan,
atan2, erf/erfc, logaddexp/logaddexp2 and special.i1/i1e with their arithmetic in NumPy and their
transcendental parts still the ops (pointwise/core.py is at its size cap)."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor, _make

# Note [Arithmetic of formulas in NumPy]
# pow's formulas are six ops each (grad * where(e == 0, 0, e * pow(self, e - 1)); sinc's nine,
# atan2's five), of which only pow / log / sin / cos / exp / rsqrt / i0 are transcendental. Under
# Note [Masked formulas in NumPy]'s gate (these run through its ``numpy_first(..., raw=True)``)
# the transcendental parts stay the ops, called on the same values as the op formula calls them
# (their kernels, so their bits), and the rest is NumPy's correctly rounded +, -, *, /, the
# comparisons and where, in the formula's order, a Python number meeting an array as that
# dtype: the op formula's bits, in fewer calls. The route costs ~2 us (gate, error state,
# wrapping), about three cheap op calls: formulas of two or three arithmetic ops (hypot,
# reciprocal, rsqrt, fmod/remainder, addcdiv, xlogy) measured no faster and stay ops.


def _t(a, like):
    # an intermediate as the ops' operand: NumPy returns a scalar, not a 0-d array, from 0-d math
    return _make(np.asarray(a, like._data.dtype), like._dtype)


def pow_self(pow_op):
    # pow's gradient for self; pow_op: core's _pow
    def bw(grad, self, exponent):
        if exponent.__class__ is Tensor:
            e = exponent._data
            p = pow_op(self, _t(e - 1, exponent))._data
            return grad._data * np.where(e == 0, 0.0, e * p)
        if exponent == 0:  # zeros_like: the op formula's
            return None
        if exponent == 2 and exponent.__class__ is not complex:  # square: pow(self, 1) is a copy
            return grad._data * (self._data * exponent)
        return grad._data * (pow_op(self, exponent - 1)._data * exponent)

    return bw


def pow_exponent(log_op):
    # pow's gradient for a tensor exponent of a tensor self; log_op(x): core's log
    def bw(grad, self, exponent, result):
        if self.__class__ is not Tensor:
            return None
        a = self._data
        mask = (a == 0) & (exponent._data >= 0)
        return grad._data * np.where(mask, 0.0, result._data * log_op(self)._data)

    return bw


def sinc_self(sin_op, cos_op):
    def bw(grad, self):
        a = self._data
        px = a * np.pi
        pxt = _t(px, self)
        d = (px * cos_op(pxt)._data - sin_op(pxt)._data) / (px * a)
        return grad._data * np.where(a == 0, 0.0, d)

    return bw


def rsqrt_one_minus_sq(rsqrt_op, sign):
    # asin (sign 1): grad * rsqrt(1 - x * x); acos (sign -1): -(grad * rsqrt(1 - x * x))
    def bw(grad, self):
        a = self._data
        r = grad._data * rsqrt_op(_t(1 - a * a, self))._data
        return r if sign > 0 else -r

    return bw


def atanh_self(grad, self):
    return grad / (1 - self * self)


def i1_self(i0_op):
    # d i1/dx = i0 - i1/x, 1/2 at 0
    def bw(grad, self, result):
        a = self._data
        return grad._data * np.where(a == 0.0, 0.5, i0_op(self)._data - result._data / a)

    return bw


def i1e_self(i0e_op, sign_op):
    # d i1e/dx = i0e - i1e (sign(x) + 1/x), 1/2 at 0
    def bw(grad, self, result):
        a = self._data
        d = i0e_op(self)._data - result._data * (sign_op(self)._data + 1 / a)
        return grad._data * np.where(a == 0.0, 0.5, d)

    return bw


def atan2_part(key):
    # d atan2(y, x): x / (y*y + x*x) for y (self), -y / (...) for x; reciprocal is 1 / v
    def bw(grad, self, other):
        recip = 1 / (self * self + other * other)
        return grad * (other if key == "self" else -self) * recip

    return bw


def logaddexp_part(exp_op, key):
    # grad / (exp(other - self) + 1) for self (exp2 for logaddexp2), the operands swapped for other
    def bw(grad, self, other):
        a, b = (other, self) if key == "self" else (self, other)
        return grad._data / (exp_op(_t(a._data - b._data, a))._data + 1)

    return bw


def tan_self(grad, result):
    return grad * (result * result + 1)


def atan_self(grad, self):
    return grad / (self * self + 1)


def asinh_self(rsqrt_op):
    # grad * rsqrt(x * x + 1)
    def bw(grad, self):
        a = self._data
        return grad._data * rsqrt_op(_t(a * a + 1, self))._data

    return bw


def erf_self(exp_op, c):
    # erf (c = 2 / sqrt(pi)) and erfc (-2 / sqrt(pi)): grad * (exp(-(x * x)) * c)
    def bw(grad, self):
        a = self._data
        return grad._data * (exp_op(_t(-(a * a), self))._data * c)

    return bw
