"""The pointwise engine: type promotion, broadcasting, out=/in-place, kernel variant choice.

A ``Pointwise`` holds one scalar expression; its kernels are generated on first use
(Note [Generated kernels are real files]). ``__call__`` is the CPU backend of every
elementwise op: it resolves the compute dtype with PyTorch's promotion (Python scalars are
weak), broadcasts, allocates, and picks the contiguous, parallel or strided variant.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from .. import _dtype as D
from .._tags import Tag
from .._tensor import InferenceVersion, Tensor, _make, check_inference_write, inline_make_src
from ..kernels import PARALLEL_THRESHOLD, _codegen
from .._overlap import check_written
from ._meta_rules import pointwise_meta
from ._pw_param_gate import param_gate
from ._strided_parts import flat_parts  # noqa: F401  (re-exported: fusion, the expanded fast paths)
from ._wide_uint import refuse_uint

_INT64 = (-(2**63), 2**63 - 1)


# Note [Expanded operands run as scalars]
# A gradient from sum()/mean() backward is one value expanded to the input's shape (every
# stride 0); the strided kernel walks it with the n-d index loop (measured: tanh_backward on
# 131072 float32, 750 us against 40 for the contiguous kernel). Such an operand holds one
# value, so it travels as a one-element array and the contiguous "s" variant runs, as long as
# another operand spans the output. When none does (neg(grad), every operand one value), the
# kernel computes the one value and the output is filled with it (run_expanded).
def squash_expanded(arrays, buf, inplace):
    out, spans, const = list(arrays), False, True
    for i, a in enumerate(arrays):
        if not isinstance(a, np.ndarray) or a.size == 1:
            continue
        if a.ndim and not any(a.strides) and not (inplace and i == 0):
            out[i] = np.array([a[(0,) * a.ndim]], a.dtype)
        else:
            const = False
            spans = spans or (a.shape == buf.shape and a.flags.c_contiguous)
    if spans or const:
        return out, const
    return arrays, False


def run_expanded(pw, arrays, buf, inplace, pvals):
    """Squash expanded operands (Note [Expanded operands run as scalars]); True when the
    output was filled here, else the operands for the caller's contiguous/strided choice."""
    arrays, const = squash_expanded(arrays, buf, inplace)
    if not const:
        return arrays
    one = np.empty(1, buf.dtype)
    pw._run_contig(arrays, one, 1, pvals)
    buf[...] = one[0]
    return True


def _one(x, dt) -> np.ndarray:
    """A checked Python number as a one-element array of ``dt``: a negative integer wraps into an
    unsigned dtype as c10's conversion does (where(uint8 mask, uint8, -3) raised NumPy's OverflowError)."""
    try:
        return np.array([x], dt)
    except OverflowError:
        return np.array([x]).astype(dt)


class Pointwise:
    """One elementwise computation, e.g. ``Pointwise("add", ["self", "other"], "self + alpha * other", ["alpha"])``.

    rule: "common" -> result in the promoted dtype; "float" -> integers promote to the
    default float; "bool" -> computed in the promoted dtype, result bool; "int" -> integer
    or bool inputs only; "real" -> no complex.
    """

    __slots__ = ("name", "inputs", "expr", "params", "rule", "_mod", "_cache", "allow", "_fast",
                 "_fast_scalar", "_entry", "refuse", "wide")  # fmt: skip

    def __init__(self, name, inputs, expr, params=(), rule="common", allow="all", refuse=None, wide=()):
        self.name = name
        self.inputs = list(inputs)
        # Note [Python scalars keep double precision]: operands named here, when given as a
        # Python number and computed in a real floating dtype, reach the kernel as float64
        # (pow's scalar exponent: ATen reads it with exp_scalar.to<double>())
        self.wide = tuple(wide)
        self.expr = expr
        self.params = list(params)
        self.rule = rule
        self.allow = allow  # "all", "nobool", "int" (integral/bool), "real" (no complex), "float"
        # refuse: {"bool" | "complex": (exception type, message)}, PyTorch's op-specific refusals;
        # {"kernel": name}: the AT_DISPATCH name in the refusal of another dtype (else name_cpu)
        self.refuse = refuse or {}
        self._mod = None
        self._cache: dict = {}
        # Note [Pointwise fast path]: dtype -> (result np dtype, result dtype, serial, parallel)
        # for same-dtype, same-shape, C-contiguous tensor operands, filled by the general path.
        self._fast: dict = {}
        self._fast_scalar: dict = {}  # (dtype, int | float) -> same, for tensor-op-Python-scalar
        self._entry: dict = {}  # dtype -> compiled entry of _fast[dtype]'s serial kernel (inline_fast)

    # ---- kernels -------------------------------------------------------------------------
    def kernel(self, variant: str):
        k = self._cache.get(variant)
        if k is None:
            if self._mod is None:
                src = _codegen.render_pointwise(self.inputs, self.params, self.expr, self.wide)
                self._mod = _codegen.load_module(f"pw_{self.name}", src)
            k = self._cache[variant] = getattr(self._mod, variant)
        return k

    # ---- dtypes ------------------------------------------------------------------------------
    def dtypes(self, operands) -> tuple[D.dtype, D.dtype]:
        """(compute dtype, result dtype) for these operands."""
        dims, zeros, scalars = [], [], []
        for x in operands:
            if isinstance(x, Tensor):
                (dims if x._data.ndim else zeros).append(x._dtype)
            else:
                scalars.append(x)
        common = D.result_type_of(dims, zeros, scalars)
        self._check_allowed(common)
        rule = self.rule
        if rule == "common":
            return common, common
        if rule == "float":
            c = common if common.category >= D._FLOAT else D.get_default_dtype()
            return c, c
        if rule == "bool":
            return common, D.bool
        raise AssertionError(rule)

    def _check_allowed(self, common: D.dtype) -> None:
        if common._rank > 10:  # Note [Wide unsigned dtypes]
            refuse_uint(self.name, self.name + "_cpu", common)
        if self.refuse:
            kind = "bool" if common is D.bool else "complex" if common.category == D._COMPLEX else ""
            if kind in self.refuse:
                exc, msg = self.refuse[kind]
                raise exc(msg)
        allow = self.allow
        if allow == "all":
            return
        bad = (
            (allow == "nobool" and common is D.bool)
            or (allow == "int" and common.category > D._INT)
            or (allow == "real" and common.category == D._COMPLEX)
            or (allow == "float" and common.category != D._FLOAT)
        )
        if bad:  # AT_DISPATCH's error, a NotImplementedError in PyTorch
            kname = self.refuse.get("kernel", f"{self.name}_cpu")
            raise NotImplementedError(f'"{kname}" not implemented for \'{_cname(common)}\'')

    # ---- fast paths (Note [Pointwise fast path]) ---------------------------------------------------
    def unary(self, a, *params):
        d = a._data
        if a.__class__ is Tensor and d.flags.c_contiguous:
            f = self._fast.get(a._dtype)
            if f is not None and (not params or _plain_params(params, a._dtype)):
                res = np.empty(d.shape, f[0])
                if d.ndim != 1:
                    d, r = d.ravel(), res.ravel()
                else:
                    r = res
                (f[3] if d.size >= PARALLEL_THRESHOLD else f[2])(d, r, *params)
                return _make(res, f[1])
        return self([a], params)

    def binary(self, a, b, *params):
        d = a._data
        cls = b.__class__
        if cls is Tensor:
            e = b._data
            dt = a._dtype
            if b._dtype is dt and a.__class__ is Tensor and e.shape == d.shape and d.flags.c_contiguous and e.flags.c_contiguous:
                f = self._fast.get(dt)
                if f is not None and (not params or _plain_params(params, dt)):
                    res = np.empty(d.shape, f[0])
                    if d.ndim != 1:
                        d, e, r = d.ravel(), e.ravel(), res.ravel()
                    else:
                        r = res
                    (f[3] if d.size >= PARALLEL_THRESHOLD else f[2])(d, e, r, *params)
                    return _make(res, f[1])
        elif (cls is float or cls is int) and a.__class__ is Tensor and d.flags.c_contiguous:
            dt = a._dtype
            f = self._fast_scalar.get((dt, cls))
            if f is not None and (not params or _plain_params(params, dt)):
                res = np.empty(d.shape, f[0])
                if d.ndim != 1:
                    d, r = d.ravel(), res.ravel()
                else:
                    r = res
                (f[3] if d.size >= PARALLEL_THRESHOLD else f[2])(d, b, r, *params)
                return _make(res, f[1])
        return self([a, b], params)

    def inline_fast(self, kind: str, args: list, pre: str = "") -> tuple[str, dict]:
        """Source of unary()/binary()'s same-dtype contiguous case, inlined into op.fast by the
        dispatcher (Note [Per-op fast path]); ``args`` name the operands, then the params.
        Only serial calls with int params (alpha=1 ...), or float ones (Note [Inlined float
        params]), on same-shape C-contiguous operands take it (``pre``: a subclass's case tried
        first); the rest call the impl. The learned entry is the 1-D overload's: an N-d call
        passes flat views (a 2-d add through binary() cost 2.9 us against 1.3 us for 1-d)."""
        n = 1 if kind == "unary" else 2
        x, ps = args[:n], args[n:]
        d = [f"_d{i}" for i in range(n)]
        head = "_d0 = x0._data"
        cond = ["_d0.flags.c_contiguous"]
        if n == 2:
            y = x[1]
            head += f"\n        _d1 = {y}._data if {y}.__class__ is _T or {y}.__class__ in _PL else None"
            cond = ["_d1 is not None", f"{y}._dtype is x0._dtype", f"{y}._device is _CPU",
                    "_d1.shape == _d0.shape", "_d1.flags.c_contiguous", "_d0.flags.c_contiguous"]  # fmt: skip
        # a subclass's own inlined case (Elementwise's) reads int params only
        p_head, p_cond, key, learn = param_gate(ps, type(self).inline_fast is Pointwise.inline_fast)
        head, cond = head + p_head, cond + p_cond
        flat = ", ".join([f"{a}.ravel()" for a in d] + ["_r.ravel()"] + ps)
        call = ", ".join(d + ["_r"] + ps)
        exact = " and ".join(f"{a}.__class__ is _nd" for a in d)
        src = f"""
        {head}
        if {" and ".join(cond)}:{pre}
            _e = _PWE.get({key})
            if _e is not None and _d0.size < _PT and {exact} and _d0.dtype is _e[1]:
                if _d0.ndim == 1:
                    _r = _empty(len(_d0), _e[2])
                    _e[0]({call})
                else:
                    _r = _empty(_d0.shape, _e[2])
                    _e[0]({flat})
                _rd = _e[3]
            else:
                _f = _PWF.get(x0._dtype)
                if _f is None or _d0.size >= _PT{learn}:
                    return _impl({", ".join(args)})
                _r = _empty(_d0.shape, _f[0])
                if _e is None:
                    _learn_entry(_PWE, {key}, _f, {flat})
                else:
                    _f[2]({flat})
                _rd = _f[1]
{inline_make_src("_r", "_rd", " " * 12)}"""
        ns = {"_PWF": self._fast, "_PWE": self._entry, "_PT": PARALLEL_THRESHOLD, "_empty": np.empty,
              "_new": object.__new__, "_nd": np.ndarray, "_learn_entry": _learn_entry,
              "_IV": InferenceVersion, "_pp": _plain_params}  # fmt: skip
        return src, ns

    def _learn(self, operands, compute, result, pat):
        # remember the kernels for homogeneous contiguous calls (Note [Pointwise fast path])
        dt = operands[0]._dtype if isinstance(operands[0], Tensor) else None
        if compute is not dt or dt is None:
            return
        entry = (result.np, result, self.kernel("c_" + pat), self.kernel(big_prefix() + pat))
        if pat == "a" * len(operands):
            if all(isinstance(x, Tensor) and x._dtype is dt for x in operands):
                self._fast[dt] = entry
        elif pat == "as" and type(operands[1]) in (int, float):
            self._fast_scalar[dt, type(operands[1])] = entry

    # ---- the call --------------------------------------------------------------------------------
    def scalar_array(self, i: int, x, compute: D.dtype) -> np.ndarray:
        """Operand ``i``, a Python number, as the strided kernel reads it (a one-element array)."""
        if self.wide and self.inputs[i] in self.wide and compute.category == D._FLOAT:
            return np.array([x], np.float64)  # Note [Python scalars keep double precision]
        return _one(x, compute.np)

    def __call__(self, operands, params=(), out: Tensor | None = None, inplace: bool = False):
        if inplace:
            out = operands[0]
        if out is not None:  # Note [Written-to memory]: before the shape and dtype checks
            check_inference_write(out)
            check_written(out._data, [x._data for x in operands if isinstance(x, Tensor) and x is not out])
        compute, result = self.dtypes(operands)
        if out is not None and not inplace and out._dtype is not result and D.can_cast(result, out._dtype):
            # Note [out= computes in the result dtype]
            r = self(operands, params)
            if out._data.shape != r._data.shape:
                _resize_out(out, r._data.shape)
            with np.errstate(over="ignore", invalid="ignore"):
                np.copyto(out._data, r._data, casting="unsafe")
            out._vc[0] += 1
            return out
        if compute is D.float16 or (out is not None and out._dtype is D.float16):
            return self._via_float32(operands, params, out, result)
        if out is not None and not D.can_cast(result, out._dtype):
            raise RuntimeError(
                f"result type {_cname(result)} can't be cast to the desired output type "
                f"{_cname(out._dtype)}"
            )
        npc = compute.np
        arrays, shape = [], ()
        for x in operands:
            if isinstance(x, Tensor):
                a = x._data
                if a.dtype != npc:
                    a = a.astype(npc)
                arrays.append(a)
            else:
                arrays.append(kernel_scalar(x, _scalar(x, compute), compute))
        shape = _broadcast([a.shape for a in arrays if isinstance(a, np.ndarray)])
        if inplace and shape != out._data.shape:
            raise RuntimeError(
                f"output with shape {list(out._data.shape)} doesn't match the broadcast shape "
                f"{list(shape)}"
            )
        if out is None:
            res = np.empty(shape, result.np)
            dest = res
        else:
            if out._data.shape != shape:
                _resize_out(out, shape)
            dest = out._data
        n = dest.size
        if n:
            pvals = [_param(p, compute) for p in params]
            if dest.flags.c_contiguous and n > 1:
                arrays = run_expanded(self, arrays, dest, inplace, pvals)
            if arrays is True:
                pass
            elif dest.flags.c_contiguous and all(
                not isinstance(a, np.ndarray)
                or (a.size == n or a.size == 1) and a.flags.c_contiguous
                for a in arrays
            ):
                pat = self._run_contig(arrays, dest, n, pvals)
                if out is None and pat in ("a" * len(arrays), "as") and compute.category != D._COMPLEX:
                    self._learn(operands, compute, result, pat)
            else:
                self._run_strided(arrays, dest, shape, pvals)
        if out is None:
            return _make(res, result)
        out._vc[0] += 1
        return out

    def _via_float32(self, operands, params, out, result):
        # Numba has no CPU float16: compute in float32 (PyTorch's opmath type for half), round once.
        wide = [
            _make(x._data.astype(np.float32), D.float32) if isinstance(x, Tensor) and x._dtype is D.float16 else x
            for x in operands
        ]
        r = self(wide, params)
        if out is None:
            return _make(r._data.astype(result.np), result)
        rd = r._data.astype(result.np) if result is D.float16 else r._data  # round once to the result
        if out._data.shape != r._data.shape:
            if out is operands[0]:
                raise RuntimeError(
                    f"output with shape {list(out._data.shape)} doesn't match the broadcast shape "
                    f"{list(r._data.shape)}"
                )
            _resize_out(out, r._data.shape)
        with np.errstate(over="ignore", invalid="ignore"):
            np.copyto(out._data, rd, casting="unsafe")
        out._vc[0] += 1
        return out

    def _run_contig(self, arrays, dest, n, pvals):
        # A one-element operand travels as a Python scalar (already in the compute dtype, so
        # the kernel's cast is exact): patterns are only "a"/"s", which keeps the number of
        # compiled variants per op and dtype small.
        args, pat = [], ""
        for a in arrays:
            if not isinstance(a, np.ndarray):
                pat += "s"
                args.append(a)
            elif a.size == n and (n > 1 or len(arrays) == 1 or "a" not in pat):
                pat += "a"
                args.append(a.reshape(-1))
            else:
                pat += "s"
                args.append(a.reshape(-1)[0].item())
        prefix = big_prefix() if n >= PARALLEL_THRESHOLD else "c_"
        if arrays[0] is dest and pat[0] == "a":  # Note [In-place kernel variants]
            prefix, dest_args = prefix[0] + "i_", ()
        else:
            dest_args = (dest.reshape(-1),)
        try:
            self.kernel(prefix + pat)(*args, *dest_args, *pvals)
        except Exception as e:
            self._untyped(e, dest)
        return pat

    def _untyped(self, e: Exception, dest: np.ndarray):
        # a dtype the op's expression has no meaning for (a comparison on complex): the
        # declaration's ``allow`` missed it, so say what PyTorch says rather than Numba
        if type(e).__name__ != "TypingError":
            raise e
        raise NotImplementedError(
            f"\"{self.name}_cpu\" not implemented for '{_cname(D.from_numpy_dtype(dest.dtype))}'"
        ) from None

    def _run_strided(self, arrays, dest, shape, pvals):
        dt = _first_array(arrays).dtype
        arrays = [a if isinstance(a, np.ndarray) else
                  self.scalar_array(i, a, D.from_numpy_dtype(dt)) if self.wide else _one(a, dt)
                  for i, a in enumerate(arrays)]  # fmt: skip
        variant, shp, args = strided_layout(dest, arrays, shape)
        try:
            self.kernel(variant)(shp, *args, *pvals)
        except Exception as e:
            self._untyped(e, dest)


def strided_layout(dest: np.ndarray, arrays, shape: tuple):
    """(kernel variant, int64 shape, flat parts of dest then of each array) for the strided
    kernels: Note [Broadcast rows]'s row kernel where every last-dimension stride is 1 or 0
    (one at least 1), else the n-d index loop. Shared by _run_strided and the expanded fast
    path's cached layouts, so both pick the same kernel."""
    parts = list(flat_parts(dest, shape))
    pat = "" if dest.flags.c_contiguous and shape and shape[-1] > 1 else "?"
    for a in arrays:
        part = flat_parts(a, shape)
        parts += part
        last = part[2][-1]
        pat += "a" if last == 1 else ("s" if last == 0 else "?")
    variant = "strided" if "?" in pat or "a" not in pat else "r_" + pat
    return variant, np.array(shape, np.int64), parts


# Note [Compiled kernel entry]
# Numba's dispatcher types every argument on each call (~0.1 us of a 1 us tiny op). Once a
# serial kernel has run for a dtype, inline_fast calls the compiled overload's entry point
# directly. That entry unboxes without checking types, so it is used only where the types
# are what it was compiled for: exact ndarrays (no subclass) of the entry's dtype object
# (native byte order), same dtype operands, C-contiguous 1-D, and Python int params.
_BIG: list = []


def big_prefix() -> str:
    """Kernel variant prefix for calls of PARALLEL_THRESHOLD elements or more: the parallel one,
    except where Numba can only ever run one thread (NUMBA_NUM_THREADS=1), where the parallel
    variant adds only its scheduling (~2 us a call) to the serial loop."""
    if not _BIG:
        import numba  # kernels are loaded by now: this import costs nothing

        _BIG.append("c_" if numba.config.NUMBA_NUM_THREADS == 1 else "p_")
    return _BIG[0]


def _learn_entry(store: dict, dt, f: tuple, *args) -> None:
    # f: a _fast entry (result np dtype, result dtype, serial, parallel); runs f's serial kernel
    disp = f[2]
    disp(*args)
    from numba import typeof

    ov = disp.overloads.get(tuple(typeof(a) for a in args))
    ok = ov is not None and args[0].dtype.isnative and args[0].__class__ is np.ndarray
    # no entry found: the dispatcher itself stands in (it checks types), learned once
    store[dt] = (ov.entry_point if ok else disp, args[0].dtype, np.dtype(f[0]), f[1])


def _plain_params(params, dt) -> bool:
    for p in params:
        t = type(p)
        if t is not int and (t is not float or dt.category != D._FLOAT):
            return False
    return True


def _first_array(arrays):
    return next(a for a in arrays if isinstance(a, np.ndarray))


def _scalar(x, compute: D.dtype):
    if isinstance(x, np.generic):
        x = x.item()
    if type(x) is int and not _INT64[0] <= x <= _INT64[1]:
        raise RuntimeError("Overflow when unpacking long")
    if compute.category == D._COMPLEX:
        return complex(x)
    if compute.category == D._FLOAT:
        if type(x) is complex:
            raise RuntimeError(f"value cannot be converted to type {compute.name} without overflow")
        return float(x)
    if compute is D.bool:
        return bool(x)
    return int(x)


def _param(p, compute: D.dtype):
    if isinstance(p, Tensor):
        p = p.item()
    if compute.category <= D._INT and compute is not D.bool and type(p) is float:
        # Scalar::to<int>: truncation, refused where it overflows (threshold(int_tensor, 0.5, 2.5))
        info = np.iinfo(compute.np)
        if not info.min - 1 < p < info.max + 1:
            ctype = {"int32": "int", "int64": "int64_t"}.get(compute.name, f"{compute.name}_t")
            raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        p = int(p)
    return kernel_scalar(p, _scalar(p, compute), compute)


# Note [One kernel signature per parameter kind]
# The fast paths pass a Python number to a kernel as it is (``alpha=1`` is an int64 there),
# and the kernel casts it to the compute dtype. The general path passes the same kind, an int
# where the caller gave an int, rather than a float converted for a float dtype, so that a
# kernel compiles (and loads from the disk cache) one signature per dtype and parameter kind.
# Casting an int64 to float32 in the kernel rounds once, as c10::Scalar::to<float> does.
def kernel_scalar(x, v, compute: D.dtype):
    """The Python number ``x`` (``v``: converted for ``compute``) as kernels receive it."""
    if isinstance(x, np.generic):
        x = x.item()
    if x.__class__ is bool and compute is D.bool:
        return int(x)  # alpha=True and alpha=1 are one kind for a bool kernel
    if x.__class__ is int and (compute.category == D._FLOAT or compute is D.bool):
        if _INT64[0] <= x <= _INT64[1]:
            return x
    return v


def broadcast_shapes(*shapes) -> tuple:
    """The shape all arguments broadcast to, with PyTorch's error for a mismatch.

    >>> numtorch.broadcast_shapes((2, 1), (3,))
    torch.Size([2, 3])
    """
    from .._size import Size

    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    return Size(_broadcast(shapes) if shapes else ())


def _broadcast(shapes) -> tuple:
    if len(shapes) == 1:
        return shapes[0]
    first = shapes[0]
    if all(s == first for s in shapes):
        return first
    res = list(first)
    for s in shapes[1:]:
        n = max(len(res), len(s))
        a = [1] * (n - len(res)) + res
        b = [1] * (n - len(s)) + list(s)
        for i in range(n):
            if a[i] != b[i]:
                if a[i] == 1:
                    a[i] = b[i]
                elif b[i] != 1:
                    raise RuntimeError(
                        f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) "
                        f"at non-singleton dimension {i}"
                    )
        res = a
    return tuple(res)


def warn_resize(old_shape: tuple, shape: tuple, stacklevel: int) -> None:
    """PyTorch's resize_output warning for an ``out=`` that had elements; ``stacklevel`` counts
    from the caller of this function."""
    warnings.warn(
        f"An output with one or more elements was resized since it had shape "
        f"{list(old_shape)}, which does not match the required output shape "
        f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
        "outputs will not be resized unless they have zero elements. You can explicitly "
        "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
        UserWarning,
        stacklevel=stacklevel + 1,
    )


def _resize_out(out: Tensor, shape: tuple) -> None:
    if out._data.size:
        warn_resize(out._data.shape, shape, 4)
    out._data = np.empty(shape, out._dtype.np)


_CNAMES = D._CXX_NAMES  # PyTorch's C++ names of the dtypes, as its messages print them


def _cname(d: D.dtype) -> str:
    return _CNAMES[d.name]


# ---- declaration --------------------------------------------------------------------------
# Note [Pointwise declaration]
# Every op made from a pointwise declaration (defpointwise, library.elementwise) carries it as
# ``op.pointwise``: the Pointwise, which schema positions are its operands and its parameters,
# the overload's kind, and the CPU implementation the declaration installed. The CUDA installer
# builds the op's CUDA kernel from it, and numtorch.compile fuses a functional call from it as
# long as ``op.impls["cpu"] is decl.cpu`` (no library override replaced the declared kernel).
# An op whose string argument picks one of several declarations (gelu's approximate) records
# them all, ``pw`` a dict, and that argument's position as ``select``.
class PointwiseDecl(NamedTuple):
    pw: object
    inputs: tuple
    params: tuple
    kind: str  # "functional" | "inplace" | "out"
    cpu: object
    select: int | None = None  # a str argument picking ``pw[value]`` (gelu's approximate)


def defpointwise(
    schema: str,
    pw: Pointwise,
    *,
    backward: dict | None = None,
    jvp=None,
    inplace: bool = True,
    out: bool = True,
    function: bool = True,
    method: bool = True,
    module: str = "torch",
    doc: str | None = None,
    dunders: tuple = (),
    out_overload: str | None = None,
    inplace_overload: str | None = None,
    holomorphic: bool = True,
    public_out: bool = True,
    composite=None,
):
    """Declare an elementwise op: functional, in-place (``name_``) and ``out=`` overloads,
    plus ``numtorch.name``, ``Tensor.name`` and ``Tensor.name_`` bindings. Returns the ops.

    ``out_overload`` / ``inplace_overload`` name those overloads where PyTorch's names do not
    follow the usual pattern (``pow.Tensor_Tensor_out``, ``pow_.Tensor``). ``holomorphic=False``:
    the formulas already give PyTorch's complex gradient (Note [Complex gradients]). ``composite``:
    the functional overload is CompositeImplicitAutograd over other ops (ATen's conj_physical over
    _conj_physical); out= and in-place keep the kernel."""
    from .._dispatch import dispatch
    from .._schema import parse_schema
    from ._registry import defop, holomorphic as _holo, public, schema_sig

    if backward is not None and holomorphic:
        backward = {k: _holo(f) for k, f in backward.items()}

    s = parse_schema(schema)
    names = [a.name for a in s.arguments]
    in_idx = tuple(names.index(n) for n in pw.inputs)
    par_idx = tuple(names.index(n) for n in pw.params)

    def functional(*v):
        return pw([v[i] for i in in_idx], [v[i] for i in par_idx])

    n_in = len(in_idx)
    if in_idx == tuple(range(n_in)) and par_idx == tuple(range(n_in, len(names))):
        if n_in == 1:
            functional = pw.unary  # noqa: F811
        elif n_in == 2:
            functional = pw.binary  # noqa: F811
        if hasattr(pw, "learned"):  # Note [Learned prepared calls]
            functional = pw.learned(functional, n_in)  # noqa: F811
    elif n_in == 2:  # other argument orders (elu_backward), unread ones (self_is_result): the
        i0, i1, binary = *in_idx, pw.binary  # fast path too (the list-building call: 2x PyTorch)

        def functional(*v):  # noqa: F811  (a bool param, elu_backward's is_result: the int)
            return binary(v[i0], v[i1], *[int(v[i]) if v[i].__class__ is bool else v[i] for i in par_idx])

    def out_impl(*v):
        return pw([v[i] for i in in_idx], [v[i] for i in par_idx], v[-1])

    def inplace_impl(*v):
        return pw([v[i] for i in in_idx], [v[i] for i in par_idx], inplace=True)

    if in_idx == tuple(range(n_in)) and par_idx == tuple(range(n_in, len(names))):

        def out_impl(*v):  # noqa: F811  (schema order: operands, params, out)
            return pw(v[:n_in], v[n_in:-1], v[-1])

        def inplace_impl(*v):  # noqa: F811  (the engine's grad accumulation add_: no list building)
            return pw(v[:n_in], v[n_in:], inplace=True)

    if composite is not None:
        op = defop(schema, composite=composite, tags=(Tag.pointwise,))
    else:
        op = defop(schema, cpu=functional, backward=backward, jvp=jvp, tags=(Tag.pointwise,))
        op.pointwise = PointwiseDecl(pw, in_idx, par_idx, "functional", functional)
        op.impls["meta"] = lambda *v: pointwise_meta(pw, [v[i] for i in in_idx], [v[i] for i in par_idx])
    result = {"functional": op}
    if out:
        result["out"] = op_out = defop(_out_schema(s, out_overload), cpu=out_impl, tags=(Tag.pointwise,))
        op_out.pointwise = PointwiseDecl(pw, in_idx, par_idx, "out", out_impl)
        op_out.impls["meta"] = lambda *v: pointwise_meta(pw, [v[i] for i in in_idx], [v[i] for i in par_idx], v[-1])
    if inplace:
        result["inplace"] = op_ = defop(_inplace_schema(s, inplace_overload), cpu=inplace_impl, backward=backward, jvp=jvp,
                                        tags=(Tag.pointwise,))
        op_.pointwise = PointwiseDecl(pw, in_idx, par_idx, "inplace", inplace_impl)
        op_.impls["meta"] = lambda *v: pointwise_meta(pw, [v[i] for i in in_idx], [v[i] for i in par_idx], inplace=True)
    doc = doc or f"Elementwise ``{s.name}``; see PyTorch's ``torch.{s.name}``."
    if function:
        pub_out = out and public_out  # torch.relu takes no out= though aten::relu.out exists
        sig, rel, _ = schema_sig(op, method=False, out=pub_out)
        if pub_out:

            def fbody(*v):
                if v[-1] is None:
                    return op.fast(*v[:-1])
                return op_out.fast(*v)

        else:

            def fbody(*v):
                return dispatch(op, list(v))

        fast = (op, _param_names(s, "input"), "out is None") if pub_out else (op, _param_names(s, "input"))
        public(s.name, sig, fbody, relevant=rel, module=module, doc=doc, ops=tuple(result.values()),
               fast=fast)  # fmt: skip
    if method:
        sig, rel, _ = schema_sig(op, method=True, out=False)

        def mbody(*v):
            return op.fast(*v)

        public(s.name, sig, mbody, relevant=rel, module="Tensor", doc=doc, ops=(op,),
               fast=(op, _param_names(s, "self")))  # fmt: skip
        if inplace:

            def ibody(*v):
                return dispatch(op_, list(v))

            public(s.name + "_", sig, ibody, relevant=rel, module="Tensor", doc=doc, ops=(op_,))
    for d in dunders:
        _dunder(d, result)
    return result


def _param_names(s, self_name: str) -> tuple:
    # the binding's parameter names in schema order (schema_sig renames self for functions)
    return tuple(self_name if a.name == "self" else a.name for a in s.arguments if not a.is_out)


def _dunder(name: str, ops: dict) -> None:
    """``__add__`` (forward), ``__radd__`` (reflected: operands swapped), ``__iadd__`` (in place)."""
    from .._dispatch import dispatch
    from ._registry import public

    op, nargs = ops["functional"], len(ops["functional"]._schema.arguments)
    pad = [a.default for a in op._schema.arguments[2:]]
    if name.startswith("__r") and name not in ("__rshift__",):
        fast = (op, ("other", "self", *pad))

        def body(self, other):
            return op.fast(other, self, *pad)

    elif name.startswith("__i"):
        op_ = ops["inplace"]
        fast = (op_, ("self", "other", *pad))

        def body(self, other):
            return op_.fast(self, other, *pad)

    elif nargs == 1 or op._schema.arguments[1].kwarg_only:

        def body(self):
            return dispatch(op, [self, *[a.default for a in op._schema.arguments[1:]]])

        public(name, "self", body, relevant=("self",), module="Tensor", ops=(op,))
        return
    else:
        fast = (op, ("self", "other", *pad))

        def body(self, other):
            return op.fast(self, other, *pad)

    public(name, "self, other", body, relevant=("self", "other"), module="Tensor", ops=(op,), fast=fast)


def _args_text(s, mutate_self: bool) -> list[str]:
    parts, kw = [], False
    for a in s.arguments:
        if a.kwarg_only and not kw:
            parts.append("*")
            kw = True
        t = "Tensor(a!)" if mutate_self and a.name == "self" else a.type
        d = "" if not a.has_default else "=" + _default_text(a.default)
        parts.append(f"{t} {a.name}{d}")
    return parts


def _default_text(v) -> str:
    if v is None:
        return "None"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(str(x) for x in v) + "]"
    return repr(v)


def _inplace_schema(s, overload: str | None = None) -> str:
    ov = overload if overload is not None else s.overload_name
    ov = f".{ov}" if ov else ""
    return f"{s.name}_{ov}({', '.join(_args_text(s, True))}) -> Tensor(a!)"


def _out_schema(s, overload: str | None = None) -> str:
    ov = s.overload_name
    out_ov = "out" if ov in ("", "Tensor") else (ov.replace("Tensor_", "out_") if ov.startswith("Tensor_") else f"{ov}_out")
    out_ov = overload or out_ov
    parts = _args_text(s, False)
    if "*" not in parts:
        parts.append("*")
    parts.append("Tensor(a!) out")
    return f"{s.name}.{out_ov}({', '.join(parts)}) -> Tensor(a!)"
