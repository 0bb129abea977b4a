"""NumPy's ziggurat samplers (standard normal in float64 and float32, standard exponential) and
the in-place sampler fills built on them, drawing through the bit generator's address.

# Note [Ziggurat samplers in kernels]
# numpy/random/src/distributions/distributions.c's random_standard_normal, _normal_f,
# random_standard_exponential and random_geometric, step for step, with its ziggurat tables
# (Numba ships the same tables for its own Generator support: numba.np.random._constants). A
# kernel makes the draws its Generator method would make, through the same bit generator calls
# (Note [Bit generator in kernels]), then the arithmetic the in-place sampler's fast call did on
# them (ops/factory/sampler_fast.py), so values and stream position are unchanged;
# tests/ops/factory/test_bitgen.py compares them with NumPy's methods.
"""

from __future__ import annotations

import math

import numpy as np
from numba import uint32, uint64
from numba.np.random import _constants as _Z

from .._jit import inline, kernel
from .bitgen import next_double, next_uint32, next_uint64

_KI, _WI, _FI = _Z.ki_double, _Z.wi_double, _Z.fi_double
_KIF, _WIF, _FIF = _Z.ki_float, _Z.wi_float, _Z.fi_float
_KE, _WE, _FE = _Z.ke_double, _Z.we_double, _Z.fe_double
_NOR_R, _NOR_INV_R, _EXP_R = _Z.ziggurat_nor_r, _Z.ziggurat_nor_inv_r, _Z.ziggurat_exp_r
_NOR_R_F, _NOR_INV_R_F = np.float32(_Z.ziggurat_nor_r_f), np.float32(_Z.ziggurat_nor_inv_r_f)


@inline
def _next_float(bg):
    return np.float32(next_uint32(bg) >> uint32(8)) * np.float32(1.0 / 16777216.0)


@inline
def std_normal(bg):
    """random_standard_normal: one float64 N(0, 1) draw."""
    while True:
        r = next_uint64(bg)
        idx = r & uint64(0xFF)
        r >>= uint64(8)
        sign = r & uint64(1)
        rabs = (r >> uint64(1)) & uint64(0x000FFFFFFFFFFFFF)
        x = rabs * _WI[idx]
        if sign:
            x = -x
        if rabs < _KI[idx]:
            return x
        if idx == 0:
            while True:
                xx = -_NOR_INV_R * math.log1p(-next_double(bg))
                yy = -math.log1p(-next_double(bg))
                if yy + yy > xx * xx:
                    return -(_NOR_R + xx) if (rabs >> uint64(8)) & uint64(1) else _NOR_R + xx
        elif (_FI[idx - 1] - _FI[idx]) * next_double(bg) + _FI[idx] < math.exp(-0.5 * x * x):
            return x


@inline
def std_normal_f(bg):
    """random_standard_normal_f: one float32 N(0, 1) draw."""
    while True:
        r = next_uint32(bg)
        idx = r & uint32(0xFF)
        sign = (r >> uint32(8)) & uint32(1)
        rabs = (r >> uint32(9)) & uint32(0x0007FFFFF)
        x = np.float32(rabs) * _WIF[idx]
        if sign:
            x = -x
        if rabs < _KIF[idx]:
            return x
        if idx == 0:
            while True:
                xx = -_NOR_INV_R_F * np.float32(math.log1p(np.float32(-_next_float(bg))))
                yy = -np.float32(math.log1p(np.float32(-_next_float(bg))))
                if yy + yy > xx * xx:
                    return -(_NOR_R_F + xx) if (rabs >> uint32(8)) & uint32(1) else _NOR_R_F + xx
        elif (_FIF[idx - 1] - _FIF[idx]) * _next_float(bg) + _FIF[idx] < np.float32(
            math.exp(np.float32(np.float32(-0.5) * x * x))
        ):
            return x


@inline
def std_exponential(bg):
    """random_standard_exponential: one float64 Exp(1) draw."""
    while True:
        ri = next_uint64(bg) >> uint64(3)
        idx = ri & uint64(0xFF)
        ri >>= uint64(8)
        x = ri * _WE[idx]
        if ri < _KE[idx]:
            return x
        if idx == 0:
            return _EXP_R - math.log1p(-next_double(bg))
        if (_FE[idx - 1] - _FE[idx]) * next_double(bg) + _FE[idx] < math.exp(-x):
            return x


@kernel
def normal32_(bg, out, std, mean, affine):
    """``out`` (1-D float32) = standard_normal(dtype=float32) draws z, then ``mean + std * z`` in
    float32 when ``affine`` (``std``, ``mean``: float64 numbers rounded to float32 once)."""
    s, h = np.float32(std), np.float32(mean)
    for i in range(out.size):
        z = std_normal_f(bg)
        out[i] = h + s * z if affine else z


@kernel
def normal64_(bg, out, std, mean, affine):
    """``out`` (1-D float64) = standard_normal() draws z, then ``mean + std * z`` when ``affine``."""
    for i in range(out.size):
        z = std_normal(bg)
        out[i] = mean + std * z if affine else z


@kernel
def normal_mean32_(bg, mean, std, out):
    """``out[i] = mean[i] + std * z`` in float32 for standard_normal(dtype=float32) draws z (1-D)."""
    s = np.float32(std)
    for i in range(out.size):
        out[i] = mean[i] + s * std_normal_f(bg)


@kernel
def normal_mean64_(bg, mean, std, out):
    """``out[i] = mean[i] + std * z`` for standard_normal() draws z (1-D float64)."""
    for i in range(out.size):
        out[i] = mean[i] + std * std_normal(bg)


@kernel
def exponential_(bg, out, lambd):
    """``out[i] = e / lambd`` in float64 for standard_exponential() draws e, stored as ``out``'s dtype."""
    for i in range(out.size):
        out[i] = std_exponential(bg) / lambd


@kernel
def cauchy_(bg, out, sigma, median):
    """``out[i] = median + sigma * c`` in float64 for standard_cauchy() draws c (a ratio of two
    standard normal draws, numerator first), stored as ``out``'s dtype."""
    for i in range(out.size):
        n = std_normal(bg)
        out[i] = median + sigma * (n / std_normal(bg))


@kernel
def log_normal_(bg, out, mean, std):
    """``out[i] = exp(mean + std * z)`` in float64 (lognormal(mean, std)), stored as ``out``'s dtype."""
    for i in range(out.size):
        out[i] = math.exp(mean + std * std_normal(bg))


@kernel
def geometric_(bg, out, p):
    """geometric(p)'s int64 draws (random_geometric: a search from p >= 1/3, else the inversion of
    an exponential draw), stored as ``out``'s dtype; 0 < p < 1."""
    q = 1.0 - p
    lq = math.log1p(-p)
    for i in range(out.size):
        if p >= 0.333333333333333333333333:
            x = np.int64(1)
            s = prod = p
            u = next_double(bg)
            while u > s:
                prod *= q
                s += prod
                x += 1
        else:
            z = np.ceil(-std_exponential(bg) / lq)  # (math.ceil would be an int64 in Numba)
            if z < 9.223372036854776e18:
                x = np.int64(z)
            else:  # NumPy's clamp (a conversion out of range would be undefined)
                x = np.int64(9223372036854775807)
        out[i] = x
