"""Shape ops that copy: clone, contiguous, flip, roll, repeat, tril/triu, diag, and the memory
formats (``numtorch.contiguous_format``, ...). Joins live in ``join.py``, in-place data ops
(copy_, fill_, zero_, resize_) in ``inplace.py``; the memory formats themselves in ``_format.py``.

Pure data movement stays in NumPy, which does each of these in one pass (STYLE rule 4), except
large transposed copies in clone/contiguous (cache-blocked, kernels/cpu/shape.py).
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ..._factory_utils import blocked_copy_into, c_copy
from ...kernels import lazy
from ..._tensor import Tensor, _make, _wrap_dim
from ..._overlap import check_no_internal_overlap
from ..._overlap import dense as _dense
from .._pointwise import _cname, _resize_out
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from .._registry import OPS, defop
from .core import (
    _c,
    _dims_set,
    _est,
    _int,
    _ints,
    _required,
    _sh,
    _size,
    _strided,
    _wrap_strict,
    both,
    reshape,
    varargs_method,
)
from ._format import _FORMATS, channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from .views import diagonal as _diagonal


def as_format(fmt, default=preserve_format) -> memory_format:
    if fmt is None:
        return default
    if isinstance(fmt, memory_format):
        return fmt
    if isinstance(fmt, int) and 0 <= fmt < len(
        _FORMATS
    ):  # aten passes MemoryFormat as its enum value
        return _FORMATS[fmt]
    raise TypeError(f"expected a torch.memory_format, got {type(fmt).__name__}")


# ---- layouts -----------------------------------------------------------------------------------
def _c_strides(shape) -> tuple:
    st, acc = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        st[d] = acc
        acc *= max(shape[d], 1)
    return tuple(st)


def _infer_dense_strides(shape, st) -> tuple:
    """at::infer_dense_strides: a dense layout keeping the input's dimension order (the
    insertion sort TensorIterator uses; stride-0 dimensions stay where they are)."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0, d1):
        s0, s1 = st[d0], st[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, nd):
        d1 = i
        for j in range(1, i + 1):
            d0 = i - j
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out, acc = [0] * nd, 1
    for d in perm:
        out[d] = acc
        acc *= max(shape[d], 1)
    return tuple(out)


def _format_strides(shape, fmt: memory_format):
    nd = len(shape)
    if fmt is channels_last or fmt is channels_last_3d:
        want = 4 if fmt is channels_last else 5
        if nd != want:
            raise RuntimeError(f"required rank {want} tensor to use {fmt.name} format")
        order = [0] + list(range(2, nd)) + [1]  # N, spatial..., C from outermost to innermost
        st, acc = [0] * nd, 1
        for d in reversed(order):
            st[d] = acc
            acc *= max(shape[d], 1)
        return tuple(st)
    return _c_strides(shape)


# Note [Preserved layout cache]
# clone/flip/to of a view ask empty_layout for the preserve_format layout of the input: its
# element strides, or infer_dense_strides' insertion sort where they are not dense, compared
# with the C strides (~0.6 us of a 3.7 us clone of a (4, 5) expanded gradient). The answer
# depends only on the shape, byte strides and itemsize, so it is kept in _PRESERVED under
# those (None: C order, the common answer for an expanded or transposed-back input), cleared
# at _PRESERVED_MAX keys. Every NumPy shape and stride is an int: nothing else hashes equal.
_PRESERVED: dict = {}
_PRESERVED_MAX = 512


def _preserved_strides(a: np.ndarray):
    key = (a.shape, a.strides, a.itemsize)
    st = _PRESERVED.get(key, False)
    if st is False:
        st = _est(a)
        if not _dense(a.shape, st):
            st = _infer_dense_strides(a.shape, st)
        if st == _c_strides(a.shape):
            st = None
        if len(_PRESERVED) >= _PRESERVED_MAX:
            _PRESERVED.clear()
        _PRESERVED[key] = st
    return st


def empty_layout(a: np.ndarray, fmt: memory_format, npd=None) -> np.ndarray:
    """An uninitialised array shaped like ``a``, laid out as ``empty_like(a, memory_format=fmt)``."""
    npd = a.dtype if npd is None else npd
    if fmt is preserve_format:
        st = _preserved_strides(a)
        if st is None:
            return np.empty(a.shape, npd)
    else:
        st = _format_strides(a.shape, fmt)
        if st == _c_strides(a.shape):
            return np.empty(a.shape, npd)
    return _strided(np.empty(a.size, npd), a.shape, st)


def is_contiguous_as(a: np.ndarray, fmt: memory_format) -> bool:
    """Tensor.is_contiguous(memory_format=fmt), as c10's compute_channels_last_contiguous_*:
    the channels-last formats need their rank, size-1 dims are free, and preserve_format asks
    the plain (row-major) question."""
    if fmt is preserve_format or fmt is contiguous_format:
        return bool(a.flags.c_contiguous)
    if a.ndim != (4 if fmt is channels_last else 5):
        return False
    expected, st = 1, _est(a)
    for d in [1, *range(a.ndim - 1, 1, -1), 0]:  # C innermost, then W, H(, D), N
        if a.shape[d] != 1:
            if st[d] != expected:
                return False
            expected *= a.shape[d]
    return True


def suggest_format(a: np.ndarray) -> memory_format:
    """PyTorch's suggest_memory_format: channels_last(_3d) for 4-D (5-D) tensors laid out so."""
    if a.ndim in (4, 5) and not a.flags.c_contiguous:
        fmt = channels_last if a.ndim == 4 else channels_last_3d
        if is_contiguous_as(a, fmt):
            return fmt
    return contiguous_format


_KH = lazy("numtorch.kernels.cpu.half")
_F16 = np.dtype(np.float16)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
HALF_KERNEL_MIN = 64  # below this NumPy's per-element routine costs less than a kernel call


def _f32_to_f16():
    fn = _F32_TO_F16[0]
    if fn is None:  # Note [float16 by fptrunc]: the instruction where the target has one
        fn = _F32_TO_F16[0] = _KH.f32_to_f16_fptrunc if _KH.fptrunc_is_an_instruction() else _KH.f32_to_f16
    return fn


_F32_TO_F16: list = [None]


def assign(dst: np.ndarray, src: np.ndarray) -> None:
    """Copy ``src`` into ``dst`` (broadcast, cast as PyTorch does: complex to real drops the
    imaginary part with PyTorch's warning; NaN/out-of-range float to int is unspecified)."""
    if (dst.dtype == _F16 and dst.size >= HALF_KERNEL_MIN and dst.shape == src.shape
            and dst.flags.c_contiguous and src.flags.c_contiguous and not np.may_share_memory(dst, src)):  # fmt: skip
        fn = _f32_to_f16() if src.dtype == _F32 else _KH.f64_to_f16 if src.dtype == _F64 else None
        if fn is not None:  # Note [float16 conversion]: NumPy's bits, vectorised
            fn(src.reshape(-1), dst.reshape(-1).view(np.uint16))
            return
    if src.dtype.kind == "c" and dst.dtype.kind != "c":
        warnings.warn(
            "Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4
        )
        src = src.real
    safe = _QUIET.get((src.dtype, dst.dtype))
    if safe is None:
        safe = _QUIET[src.dtype, dst.dtype] = bool(np.can_cast(src.dtype, dst.dtype, "safe"))
    if safe:  # a safe cast raises no floating-point flag: no error state to set
        np.copyto(dst, src, casting="unsafe")
        return
    tok = _quiet(_IGNORE)  # np.errstate without its ~1 us (Note [Quiet floating-point flags])
    try:
        np.copyto(dst, src, casting="unsafe")
    finally:
        _restore(tok)


_QUIET: dict = {}  # (source, destination) NumPy dtypes -> whether the cast is safe


def zeros_like_tensor(t: Tensor) -> Tensor:
    return _c(OPS["aten::zeros_like"], t, None, None, None, None, None)


def write_out(out: Tensor, arr: np.ndarray) -> Tensor:
    """Resize ``out`` to ``arr``'s shape (with PyTorch's deprecation warning if it held data),
    copy ``arr`` in, bump the version. An expanded ``out`` raises (Note [Written-to memory])."""
    if out._data.shape == arr.shape:  # a resized out owns fresh memory
        check_no_internal_overlap(out._data)
    if out._data.shape != arr.shape:
        _resize_out(out, arr.shape)
    assign(out._data, arr)
    out._vc[0] += 1
    return out


# ---- clone / contiguous ------------------------------------------------------------------------
def _clone_cpu(self, memory_format=None):
    a = self._data
    fmt = as_format(memory_format)
    if fmt is contiguous_format:  # .contiguous()'s copy: no layout to infer
        return _make(c_copy(a), self._dtype)
    if a.flags.c_contiguous and fmt is not channels_last and fmt is not channels_last_3d:
        r = a.copy()
        if fmt is contiguous_format or r.strides == a.strides:
            return _make(r, self._dtype)
    out = empty_layout(a, fmt)
    blocked_copy_into(out, a)  # cache-blocked for large transposed views
    return _make(out, self._dtype)


clone = defop("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", cpu=_clone_cpu,
              backward={"self": lambda grad: grad})  # fmt: skip


def _contiguous(self, memory_format=0):
    fmt = as_format(memory_format, contiguous_format)
    if is_contiguous_as(self._data, fmt):
        return self
    return _c(clone, self, fmt)


contiguous = defop(
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)",
    composite=_contiguous,
)


# ---- flip / roll / repeat / tile / repeat_interleave --------------------------------------------
def _flip_cpu(self, dims):
    a = self._data
    ds = _dims_set(dims, a.ndim)
    out = empty_layout(a, preserve_format)
    np.copyto(out, np.flip(a, ds) if ds and a.ndim else a)
    return _make(out, self._dtype)


def _roll_cpu(self, shifts, dims=()):
    a = self._data
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and not (len(dims) == 0 and len(shifts) == 1):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    if not dims:
        return _make(np.roll(a, shifts[0]), self._dtype)
    r = np.roll(a, list(shifts), [_wrap_strict(d, a.ndim) for d in dims])
    return _make(np.ascontiguousarray(r), self._dtype)


def _repeat_cpu(self, repeats):
    a = self._data
    if len(repeats) < a.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    padded = (1,) * (len(repeats) - a.ndim) + a.shape
    target = [p * r for p, r in zip(padded, repeats, strict=False)]
    for s in target:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {target}")
    # not np.ascontiguousarray: it turns a 0-d result (repeat(()) of a 0-d tensor) into 1-d
    return _make(np.asarray(np.tile(a, tuple(repeats)), order="C"), self._dtype)


def _repeat_grad(grad, self, repeats):
    shape = (1,) * (len(repeats) - self.ndim) + tuple(self.shape)
    pairs = [v for r, s in zip(repeats, shape, strict=False) for v in (r, s)]
    if not pairs:
        return grad
    g = grad.reshape(pairs).sum(list(range(0, len(pairs), 2)))
    return g.reshape(self.shape)


flip = defop("flip(Tensor self, int[] dims) -> Tensor", cpu=_flip_cpu,
             backward={"self": lambda grad, dims: _c(flip, grad, dims)})  # fmt: skip
roll = defop("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", cpu=_roll_cpu,
             backward={"self": lambda grad, shifts, dims: _c(roll, grad, [-s for s in shifts], dims)})  # fmt: skip
repeat = defop("repeat(Tensor self, SymInt[] repeats) -> Tensor", cpu=_repeat_cpu,
               backward={"self": _repeat_grad})  # fmt: skip


def _tile(self, dims):
    dims = list(dims)
    if len(dims) < self.ndim:
        dims = [1] * (self.ndim - len(dims)) + dims
    return _c(repeat, self, dims)


tile = defop("tile(Tensor self, SymInt[] dims) -> Tensor", composite=_tile)
fliplr = defop("fliplr(Tensor self) -> Tensor", composite=lambda self: _flip_2d(self, "fliplr", 1))
flipud = defop("flipud(Tensor self) -> Tensor", composite=lambda self: _flip_2d(self, "flipud", 0))


def _flip_2d(self, name, dim):
    need = dim + 1
    if self.ndim < need:
        raise RuntimeError(f"Input must be >= {need}-d.")
    return _c(flip, self, [dim])


def _repeats_array(repeats: Tensor) -> np.ndarray:
    if repeats._dtype not in (D.int32, D.int64):
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{_cname(repeats._dtype)}'"
        )
    r = repeats._data
    if r.size and r.min() < 0:
        raise RuntimeError("repeats can not be negative")
    return r


def _ri_check_size(total, output_size):
    if output_size is not None and output_size != total:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {total} but got {output_size}"
        )


def _ri_index_cpu(repeats, output_size=None):
    if repeats._data.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    reps = _repeats_array(repeats)
    r = np.repeat(np.arange(reps.size, dtype=reps.dtype), reps)
    _ri_check_size(r.size, output_size)
    return _make(r, repeats._dtype)


def _ri_int(self, repeats, dim=None, output_size=None):
    # PyTorch's composite: a contiguous copy of an expanded view, flattened (so a view of it)
    from .core import expand, flatten, unsqueeze

    x = self if dim is not None else _c(flatten, self, 0, -1)
    d = _wrap_dim(0 if dim is None else dim, self.ndim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = _c(unsqueeze, x, d + 1)
    shape = _sh(x)
    shape[d + 1] = repeats
    x = _c(expand, x, shape, False)
    _ri_check_size(repeats * shape[d], output_size)
    return _c(flatten, _c(clone, x, contiguous_format), d, d + 1)


def _ri_tensor(self, repeats, dim=None, output_size=None):
    from .core import expand, flatten

    x = self if dim is not None else _c(flatten, self, 0, -1)
    d = _wrap_dim(0 if dim is None else dim, x.ndim)
    n = x.shape[d]
    if repeats.ndim == 0 or (repeats.ndim == 1 and repeats.shape[0] == 1):
        repeats = _c(expand, _c(reshape, repeats, [1]), [n], False)
    elif repeats.ndim == 1:
        if repeats.shape[0] != n:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{repeats.shape[0]} and input.size({d}) = {n}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return _c(OPS["aten::index_select"], x, d, _c(repeat_interleave_index, repeats, output_size))


repeat_interleave_int = defop(
    "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
    composite=_ri_int,
)
repeat_interleave_tensor = defop(
    "repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
    composite=_ri_tensor,
)
repeat_interleave_index = defop("repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
                                cpu=_ri_index_cpu)  # fmt: skip


# ---- tril / triu / diag / diag_embed -------------------------------------------------------------
def _tri_mask(a: np.ndarray, diagonal: int, lower: bool) -> np.ndarray:
    n, m = a.shape[-2:]
    keep = np.tri(n, m, diagonal, dtype=bool) if lower else ~np.tri(n, m, diagonal - 1, dtype=bool)
    return keep


def _tri_ops(name: str, lower: bool):
    def check(a):
        if a.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")

    def functional(self, diagonal=0):
        a = self._data
        check(a)
        out = np.zeros(a.shape, a.dtype)
        np.copyto(out, a, where=_tri_mask(a, diagonal, lower))
        return _make(out, self._dtype)

    def inplace(self, diagonal=0):
        a = self._data
        check(a)
        np.copyto(a, np.zeros((), a.dtype), where=~_tri_mask(a, diagonal, lower))
        self._vc[0] += 1
        return self

    def out_impl(self, diagonal, out):
        check_out_dtype(out, self._dtype)
        return write_out(out, functional(self, diagonal)._data)

    bw = {"self": lambda grad, diagonal: _c(ops[0], grad, diagonal)}
    ops = (
        defop(f"{name}(Tensor self, SymInt diagonal=0) -> Tensor", cpu=functional, backward=bw),
        defop(
            f"{name}_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)", cpu=inplace, backward=bw
        ),
        defop(
            f"{name}.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)",
            cpu=out_impl,
        ),
    )
    return ops


_CPP = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}  # fmt: skip


def check_out_dtype(out: Tensor, dt: D.dtype) -> None:
    if out._dtype is not dt:
        raise RuntimeError(
            f"Expected out tensor to have dtype {_CPP[dt.name]}, but got {_CPP[out._dtype.name]} instead"
        )


tril, tril_, tril_out = _tri_ops("tril", True)
triu, triu_, triu_out = _tri_ops("triu", False)


def _diag_embed_cpu(self, offset=0, dim1=-2, dim2=-1):
    from .views import _diag_geometry

    a = self._data
    nd = a.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = abs(offset) + a.shape[-1]
    shape = list(a.shape[:-1])
    lo, hi = min(d1, d2), max(d1, d2)
    shape.insert(lo, n)
    shape.insert(hi, n)
    out = np.zeros(shape, a.dtype)
    sh, st, off = _diag_geometry(out.shape, _est(out), offset, d1, d2)
    _strided(out, sh, st, off)[...] = a
    return _make(out, self._dtype)


diag_embed = defop(
    "diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
    cpu=_diag_embed_cpu,
    backward={"self": lambda grad, offset, dim1, dim2: _c(_diagonal, grad, offset, dim1, dim2)},
)


def _diag(self, diagonal=0):
    nd = self.ndim
    if nd == 1:
        return _c(diag_embed, self, diagonal, 0, 1)
    if nd == 2:
        return _c(clone, _c(_diagonal, self, diagonal, 0, 1), None)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


def _diag_out(self, diagonal, out):
    r = _diag(self, diagonal)
    check_out_dtype(out, self._dtype)
    return write_out(out, r._data)


diag = defop("diag(Tensor self, int diagonal=0) -> Tensor", composite=_diag)
diag_out = defop(
    "diag.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)", composite=_diag_out
)


# ---- public functions and methods ----------------------------------------------------------------
def _clone_body(input, memory_format):
    """A copy with its own memory (by default laid out like ``input``).

    >>> numtorch.zeros(2, 3).t().clone().stride()
    (1, 3)
    """
    return _c(clone, input, None if memory_format is None else as_format(memory_format))


def _contiguous_body(self, memory_format):
    """``self`` when it is contiguous in ``memory_format``, else a contiguous copy.

    >>> numtorch.zeros(2, 3).t().contiguous().stride()
    (2, 1)
    """
    if memory_format is None and self._data.flags.c_contiguous:  # _contiguous's answer, 3x sooner
        return self
    return _c(contiguous, self, as_format(memory_format, contiguous_format))


def _flip_body(input, dims):
    """A copy with the order of elements reversed along ``dims``.

    >>> numtorch.tensor([1, 2, 3]).flip(0)
    tensor([3, 2, 1])
    """
    return _c(flip, input, _size(dims, "flip", "dims"))


def _fliplr_body(input):
    """Flip dimension 1 (left/right).

    >>> numtorch.tensor([[1, 2]]).fliplr()
    tensor([[2, 1]])
    """
    return _c(fliplr, input)


def _flipud_body(input):
    """Flip dimension 0 (up/down).

    >>> numtorch.tensor([1, 2]).flipud()
    tensor([2, 1])
    """
    return _c(flipud, input)


def _roll_body(input, shifts, dims):
    """Shift elements cyclically along ``dims`` (the flattened tensor when ``dims`` is None).

    >>> numtorch.tensor([1, 2, 3]).roll(1)
    tensor([3, 1, 2])
    """
    dims = [] if dims is None else _ints(dims, "roll", "dims")
    return _c(roll, input, _ints(shifts, "roll", "shifts"), dims)


def _repeat_body(self, repeats):
    """Tile the tensor ``repeats[i]`` times along each dimension (a copy).

    >>> numtorch.tensor([1, 2]).repeat(2)
    tensor([1, 2, 1, 2])
    """
    return _c(repeat, self, _size(_required(repeats, "repeat", "repeats"), "repeat", "repeats"))


def _tile_body(input, dims):
    """``repeat`` that pads ``dims`` with leading ones when it is shorter than ``input.dim()``.

    >>> numtorch.tensor([[1, 2]]).tile(2).shape
    torch.Size([1, 4])
    """
    return _c(tile, input, _size(dims, "tile", "dims"))


def _repeat_interleave_body(input, repeats, dim, output_size):
    """Repeat each element ``repeats`` times (an int or a tensor of counts) along ``dim``.

    >>> numtorch.tensor([1, 2]).repeat_interleave(2)
    tensor([1, 1, 2, 2])
    """
    if repeats is None:
        return _c(repeat_interleave_index, input, output_size)
    dim = None if dim is None else _int(dim, "repeat_interleave", "dim")
    if isinstance(repeats, Tensor):
        return _c(repeat_interleave_tensor, input, repeats, dim, output_size)
    return _c(
        repeat_interleave_int,
        input,
        _int(repeats, "repeat_interleave", "repeats"),
        dim,
        output_size,
    )


def _tri_bodies(name, op, op_, op_out):
    def fbody(input, diagonal, out):
        d = _int(diagonal, name, "diagonal")
        return _c(op, input, d) if out is None else _c(op_out, input, d, out)

    def mbody(self, diagonal):
        return _c(op, self, _int(diagonal, name, "diagonal"))

    def ibody(self, diagonal):
        return _c(op_, self, _int(diagonal, name, "diagonal"))

    side = "lower" if name == "tril" else "upper"
    fbody.__doc__ = mbody.__doc__ = (
        ibody.__doc__
    ) = f"""The {side} triangle of the last two dimensions (the rest zeroed).

    >>> numtorch.ones(2, 2).{name}()
    tensor([[1., {"0." if name == "tril" else "1."}],
            [{"1." if name == "tril" else "0."}, 1.]])
    """
    both(name, "input, diagonal=0, *, out=None", None, None, (op, op_out), fbody=fbody)
    both(name, None, "self, diagonal=0", mbody, (op,))
    both(name + "_", None, "self, diagonal=0", ibody, (op_,))


_tri_bodies("tril", tril, tril_, tril_out)
_tri_bodies("triu", triu, triu_, triu_out)


def _diag_body(input, diagonal, out=None):
    """A 1-D tensor as a diagonal matrix, or a matrix's diagonal as a 1-D tensor (a copy).

    >>> numtorch.diag(numtorch.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
    """
    d = _int(diagonal, "diag", "diagonal")
    return _c(diag, input, d) if out is None else _c(diag_out, input, d, out)


def _diag_embed_body(input, offset, dim1, dim2):
    """Put the last dimension on the diagonals of the (``dim1``, ``dim2``) planes of a new tensor.

    >>> numtorch.diag_embed(numtorch.ones(2, 3)).shape
    torch.Size([2, 3, 3])
    """
    return _c(diag_embed, input, _int(offset, "diag_embed", "offset"), _int(dim1, "diag_embed", "dim1"),
              _int(dim2, "diag_embed", "dim2"))  # fmt: skip


both("clone", "input, *, memory_format=None", "self, *, memory_format=None", _clone_body, (clone,))
both("contiguous", None, "self, memory_format=None", _contiguous_body, (contiguous,))
both("flip", "input, dims", None, _flip_body, (flip,))
both("flip", None, "self, *dims", varargs_method(_flip_body, "flip", "dims"), (flip,))
both("fliplr", "input", "self", _fliplr_body, (fliplr,))
both("flipud", "input", "self", _flipud_body, (flipud,))
both("roll", "input, shifts, dims=None", "self, shifts, dims=None", _roll_body, (roll,))
both("repeat", None, "self, *repeats", _repeat_body, (repeat,))
both("tile", "input, dims", None, _tile_body, (tile,))
both("tile", None, "self, *dims", varargs_method(_tile_body, "tile", "dims"), (tile,))
both("repeat_interleave", "input, repeats=None, dim=None, *, output_size=None",
     "self, repeats=None, dim=None, *, output_size=None", _repeat_interleave_body,
     (repeat_interleave_int, repeat_interleave_tensor, repeat_interleave_index))  # fmt: skip
both("diag", "input, diagonal=0, *, out=None", None, None, (diag, diag_out), fbody=_diag_body)
both("diag", None, "self, diagonal=0", _diag_body, (diag,))
both(
    "diag_embed",
    "input, offset=0, dim1=-2, dim2=-1",
    "self, offset=0, dim1=-2, dim2=-1",
    _diag_embed_body,
    (diag_embed,),
)
