"""``Elementwise``: the pointwise engine with PyTorch's per-op checks (used by ops/pointwise/core.py).

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

from ... import _dtype as D
from ..._tensor import PLAIN_SUBCLASSES, Tensor, _make, check_inference_write
from ...kernels import PARALLEL_THRESHOLD
from ..._overlap import check_written
from ..._bfloat16 import rounded
from ._broadcast_fast import broadcast_branch
from ._expanded import expanded_call, expanded_inplace, signature_hook, small_copy
from ._inline import with_number_branch
from ._prepared import learn_prepared, prepared_call
from ._learned import learned
from ._ufunc_route import UFUNCS, learn_ufunc, ufunc_branch
from .._pointwise import (Pointwise, _broadcast, _cname, _resize_out, big_prefix, kernel_scalar,
                         run_expanded)
from .._wide_uint import refuse_uint
from ._examples import EXAMPLES  # noqa: F401 (re-exported: the op modules extend it)

CAT = "bifc"  # category letter by D category index
_NUMBERS = frozenset((int, float, bool))  # a Python-number operand of the learned "as" signatures
TYPEMETA = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
            "int32": "int", "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
            "float64": "double", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}  # fmt: skip
# c10::checked_convert's names (Scalar -> C type conversions that must not overflow)
CTYPE = dict(TYPEMETA, uint8="uint8_t", int8="int8_t", int16="int16_t", int64="int64_t")


class Elementwise(Pointwise):
    """A pointwise op with per-category expressions and PyTorch's checks.

    expr: one expression, or ``{"bi": int_expr, "f": float_expr}``. rule: "common", "float"
    (integers promote to the default float), "bool" (bool result), "real" (complex -> real) or
    "float_real" (both).
    allow: categories of the promoted dtype accepted; others raise NotImplementedError
    '"<kname>" not implemented for ...' unless ``errors`` maps the letter to (type, message);
    ``errors["out"]`` is the text for an out= of another dtype ({out} and {input} name the dtypes).
    prep(compute, operands, params) validates and returns the kernel parameters ``kparams``.
    zero_div: index of the divisor operand (integer division by zero raises).
    """

    __slots__ = ("variants", "kname", "errors", "prep", "zero_div", "kparams", "fast_ok", "opmath", "early",
                 "strict_out", "_dtype_cache", "_sig", "_prepared", "_uf", "_bp")  # fmt: skip

    def __init__(self, name, inputs, expr, params=(), rule="common", allow="bifc", kname=None,
                 errors=None, prep=None, zero_div=None, kparams=None, fast=None, opmath=(), early=None, strict_out=False,
                 wide=()):  # fmt: skip
        super().__init__(name, inputs, "", params, rule, allow)
        self.kparams = list(params if kparams is None else kparams)
        self.variants = {}
        for cats, e in ({"bifc": expr} if isinstance(expr, str) else expr).items():
            pw = Pointwise(f"{name}_{cats}", inputs, e, self.kparams, wide=wide)
            for c in cats:
                self.variants[c] = pw
        self.kname = kname or f"{name}_cpu"
        self.errors = errors or {}
        self.prep = prep
        self.zero_div = zero_div
        # float16: operands are rounded to half first, except scalar (0-d / number) operands at
        # these indices, which PyTorch's kernel reads in float (mul's and div's second operand)
        self.opmath = opmath
        self.early = (
            early  # early(operands): checks PyTorch makes before type promotion (sub's bool check)
        )
        self.strict_out = strict_out  # out= must have the result dtype (clamp's scalar overloads)
        self._dtype_cache: dict = {}
        self._sig: dict = {}  # Note [Elementwise fast signatures]
        self._prepared: dict = {}  # Note [Elementwise prepared signatures]
        self._uf: dict = {}  # Note [Ufunc route]: dtype -> (ufunc, result dtype, quiet)
        self._bp: dict = {}  # Note [Inlined broadcast plans]
        # fast: whether the engine's fast path may skip prep (it only takes plain int/float params)
        self.fast_ok = (prep is None and kparams is None) if fast is None else fast

    def binary(self, a, b, *params):
        # the engine's fast path reads a._data first; pow.Scalar & co. have a number there
        if a.__class__ is Tensor:
            return Pointwise.binary(self, a, b, *params)
        return self([a, b], params)

    def kernel(self, variant):
        return next(iter(self.variants.values())).kernel(variant)

    def learned(self, general, n):
        """The functional impl (n operands, then the parameters), with Note [Learned prepared
        calls] in front where the op has prepared parameters and no ufunc route."""
        return general if self.fast_ok or self.name in UFUNCS else learned(self, general, n)

    def inline_fast(self, kind, args):
        pre, extra = ufunc_branch(self, kind, args)
        src, ns = Pointwise.inline_fast(self, kind, args, pre)
        ns.update(extra)
        if kind != "binary":
            return src, ns
        src, ns = with_number_branch(self, src, ns, args)
        more, extra = broadcast_branch(self, args)
        return src + more, {**ns, **extra, "_scalar_as": scalar_as}

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
        if rule == "float_real":  # angle: integers give the default float, complex its real dtype
            c = common if common.category >= D._FLOAT else D.get_default_dtype()
            return common, c, c.to_real()
        return common, common, common.to_real()

    def check(self, common):
        if common._rank > 10:  # Note [Wide unsigned dtypes]
            refuse_uint(self.name, self.kname, common)
        cat = CAT[common.category]
        if cat not in self.allow:
            exc, msg = self.errors.get(cat, (NotImplementedError, None))
            raise exc(msg or f"\"{self.kname}\" not implemented for '{_cname(common)}'")

    def __call__(self, operands, params=(), out=None, inplace=False):
        if inplace or out is not None:  # Note [Inference tensors]
            check_inference_write(operands[0] if inplace else out)
        if self._sig and len(operands) <= 2:
            r = self._fast_call(operands, params, inplace, out)
            if r is not None:
                return r
        if self._prepared and out is None and not inplace:
            r = prepared_call(self, operands, params)
            if r is not None:
                return r
        operands = list(operands)
        key = [D._default]
        for i, x in enumerate(operands):
            if isinstance(x, Tensor):
                key.append(x._dtype if x._data.ndim else (x._dtype,))
            else:
                x = operands[i] = number(x, self, i)
                key.append(type(x))
        if len(key) == len(operands) + 1 and not any(isinstance(x, Tensor) for x in operands):
            # numbers only (numtorch.add(2, 3)): PyTorch wraps them; a 0-d first operand of the
            # number's own dtype promotes the same way
            d = D.scalar_dtype(operands[0])
            operands[0] = _make(np.array(operands[0], d.np), d)
            key[1] = (d,)
        if self.early is not None:
            self.early(operands)
        key = tuple(key)
        types = self._dtype_cache.get(key)
        target = operands[0] if inplace else out
        if target is not None:  # Note [Written-to memory]: before the shape and dtype checks
            if self.strict_out and len(operands) == 1 and CAT[operands[0]._dtype.category] in self.errors:
                self.check(operands[0]._dtype)  # a unary meta function's refusal (ceil_ of complex) comes first
            if inplace and self.rule == "real" and operands[0]._dtype.category == D._COMPLEX:
                raise RuntimeError(f"In-place {self.name} is not supported for complex tensors.")
            check_written(target._data, [x._data for x in operands if isinstance(x, Tensor) and x is not target])
        if types is None:  # promotion and the dtype check, once per operand-kind signature
            types = self._dtypes(operands)
            if target is not None:  # TensorIterator checks the output before the kernel's dtypes
                self._check_target(operands, target, inplace, types)
            try:
                self.check(types[0])
            except Exception:
                # TensorIterator computes the shape before the kernel's dtype dispatch fails;
                # an op's own dtype checks (self.errors) come first in PyTorch
                if CAT[types[0].category] not in self.errors:
                    _shape_first(operands, target, inplace)
                raise
            self._dtype_cache[key] = types
        elif target is not None:
            self._check_target(operands, target, inplace, types)
        common, compute, result = types
        if compute is D.bfloat16 and out is None:  # no bfloat16 operand: a bfloat16 default dtype
            return self._bf16_default(operands, params)
        kp = self.prep(compute, operands, list(params)) if self.prep else params
        pw = self.variants[CAT[compute.category]]
        keep = ()
        if compute is D.float16:
            keep = [i for i in self.opmath if not isinstance(operands[i], Tensor) or not operands[i]._data.ndim]
            operands = [x if isinstance(x, Tensor) or i in keep else _half(x) for i, x in enumerate(operands)]
        r = run(pw, operands, kp, out, inplace, compute, result, self.zero_div, keep)
        if self.fast_ok and len(operands) <= 2:  # an out= call learns the functional signature
            self._learn_sig(pw, operands, params, compute, result, inplace)
        if out is None and not inplace and not (self.fast_ok and len(operands) <= 2 and isinstance(operands[0], Tensor)
                                                and all(p.__class__ is int and p == 1 for p in params)):  # fmt: skip
            learn_prepared(self, pw, operands, params, kp, compute, result, scalar_as)
        return r

    def _check_target(self, operands, target, inplace, types):
        strict_out = self.out_strict(operands)
        try:
            self._check_out(target, inplace, types[1], types[2], strict_out)
        except RuntimeError:  # the shape (in place: self's) is TensorIterator's first check
            _shape_first(operands, target, inplace)
            raise

    def _bf16_default(self, operands, params):
        # integer or bool operands promoted to a bfloat16 default dtype never reach the bfloat16
        # route (Note [bfloat16]): compute in float32, PyTorch's opmath type, and round once
        f = D.float32
        kp = self.prep(f, operands, list(params)) if self.prep else params
        r = run(self.variants[CAT[f.category]], operands, kp, None, False, f, f, self.zero_div)
        return _make(rounded(r._data), D.bfloat16)

    # Note [Elementwise fast signatures]
    # After a call succeeds, a signature of one or two operands whose compute dtype is the first
    # operand's (a contiguous plain Tensor; the second the same dtype and shape, or a Python
    # number) maps to its kernels, for functional and in-place calls alike. The next call with
    # that signature skips promotion, checks and broadcasting: nothing they decide can differ.
    # Value-dependent checks keep such calls on the general path (integer division by zero,
    # parameters other than the default 1, float16 and complex). A functional signature also
    # serves out= when ``out`` is a plain C-contiguous Tensor of the result dtype and of the
    # operands' shape: then the general path's out checks (cast, resize) decide nothing either.
    def _fast_call(self, operands, params, inplace, out=None):
        a = operands[0]
        ca = a.__class__
        if ca is not Tensor and ca not in PLAIN_SUBCLASSES:
            return None
        d = a._data
        if not d.flags.c_contiguous:
            if inplace or out is not None:
                return None
            if len(operands) == 2 and operands[1].__class__ not in _NUMBERS:
                return expanded_call(self, operands, params)
            d = small_copy(d)  # Note [Small strided operands run contiguous]
            if d is None:
                return None
        for p in params:
            if p.__class__ is not int or p != 1:
                return None
        flat = d.ndim == 1  # 1-D: the arrays themselves, no reshape views
        args = [d if flat else d.reshape(-1)]
        if len(operands) == 2:
            b = operands[1]
            tb = b.__class__
            if tb is Tensor or tb in PLAIN_SUBCLASSES:
                e = b._data
                if b._dtype is not a._dtype or e.shape != d.shape or not e.flags.c_contiguous:
                    if out is not None:
                        return None
                    if inplace:
                        return expanded_inplace(self, a, e, params)
                    return expanded_call(self, operands, params)
                if (inplace or out is not None) and e is not d and np.may_share_memory(d, e):
                    return None  # Note [Written-to memory]: the general path checks the overlap
                f = self._sig.get((a._dtype, a._dtype, inplace))
                args.append(e if flat else e.reshape(-1))
            elif tb is int or tb is float or tb is bool:
                f = self._sig.get((a._dtype, tb, inplace))
                if f is not None:
                    args.append(scalar_as(number(b, self, 1), a._dtype))
            else:
                return None
        else:
            f = self._sig.get((a._dtype, None, inplace))
        if f is None:
            return None
        if out is not None:
            co = out.__class__
            if (co is not Tensor and co not in PLAIN_SUBCLASSES) or out._dtype is not f[1]:
                return None
            dest = out._data
            if dest.shape != d.shape or not dest.flags.c_contiguous or np.may_share_memory(dest, d) or (
                len(args) == 2 and args[1].__class__ is np.ndarray and np.may_share_memory(dest, args[1])
            ):
                # resize (with its warning), strided out, or out= the first input (the general
                # path's in-place kernel variants, Note [In-place kernel variants])
                return None
            (f[3] if d.size >= PARALLEL_THRESHOLD else f[2])(*args, dest if flat else dest.reshape(-1), *params)
            out._vc[0] += 1
            return out
        if inplace:  # f holds the in-place variants: no destination argument
            (f[3] if d.size >= PARALLEL_THRESHOLD else f[2])(*args, *params)
            a._vc[0] += 1
            return a
        dest = np.empty(d.shape, f[0])
        (f[3] if d.size >= PARALLEL_THRESHOLD else f[2])(*args, dest if flat else dest.reshape(-1), *params)
        return _make(dest, f[1])

    def _learn_sig(self, pw, operands, params, compute, result, inplace):
        a = operands[0]
        if compute.category == D._COMPLEX or compute is D.float16:
            return
        if type(a) is not Tensor and type(a) not in PLAIN_SUBCLASSES:
            return
        if a._dtype is not compute:  # any layout: the fast paths check theirs per call
            return
        if self.zero_div is not None and compute.category <= D._INT:
            return
        if any(p.__class__ is not int or p != 1 for p in params):
            return
        kind, pat = None, "a"
        if len(operands) == 2:
            b = operands[1]
            if type(b) is Tensor or type(b) in PLAIN_SUBCLASSES:
                # the same shape, 0-d or broadcast, contiguous or expanded: the expanded paths take
                # those, so a program that only ever broadcasts (x + bias) learns it too
                e = b._data
                if b._dtype is not compute or not (e.flags.c_contiguous or not any(e.strides)):
                    return
                kind, pat = compute, "aa"
            elif type(b) in (int, float, bool):
                kind, pat = type(b), "as"
            else:
                return
        big = big_prefix()
        if inplace:  # Note [In-place kernel variants]
            entry = (result.np, result, pw.kernel("ci_" + pat), pw.kernel(big[0] + "i_" + pat))
        else:
            entry = (result.np, result, pw.kernel("c_" + pat), pw.kernel(big + pat))
        self._sig[compute, kind, inplace] = entry
        if not inplace and pat != "as":
            self._fast[compute] = entry  # the engine's own unary/binary fast path
            learn_ufunc(self, compute, result)

    def out_strict(self, operands) -> bool:
        """Whether out= must have the result dtype (a per-call predicate for lerp's tensor weight)."""
        s = self.strict_out
        return s(operands) if callable(s) else s

    def _check_out(self, target, inplace, compute, result, strict_out):
        if inplace and result is not compute and self.rule == "real":
            raise RuntimeError(f"In-place {self.name} is not supported for complex tensors.")
        if strict_out and not inplace and CAT[compute.category] in self.errors:
            # a meta function's own dtype refusal precedes TensorIterator's out= dtype check
            # (sign, clamp_min with a complex number); clamp.Tensor's kernel refusal comes after
            self.check(compute)
        bad_out = self.errors.get("out")  # an op's own text for an out= of another dtype (signbit)
        if bad_out is not None and not inplace and target._dtype is not result:
            self.check(compute)  # the input's dtype check comes first there
            raise bad_out[0](bad_out[1].format(out=_cname(target._dtype), input=_cname(result)))
        # abs: complex input may write any real out it casts to, and a complex out only of its own
        # dtype (ATen runs complex -> complex into it); other input, its own dtype only
        strict = strict_out or self.rule == "real" and compute is result
        complex_out = target._dtype.category == D._COMPLEX
        if self.rule == "real" and not inplace and complex_out and target._dtype is not compute:
            raise RuntimeError(f"Found dtype {_cname(target._dtype)} but expected {_cname(compute)}")
        if strict and not inplace and target._dtype is not result:
            raise RuntimeError(f"Found dtype {_cname(target._dtype)} but expected {_cname(result)}")
        cast_check(result, target, TYPEMETA if strict_out else None)


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

    # a routed op has no kernel of its own, so no same-dtype fast path; the operands may hold a
    # Python number where the schema says Tensor (div(-7, t, rounding_mode=...), as PyTorch's
    # parser wraps numbers)
    def unary(self, a, *params):
        return self([a], params)

    def binary(self, a, b, *params):
        return self([a, b], params)


def _shape_first(operands, target, inplace):
    # on an error path only: TensorIterator's broadcast, and in place its check of self's shape
    shape = _broadcast([x._data.shape for x in operands if isinstance(x, Tensor)])
    if inplace and tuple(shape) != target._data.shape:
        raise RuntimeError(f"output with shape {list(target._data.shape)} doesn't match the broadcast shape {list(shape)}")


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
        return (
            complex(np.complex64(x).astype(np.complex64))
            if type(x) is complex
            else float(np.float16(x))
        )


_LIMITS: dict = {}


def _limits(c):
    # c10::overflows: unsigned targets also accept negatives down to -max (they wrap)
    if c.category == D._FLOAT:
        m = D.finfo(c).max
        _LIMITS[c] = (-m, m)
    else:
        ii = np.iinfo(c.np)
        _LIMITS[c] = (-ii.max if ii.min == 0 else ii.min, ii.max)
    return _LIMITS[c]


def checked(x, c: D.dtype):
    """``x`` as c10::checked_convert accepts it for dtype ``c`` (PyTorch's overflow error otherwise)."""
    if c.category == D._COMPLEX or c is D.bool:
        return x
    if type(x) is complex:
        if x.imag == 0:
            return x
        bad = True
    else:
        lo, hi = _LIMITS.get(c) or _limits(c)
        bad = (
            (math.isfinite(x) and not lo <= x <= hi)
            if c.category == D._FLOAT
            else not lo <= x <= hi
        )
    if bad:
        raise RuntimeError(f"value cannot be converted to type {CTYPE[c.name]} without overflow")
    return x


def not_tensor(op, arg, pos, x):
    return TypeError(
        f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}"
    )


def scalar_as(x, c: D.dtype):
    """``x`` converted as c10::Scalar::to<c>() does: integers wrap, complex to real raises."""
    cat = c.category
    if cat == D._FLOAT:
        if type(x) is complex:
            raise RuntimeError(
                f"value cannot be converted to type {CTYPE[c.name]} without overflow"
            )
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
                raise RuntimeError(
                    f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton dimension {i}"
                )
            out[i] = b[i] if a[i] == 1 else a[i]
        res = tuple(out)
    return res


def cast_check(result, out, names=None):
    if not D.can_cast(result, out._dtype):
        to = names[out._dtype.name] if names else _cname(out._dtype)
        raise RuntimeError(
            f"result type {_cname(result)} can't be cast to the desired output type {to}"
        )


def _groups_of(operands):  # promotion's groups: dtypes of tensors with dims, of 0-d ones, numbers
    t = [x for x in operands if isinstance(x, Tensor)]
    return ([x._dtype for x in t if x._data.ndim], [x._dtype for x in t if not x._data.ndim],
            [x for x in operands if not isinstance(x, Tensor)])  # fmt: skip


def _common(operands):
    dims, zeros, scalars = _groups_of(operands)
    return D.result_type_of(dims, zeros, scalars) if dims or zeros else None


def run(pw, operands, kparams, out, inplace, compute, result, zero_div=None, keep=()):
    """Broadcast, allocate (or resize ``out``, already dtype-checked), run ``pw``'s kernel;
    float16 computes in float32."""
    if inplace:
        out = operands[0]
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
    if out is None:
        dest = np.empty(shape, result.np)
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
        # Note [out= computes in the result dtype]: the kernel writes the result dtype (float32
        # for float16) and the cast into out's dtype comes after, so sub(uint8, 5, out=int64)
        # wraps like uint8 (251), as PyTorch's TensorIterator does; an in-place op whose result
        # dtype is wider (float32.add_(float64)) rounds once, in the cast.
        kdt = np.dtype(np.float32) if result is D.float16 else result.np
        buf = dest if dest.dtype == kdt else np.empty(shape, kdt)
        # Note [One kernel signature per parameter kind]
        pvals = [kernel_scalar(p, scalar_as(p, c), c) for p in kparams]
        if buf.flags.c_contiguous and n > 1:
            arrays = run_expanded(pw, arrays, buf, inplace, pvals)
        if arrays is True:
            pass
        elif buf.flags.c_contiguous and all(
            not isinstance(a, np.ndarray) or (a.size == n or a.size == 1) and a.flags.c_contiguous
            for a in arrays
        ):
            pw._run_contig(arrays, buf, n, pvals)
        else:
            if not all(isinstance(a, np.ndarray) for a in arrays):  # np.errstate costs ~1 us
                with np.errstate(over="ignore"):
                    arrays = [a if isinstance(a, np.ndarray) else pw.scalar_array(i, a, c)
                              for i, a in enumerate(arrays)]  # fmt: skip
            pw._run_strided(arrays, buf, shape, pvals)
        if buf is not dest:
            # float32 -> float16 rounds to inf silently, as in PyTorch; then the cast into out
            with np.errstate(over="ignore", invalid="ignore"):
                if result is D.float16 and buf.dtype != np.float16:
                    buf = buf.astype(np.float16)
                np.copyto(dest, buf, casting="unsafe")
    if out is None:
        return _make(dest, result)
    out._vc[0] += 1
    return out


# ---- PyTorch's argument checks, as Elementwise prep / early hooks ------------------------------
@signature_hook
def alpha_check(compute, operands, params):
    (alpha,) = params  # at::native::alpha_check, on the promoted dtype
    if type(alpha) is bool and compute is not D.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if compute.category <= D._INT and type(alpha) is float:
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if compute.category != D._COMPLEX and type(alpha) is complex:
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )
    checked(alpha, compute)
    return params


@signature_hook
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
    # c10::Scalar::to<opmath_t>(): checked in float for half; complex to real needs imag == 0
    v, c = params[0], D.float32 if compute in (D.float16, D.bfloat16) else compute
    if c.category == D._COMPLEX:  # each part checked as a real one
        lo, hi = _LIMITS.get(c.to_real()) or _limits(c.to_real())
        if any(math.isfinite(p) and not lo <= p <= hi for p in (complex(v).real, complex(v).imag)):
            raise RuntimeError(f"value cannot be converted to type {CTYPE[c.name]} without overflow")
    elif type(checked(v, c)) is complex:  # a zero imaginary part passed
        v = v.real
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
    if compute is D.complex64 and D.is_complex_half(*_groups_of(operands)):  # no ComplexHalf kernel
        raise NotImplementedError("\"addcdiv_cpu_out\" not implemented for 'ComplexHalf'")
    return value_param(compute, operands, params)


def nan_to_num_params(compute, operands, params):
    nan, posinf, neginf = params
    if compute.category < D._FLOAT:
        return [0, 0, 0]
    fi = D.finfo(compute.to_real())
    return [
        0.0 if nan is None else nan,
        fi.max if posinf is None else posinf,
        fi.min if neginf is None else neginf,
    ]


def lerp_params(compute, operands, params):
    return params + [0.5, 1.0]


def lerp_check(operands):
    """lerp's dtype checks (an ``early`` hook: PyTorch makes them before broadcasting and before
    the kernel's dtype dispatch)."""
    self = operands[0]
    for name, t in zip(("end", "weight"), operands[1:], strict=False):
        if (
            isinstance(t, Tensor)
            and t._dtype is not self._dtype
            and (name == "end" or t._data.ndim)
        ):
            raise RuntimeError(f"expected dtype {TYPEMETA[self._dtype.name]} for `{name}` but got dtype "
                               f"{TYPEMETA[t._dtype.name]}")  # fmt: skip


def lerp_strict_out(operands):
    """lerp.Tensor's out= has the result dtype, unless the weight is 0-d (then cast, as lerp.Scalar)."""
    return isinstance(operands[2], Tensor) and operands[2]._data.ndim > 0


def checked_bounds(compute, operands, params):
    for x in operands[1:]:
        if not isinstance(x, Tensor):
            checked(x, compute)
    return params


__all__ = [
    "CAT",
    "CTYPE",
    "EXAMPLES",
    "Elementwise",
    "PARALLEL_THRESHOLD",
    "Routed",
    "TYPEMETA",
    "addcdiv_check",
    "alpha_check",
    "checked",
    "checked_bounds",
    "lerp_check",
    "lerp_strict_out",
    "lerp_params",
    "nan_to_num_params",
    "not_tensor",
    "number",
    "pow_check",
    "run",
    "scalar_as",
    "sub_check",
    "value_param",
]
