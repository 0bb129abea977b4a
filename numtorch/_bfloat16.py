"""The bfloat16 route of the backend key (Note [bfloat16] in numtorch/_dtype.py).

A CPU op with a bfloat16 operand (or ``dtype=torch.bfloat16``) runs on float32 copies of its
bfloat16 tensors, PyTorch's opmath type for bfloat16, through the op's float32 kernel, and its
floating results are rounded back to bfloat16 (round to nearest even, ml_dtypes' cast) where
PyTorch's result would be bfloat16. Reductions and matrix products therefore accumulate in
float32, as PyTorch's CPU kernels do. Tensors the op writes (in-place ``self``, ``out=``) get
the float32 result written back into their bfloat16 storage. Views run on the bfloat16 storage
itself (NumPy's strides handle any itemsize), so writes through them reach the base.
"""

from __future__ import annotations

import sys

import numpy as np

from . import _dtype as D
from ._tensor import Tensor, _make

_BF = D.bfloat16
_F32 = D.float32


def wants_bf16(op, vals) -> bool:
    """Whether a CPU call must take the bfloat16 route: a bfloat16 operand or dtype argument."""
    for i in op.tensor_idx:
        if _is_bf16(vals[i]):
            return True
    for i in op.list_idx:
        for v in vals[i]:
            if _is_bf16(v):
                return True
    d = op.__dict__.get("_bf16_dtype_idx")
    if d is None:
        d = dtype_args(op)
    for i in d:
        if vals[i] is _BF:
            return True
    return False


def _is_bf16(v) -> bool:
    # the class test first: isinstance against Tensor's metaclass costs ~100 ns on every slow call
    c = v.__class__
    if c is Tensor:
        return v._dtype is _BF
    if c in _NUMBERS:
        return False
    return isinstance(v, Tensor) and v._dtype is _BF


_NUMBERS = (int, float, bool, complex, type(None))


def dtype_args(op) -> tuple:
    """The positions of the op's ``ScalarType`` arguments (cached on the op)."""
    d = op.__dict__.get("_bf16_dtype_idx")
    if d is None:
        d = tuple(i for i, a in enumerate(op._schema.arguments) if a.type in ("ScalarType", "ScalarType?"))
        op.__dict__["_bf16_dtype_idx"] = d
    return d


# PyTorch's NaNs: a cast (to, copy_) writes 0xFFFF, its vectorised conversion's NaN; its
# elementwise kernels' results round through c10::BFloat16, which writes 0x7FC0. ml_dtypes
# keeps the float32 NaN's sign and payload, so both are set here.
_NANS = (np.array([0x7FC0], np.uint16).view(_BF.np)[0], np.array([0xFFFF], np.uint16).view(_BF.np)[0])
_CASTS = ("_to_copy", "copy_")


def rounded(a: np.ndarray, cast: bool = False) -> np.ndarray:
    """float32 -> bfloat16 as PyTorch converts: round to nearest even, its NaN bits."""
    cu = sys.modules.get("numtorch.cuda._storage")
    if cu is not None and isinstance(a, cu.CudaArray):  # x.cuda() of a bfloat16 x: refused by name
        raise cu.bfloat16_refusal()
    r = a.astype(_BF.np)
    nan = a != a
    if nan.any():
        r[nan] = _NANS[cast]
    return r


def _up(t: Tensor) -> Tensor:
    return _make(t._data.astype(np.float32), _F32)


# PyTorch's CPU build has no bfloat16 kernel for these (its linalg refuses low precision, the
# special functions below and a few others dispatch on float/double only): the float32 route
# would answer where PyTorch raises, so they raise its error instead (tests/parity checks it).
_LOW = "{}: Low precision dtypes not supported. Got BFloat16"
_REFUSED = {
    "linalg_inv": (RuntimeError, _LOW.format("linalg.inv")), "inverse": (RuntimeError, _LOW.format("linalg.inv")),
    "linalg_inv_ex": (RuntimeError, _LOW.format("linalg.inv")),
    "linalg_slogdet": (RuntimeError, _LOW.format("linalg.slogdet")),
    "linalg_det": "lu_cpu", "linalg_solve": "lu_cpu", "linalg_solve_ex": "lu_cpu", "linalg_lu_factor": "lu_cpu",
    "linalg_lu_factor_ex": "lu_cpu", "linalg_lu": "lu_cpu", "lu_solve": "lu_cpu",
    "linalg_svd": "linalg_svd_cpu", "linalg_svdvals": "linalg_svd_cpu", "linalg_qr": "geqrf_cpu",
    "linalg_cholesky": "cholesky_cpu", "linalg_cholesky_ex": "cholesky_cpu", "cholesky": "cholesky_cpu",
    "linalg_eigh": "linalg_eigh_cpu", "linalg_eigvalsh": "linalg_eigh_cpu",
    "linalg_lstsq": (RuntimeError, "This function doesn't handle types other than float and double"),
    "avg_pool3d": "avg_pool3d_out_frame", "binomial": "binomial_cpu",
    "multi_margin_loss": "multi_margin_loss_cpu_kernel",
    "multilabel_margin_loss_forward": "multilabel_margin_loss_forward_out_frame",
    **{f"special_{n}": f"{n}_cpu" for n in (
        "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "erfcx", "log_ndtr", "ndtri", "zeta",
        "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
        "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
        "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
        *(f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw"))},
}  # fmt: skip


# Ops with a CPU kernel whose composite (their any-device implementation) raises PyTorch's
# refusal after its shape checks and answers empty inputs, as PyTorch's kernel does: a
# bfloat16 call runs that composite on the bfloat16 operands instead of the float32 route
_BY_COMPOSITE = frozenset(("cdist",))


def _refusal(op, vals):
    name = op._schema.name
    r = _REFUSED.get(name)
    if r is not None:
        if isinstance(r, str):
            return NotImplementedError(f'"{r}" not implemented for \'BFloat16\'')
        return r[0](r[1])
    if name == "complex":
        got = " and ".join(D._CXX_NAMES[v._dtype.name] for v in vals[:2])
        return RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {got}")
    return None


def _bf16_params(op, vals, new) -> None:
    # arguments whose default depends on the dtype: nan_to_num's infinities become bfloat16's max
    if op._schema.name.startswith("nan_to_num") and getattr(vals[0], "_dtype", None) is _BF:
        big = float(D.finfo(_BF).max)
        new[2] = big if new[2] is None else new[2]
        new[3] = -big if new[3] is None else new[3]


def _sampler(op) -> bool:
    # random ops draw with NumPy (numtorch/kernels/cpu/factory.py), which knows bfloat16's grid:
    # rand's values are multiples of 2**-8 as PyTorch's, never 1 after rounding
    return any(getattr(t, "name", t) == "nondeterministic_seeded" for t in op.tags)


def run(fn, op, vals):
    """Call the CPU kernel ``fn`` for a call that has a bfloat16 operand or dtype argument."""
    if op.kind == "view" or _sampler(op):  # views: NumPy's; samplers: NumPy draws on the dtype's grid
        return fn(*vals)
    if op._schema.name in _BY_COMPOSITE:
        return op.impls["any"](*vals)
    err = _refusal(op, vals)
    if err is not None:
        raise err
    new = list(vals)
    temps = {}  # id(float32 copy) -> the bfloat16 tensor it stands for
    dims, zero = [], []
    for i in op.tensor_idx:
        v = vals[i]
        if isinstance(v, Tensor):
            (dims if v._data.ndim else zero).append(v._dtype)
            if v._dtype is _BF:
                new[i] = _up(v)
                temps[id(new[i])] = v
    for i in op.list_idx:
        seq = vals[i]
        if any(isinstance(v, Tensor) and v._dtype is _BF for v in seq):
            ups = [_up(v) if isinstance(v, Tensor) and v._dtype is _BF else v for v in seq]
            for v, u in zip(seq, ups, strict=True):
                if u is not v:
                    temps[id(u)] = v
            new[i] = type(seq)(ups) if isinstance(seq, tuple) else ups
        dims.extend(v._dtype for v in seq if isinstance(v, Tensor))
    explicit = None
    for i in dtype_args(op):
        if vals[i] is _BF:
            new[i], explicit = _F32, True
        elif vals[i] is not None and explicit is None:
            explicit = False
    _bf16_params(op, vals, new)
    try:
        r = fn(*new)
    except (RuntimeError, NotImplementedError, TypeError, ValueError) as e:
        raise _renamed(e) from None
    cast = op._schema.name in _CASTS
    _write_back(op, vals, new, cast)
    if explicit is None:
        explicit = bool(dims or zero) and D.result_type_of(dims, zero, ()) is _BF
    return _result(r, temps, explicit, cast)


def _write_back(op, vals, new, cast: bool) -> None:
    # in-place self and out= arguments: the float32 copy holds the result
    for i, a in enumerate(op._schema.arguments):
        if not a.is_write:
            continue
        if a.is_tensor_list:
            pairs = zip(vals[i], new[i], strict=True)
        else:
            pairs = ((vals[i], new[i]),)
        for orig, tmp in pairs:
            if isinstance(orig, Tensor) and orig._dtype is _BF and tmp is not orig:
                if orig._data.shape == tmp._data.shape:
                    orig._data[...] = rounded(tmp._data, cast)
                else:  # the op resized its out= argument
                    orig._data = rounded(tmp._data, cast)
                orig._vc[0] += 1


def _result(r, temps, to_bf16: bool, cast: bool):
    if isinstance(r, Tensor):
        orig = temps.get(id(r))
        if orig is not None:
            return orig
        if to_bf16 and r._dtype is _F32:
            return _make(rounded(r._data, cast), _BF, type(r), r._device)
        return r
    if isinstance(r, (tuple, list)):
        items = [_result(x, temps, to_bf16, cast) for x in r]
        if type(r) is list:
            return items
        if type(r) is tuple:
            return tuple(items)
        return type(r)(*items)  # a return_types named tuple
    return r


def _renamed(e: Exception) -> Exception:
    # the float32 kernel's refusal names Float; PyTorch's names the dtype the user passed
    msg = str(e.args[0]) if e.args and isinstance(e.args[0], str) else None
    if msg is None or "'Float'" not in msg:
        return e
    e.args = (msg.replace("'Float'", "'BFloat16'"), *e.args[1:])
    return e
