"""``Elementwise``: the pointwise engine with PyTorch's per-op checks (used by ops/pointwise.py).

# Note [Elementwise semantics]
# ``Elementwise`` refines the engine's ``Pointwise`` with what PyTorch's TensorIterator ops do
# before their kernel runs: one scalar expression per dtype category (``b``ool, ``i``nt,
# ``f``loat, ``c``omplex; a category an op does not list raises PyTorch's error for it), Python
# numbers accepted as weak operands (ints wrap into [-2**63, 2**64) like c10::Scalar, larger
# ones raise OverflowError), the out=/in-place cast check before the float16 path, and
# value-dependent checks (integer division by zero) done in Python so no kernel sees them.
# Kernels compute in float32 for float16 (Numba has no CPU half) and round once.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..kernels import PARALLEL_THRESHOLD
from ._pointwise import Pointwise, _cname, _resize_out

CAT = "bifc"  # category letter by D category index
TYPEMETA = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
            "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float",
            "float64": "double", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}  # fmt: skip
# c10::checked_convert's names (Scalar -> C type conversions that must not overflow)
CTYPE = dict(TYPEMETA, uint8="uint8_t", int8="int8_t", int16="int16_t", int64="int64_t")


class Elementwise(Pointwise):
    """A pointwise op with per-category expressions and PyTorch's checks.

    expr: one expression, or ``{"bi": int_expr, "f": float_expr}``. rule: "common", "float"
    (integers promote to the default float), "bool" (bool result) or "real" (complex -> real).
    allow: categories of the promoted dtype accepted; others raise NotImplementedError
    '"<kname>" not implemented for ...' unless ``errors`` maps the letter to (type, message).
    prep(compute, operands, params) validates and returns the kernel parameters ``kparams``.
    zero_div: index of the divisor operand (integer division by zero raises).
    """

    __slots__ = ("variants", "kname", "errors", "prep", "zero_div", "kparams", "fast_ok", "opmath", "early", "strict_out")

    def __init__(self, name, inputs, expr, params=(), rule="common", allow="bifc", kname=None,
                 errors=None, prep=None, zero_div=None, kparams=None, fast=None, opmath=(), early=None, strict_out=False):  # fmt: skip
        super().__init__(name, inputs, "", params, rule, allow)
        self.kparams = list(params if kparams is None else kparams)
        self.variants = {}
        for cats, e in ({"bifc": expr} if isinstance(expr, str) else expr).items():
            pw = Pointwise(f"{name}_{cats}", inputs, e, self.kparams)
            for c in cats:
                self.variants[c] = pw
        self.kname = kname or f"{name}_cpu"
        self.errors = errors or {}
        self.prep = prep
        self.zero_div = zero_div
        # float16: operands are rounded to half first, except scalar (0-d / number) operands at
        # these indices, which PyTorch's kernel reads in float (mul's and div's second operand)
        self.opmath = opmath
        self.early = early  # early(operands): checks PyTorch makes before type promotion (sub's bool check)
        self.strict_out = strict_out  # out= must have the result dtype (clamp's scalar overloads)
        # fast: whether the engine's fast path may skip prep (it only takes plain int/float params)
        self.fast_ok = (prep is None and kparams is None) if fast is None else fast

    def binary(self, a, b, *params):
        # the engine's fast path reads a._data first; pow.Scalar & co. have a number there
        if a.__class__ is Tensor:
            return Pointwise.binary(self, a, b, *params)
        return self([a, b], params)

    def kernel(self, variant):
        return next(iter(self.variants.values())).kernel(variant)

    def dtypes(self, operands):
        return self._dtypes(operands)[1:]

    def _dtypes(self, operands):
        """(promoted, compute, result) dtypes."""
        common = _common(operands)
        if common is None:
            raise not_tensor(self.name, "input", 1, operands[0])
        rule = self.rule
        if rule == "common":
            return common, common, common
        if rule == "float":
            c = common if common.category >= D._FLOAT else D.get_default_dtype()
            return common, c, c
        if rule == "bool":
            return common, common, D.bool
        return common, common, common.to_real()

    def check(self, common):
        cat = CAT[common.category]
        if cat not in self.allow:
            exc, msg = self.errors.get(cat, (NotImplementedError, None))
            raise exc(msg or f"\"{self.kname}\" not implemented for '{_cname(common)}'")

    def __call__(self, operands, params=(), out=None, inplace=False):
        operands = [x if isinstance(x, Tensor) else number(x, self, i) for i, x in enumerate(operands)]
        if not any(isinstance(x, Tensor) for x in operands):
            # numbers only (numtorch.add(2, 3)): PyTorch wraps them; a 0-d first operand of the
            # number's own dtype promotes the same way
            d = D.scalar_dtype(operands[0])
            operands[0] = _make(np.array(operands[0], d.np), d)
        if self.early is not None:
            self.early(operands)
        common, compute, result = self._dtypes(operands)
        if inplace and result is not compute and self.rule == "real":
            raise RuntimeError(f"In-place {self.name} is not supported for complex tensors.")
        target = operands[0] if inplace else out
        if target is not None:  # TensorIterator checks the output cast before the kernel's dtypes
            if self.strict_out and not inplace and target._dtype is not result:
                raise RuntimeError(f"Found dtype {_cname(target._dtype)} but expected {_cname(result)}")
            cast_check(result, target, TYPEMETA if self.strict_out else None)
        self.check(common)
        kp = self.prep(compute, operands, list(params)) if self.prep else params
        pw = self.variants[CAT[compute.category]]
        keep = ()
        if compute is D.float16:
            keep = [i for i in self.opmath if not isinstance(operands[i], Tensor) or not operands[i]._data.ndim]
            operands = [x if isinstance(x, Tensor) or i in keep else _half(x) for i, x in enumerate(operands)]
        r = run(pw, operands, kp, out, inplace, compute, result, self.zero_div, keep)
        if out is None and not inplace and self.fast_ok and self.zero_div is None:
            self._learn_fast(pw, operands, compute, result, r)
        return r

    def _learn_fast(self, pw, operands, compute, result, r):
        # Note [Pointwise fast path]: same-dtype contiguous tensors skip all of the above next time
        if compute.category == D._COMPLEX or compute is D.float16 or compute in self._fast:
            return
        if all(type(x) is Tensor and x._dtype is compute and x._data.flags.c_contiguous for x in operands):
            pat = "a" * len(operands)
            self._fast[compute] = (result.np, result, pw.kernel("c_" + pat), pw.kernel("p_" + pat))


class Routed(Pointwise):
    """Picks an Elementwise from non-operand arguments: ``pick(operands, params)`` returns
    (elementwise, operands, params) (div's rounding_mode, clamp's optional bounds)."""

    __slots__ = ("pick",)

    def __init__(self, name, inputs, params, pick):
        super().__init__(name, inputs, "", params)
        self.pick = pick

    def __call__(self, operands, params=(), out=None, inplace=False):
        ew, ops, kp = self.pick(list(operands), list(params))
        return ew(ops, kp, out, inplace)


def number(x, ew, i):
    """A Python number standing for a tensor operand, as PyTorch's argument parser accepts it."""
    t = type(x)
    if t is int:
        if not -(2**63) <= x < 2**64:
            raise OverflowError("int too big to convert")
        return x
    if t is float or t is bool or t is complex:
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "biufc":
        return x.item()
    name = ew.inputs[i] if i < len(ew.inputs) else "other"
    raise not_tensor(ew.name, "input" if name == "self" else name, i + 1, x)


def _half(x):
    with np.errstate(over="ignore"):
        return complex(np.complex64(x).astype(np.complex64)) if type(x) is complex else float(np.float16(x))


def checked(x, c: D.dtype):
    """``x`` as c10::checked_convert accepts it for dtype ``c`` (PyTorch's overflow error otherwise)."""
    if c.category == D._COMPLEX or c is D.bool:
        return x
    if type(x) is complex:
        if x.imag == 0:
            return x
        bad = True
    elif c.category == D._FLOAT:
        bad = math.isfinite(x) and abs(x) > D.finfo(c).max
    else:
        ii = np.iinfo(c.np)
        bad = not (ii.min <= x <= ii.max or (ii.min == 0 and -ii.max <= x < 0))
    if bad:
        raise RuntimeError(f"value cannot be converted to type {CTYPE[c.name]} without overflow")
    return x


def not_tensor(op, arg, pos, x):
    return TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def scalar_as(x, c: D.dtype):
    """``x`` converted as c10::Scalar::to<c>() does: integers wrap, complex to real raises."""
    cat = c.category
    if cat == D._FLOAT:
        if type(x) is complex:
            raise RuntimeError(f"value cannot be converted to type {CTYPE[c.name]} without overflow")
        return float(x)
    if cat == D._COMPLEX:
        return complex(x)
    if c is D.bool:
        return bool(x)
    bits = c.itemsize * 8
    x = int(x) & ((1 << bits) - 1)
    return x - (1 << bits) if c.is_signed and x >> (bits - 1) else x


def broadcast(shapes) -> tuple:
    """The broadcast shape; a mismatch is reported at the last dimension first, as PyTorch does."""
    first = shapes[0]
    if all(s == first for s in shapes):
        return first
    res = first
    for s in shapes[1:]:
        n = max(len(res), len(s))
        a, b = (1,) * (n - len(res)) + tuple(res), (1,) * (n - len(s)) + tuple(s)
        out = [0] * n
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton dimension {i}")
            out[i] = b[i] if a[i] == 1 else a[i]
        res = tuple(out)
    return res


def cast_check(result, out, names=None):
    if not D.can_cast(result, out._dtype):
        to = names[out._dtype.name] if names else _cname(out._dtype)
        raise RuntimeError(f"result type {_cname(result)} can't be cast to the desired output type {to}")


def _common(operands):
    dims, zeros, scalars = [], [], []
    for x in operands:
        if isinstance(x, Tensor):
            (dims if x._data.ndim else zeros).append(x._dtype)
        else:
            scalars.append(x)
    if not dims and not zeros:
        return None
    return D.result_type_of(dims, zeros, scalars)


def run(pw, operands, kparams, out, inplace, compute, result, zero_div=None, keep=()):
    """Broadcast, allocate (or check ``out``), run ``pw``'s kernel; float16 computes in float32."""
    if inplace:
        out = operands[0]
    if out is not None:
        cast_check(result, out)
    c = D.float32 if compute is D.float16 else compute
    npc = c.np
    arrays = []
    for i, x in enumerate(operands):
        if isinstance(x, Tensor):
            a = x._data
            if a.dtype != npc:
                # float16 compute: inputs are cast to half first, as TensorIterator does
                half = compute is D.float16 and a.dtype != np.float16 and i not in keep
                a = a.astype(np.float16).astype(npc) if half else a.astype(npc)
            arrays.append(a)
        else:
            arrays.append(scalar_as(x, c))
    shapes = [a.shape for a in arrays if isinstance(a, np.ndarray)]
    shape = broadcast(shapes) if len(shapes) > 1 else shapes[0]
    target = result if out is None else out._dtype
    if out is None:
        dest = np.empty(shape, target.np)
    else:
        if out._data.shape != shape:
            if inplace:
                raise RuntimeError(
                    f"output with shape {list(out._data.shape)} doesn't match the broadcast shape {list(shape)}"
                )
            _resize_out(out, shape)
        dest = out._data
    n = dest.size
    if n:
        if zero_div is not None and c.category <= D._INT:
            d = arrays[zero_div]
            if (d == 0).any() if isinstance(d, np.ndarray) else d == 0:
                raise RuntimeError("ZeroDivisionError")
        buf = dest if target is not D.float16 else np.empty(shape, np.float32)
        pvals = [scalar_as(p, c) for p in kparams]
        if buf.flags.c_contiguous and all(
            not isinstance(a, np.ndarray) or (a.size == n or a.size == 1) and a.flags.c_contiguous
            for a in arrays
        ):
            pw._run_contig(arrays, buf, n, pvals)
        else:
            with np.errstate(over="ignore"):
                arrays = [a if isinstance(a, np.ndarray) else np.array([a], npc) for a in arrays]
            pw._run_strided(arrays, buf, shape, pvals)
        if buf is not dest:
            with np.errstate(over="ignore"):  # float32 -> float16 rounds to inf silently, as in PyTorch
                dest[...] = buf
    if out is None:
        return _make(dest, target)
    out._vc[0] += 1
    return out


# ---- PyTorch's argument checks, as Elementwise prep / early hooks ------------------------------
def alpha_check(compute, operands, params):
    (alpha,) = params  # at::native::alpha_check, on the promoted dtype
    if type(alpha) is bool and compute is not D.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if compute.category <= D._INT and type(alpha) is float:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if compute.category != D._COMPLEX and type(alpha) is complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    checked(alpha, compute)
    return params


def sub_check(operands):
    a, b = ((x._dtype if isinstance(x, Tensor) else D.scalar_dtype(x)) is D.bool for x in operands)
    if a and b:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")  # fmt: skip
    if a or b:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator instead.")  # fmt: skip


def pow_check(compute, operands, params):
    base, exp = operands
    if base._dtype.category <= D._INT and type(exp) in (int, bool) and exp < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if compute is not None:
        checked(exp, compute)
    return params


def value_param(compute, operands, params):
    (v,) = params
    return [int(v) if compute.category <= D._INT and type(v) is float else v]


def addcdiv_check(compute, operands, params):
    if all(isinstance(t, Tensor) and t._dtype.category <= D._INT for t in operands[1:]):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
            "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
            "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
            "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
            "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
            "for all dtypes."
        )
    return value_param(compute, operands, params)


def nan_to_num_params(compute, operands, params):
    nan, posinf, neginf = params
    if compute.category < D._FLOAT:
        return [0, 0, 0]
    fi = D.finfo(compute.to_real())
    return [0.0 if nan is None else nan, fi.max if posinf is None else posinf, fi.min if neginf is None else neginf]


def lerp_check(compute, operands, params):
    self = operands[0]
    for name, t in zip(("end", "weight"), operands[1:]):
        if isinstance(t, Tensor) and t._dtype is not self._dtype and (name == "end" or t._data.ndim):
            raise RuntimeError(f"expected dtype {TYPEMETA[self._dtype.name]} for `{name}` but got dtype "
                               f"{TYPEMETA[t._dtype.name]}")  # fmt: skip
    return params + [0.5, 1.0]


def checked_bounds(compute, operands, params):
    for x in operands[1:]:
        if not isinstance(x, Tensor):
            checked(x, compute)
    return params


__all__ = ["CAT", "CTYPE", "Elementwise", "PARALLEL_THRESHOLD", "Routed", "TYPEMETA", "addcdiv_check", "alpha_check",
           "checked", "checked_bounds", "lerp_check", "nan_to_num_params", "not_tensor", "number", "pow_check", "run",
           "scalar_as", "sub_check", "value_param"]
