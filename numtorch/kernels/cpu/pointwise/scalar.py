"""Scalar helpers inlined into generated pointwise kernels (PyTorch's edge-case semantics).

Every function here is typed per call site by Numba, so one definition serves all dtypes of
the categories its op allows (numtorch/ops/pointwise/core.py picks an expression per category).
Changing this file changes the hash of every generated kernel file (Note [Generated kernels
are real files]), so cached kernels never keep stale helper code.

Numba types ``float32 op int literal`` as float64, so helpers that must stay in the input's
precision take their constants as kernel parameters (cast to the compute dtype) instead.
"""

import math

import numpy as np

# Complex division goes through np.divide: Numba's ``/`` raises ZeroDivisionError for a zero
# complex divisor, NumPy's (and c10::complex's) algorithm gives inf/nan instead.
from numtorch.kernels._jit import inline, scalar_overload
from numtorch.kernels.cpu.pointwise.vmath import vsigmoid


# Note [Python scalars keep double precision]
# A Python number operand is cast to the compute dtype in the kernel (``x.dtype.type(s)``), as
# c10::Scalar::to<scalar_t>() does for add/mul/clamp. ATen's pow reads a scalar exponent with
# exp_scalar.to<double>() for float and double tensors and computes std::pow(base, exp) in
# double: pow(tensor([0.]), 1e-300) is 0, not 0 ** float32(1e-300) = 1.
def keep_double(x, like):
    return like.dtype.type(x)


@scalar_overload(keep_double)
def _keep_double_typer(x, like):
    # like: the kernel's first array operand (a Numba array type); real floats keep double
    if str(like.dtype) in ("float32", "float64"):
        return lambda x, like: np.float64(x)
    return lambda x, like: like.dtype.type(x)


# ---- sign, rounding ------------------------------------------------------------------------
@inline
def sign(x):
    # torch.sign: (0 < x) - (x < 0), so NaN -> 0 and bool stays bool
    return (x > 0) - (x < 0)


@inline
def round_decimals(x, ten_pow, neg_flag):
    # torch.round(decimals=d): nearbyint(x * 10**d) / 10**d, or nearbyint(x / 10**-d) * 10**-d
    if neg_flag:
        return np.rint(x / ten_pow) * ten_pow
    return np.rint(x * ten_pow) / ten_pow


# ---- division family -----------------------------------------------------------------------
@inline
def div_floor_float(a, b):
    # ATen's div_floor_floating: floor of the exact quotient, IEEE result for b == 0
    if b == 0:
        return a / b
    mod = np.fmod(a, b)
    div = (a - mod) / b
    if mod != 0 and (b < 0) != (mod < 0):
        div -= 1
    if div != 0:
        floordiv = np.floor(div)
        if div - floordiv > 0.5:
            floordiv += 1
        return floordiv
    return np.copysign(div * 0, a / b)


@inline
def div_floor_int(a, b):
    # b == -1 is special-cased: INT_MIN // -1 traps in hardware, wrapping is what we want
    if b == -1:
        return -a
    q = a // b
    return q


@inline
def div_trunc_int(a, b):
    if b == -1:
        return -a
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


@inline
def cdiv(x, y):
    # c10::complex's division (NumPy's loops): Smith's scaling, and a division by zero divides
    # each part by |c| and |d|, so (-6.5-0.3j) / (-0+0j) is -inf-infj (Numba's kept c's sign)
    a, b, c, d = x.real, x.imag, y.real, y.imag
    ac, ad = abs(c), abs(d)
    if ac >= ad:
        if ac == 0 and ad == 0:
            return complex(a / ac, b / ad)
        rat = d / c
        den = c + d * rat
        return complex((a + b * rat) / den, (b - a * rat) / den)
    rat = c / d
    den = d + c * rat
    return complex((a * rat + b) / den, (b * rat - a) / den)


@inline
def remainder_float(a, b):
    mod = np.fmod(a, b)
    if mod != 0 and (b < 0) != (mod < 0):
        mod += b
    return mod


@inline
def remainder_int(a, b):
    if b == -1:
        return a * 0
    return a % b


@inline
def fmod_int(a, b):
    if b == -1:
        return a * 0
    return a - div_trunc_int(a, b) * b


# ---- powers --------------------------------------------------------------------------------
@inline
def pow_int(a, b):
    # ATen's powi: squaring; negative exponents give 0 except for |a| == 1
    if b < 0:
        if a == 1:
            return a * 0 + 1
        if a == -1:
            return a * 0 + (-1 if b % 2 != 0 else 1)
        return a * 0
    r = a * 0 + 1
    base = a * 1
    while b:
        if b & 1:
            r *= base
        base *= base
        b >>= 1
    return r


@inline
def cpow(a, b):
    # glibc's cpow: cexp(b * clog(a)), with C99's cexp at -inf and for a real argument
    z = b * np.log(a)
    if z.real == -np.inf:
        return complex(0.0, 0.0)
    if z.imag == 0:  # no inf * sin(0) = nan imaginary part
        return complex(np.exp(z.real), z.imag)
    return np.exp(z)


@inline
def rsqrt(x):
    return np.divide(1, np.sqrt(x))


# ---- bit shifts ----------------------------------------------------------------------------
@inline
def lshift(a, b, bits):
    # ATen: shifting by a negative amount or by the bit width or more gives 0
    if b < 0 or b >= bits:
        return a * 0
    return a << b


@inline
def rshift(a, b, bits):
    # ... and a right shift fills with the sign bit
    if b < 0 or b >= bits:
        return a >> (bits - 1) if a < 0 else a * 0
    return a >> b


# ---- min / max / clamp ---------------------------------------------------------------------
@inline
def maximum(a, b):
    # NaN propagates, as in torch.maximum
    if a != a:
        return a
    if b != b:
        return b
    return a if a >= b else b


@inline
def minimum(a, b):
    if a != a:
        return a
    if b != b:
        return b
    return a if a <= b else b


@inline
def fmax(a, b):
    # NaN is ignored unless both are NaN
    if a != a:
        return b
    if b != b:
        return a
    return a if a >= b else b


@inline
def fmin(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return a if a <= b else b


@inline
def clamp(x, lo, hi):
    # torch.clamp: a NaN anywhere gives NaN; max wins when min > max
    if lo != lo:
        return lo
    if hi != hi:
        return hi
    if x != x:
        return x
    if x < lo:
        x = lo
    if x > hi:
        x = hi
    return x


@inline
def relu(x):
    return x if x > 0 else x * 0


# ---- transcendental ------------------------------------------------------------------------
@inline
def sigmoid(x):
    return vsigmoid(x)  # Note [Vectorizable exp]


# sin(pi x) / (pi x), 1 at 0 (ops/pointwise/extra.py's sinc); the CPU kernels get
# vmath_sinc's vsinc_real (Note [Vectorizable sinc])
@inline
def sinc_real(x):
    return 1.0 if x == 0 else np.sin(x * np.pi) / (x * np.pi)


# GELU's exact form and its derivative; the CPU kernels get vmath_erf's vgelu_erf /
# vgelu_erf_backward instead (Note [Vectorizable erf])
@inline
def gelu_erf(x):
    return 0.5 * x * (1 + math.erf(x * 0.7071067811865476))


@inline
def gelu_erf_backward(g, x):
    pdf = math.exp(-0.5 * x * x) * 0.3989422804014327
    return g * (0.5 * (1 + math.erf(x * 0.7071067811865476)) + x * pdf)


@inline
def logaddexp(a, b):
    if np.isinf(a) and a == b:
        return a
    m = a if a >= b else b
    if m != m:
        return a + b
    return m + np.log1p(np.exp(-abs(a - b)))


@inline
def logaddexp_complex(a, b):
    mx = a if a.real >= b.real else b
    mn = b if a.real >= b.real else a
    return mx + np.log1p(np.exp(mn - mx))


@inline
def xlogy(x, y):
    if y != y:
        return y
    if x == 0:
        return x * 0
    return x * np.log(y)


@inline
def lerp(a, b, w, half, one):
    # ATen: two formulas split at |w| < 0.5 so that lerp(a, b, 1) == b exactly
    if abs(w) < half:
        return a + w * (b - a)
    return b - (b - a) * (one - w)


@inline
def nan_to_num(x, nan, posinf, neginf):
    if x != x:
        return nan
    if x == np.inf:
        return posinf
    if x == -np.inf:
        return neginf
    return x


@inline
def nan_to_num_complex(z, nan, posinf, neginf):
    re = nan_to_num(z.real, nan.real, posinf.real, neginf.real)
    im = nan_to_num(z.imag, nan.real, posinf.real, neginf.real)
    return re + 1j * im


@inline
def isinf_complex(z):
    return np.isinf(z.real) or np.isinf(z.imag)


@inline
def isfinite_complex(z):
    return np.isfinite(z.real) and np.isfinite(z.imag)


@inline
def where(c, a, b):
    return a if c else b


@inline
def threshold_grad(g, x, threshold):
    return g if x > threshold else g * 0


@inline
def erf(x):
    return math.erf(x)


@inline
def lcm_aten(a, b):
    # ATen's abs(a / gcd * b) in C++ arithmetic: int8/int16/uint8 promote to int (the abs sees the
    # exact product, the store wraps it), int32 and int64 wrap the product before the abs
    g = np.gcd(a, b)
    if g == 0:
        return type(a)(0)
    p = a // g * b
    if type(a)(65536) == 65536 and type(a)(2147483648) != 2147483648:
        return type(a)(abs(np.int32(p)))
    return type(a)(abs(p))
