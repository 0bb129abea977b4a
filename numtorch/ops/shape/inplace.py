"""In-place data ops: copy_, fill_, zero_, resize_ (the ``out=`` machinery relies on the last)."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._state import STATE as _STATE
from ..._tensor import Tensor, _make, _root_array, check_inference_write
from ..._overlap import OVERLAP_ERR, check_no_internal_overlap, overlap  # noqa: F401 (re-exported)
from .._pointwise import _broadcast
from .._registry import defop, public
from .core import _c, _est, _ints, _strided, both
from .copy import _c_strides, assign, empty_layout, preserve_format, zeros_like_tensor


def _copy_cpu(self, src, non_blocking=False):
    check_inference_write(self)
    dst = self._data
    check_no_internal_overlap(dst)
    if src is self:
        self._vc[0] += 1
        return self
    s = src._host()
    if np.may_share_memory(dst, s) and overlap(dst, s) == "partial":
        raise RuntimeError(OVERLAP_ERR)
    shape = _broadcast([dst.shape, s.shape])
    if shape != dst.shape:
        raise RuntimeError(
            f"output with shape {list(dst.shape)} doesn't match the broadcast shape {list(shape)}"
        )
    assign(dst, s)
    self._vc[0] += 1
    return self


def _copy_src_grad(grad, src):
    g = grad if tuple(grad.shape) == tuple(src.shape) else grad.sum_to_size(src.shape)
    return g if g.dtype is src.dtype else g.to(src.dtype)


copy_ = defop(
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    cpu=_copy_cpu,
    backward={"self": lambda grad: zeros_like_tensor(grad), "src": _copy_src_grad},
)

# c10's names for the checked_convert error ("value cannot be converted to type ...")
_CNAME = {
    "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
    "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double", "bool": "bool",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}  # fmt: skip


_FMAX: dict = {}


def checked_scalar(value, dt: D.dtype):
    """``value`` as a NumPy scalar of ``dt``, with c10's checked_convert overflow errors."""
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or dt is D.bool:
        return np.bool_(value) if dt is D.bool else np.array(value).astype(dt.np)[()]
    if isinstance(value, int) and not -(2**63) <= value < 2**64:
        raise OverflowError("int too big to convert")
    bad = False
    if isinstance(value, complex) and dt.category != D._COMPLEX:
        bad, value = value.imag != 0, value.real
    if dt.category == D._INT and not bad:
        hi, lo = np.iinfo(dt.np).max, np.iinfo(dt.np).min
        if isinstance(value, float) and not math.isfinite(value):
            bad = True
        elif lo == 0 and not isinstance(value, float):
            bad = value > hi or value < -hi  # c10 lets negative integers (not floats) wrap into unsigned types
        else:
            bad = value < lo or value > hi
    elif dt.category == D._FLOAT and not bad and math.isfinite(value):
        fmax = _FMAX.get(dt) or _FMAX.setdefault(dt, D.finfo(dt).max)  # finfo: ~1 us a call
        bad = abs(value) > fmax
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_CNAME[dt.name]} without overflow")
    if dt.category == D._FLOAT and (value.__class__ is float or value.__class__ is int):
        return dt.np.type(value)  # in range (checked above): one rounding, no flag to hide
    if dt.category == D._INT and isinstance(value, float):
        value = int(value)  # truncation toward zero, as a C++ cast
    with np.errstate(over="ignore"):
        return np.array(value).astype(dt.np)[()]


def setitem_scalar(value, dt: D.dtype):
    """The NumPy scalar of ``dt`` that ``x[key] = value`` writes for a bool or a Python/NumPy real or
    complex number, with the body's errors (an int outside int64: ValueError). A real non-bool
    number into float16/bfloat16 is rounded once from double with no overflow check (inf past
    the range): PyTorch's setitem scalar tensor, where fill_ and masked_fill raise c10's
    overflow error; every other value takes checked_scalar's conversion and errors."""
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    if (dt is D.float16 or dt is D.bfloat16) and type(value) is not bool and not isinstance(value, complex):
        with np.errstate(over="ignore"):
            return np.array(float(value)).astype(dt.np)[()]
    return checked_scalar(value, dt)


def _fill_cpu(self, value):
    check_inference_write(self)
    v = checked_scalar(value, self._dtype)
    self._data.fill(v)
    self._vc[0] += 1
    return self


def _fill_tensor_cpu(self, value):
    if value._data.ndim:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions."
        )
    # PyTorch's fill_.Tensor is copy_ of the value (a copy if it aliases self): a cast as .to()
    # casts (no overflow check, unlike fill_.Scalar), refused for an expanded self
    return _copy_cpu(self, _make(np.array(value._host()), value._dtype))


def _zero_cpu(self):
    check_inference_write(self)
    self._data.fill(0)
    self._vc[0] += 1
    return self


def _fill_functional(self, value):
    out = _make(empty_layout(self._data, preserve_format), self._dtype)
    return _fill_cpu(out, value)


_zero_grad = {"self": lambda grad: zeros_like_tensor(grad)}
fill_ = defop(
    "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", cpu=_fill_cpu, backward=_zero_grad
)
fill_tensor_ = defop("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", cpu=_fill_tensor_cpu,
                     backward={"self": lambda grad: zeros_like_tensor(grad), "value": lambda grad: grad.sum()})  # fmt: skip
fill = defop(
    "fill.Scalar(Tensor self, Scalar value) -> Tensor", cpu=_fill_functional, backward=_zero_grad
)
fill_tensor = defop("fill.Tensor(Tensor self, Tensor value) -> Tensor",
                    cpu=lambda self, value: _fill_tensor_cpu(_fill_functional(self, 0), value),
                    backward={"self": lambda grad: zeros_like_tensor(grad), "value": lambda grad: grad.sum()})  # fmt: skip
zero_ = defop("zero_(Tensor(a!) self) -> Tensor(a!)", cpu=_zero_cpu, backward=_zero_grad)


def resize_shape(self, size) -> tuple:
    """resize_'s new shape after its checks (every device's)."""
    if self._rg:
        raise RuntimeError("cannot resize variables that require grad")
    shape = tuple(size)
    if any(s < 0 for s in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    return shape


def _resize_cpu(self, size, memory_format=None):
    shape = resize_shape(self, size)
    a = self._data
    if shape == a.shape:
        return self
    n = math.prod(shape)
    root = _root_array(a)
    start = a.__array_interface__["data"][0]
    avail = -1
    if root.flags.c_contiguous or root.flags.f_contiguous:
        avail = (root.__array_interface__["data"][0] + root.nbytes - start) // a.itemsize
    if n <= avail:
        # the storage is large enough: PyTorch keeps it and views it contiguously from the
        # tensor's offset, so the data (in storage order) and any other views stay shared
        self._data = _strided(a, shape, _c_strides(shape))
        return self
    new = np.empty(shape, a.dtype)
    k = min(n, avail if avail >= 0 else a.size)
    if k > 0:
        new.reshape(-1)[:k] = _strided(a, (k,), (1,)) if avail >= 0 else a.reshape(-1)[:k]
    self._data = new
    return self


resize_ = defop("resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)",
                cpu=_resize_cpu)  # fmt: skip
resize_as_ = defop(
    "resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) -> Tensor(a!)",
    composite=lambda self, the_template, memory_format=None: _c(
        resize_, self, list(the_template.shape), memory_format
    ),
)


# ---- public methods ------------------------------------------------------------------------------
def _copy_body(self, src, non_blocking):
    """Copy ``src`` (broadcast, converted to this dtype) into this tensor in place.

    >>> numtorch.zeros(2, 2).copy_(numtorch.ones(2))
    tensor([[1., 1.],
            [1., 1.]])
    """
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}"
        )
    return _c(copy_, self, src, bool(non_blocking))


def _fill_body(input, value):
    """Fill with ``value`` (a number or a 0-d tensor) in place.

    >>> numtorch.zeros(2).fill_(3)
    tensor([3., 3.])
    """
    if isinstance(value, Tensor):
        return _c(fill_tensor_, input, value)
    return _c(fill_, input, value)


def _fill_new_body(input, value):
    """A new tensor like ``input`` filled with ``value``.

    >>> numtorch.fill(numtorch.zeros(2), 3)
    tensor([3., 3.])
    """
    if isinstance(value, Tensor):
        return _c(fill_tensor, input, value)
    return _c(fill, input, value)


def _zero_body(input):
    """Fill with zeros in place.

    >>> numtorch.ones(2).zero_()
    tensor([0., 0.])
    """
    return _c(zero_, input)


def _resize_body(self, sizes, memory_format):
    """Resize in place to ``sizes``; the data is kept when the element count allows it.

    >>> numtorch.zeros(6).resize_(2, 3).shape
    torch.Size([2, 3])
    """
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = sizes[0]
    return _c(resize_, self, _ints(sizes, "resize_", "size"), memory_format)


def _resize_as_body(input, the_template, memory_format):
    """Resize in place to ``the_template``'s shape.

    >>> numtorch.zeros(6).resize_as_(numtorch.zeros(2, 3)).shape
    torch.Size([2, 3])
    """
    return _c(resize_as_, input, the_template, memory_format)


both("copy_", None, "self, src, non_blocking=False", _copy_body, (copy_,))
both("fill_", "input, value", "self, value", _fill_body, (fill_, fill_tensor_))
both("fill", "input, value", None, _fill_new_body, (fill, fill_tensor))
both("zero_", "input", "self", _zero_body, (zero_,))
both("resize_", None, "self, *sizes, memory_format=None", _resize_body, (resize_,))
both("resize_as_", "input, the_template, *, memory_format=None", "self, the_template, *, memory_format=None",
     _resize_as_body, (resize_as_,))  # fmt: skip


# ---- in-place view ops: t_, transpose_, squeeze_, unsqueeze_, swapdims_, as_strided_ ---------------
# Note [In-place view ops adopt the view]
# x.t_() makes x the view x.t() would return: its array, and (when recorded) its autograd node,
# whose edge already points at x's previous history; x keeps its base and version counter,
# bumped once as PyTorch does, except for a view: numtorch's view derivatives (select,
# slice ...) save their input, which PyTorch's do not, so the bump would fail their backward.
# A leaf that requires grad refuses, as for any in-place op.
def _adopt(self: Tensor, view: Tensor) -> Tensor:
    self._data = view._data
    if view._grad_fn is not None:
        self._grad_fn = view._grad_fn
        self._out_nr = view._out_nr
    if self._base is None:
        self._vc[0] += 1
    return self


def _inplace_view(name: str, sig: str, of: str, example: str, shows: str) -> None:
    def body(self, *args):
        if self._rg and self._grad_fn is None and _STATE.grad_enabled:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if of == "t" and self._data.ndim > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
        return _adopt(self, getattr(self, of)(*args))

    body.__doc__ = f"""In-place ``{of}``: ``self`` becomes the view ``self.{of}(...)`` returns.

    >>> {example}
    {shows}
    """
    public(name, sig, body, relevant=("self",), module="Tensor")


for _n, _sig, _of, _ex, _shows in (
    ("t_", "self", "t", "numtorch.zeros(2, 3).t_().shape", "torch.Size([3, 2])"),
    ("transpose_", "self, dim0, dim1", "transpose", "numtorch.zeros(2, 3).transpose_(0, 1).shape", "torch.Size([3, 2])"),
    ("swapdims_", "self, dim0, dim1", "transpose", "numtorch.zeros(2, 3).swapdims_(0, 1).shape", "torch.Size([3, 2])"),
    ("swapaxes_", "self, axis0, axis1", "transpose", "numtorch.zeros(2, 3).swapaxes_(0, 1).shape", "torch.Size([3, 2])"),
    ("squeeze_", "self, dim=None", "squeeze", "numtorch.zeros(2, 1).squeeze_().shape", "torch.Size([2])"),
    ("unsqueeze_", "self, dim", "unsqueeze", "numtorch.zeros(2).unsqueeze_(0).shape", "torch.Size([1, 2])"),
    ("as_strided_", "self, size, stride, storage_offset=None", "as_strided",
     "numtorch.arange(4.0).as_strided_((2,), (2,)).tolist()", "[0.0, 2.0]"),
):  # fmt: skip
    _inplace_view(_n, _sig, _of, _ex, _shows)
