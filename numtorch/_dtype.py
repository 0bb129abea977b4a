"""dtypes, PyTorch's type promotion (Python scalars are weak), finfo and iinfo."""

from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

# Category order drives promotion: bool < integer < floating < complex.
_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    """A numtorch data type, mirroring ``torch.dtype``.

    >>> numtorch.float32
    torch.float32
    """

    __slots__ = ("name", "np", "itemsize", "category", "is_signed", "_rank")

    def __init__(self, name: str, np_dtype, category: int, rank: int):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category
        self.is_signed = category != _BOOL and not name.startswith("uint")
        self._rank = rank

    @property
    def is_floating_point(self) -> bool:
        return self.category == _FLOAT

    @property
    def is_complex(self) -> bool:
        return self.category == _COMPLEX

    def to_real(self) -> dtype:
        return _TO_REAL.get(self, self)  # module tables: a dict built per call cost 0.3 us

    def to_complex(self) -> dtype:
        return _TO_COMPLEX.get(self, self)

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return self.name


bool = dtype("bool", np.bool_, _BOOL, 0)  # noqa: A001 - mirrors torch.bool
uint8 = dtype("uint8", np.uint8, _INT, 1)
int8 = dtype("int8", np.int8, _INT, 2)
int16 = dtype("int16", np.int16, _INT, 3)
int32 = dtype("int32", np.int32, _INT, 4)
int64 = dtype("int64", np.int64, _INT, 5)
float16 = dtype("float16", np.float16, _FLOAT, 6)
float32 = dtype("float32", np.float32, _FLOAT, 7)
float64 = dtype("float64", np.float64, _FLOAT, 8)
complex64 = dtype("complex64", np.complex64, _COMPLEX, 9)
complex128 = dtype("complex128", np.complex128, _COMPLEX, 10)

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)

# Note [Wide unsigned dtypes]
# PyTorch 2.3+ has uint16/uint32/uint64 as "limited support" dtypes: creation, casts, copies,
# eq/ne, mul, the bitwise and/or/xor, sort/unique, sum/prod and the float-valued math work;
# promotion with any other dtype except a real floating one raises, and every other kernel
# raises NotImplementedError "... not implemented for 'UInt16'". They stay out of ALL_DTYPES
# (what "every dtype" loops and the OpInfo sweeps cover); the pointwise engine refuses them
# outside UINT_OPS (numtorch/ops/_pointwise.py), other ops through their own dtype checks.
uint16 = dtype("uint16", np.uint16, _INT, 11)
uint32 = dtype("uint32", np.uint32, _INT, 12)
uint64 = dtype("uint64", np.uint64, _INT, 13)
UINT_WIDE = (uint16, uint32, uint64)

# Note [bfloat16]
# NumPy has no bfloat16; ml_dtypes (Google's, used by JAX) registers one as a NumPy dtype, so a
# bfloat16 tensor's storage is an ordinary ndarray: views, copies, indexing and RNE casts are
# NumPy's. Numba cannot type it, so no kernel ever sees one: every bfloat16 tensor carries the
# device object BF16_CPU (equal to cpu, but not ``is`` CPU), which sends it past every fast
# path to the backend key, where numtorch/_bfloat16.py runs the op on float32 copies and rounds
# the result back (float32 is PyTorch's opmath type for bfloat16, and its float32 kernels are
# reused: bfloat16 adds no Numba specialisation). It stays out of ALL_DTYPES, as the wide
# unsigned ones do: the OpInfo sweeps would otherwise run every op in it.
# Its rank sits between float16 and float32: with float16 it promotes to float32 (below).
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, _FLOAT, 6.5)
_TO_REAL = {complex64: float32, complex128: float64}
_TO_COMPLEX = {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128}
ALIASES = {
    "float": float32,
    "double": float64,
    "half": float16,
    "bfloat16": bfloat16,
    "long": int64,
    "int": int32,
    "short": int16,
    "cfloat": complex64,
    "cdouble": complex128,
}
_FROM_NP = {d.np: d for d in ALL_DTYPES + UINT_WIDE}  # not bfloat16: from_numpy refuses it, as torch

_default = float32


def get_default_dtype() -> dtype:
    """The dtype of floating tensors created from Python floats (float32 unless changed).

    >>> numtorch.get_default_dtype()
    torch.float32
    """
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype (float32 or float64, or float16).

    >>> numtorch.set_default_dtype(numtorch.float64); numtorch.set_default_dtype(numtorch.float32)
    """
    global _default
    if not isinstance(d, dtype) or d.category != _FLOAT:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default = d


def default_complex() -> dtype:
    return complex128 if _default is float64 else complex64


def from_numpy_dtype(npd) -> dtype:
    try:
        return _FROM_NP[np.dtype(npd)]
    except KeyError:
        name = "ml_dtypes.bfloat16" if np.dtype(npd) == bfloat16.np else np.dtype(npd)
        raise TypeError(
            f"can't convert np.ndarray of type {name}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
            "uint32, uint16, uint8, and bool."
        ) from None


def to_dtype(d) -> dtype:
    """Accept a numtorch dtype, a numpy dtype or a Python type (float/int/bool/complex)."""
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if d is builtins.complex:
        return complex128
    return from_numpy_dtype(d)


def _build_promotion_table():
    # PyTorch's table: within a category the wider wins; uint8 with a signed int goes to the
    # signed type that holds both (int16 for int8).
    table = {}
    for a in ALL_DTYPES + (bfloat16,):
        for b in ALL_DTYPES + (bfloat16,):
            if a is b:
                r = a
            elif {a, b} == {uint8, int8}:
                r = int16
            elif {a, b} == {float16, bfloat16}:  # neither holds the other: float32 holds both
                r = float32
            elif a.category == _COMPLEX or b.category == _COMPLEX:
                real = max(
                    (x.to_real() if x.category == _COMPLEX else x for x in (a, b)),
                    key=lambda x: x._rank,
                )
                r = complex128 if real is float64 else complex64
            else:
                r = a if a._rank > b._rank else b
            table[a, b] = r
    # Note [Wide unsigned dtypes]: only with itself or a real floating dtype (missing pairs raise)
    for u in UINT_WIDE:
        table[u, u] = u
        for f in (float16, bfloat16, float32, float64):
            table[u, f] = table[f, u] = f
    return table


_PROMOTE = _build_promotion_table()


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both can be cast to without losing category.

    >>> numtorch.promote_types(numtorch.int32, numtorch.float32)
    torch.float32
    """
    try:
        return _PROMOTE[type1, type2]
    except KeyError:
        raise _no_promotion(type1, type2) from None


_CXX_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
              "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
              "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}  # fmt: skip


def _no_promotion(a: dtype, b: dtype) -> Exception:
    if not isinstance(a, dtype) or not isinstance(b, dtype):
        return TypeError(f"promote_types(): argument 'type1' must be torch.dtype, not {type(a).__name__}")
    return RuntimeError(
        "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
        f"{_CXX_NAMES[a.name]} and {_CXX_NAMES[b.name]}"
    )


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` (no category downgrade).

    >>> numtorch.can_cast(numtorch.double, numtorch.float)
    True
    """
    if from_.category > to.category:
        return False
    if to is bool and from_ is not bool:
        return False
    return True


def scalar_dtype(value) -> dtype:
    """The dtype a Python scalar takes when it is the only participant."""
    t = type(value)
    if t is builtins.bool or t is np.bool_:
        return bool
    if t is builtins.int:
        return int64
    if t is builtins.float:
        return _default
    if t is builtins.complex:
        return default_complex()
    if isinstance(value, np.generic):
        return from_numpy_dtype(value.dtype)
    raise TypeError(f"expected a number, got {t.__name__}")


def _combine_categories(higher: dtype | None, lower: dtype | None) -> dtype | None:
    # at::native::combine_categories: a higher-priority group wins unless the lower one has a
    # higher category, in which case only the category (not the width) is taken from it.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == _COMPLEX:
        return higher
    if lower.category == _COMPLEX:
        return higher.to_complex() if higher.category == _FLOAT else lower
    if higher.category == _FLOAT:
        return higher
    if higher is bool or lower.category == _FLOAT:
        return promote_types(higher, lower)
    return higher


def result_type_of(dim_types, zero_dim_types, scalars) -> dtype:
    """Promotion over tensors with dims, 0-d tensors and Python scalars, in priority order."""
    try:
        return _result_type_of(dim_types, zero_dim_types, scalars)
    except KeyError as e:  # a wide unsigned dtype with another one (Note [Wide unsigned dtypes])
        raise _no_promotion(*e.args[0]) from None


def _groups(dim_types, zero_dim_types, scalars):
    dim_r = zero_r = wrap_r = None
    for d in dim_types:
        dim_r = d if dim_r is None else _PROMOTE[dim_r, d]
    for d in zero_dim_types:
        zero_r = d if zero_r is None else _PROMOTE[zero_r, d]
    for s in scalars:
        d = scalar_dtype(s)
        # A wrapped float/complex takes the default dtype, so promote in category only.
        wrap_r = d if wrap_r is None else _PROMOTE[wrap_r, d]
    return dim_r, zero_r, wrap_r


def _result_type_of(dim_types, zero_dim_types, scalars) -> dtype:
    dim_r, zero_r, wrap_r = _groups(dim_types, zero_dim_types, scalars)
    r = _combine_categories(dim_r, _combine_categories(zero_r, wrap_r))
    return r if r is not None else _default


def is_complex_half(dim_types, zero_dim_types, scalars) -> bool:
    """Whether PyTorch's promotion gives ComplexHalf (complex32), which numtorch lacks and
    gives as complex64: a float16 group whose lower-priority group is complex takes only the
    category (float16 tensor + 0-d complex64 tensor). Ops without a ComplexHalf kernel refuse it."""
    dim_r, zero_r, wrap_r = _groups(dim_types, zero_dim_types, scalars)
    inner = _combine_categories(zero_r, wrap_r)
    if dim_r is None:
        return zero_r is float16 and wrap_r is not None and wrap_r.category == _COMPLEX
    return dim_r is float16 and inner is not None and inner.category == _COMPLEX


class finfo:
    """Machine limits for floating dtypes, as ``torch.finfo``.

    >>> numtorch.finfo(numtorch.float32).eps
    1.1920928955078125e-07
    """

    def __init__(self, type: dtype | None = None):  # noqa: A002 - torch's parameter name
        d = _default if type is None else to_dtype(type)
        if d.category < _FLOAT:
            raise TypeError("torch.finfo() requires a floating point input type.")
        fi = ml_dtypes.finfo(d.np) if d is bfloat16 else np.finfo(d.np)
        self.dtype = d.to_real().name
        self.bits = fi.bits
        self.eps = float(fi.eps)
        self.max = float(fi.max)
        self.min = float(fi.min)
        self.tiny = self.smallest_normal = float(fi.tiny)
        # 10**-precision, as NumPy's own types give; ml_dtypes' is that value rounded to bfloat16
        self.resolution = float(10.0 ** -fi.precision)

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Machine limits for integer dtypes, as ``torch.iinfo``.

    >>> numtorch.iinfo(numtorch.int8).max
    127
    """

    def __init__(self, type: dtype):  # noqa: A002 - torch's parameter name
        d = to_dtype(type)
        if d.category != _INT:
            raise TypeError("torch.iinfo() requires an integer input type.")
        ii = np.iinfo(d.np)
        self.dtype = d.name
        self.bits = ii.bits
        self.max = int(ii.max)
        self.min = int(ii.min)

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"  # C++ float printing
