"""Which ops run for uint16/uint32/uint64, and PyTorch's error for the others."""

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


# The other ops whose CPU kernels PyTorch 2.13 does not build for uint16/32/64, by overload name
# or base name (``aten::`` dropped), with the kernel its NotImplementedError names. defop wraps
# their cpu/composite implementation with one dtype test (``guard``); no other op pays for it.
UINT_OP_KERNEL = {
    "max": "max_all", "max.unary_out": "max_all", "max.dim": "max_cpu", "max.dim_max": "max_cpu",
    "min": "min_all", "min.unary_out": "min_all", "min.dim": "min_cpu", "min.dim_min": "min_cpu",
    "argmax": "argmax_cpu", "argmin": "argmin_cpu", "aminmax": "aminmax_cpu", "amax": "max_values_cpu",
    "amin": "min_values_cpu", "cummax": "cummax_cpu", "cummin": "cummin_cpu", "max.other": None, "min.other": None,
    "topk": "topk_cpu", "kthvalue": "kthvalue_cpu", "median": "median_cpu", "median.out": "median_cpu",
    "median.dim": "median_out", "median.dim_values": "median_out", "nanmedian": "median_cpu",
    "nanmedian.out": "median_cpu", "nanmedian.dim": "median_out", "nanmedian.dim_values": "median_out",
    "mode": "mode_cpu", "flip": "flip_cpu", "tril": "tril", "triu": "triu", "masked_select": "masked_select", "masked_scatter": "masked_scatter",
    "masked_scatter_": "masked_scatter", "nonzero": "nonzero_count_cpu", "bincount": "bincount_cpu",
    "searchsorted": "searchsorted_out_cpu", "bucketize": "searchsorted_out_cpu", "geometric_": "geometric_cpu",
    "bernoulli_.float": "bernoulli_scalar_cpu_", "random_": "random_kernel_cpu", "dot": "dot", "vdot": "dot",
    "mm": "addmm_impl_cpu_", "addmm": "addmm_impl_cpu_", "bmm": "bmm", "mv": "addmv_impl_cpu",
    "addmv": "addmv_impl_cpu", "trace": "trace", "linalg_cross": "cross", "max_pool1d": "max_pool1d_impl",
    "max_pool1d_with_indices": "max_pool1d_impl", "max_pool2d_with_indices": "max_pool2d", "max_pool3d_with_indices": "max_pool3d",
    "gather": "scatter_gather_tensor_cpu", "scatter": "scatter_gather_tensor_cpu", "scatter_": "scatter_gather_tensor_cpu",
    "scatter_add": "scatter_gather_tensor_cpu", "scatter_add_": "scatter_gather_tensor_cpu",
    "index_select": "index_select", "index_add": "index_add_", "index_add_": "index_add_",
    "index_copy": "index_copy_cpu", "index_copy_": "index_copy_cpu", "index_fill": "index_fill_cpu",
    "index_fill_": "index_fill_cpu", "index_put": "index_put", "index_put_": "index_put", "put": "take_put_cpu",
    "put_": "take_put_cpu", "take": "take_cpu", "reflection_pad1d": "reflection_pad1d",
    "reflection_pad2d": "reflection_pad2d", "isin": "isin_default_cpu", "arange": "arange_cpu",
    "linspace": "linspace_cpu", "eye": "eye", "randperm": "randperm",
}  # fmt: skip


# most of those kernels are skipped for an empty input; these refuse even then
UINT_EVEN_EMPTY = frozenset("""topk kthvalue nonzero bincount searchsorted bucketize dot vdot trace index_select
    aminmax index_put index_put_ median.dim median.dim_values nanmedian.dim nanmedian.dim_values""".split())


# products whose out= kernels check out's dtype first (their meta functions), then refuse
_OUT_FIRST = frozenset(("mm", "bmm", "mv", "dot", "vdot", "addmm", "addmv"))


def guard(schema, fn):
    """``fn`` itself, or ``fn`` refusing a wide unsigned first tensor (a factory: its ``dtype``)
    with PyTorch's kernel error, for the ops UINT_OP_KERNEL lists."""
    name = schema.name.split("::")[-1]
    full = f"{name}.{schema.overload_name}" if schema.overload_name else name
    kernel = UINT_OP_KERNEL[full] if full in UINT_OP_KERNEL else UINT_OP_KERNEL.get(name)
    if kernel is None or schema.overload_name == "out" and name in _OUT_FIRST:
        return fn
    strict = full in UINT_EVEN_EMPTY or name in UINT_EVEN_EMPTY
    scalar_ok = name in ("cummax", "cummin")  # a 0-d input is filled, not dispatched
    args = [a for a in schema.arguments if not a.is_out]
    tensors = [i for i, a in enumerate(args) if a.type in ("Tensor", "Tensor?")]
    dtypes = [i for i, a in enumerate(args) if a.name == "dtype"]
    pos, key = (tensors[0], None) if tensors else (dtypes[0], "dtype") if dtypes else (None, None)
    if pos is None:
        return fn

    def guarded(*args, **kwargs):
        v = args[pos] if pos < len(args) else kwargs.get(key)
        dt = getattr(v, "_dtype", v) if key is None else v
        empty = key is None and v is not None and not strict and (v._data.size == 0 or scalar_ok and not v._data.ndim)
        if dt is not None and getattr(dt, "_rank", 0) > 10 and not empty:  # Note [Wide unsigned dtypes]
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{D._CXX_NAMES[dt.name]}'")
        return fn(*args, **kwargs)

    guarded.__wrapped__ = fn
    return guarded
