"""Turning Python data (nested lists, NumPy arrays, scalars, tensors) into storage arrays, and the
argument helpers every factory shares (sizes, dtypes, Scalar conversion, ``out=``, allocation).

# Note [torch.tensor's dtype inference]
# PyTorch infers one dtype per element (bool -> bool, int -> int64, float -> the default dtype,
# complex -> the default complex dtype, NumPy scalars/arrays and tensors -> their own dtype) and
# folds them with promote_types. The scan below does that with one set(map(type, row)) per
# innermost row, so plain nested lists of Python numbers cost C speed, and only rows holding
# tensors or arrays take the element-by-element path.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from . import _dtype as D
from ._device import to_device
from ._size import Size
from ._overlap import check_no_internal_overlap
from ._tensor import Tensor
from .kernels import lazy
from .ops._quiet import IGNORE, quiet, restore

_PY_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)
_SEQ_TYPES = (list, tuple, range)


def _py_dtype(tp) -> D.dtype:
    if tp is builtins.bool:
        return D.bool
    if tp is builtins.int:
        return D.int64
    if tp is builtins.float:
        return D.get_default_dtype()
    return D.default_complex()


def _promote(a: D.dtype | None, b: D.dtype) -> D.dtype:
    return b if a is None else D.promote_types(a, b)


def _scan(data, top: bool) -> tuple[D.dtype | None, bool]:
    """(dtype, needs_slow_path): dtype None for an empty sequence."""
    if isinstance(data, _SEQ_TYPES):
        best, slow = None, False
        types = set(map(type, data))
        for tp in types:
            if tp in _PY_SCALARS:
                best = _promote(best, _py_dtype(tp))
        if not types.issubset(_PY_SCALARS):
            for x in data:
                if type(x) in _PY_SCALARS:
                    continue
                d, s = _scan(x, False)
                slow = slow or s
                if d is not None:
                    best = _promote(best, d)
        return best, slow
    if isinstance(data, Tensor):
        return data._dtype, not top
    if isinstance(data, np.ndarray):
        return _np_dtype(data.dtype), not top
    if isinstance(data, np.generic):
        return _np_dtype(data.dtype), False
    if type(data) in _PY_SCALARS:
        return _py_dtype(type(data)), False
    if isinstance(data, str):
        if top:
            raise TypeError("new(): invalid data type 'str'")
        raise ValueError("too many dimensions 'str'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _np_dtype(npd) -> D.dtype:
    return D.from_numpy_dtype(npd)


def infer_dtype(data) -> D.dtype:
    """PyTorch's inference for ``torch.tensor(data)`` (Note [torch.tensor's dtype inference])."""
    d, _ = _scan(data, True)
    return d if d is not None else D.get_default_dtype()


def data_to_array(data, dtype: D.dtype | None = None) -> np.ndarray:
    """A fresh C-contiguous array holding ``data`` as ``dtype`` (inferred when None)."""
    src, slow = _scan(data, True)
    src = src if src is not None else D.get_default_dtype()
    dt = src if dtype is None else dtype
    if isinstance(data, Tensor):
        return _cast(np.array(data._host(), copy=True), dt, check=False)
    if isinstance(data, np.ndarray):
        return _cast(np.array(data, copy=True), dt, check=False)
    if slow:
        flat, shape = _flatten(data, dt)
        return _cast(_convert(flat, src, dt), dt).reshape(shape)
    try:
        arr = _convert(data, src, dt)
    except ValueError as e:
        if "Overflow" in str(e):
            raise
        arr = None
    if arr is None:  # outside the except block: NumPy's error is not chained to PyTorch's
        flat, shape = _flatten(data, dt)  # raises PyTorch's message for ragged data
        arr = _convert(flat, src, dt).reshape(shape)
    return _cast(arr, dt)


def _convert(data, src: D.dtype, dt: D.dtype) -> np.ndarray:
    if src.category == D._COMPLEX and dt.category != D._COMPLEX and dt is not D.bool:
        raise TypeError("must be real number, not complex")
    # integers go through int64 (or float64) first so out-of-range values get PyTorch's
    # overflow check instead of NumPy's OverflowError
    via = dt.np
    if dt.category == D._INT:
        # uint64 holds [0, 2**64) exactly, so it reads Python ints directly (negatives raise)
        via = np.float64 if src.category >= D._FLOAT else np.uint64 if dt is D.uint64 else np.int64
    tok = quiet(IGNORE)  # np.errstate(over/invalid="ignore") without its ~1 us (Note [Quiet floating-point flags])
    try:
        return np.array(data, dtype=via)
    except OverflowError:
        if via is np.uint64 and np.array(data, dtype=object).min() < 0:
            raise OverflowError("can't convert negative int to unsigned") from None
        raise ValueError("Overflow when unpacking long long") from None
    except TypeError as e:
        if "inhomogeneous" in str(e) or "sequence" in str(e):
            raise ValueError(str(e)) from None
        raise
    finally:
        restore(tok)


def _cast(arr: np.ndarray, dt: D.dtype, check: bool = True) -> np.ndarray:
    if check and dt.category == D._INT and arr.dtype != dt.np and arr.size:
        _check_int_range(arr, dt)
    if arr.dtype != dt.np:
        with np.errstate(over="ignore", invalid="ignore"):
            arr = arr.astype(dt.np)
    return arr if arr.flags.c_contiguous else c_copy(arr)


# NumPy's strided copy of a transposed view reads a new cache line per element; from this many
# elements the cache-blocked kernel wins (measured crossover ~64K elements: 256x256 float32
# 51 us vs 55 us, 4096x1024 3.6 ms vs 27 ms; below it the kernel's ~10 us set-up dominates).
BLOCKED_COPY_MIN = 1 << 16
_KC = lazy("numtorch.kernels.cpu.shape")


def blocked_copy_into(out: np.ndarray, a: np.ndarray) -> None:
    """``np.copyto(out, a)`` for same-shape/dtype arrays, cache-blocked where ``a`` is a large
    view whose last dim is not unit-stride (a transpose or permute)."""
    if a.size < BLOCKED_COPY_MIN or a.strides[-1] == a.itemsize or not _KC.copy_into(out, a):
        np.copyto(out, a)


def c_copy(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``a`` (``a.copy()``), cache-blocked for large transposed views."""
    if a.size < BLOCKED_COPY_MIN or a.ndim < 2 or a.strides[-1] == a.itemsize:
        return a.copy()
    out = np.empty(a.shape, a.dtype)
    blocked_copy_into(out, a)
    return out


def _check_int_range(arr: np.ndarray, dt: D.dtype) -> None:
    info = np.iinfo(dt.np)
    lo, hi = info.min, info.max
    if arr.dtype.kind == "f":
        bad = not np.isfinite(arr).all() or arr.min() < lo or arr.max() > hi
    else:
        if lo == 0:
            lo = -hi  # PyTorch lets negative ints wrap into unsigned types
        bad = arr.min() < lo or arr.max() > hi
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def _flatten(data, dt: D.dtype) -> tuple[list, tuple]:
    """Validate the nesting of ``data`` as PyTorch does and return (flat scalars, shape)."""
    shape, x = [], data
    while _is_seq(x):
        shape.append(len(x))
        if not len(x):
            break
        x = x[0]
    out: list = []
    _fill(data, shape, 0, out, dt)
    return out, tuple(shape)


def _is_seq(x) -> bool:
    return isinstance(x, _SEQ_TYPES) or isinstance(x, np.ndarray) and x.ndim > 0


def _fill(x, shape, dim, out, dt) -> None:
    if dim == len(shape):
        if _is_seq(x):
            name = type(x).__name__
            if dt.category <= D._INT:
                raise TypeError(f"'{name}' object cannot be interpreted as an integer")
            raise TypeError(f"must be real number, not {name}")
        if isinstance(x, Tensor):
            if x._data.size != 1:
                if x._dtype.category <= D._INT:
                    raise TypeError(
                        "only integer tensors of a single element can be converted to an index"
                    )
                raise ValueError("only one element tensors can be converted to Python scalars")
            x = x._host().reshape(()).item()
        out.append(x)
        return
    if not _is_seq(x):
        raise TypeError("not a sequence")
    if len(x) != shape[dim]:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(x)})")
    for e in x:
        _fill(e, shape, dim + 1, out, dt)


# ---- factory argument helpers ----------------------------------------------------------------------
# c10::ScalarType numbers, as schema defaults such as ``ScalarType? dtype=4`` spell them
_SCALAR_TYPES = {0: D.uint8, 1: D.int8, 2: D.int16, 3: D.int32, 4: D.int64, 5: D.float16,
                 6: D.float32, 7: D.float64, 9: D.complex64, 10: D.complex128, 11: D.bool,
                 15: D.bfloat16}  # fmt: skip
_CTYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
           "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
           "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}  # fmt: skip
_CNAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
           "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
           "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint16": "UInt16",
           "uint32": "UInt32", "uint64": "UInt64"}  # fmt: skip


# ---- argument helpers (shared with random.py) --------------------------------------------------
def cname(dt: D.dtype) -> str:
    """PyTorch's C++ name of a dtype, as error messages print it ("Float", "Long")."""
    return _CNAMES[dt.name]


def dtype_arg(dtype, fname: str = "") -> D.dtype | None:
    """Validate a public ``dtype=`` argument (numtorch dtype or Python type) without resolving None."""
    if dtype is None or isinstance(dtype, D.dtype):
        return dtype
    if dtype in (builtins.float, builtins.int, builtins.bool, builtins.complex):
        return D.to_dtype(dtype)
    raise TypeError(f"{fname}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")


def resolve_dtype(dtype, default: D.dtype | None = None) -> D.dtype:
    """A kernel's dtype argument: None -> ``default`` (the default float), ints -> ScalarType."""
    if dtype is None:
        return D.get_default_dtype() if default is None else default
    if type(dtype) is builtins.int:
        return _SCALAR_TYPES[dtype]
    return D.to_dtype(dtype)


_SIZE_TYPES = (tuple, list, Size)


def _size_elem(s):
    if type(s) is builtins.int or isinstance(s, np.integer):
        return builtins.int(s)
    if isinstance(s, Tensor) and s._data.ndim == 0 and s._dtype.category == D._INT:
        return builtins.int(s.item())
    return None


def size_kwarg(sizes: tuple, size, fname: str) -> tuple:
    """``f(2, 3)`` or ``f(size=(2, 3))``: PyTorch's parser takes the size by keyword too."""
    if size is None:
        return sizes
    if sizes:
        raise TypeError(f"{fname}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    return (size,)


def size_arg(size, fname: str = "", check=True, required=False) -> tuple:
    """Normalise ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size(...))`` to a tuple."""
    flat = size[0] if len(size) == 1 and type(size[0]) in _SIZE_TYPES else size
    if flat and all(type(s) is builtins.int and s >= 0 for s in flat):  # the common case, fast
        return tuple(flat)
    if len(size) > 1 and isinstance(size[0], (tuple, list)):
        raise TypeError(f"{fname}() takes 1 positional argument but {len(size)} were given")
    if not size and required:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and not isinstance(size[0], (builtins.int, np.integer, Tensor)):
        size = size[0]
        if not isinstance(size, (tuple, list)):
            raise TypeError(
                f"{fname}(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
            )
    elif len(size) == 1 and isinstance(size[0], Tensor) and _size_elem(size[0]) is None:
        raise TypeError(
            f"{fname}(): argument 'size' (position 1) must be tuple of ints, not Tensor"
        )
    out = []
    for i, s in enumerate(size):
        v = _size_elem(s) if type(s) is not builtins.bool else None
        if v is None:
            if len(size) == 1:
                raise TypeError(
                    f"{fname}(): argument 'size' (position 1) must be tuple of ints, not {type(s).__name__}"
                )
            raise TypeError(
                f"{fname}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                f'"type must be tuple of ints,but got {type(s).__name__}"'
            )
        out.append(v)
    if check:
        check_size(out, fname)
    return tuple(out)


def check_size(size, fname: str = "") -> None:
    for s in size:
        if s < 0:
            if fname == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")


def finish(t: Tensor, requires_grad: bool) -> Tensor:
    """Apply ``requires_grad=`` to a fresh factory result (a leaf)."""
    if requires_grad:
        if t._dtype.category < D._FLOAT:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._rg = True
    return t


# Note [Deterministic fill of uninitialized memory]
# As PyTorch's: with use_deterministic_algorithms(True) and utils.deterministic.fill_uninitialized_memory
# (default True), empty-style factories fill their storage with NaN (floating / complex) or the
# dtype's largest value (integers, True for bool), so reading uninitialized memory is reproducible
# and conspicuous. _config keeps the flag in sync with both settings.
FILL_UNINITIALIZED = [False]


def _fill_uninitialized(arr: np.ndarray) -> None:
    k = arr.dtype.kind
    if k in "fc":
        arr.fill(np.nan)
    elif k == "b":
        arr.fill(True)
    else:
        arr.fill(np.iinfo(arr.dtype).max)


def check_storage(shape, npdtype) -> int:
    """The element count of ``shape``; PyTorch's error where its byte size overflows."""
    n = math.prod(shape)
    if n * np.dtype(npdtype).itemsize >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return n


def alloc(shape, npdtype, fill=None) -> np.ndarray:
    """np.empty/zeros/full with PyTorch's errors for impossible sizes."""
    shape = tuple(shape)
    n = check_storage(shape, npdtype)
    try:
        if fill is None:
            arr = np.empty(shape, npdtype)
            if FILL_UNINITIALIZED[0]:
                _fill_uninitialized(arr)
            return arr
        if fill == 0 and type(fill) is not builtins.complex and math.copysign(1.0, fill) > 0:  # -0.0 is kept
            return np.zeros(shape, npdtype)
        return np.full(shape, fill, npdtype)
    except MemoryError:
        raise RuntimeError(_no_memory(n * np.dtype(npdtype).itemsize)) from None


def _no_memory(nbytes: int) -> str:
    return (f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. "
            "Error code 12 (Cannot allocate memory)")  # fmt: skip


def write_out(out: Tensor, arr: np.ndarray, fill: bool = False) -> Tensor:
    """Resize ``out`` (as ``resize_`` does) when its shape differs, copy ``arr`` in, bump its version.

    An expanded ``out`` raises PyTorch's internal-overlap error (Note [Written-to memory]),
    except for ``fill`` (zeros/ones/full/empty fill every element with one value: ATen allows it)."""
    if not fill and out._data.shape == arr.shape:  # a resized out owns fresh memory
        check_no_internal_overlap(out._data)
    if out._data.shape != arr.shape:
        out._data = alloc(arr.shape, out._dtype.np)
    with np.errstate(all="ignore"):
        np.copyto(out._data, arr, casting="unsafe")
    out._vc[0] += 1
    return out


def check_out_dtype(out: Tensor, dtype) -> None:
    if dtype is not None and dtype is not out._dtype:
        raise RuntimeError(
            f"dtype {cname(dtype)} does not match dtype of out parameter ({cname(out._dtype)})"
        )


def number(v, fname: str, arg: str, pos: int):
    """A Python number from a Scalar argument (Python/NumPy number or one-element tensor)."""
    if isinstance(v, Tensor):
        if v._data.ndim:
            raise TypeError(
                f"{fname}(): argument '{arg}' (position {pos}) must be Number, not Tensor"
            )
        return v.item()
    if isinstance(v, np.generic):
        return v.item()
    if type(v) in (builtins.bool, builtins.int, builtins.float, builtins.complex):
        return v
    raise TypeError(
        f"{fname}(): argument '{arg}' (position {pos}) must be Number, not {type(v).__name__}"
    )


def scalar_dtype(v) -> D.dtype:
    """The dtype a Scalar fill value gives (bool, int64, default float, default complex)."""
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, (builtins.bool, np.bool_)):
        return D.bool
    if isinstance(v, (builtins.int, np.integer)):
        return D.int64
    if isinstance(v, (builtins.complex, np.complexfloating)):
        return D.default_complex()
    return D.get_default_dtype()


def scalar_to(v, dt: D.dtype):
    """PyTorch's checked ``Scalar.to<T>()``: the value as ``dt`` holds it, or its overflow error."""
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, np.generic):
        v = v.item()
    if dt is D.bool:
        return builtins.bool(v)
    if type(v) is builtins.int and not -(2**63) <= v < 2**64:
        raise OverflowError("int too big to convert")
    if dt.category == D._COMPLEX:
        return builtins.complex(v)
    bad = False
    if type(v) is builtins.complex:
        bad, v = v.imag != 0, v.real
    if dt.category == D._INT:
        info = np.iinfo(dt.np)
        if type(v) is builtins.float:
            bad = bad or v != v or not info.min <= v <= info.max
            v = builtins.int(v) if not bad else 0
        lo = -info.max if info.min == 0 else info.min
        bad = bad or not lo <= v <= info.max
        if not bad and v < 0 and info.min == 0:
            v += info.max + 1  # negative ints wrap into unsigned types, as in C++
    else:
        v = builtins.float(v)
        bad = bad or (math.isfinite(v) and abs(v) > D.finfo(dt).max)
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_CTYPES[dt.name]} without overflow")
    return v


def device_arg(device):
    return None if device is None else to_device(device)


def like_array(a: np.ndarray, npdtype, fill=None, memory_format=None) -> np.ndarray:
    """A new array shaped like ``a``; keeps ``a``'s stride order when ``a`` is dense (preserve_format)."""
    if a.ndim < 2 or a.flags.c_contiguous or "contiguous" in str(memory_format):
        return alloc(a.shape, npdtype, fill)
    perm = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    if not a.transpose(perm).flags.c_contiguous:
        return alloc(a.shape, npdtype, fill)
    inv = np.argsort(perm)
    return alloc([a.shape[i] for i in perm], npdtype, fill).transpose(inv)


def strided_array(size, stride, npdtype) -> np.ndarray:
    """An uninitialised array with the given element strides over a flat buffer."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})"
        )
    check_size(size)
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}"
        )
    n = 0 if 0 in size else 1 + sum((sz - 1) * st for sz, st in zip(size, stride, strict=True))
    buf = alloc((n,), npdtype)
    isz = buf.itemsize
    # np.ndarray over the buffer: as_strided's Python layers cost ~5 us of a small call
    return np.ndarray(size, buf.dtype, buf, 0, tuple(st * isz for st in stride))


# ---- range values ---------------------------------------------------------------------------------
def arange_array(s, e, st, dt: D.dtype) -> np.ndarray:
    """arange's values with PyTorch's checks and length rule (ints: exact on truncated bounds)."""
    fs, fe, fst = builtins.float(s), builtins.float(e), builtins.float(st)
    if fst == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(fs) and math.isfinite(fe)):
        raise RuntimeError(f"unsupported range: {fs:g} -> {fe:g}")
    if not ((fst > 0 and fe >= fs) or (fst < 0 and fe <= fs)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    xs, xst = (builtins.int(s), builtins.int(st)) if dt.category == D._INT else (fs, fst)
    if dt is D.int64:  # exact integer length on the truncated bounds, as PyTorch
        if xst == 0:
            raise ValueError("step must be nonzero")
        n = max(0, (builtins.int(e) - xs + xst - (1 if xst > 0 else -1)) // xst)
    else:
        n = math.ceil((fe - fs) / fst)
    if n * dt.itemsize >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{n}]")
    try:
        if dt.category == D._INT:
            with np.errstate(over="ignore"):
                arr = (np.int64(xs) + np.int64(xst) * np.arange(n, dtype=np.int64)).astype(dt.np)
        else:  # PyTorch's CPU kernel accumulates in double (float for half)
            acc = np.float32 if dt is D.float16 else np.float64
            arr = (acc(xs) + acc(xst) * np.arange(n, dtype=acc)).astype(dt.np)
    except (MemoryError, ValueError):  # NumPy's _ArrayMemoryError or "array is too big" (2**62 int8)
        raise RuntimeError(_no_memory(n * dt.itemsize)) from None
    return arr


def space_array(start, end, steps, dt: D.dtype, fname: str, base=None) -> np.ndarray:
    """linspace/logspace values (PyTorch's CPU kernel arithmetic)."""
    s, e = number(start, fname, "start", 1), number(end, fname, "end", 2)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps == 0:  # PyTorch resizes the result and returns: no dtype or value check
        return np.empty(0, dt.np)
    if dt is D.bool:
        if steps > 1:
            raise NotImplementedError(f"\"{fname}_cpu\" not implemented for 'Bool'")
        with np.errstate(all="ignore"):  # one step is fill_(start), or fill_(pow(base, start))
            return np.full(1, bool(s if base is None else np.power(np.float64(base), s)))
    # PyTorch's kernel: start + step*i for the first half, end - step*(steps-1-i) for the second;
    # integer dtypes step in double, floating dtypes in their own precision.
    ct = np.float64 if dt.category == D._INT else (np.float32 if dt is D.float16 else dt.np.type)
    s, e = ct(scalar_to(s, dt)), ct(scalar_to(e, dt))
    idx = np.arange(steps, dtype=ct)
    if steps == 1:
        vals = np.full(1, s, ct)
    else:
        step = (e - s) / ct(steps - 1)
        vals = np.where(idx < steps // 2, s + step * idx, e - step * (ct(steps - 1) - idx)).astype(
            ct
        )
    if base is not None:
        with np.errstate(all="ignore"):
            vals = np.power(ct(base), vals)
    with np.errstate(all="ignore"):
        return vals.astype(dt.np)
