"""float32 modified Bessel functions I0, I1 and their exponentially scaled forms as branch-free
float64 polynomial fits that LLVM vectorises (Note [Vectorizable modified Bessel functions]);
float64 keeps bessel.py's series.

# Note [Vectorizable modified Bessel functions]
# bessel.py sums the power series term by term (a data-dependent loop: 25 ns per element for
# i1e). For float32 these evaluate Cephes' forms with our own coefficients, in float64, and
# round once on store: exp(-a) I_nu(a) (divided by a for nu = 1) on [0, 8] is a degree-22
# polynomial in a/4 - 1, and sqrt(a) exp(-a) I_nu(a) for a >= 8 a degree-12 polynomial in
# 16/a - 1 (Chebyshev interpolation of mpmath's values at 50 nodes, then the monomial form;
# max rel error 3e-12 evaluated in float64, tests/kernels/cpu/test_vmath_bessel.py). Both are
# computed in each lane and one selected. I_nu(a) = that times exp(a): inf past float32's range,
# NaN at a = inf, as bessel.py.
"""

import numpy as np

from numtorch.kernels._jit import contract_helper, inline
from numtorch.kernels.cpu.pointwise.bessel import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e
from numtorch.kernels.cpu.pointwise.vmath import _generic, exp64


@contract_helper
def _i0e_small(a):
    # exp(-a) I0(a), 0 <= a <= 8
    z = a * 0.25 - 1.0
    p = 6.1971946025876505e-06 * z - 1.810708605374621e-05
    p = p * z + 1.664453536114556e-05
    p = p * z - 4.098517603733985e-05
    p = p * z + 0.00017593374136098277
    p = p * z - 0.0004196492999118043
    p = p * z + 0.0008430036403237446
    p = p * z - 0.0017780021747176471
    p = p * z + 0.003625696977081449
    p = p * z - 0.006812568063553966
    p = p * z + 0.01195641689424457
    p = p * z - 0.019674831145387994
    p = p * z + 0.030178937909636574
    p = p * z - 0.042987891415718744
    p = p * z + 0.05677685021171628
    p = p * z - 0.06954090184029336
    p = p * z + 0.07927524488525937
    p = p * z - 0.08496340556489496
    p = p * z + 0.08734341515335661
    p = p * z - 0.0890434404074181
    p = p * z + 0.0945156285614917
    p = p * z - 0.11300432689708961
    p = p * z + 0.20700192122391162
    return p


@contract_helper
def _i1e_small(a):
    # exp(-a) I1(a) / a, 0 <= a <= 8
    z = a * 0.25 - 1.0
    p = 6.760784704979494e-07 * z - 2.0803479381107735e-06
    p = p * z + 2.4347100545341915e-06
    p = p * z - 6.546111825695594e-06
    p = p * z + 2.5586903747874807e-05
    p = p * z - 6.528420186914936e-05
    p = p * z + 0.0001470928301213064
    p = p * z - 0.0003376268289921194
    p = p * z + 0.0007453662875810667
    p = p * z - 0.001540983012037646
    p = p * z + 0.003005398061240384
    p = p * z - 0.0055337510396800136
    p = p * z + 0.009584064162981668
    p = p * z - 0.015571511791736816
    p = p * z + 0.023685998891311132
    p = p * z - 0.033671324903352624
    p = p * z + 0.044674574506091906
    p = p * z - 0.055280041794345265
    p = p * z + 0.06376740361193495
    p = p * z - 0.06848260610657846
    p = p * z + 0.06805759991164917
    p = p * z - 0.06112433803079891
    p = p * z + 0.04468770987560138
    return p


@contract_helper
def _i0e_large(a):
    # exp(-a) I0(a), a >= 8 (0 at inf)
    z = 16.0 / a - 1.0
    p = 1.4704894876433748e-09 * z - 1.8372388162629695e-09
    p = p * z - 1.1177964125239354e-08
    p = p * z - 3.0113795668627318e-09
    p = p * z + 2.3400952006373807e-08
    p = p * z + 4.471096774098491e-08
    p = p * z + 8.826073729838234e-08
    p = p * z + 2.95935080281604e-07
    p = p * z + 1.4839074530685992e-06
    p = p * z + 1.1143200839170075e-05
    p = p * z + 0.00013621607130302846
    p = p * z + 0.0033605519779645195
    p = p * z + 0.40217650944503514
    return p / np.sqrt(a)


@contract_helper
def _i1e_large(a):
    # exp(-a) I1(a), a >= 8 (0 at inf)
    z = 16.0 / a - 1.0
    p = -1.474263403775162e-09 * z + 2.0844836292066197e-09
    p = p * z + 1.1655203618871743e-08
    p = p * z + 2.594335192201446e-09
    p = p * z - 2.5485467146415504e-08
    p = p * z - 4.877702481590915e-08
    p = p * z - 9.947371778562424e-08
    p = p * z - 3.468865356134837e-07
    p = p * z - 1.8349817263934949e-06
    p = p * z - 1.5038723315541064e-05
    p = p * z - 0.00021923576006329404
    p = p * z - 0.009749577187214347
    p = p * z + 0.38939845902583864
    return p / np.sqrt(a)


@inline
def _i0e_abs(a):
    return _i0e_small(min(a, 8.0)) if a <= 8.0 else _i0e_large(max(a, 8.0))


@inline
def _i1e_abs(a):
    return a * _i1e_small(min(a, 8.0)) if a <= 8.0 else _i1e_large(max(a, 8.0))


@inline
def i0e32(x):
    r = _i0e_abs(abs(np.float64(x)))
    return np.float32(r) if x == x else x


@inline
def i1e32(x):
    d = np.float64(x)
    r = _i1e_abs(abs(d))
    r = -r if d < 0.0 else r
    return np.float32(r) if x == x else x


@inline
def i0_32(x):
    a = abs(np.float64(x))
    r = _i0e_abs(a) * exp64(a) if a < np.inf else np.nan  # (0 * inf's NaN has its sign bit set)
    return np.float32(r) if x == x else x


@inline
def i1_32(x):
    d = np.float64(x)
    a = abs(d)
    r = _i1e_abs(a) * exp64(a) if a < np.inf else np.nan
    r = -r if d < 0.0 else r
    return np.float32(r) if x == x else x


# ---- type-generic entry points for generated kernels --------------------------------------
def vbessel_i0(x):
    return bessel_i0(x)


def vbessel_i0e(x):
    return bessel_i0e(x)


def vbessel_i1(x):
    return bessel_i1(x)


def vbessel_i1e(x):
    return bessel_i1e(x)


_generic(vbessel_i0, i0_32, None, lambda x: bessel_i0(x))
_generic(vbessel_i0e, i0e32, None, lambda x: bessel_i0e(x))
_generic(vbessel_i1, i1_32, None, lambda x: bessel_i1(x))
_generic(vbessel_i1e, i1e32, None, lambda x: bessel_i1e(x))
