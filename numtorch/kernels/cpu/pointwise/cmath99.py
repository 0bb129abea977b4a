"""Complex elementary functions with C99 Annex G special values (PyTorch's CPU results).

PyTorch computes complex exp/sinh/cosh/tanh/sin/cos/tan/sqrt with the C library (glibc's
csinh & co.), which follow Annex G at infinities, NaN and signed zeros and avoid overflow for
large finite arguments. Numba's ``np.sinh``/``cmath.sinh`` compute ``sinh(x) cos(y)`` directly,
so ``sinh(0 + inf j)`` gives ``nan + nan j`` where PyTorch gives ``0 + nan j`` and ``sin(800 j)``
gives ``nan + inf j`` where PyTorch gives ``inf j``. These helpers are ports of the FreeBSD msun
algorithms (s_cexp.c, s_csinh.c, s_ccosh.c, s_ctanh.c, s_csqrt.c), which glibc and NumPy's
npymath follow too. They compute in double and return complex128; a complex64 kernel rounds
the result once on store. The inverse functions keep Numba's ``cmath`` (a port of CPython's,
accurate for large arguments) and only fix the NaN cases where CPython's tables differ.
"""

import cmath
import math

import numpy as np

from numtorch.kernels._jit import inline

_KLN2 = 1246.97177782734161156  # 1799 * ln(2): exp(x - _KLN2) stays finite for x < 1455
_LN2 = 0.6931471805599453
_EXP_OVF = 709.78271289338397  # exp(x) overflows above this
_SQRT_THRESH = 7.446288774449766337959726e307  # csqrt scales down above this


@inline
def _scaled_cis(x, y, expt):
    # exp(x) * 2**expt * cis(y) for x in [709.7, 1455): exp(x - 1799 ln2) is finite and ldexp
    # puts the exponent back once, so cis(y) can pull a product back below overflow
    m, e = math.frexp(math.exp(x - _KLN2))  # m in [0.5, 1): a tiny sin(y) keeps its bits
    e += 1799 + expt
    return math.ldexp(m * math.cos(y), e), math.ldexp(m * math.sin(y), e)


@inline
def cexp99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if y == 0.0:
        return complex(math.exp(x), y)
    if math.isfinite(x) and math.isfinite(y):
        if x > _EXP_OVF:
            re, im = _scaled_cis(x, y, 0)
            return complex(re, im)
        e = math.exp(x)
        return complex(e * math.cos(y), e * math.sin(y))
    if math.isinf(x):
        if math.isfinite(y):
            e = math.exp(x)  # inf or 0: inf * cis(y), or 0 with cis(y)'s signs
            return complex(e * math.cos(y), e * math.sin(y))
        if x > 0:
            return complex(x, y - y)  # exp(+inf + i inf|nan) = inf + i nan
        return complex(0.0, math.copysign(0.0, y) if math.isinf(y) else 0.0)
    return complex(x + (y - y), x + (y - y))  # NaN real part, or finite x with y inf/nan


@inline
def csinh99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if math.isfinite(x) and math.isfinite(y):
        if y == 0.0:
            return complex(math.sinh(x), y)
        ax = abs(x)
        if ax < 22.0:
            return complex(math.sinh(x) * math.cos(y), math.cosh(x) * math.sin(y))
        if ax < _EXP_OVF:
            h = math.exp(ax) * 0.5
            return complex(math.copysign(h, x) * math.cos(y), h * math.sin(y))
        if ax < 1455.0:
            re, im = _scaled_cis(ax, y, -1)
            return complex(math.copysign(1.0, x) * re, im)
        h = math.copysign(math.inf, x)
        return complex(h * math.cos(y), math.inf * math.sin(y))
    if x == 0.0:
        return complex(x, y - y)  # sinh(+-0 + i inf|nan) = +-0 + i nan
    if y == 0.0:
        return complex(x, y)  # sinh(inf|nan + i 0) = inf|nan + i 0
    if math.isfinite(x):
        return complex(y - y, y - y)
    if math.isinf(x):
        if not math.isfinite(y):
            return complex(x * x, x * (y - y))
        return complex(x * math.cos(y), math.inf * math.sin(y))
    return complex(x * x * (y - y), (x + x) * (y - y))


@inline
def ccosh99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if math.isfinite(x) and math.isfinite(y):
        if y == 0.0:
            return complex(math.cosh(x), x * y)
        ax = abs(x)
        if ax < 22.0:
            return complex(math.cosh(x) * math.cos(y), math.sinh(x) * math.sin(y))
        if ax < _EXP_OVF:
            h = math.exp(ax) * 0.5
            return complex(h * math.cos(y), math.copysign(h, x) * math.sin(y))
        if ax < 1455.0:
            re, im = _scaled_cis(ax, y, -1)
            return complex(re, im * math.copysign(1.0, x))
        h = math.copysign(math.inf, x)
        return complex(math.inf * math.cos(y), h * math.sin(y))
    if x == 0.0:
        return complex(y - y, 0.0)  # cosh(+-0 + i inf|nan) = nan + i 0 (glibc's sign)
    if y == 0.0:  # cosh(inf + i 0) = inf + i 0 * sign(x); glibc keeps y for a NaN x
        return complex(x * x, y if math.isnan(x) else math.copysign(0.0, x) * y)
    if math.isfinite(x):
        return complex(y - y, x * (y - y))
    if math.isinf(x):
        if not math.isfinite(y):
            return complex(x * x, x * (y - y))
        return complex(math.inf * math.cos(y), x * math.sin(y))
    return complex(x * x * (y - y), (x + x) * (y - y))


@inline
def ctanh99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if not math.isfinite(x):
        if math.isnan(x):
            return complex(x, y if y == 0.0 else x + y)
        s = y if math.isinf(y) else math.sin(y) * math.cos(y)
        return complex(math.copysign(1.0, x), math.copysign(0.0, s))
    if not math.isfinite(y):
        return complex(x if x == 0.0 else y - y, y - y)
    if abs(x) >= 22.0:
        e = math.exp(-abs(x))
        return complex(math.copysign(1.0, x), 4.0 * math.sin(y) * math.cos(y) * e * e)
    t = math.tan(y)
    beta = 1.0 + t * t
    s = math.sinh(x)
    rho = math.sqrt(1.0 + s * s)
    denom = 1.0 + beta * s * s
    return complex(beta * rho * s / denom, t / denom)


@inline
def cexp2_99(z):
    # exp(z ln 2) with the parts scaled apart: (inf + 0j) * ln2 as a complex product is inf + nan j
    return cexp99(complex(np.float64(z.real) * _LN2, np.float64(z.imag) * _LN2))


# sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz): Annex G defines them so
@inline
def csin99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if math.isinf(y) and not math.isfinite(x):
        return complex(x - x, math.inf)  # glibc's sign of the infinite part (unspecified by C99)
    w = csinh99(complex(-y, x))
    return complex(w.imag, -w.real)


@inline
def ccos99(z):
    return ccosh99(complex(-np.float64(z.imag), np.float64(z.real)))


@inline
def ctan99(z):
    w = ctanh99(complex(-np.float64(z.imag), np.float64(z.real)))
    return complex(w.imag, -w.real)


@inline
def csqrt99(z):
    a, b = np.float64(z.real), np.float64(z.imag)
    if a == 0.0 and b == 0.0:
        return complex(0.0, b)
    if math.isinf(b):
        return complex(math.inf, b)
    if math.isnan(a):
        return complex(a, a + b)
    if math.isinf(a):
        if a < 0:
            return complex(abs(b - b), math.copysign(math.inf, b))
        return complex(a, math.copysign(b - b, b))
    if math.isnan(b):
        return complex(b, b)
    scale = 1.0
    if abs(a) >= _SQRT_THRESH or abs(b) >= _SQRT_THRESH:
        a, b, scale = a * 0.25, b * 0.25, 2.0  # sqrt(4 w) = 2 sqrt(w), no overflow in hypot
    elif abs(a) <= 2.2250738585072014e-308 and abs(b) <= 2.2250738585072014e-308:
        # subnormal parts: scale up by 2**54 so hypot keeps its bits, the root back by 2**-27
        a, b, scale = a * 18014398509481984.0, b * 18014398509481984.0, 7.450580596923828e-09
    if a >= 0:
        t = math.sqrt((a + math.hypot(a, b)) * 0.5)
        return complex(t * scale, b / (2.0 * t) * scale)
    t = math.sqrt((-a + math.hypot(a, b)) * 0.5)
    return complex(abs(b) / (2.0 * t) * scale, math.copysign(t, b) * scale)


# ---- inverse functions: CPython's algorithms, Annex G's NaN cases --------------------------------
@inline
def casinh99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if math.isnan(x) and y == 0.0:
        return complex(x, y)  # asinh(nan +- i 0) = nan +- i 0
    return cmath.asinh(complex(x, y))


@inline
def casin99(z):
    # asin(z) = -i asinh(iz)
    w = casinh99(complex(-np.float64(z.imag), np.float64(z.real)))
    return complex(w.imag, -w.real)


@inline
def cacos99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if x == 0.0 and math.isnan(y):
        return complex(math.pi / 2, y)  # acos(+-0 + i nan) = pi/2 + i nan
    return cmath.acos(complex(x, y))


@inline
def catanh99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if x == 0.0 and math.isnan(y):
        return complex(x, y)  # atanh(+-0 + i nan) = +-0 + i nan
    if math.isnan(x) and math.isfinite(y):
        return complex(x, x)  # atanh(nan + i y) = nan + i nan for finite y
    if math.isfinite(y) and abs(x) == 1.0 and y == 0.0:
        return complex(math.copysign(math.inf, x), y)  # the poles: +-inf + i 0
    return cmath.atanh(complex(x, y))


@inline
def catan99(z):
    # atan(z) = -i atanh(iz)
    w = catanh99(complex(-np.float64(z.imag), np.float64(z.real)))
    return complex(w.imag, -w.real)


@inline
def cacosh99(z):
    x, y = np.float64(z.real), np.float64(z.imag)
    if x == 0.0 and math.isnan(y):
        return complex(y, math.pi / 2)  # acosh(+-0 + i nan) = nan + i pi/2
    return cmath.acosh(complex(x, y))


@inline
def csgn99(z):
    # z / |z| component-wise, as PyTorch's sgn: sgn(i inf) = 0 + i nan, not nan + i nan
    a = abs(z)
    if a == 0:
        return complex(0.0, 0.0)
    return complex(z.real / a, z.imag / a)

