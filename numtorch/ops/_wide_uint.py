"""Which elementwise ops run for uint16/uint32/uint64, and PyTorch's error for the others."""

from __future__ import annotations

from .. import _dtype as D

# Note [Wide unsigned dtypes] (numtorch/_dtype.py): the elementwise ops PyTorch's CPU kernels
# run for uint16/uint32/uint64 (the float-valued math computes in the default float); every
# other one raises NotImplementedError naming the kernel PyTorch names (UINT_KNAME, else the
# op's own kernel name).
UINT_OPS = frozenset("""
    mul div eq ne bitwise_and bitwise_or bitwise_xor floor ceil trunc round nan_to_num conj_physical
    isnan isinf isfinite isposinf isneginf signbit where reciprocal sqrt rsqrt exp exp2 expm1 log log2
    log10 log1p sin cos tan asin acos atan sinh cosh asinh acosh atanh erf erfc erfinv tanh sigmoid
    atan2 xlogy copysign deg2rad rad2deg logit sinc lgamma digamma angle i0 special_i0e special_i1
    special_i1e special_modified_bessel_i0 special_modified_bessel_i1 special_modified_bessel_k0
    special_modified_bessel_k1 special_scaled_modified_bessel_k0 special_scaled_modified_bessel_k1
    special_spherical_bessel_j0 special_bessel_j0 special_bessel_j1 special_bessel_y0 special_bessel_y1
    special_airy_ai special_ndtr special_ndtri special_log_ndtr special_entr special_erfcx special_xlog1py
    special_zeta special_chebyshev_polynomial_t special_chebyshev_polynomial_u special_chebyshev_polynomial_v
    special_chebyshev_polynomial_w special_shifted_chebyshev_polynomial_t special_shifted_chebyshev_polynomial_u
    special_shifted_chebyshev_polynomial_v special_shifted_chebyshev_polynomial_w special_hermite_polynomial_h
    special_hermite_polynomial_he special_laguerre_polynomial_l special_legendre_polynomial_p
""".split())
UINT_KNAME = {
    "add": "add_stub", "sub": "add_stub", "rsub": "add_stub", "floor_divide": "div_floor_cpu", "pow": "pow",
    "sgn": "sign_cpu", "bitwise_left_shift": "lshift_cpu", "bitwise_right_shift": "rshift_cpu",
    "fmax": "maximum_cpu", "fmin": "minimum_cpu", "clamp_min": "maximum_cpu", "clamp_max": "minimum_cpu",
    "lerp": "lerp_kernel_tensor", "addcmul": "addcmul_cpu_out", "hardsigmoid_backward": "hardsigmoid_backward",
    "gelu_backward": "GeluBackwardKernelImpl", "relu": "clamp_min_scalar_cpu", "GeluKernelImpl": "GeluKernelImpl",
    "hardtanh": "clamp_scalar_cpu", "softshrink": "softshrink_check",
}  # fmt: skip


def refuse_uint(name: str, kname: str, common: D.dtype) -> None:
    """PyTorch's error for an elementwise op its kernels lack for a wide unsigned dtype."""
    if name not in UINT_OPS:
        kernel, cname = UINT_KNAME.get(name, kname), D._CXX_NAMES[common.name]
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{cname}'")
