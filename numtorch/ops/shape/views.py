"""Views of part of a tensor: slice, select, narrow, diagonal, unfold, as_strided, real/imag,
the matrix transposes (T, mT, H, mH, adjoint); plus the backward helpers (``select_backward``, ...)
that scatter a gradient back. Splits live in ``split.py``.

See Note [Views are NumPy views] in ``shape.py``.
"""

from __future__ import annotations

import builtins

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, _make, _root_array, _view, _wrap_dim
from .._pointwise import _cname
from .._registry import defop
from ..._factory_utils import c_copy
from .core import _c, _compute_stride, _est, _int, _ints, _sh, _strided, both, permute
from .core import tensor_property, transpose
from ._geometry import _as_strided_backward_cpu, _geometry_index  # noqa: F401  (cuda/_viewgrad.py)

_INT64_MAX = 2**63 - 1
_pyslice = builtins.slice  # this module's ``slice`` is aten's op


def _index(a: np.ndarray, dim: int, key) -> np.ndarray:
    # the trailing Ellipsis keeps an integer index from returning a NumPy scalar
    return a[(_pyslice(None),) * dim + (key, Ellipsis)]


# ---- slice / select / narrow ------------------------------------------------------------------
def _slice_bounds(n: int, start, end, step) -> tuple:
    s = 0 if start is None else start
    e = _INT64_MAX if end is None else end
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    s = s + n if s < 0 else s
    e = e + n if e < 0 else e
    s = min(max(s, 0), n)
    e = min(max(e, s), n)
    return s, e


def _slice_cpu(self, dim, start, end, step):
    a = self._data
    if a.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    s, e = _slice_bounds(a.shape[d], start, end, step)
    r = _index(a, d, _pyslice(s, e, step))
    if r.size == 0 and a.size:  # NumPy drops an empty slice's offset; PyTorch keeps start * stride
        st = list(_est(a))
        r = _strided(a, r.shape, st[:d] + [st[d] * step] + st[d + 1 :], s * st[d])
    return _view(self, r)


def _select_cpu(self, dim, index):
    a = self._data
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {d}"
        )
    return _view(self, _index(a, d, index))


def _zeros_like_into(grad: Tensor, sizes) -> np.ndarray:
    return np.zeros(tuple(sizes), grad._dtype.np)


def _select_backward_cpu(grad_output, input_sizes, dim, index):
    out = _zeros_like_into(grad_output, input_sizes)
    _index(out, _wrap_dim(dim, len(input_sizes)), index)[...] = grad_output._data
    return _make(out, grad_output._dtype)


def _slice_backward_cpu(grad_output, input_sizes, dim, start, end, step):
    out = _zeros_like_into(grad_output, input_sizes)
    d = _wrap_dim(dim, len(input_sizes))
    s, e = _slice_bounds(out.shape[d], start, end, step)
    _index(out, d, _pyslice(s, e, step))[...] = grad_output._data
    return _make(out, grad_output._dtype)


slice = defop(  # noqa: A001 - aten's name
    "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
    cpu=_slice_cpu,
    backward={"self": lambda grad, self_sym_sizes, dim, start, end, step: _c(slice_backward, grad,
        list(self_sym_sizes), dim, *_slice_bounds(self_sym_sizes[dim], start, end, step), step)},
)  # fmt: skip
select = defop(
    "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
    cpu=_select_cpu,
    backward={
        "self": lambda grad, self_sym_sizes, dim, index: _c(select_backward, grad, list(self_sym_sizes), dim, index)
    },
)
select_backward = defop(
    "select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor",
    cpu=_select_backward_cpu,
    backward={"grad_output": lambda grad, dim, index: _c(select, grad, dim, index)},
)
slice_backward = defop(
    "slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, SymInt end, SymInt step) -> Tensor",
    cpu=_slice_backward_cpu,
    backward={
        "grad_output": lambda grad, dim, start, end, step: _c(slice, grad, dim, start, end, step)
    },
)


def _narrow(self, dim, start, length):
    a = self._data
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    n = a.shape[_wrap_dim(dim, a.ndim)]
    if not -n <= start <= n:
        raise IndexError(
            f"start out of range (expected to be in range of [{-n}, {n}], but got {start})"
        )
    start = start + n if start < 0 else start
    if start > n - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _c(slice, self, dim, start, start + length, 1)


narrow = defop(
    "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)", composite=_narrow
)


# ---- unfold / as_strided / diagonal ------------------------------------------------------------
def _unfold_cpu(self, dimension, size, step):
    a = self._data
    nd = a.ndim
    d = _wrap_dim(dimension, nd)
    st = _est(a)
    mx = a.shape[d] if nd else 1
    if size > mx:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {mx} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape, strides = list(a.shape) + [size], list(st) + [st[d] if nd else 1]
    if nd:
        shape[d] = (a.shape[d] - size) // step + 1
        strides[d] = step * st[d]
    return _view(self, _strided(a, shape, strides))


def _unfold_backward_cpu(grad_in, input_sizes, dim, size, step):
    out = _zeros_like_into(grad_in, input_sizes)
    g = grad_in._data
    if out.ndim == 0:
        out[...] = g.sum()
        return _make(out, grad_in._dtype)
    d = _wrap_dim(dim, out.ndim)
    n = g.shape[d]
    for k in range(size):  # window offset k: every n-th element from k, step apart
        _index(out, d, _pyslice(k, k + step * (n - 1) + 1, step))[...] += g[..., k]
    return _make(out, grad_in._dtype)


unfold = defop(
    "unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
    cpu=_unfold_cpu,
    backward={"self": lambda grad, self_sym_sizes, dimension, size, step: _c(
        unfold_backward, grad, list(self_sym_sizes), dimension, size, step)},
)  # fmt: skip
unfold_backward = defop(
    "unfold_backward(Tensor grad_in, SymInt[] input_sizes, int dim, int size, int step) -> Tensor",
    cpu=_unfold_backward_cpu,
    backward={"grad_in": lambda grad, dim, size, step: _c(unfold, grad, dim, size, step)},
)


def _storage(t: Tensor) -> tuple:
    """(root array, byte pointer of its first element, its size in bytes)."""
    root = _root_array(t._data)
    return root, root.__array_interface__["data"][0], root.nbytes


def _as_strided_cpu(self, size, stride, storage_offset=None):
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    a = self._data
    own = a.base is None  # the array is the storage: offset 0, no pointer arithmetic (~5 us)
    off = (0 if own else self.storage_offset()) if storage_offset is None else storage_offset
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    if stride and min(stride) < 0:
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}"
        )
    if size and min(size) < 0:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}"
        )
    isz = self._dtype.itemsize
    ptr, nbytes = (None, a.nbytes) if own else _storage(self)[1:]
    need = 0 if 0 in size else (off + 1 + sum([(n - 1) * s for n, s in zip(size, stride)])) * isz
    if need > nbytes:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
            f"itemsize {isz} requiring a storage size of {need} are out of bounds for storage of size {nbytes}"
        )
    return _view(self, _strided(a, size, stride, off, ptr=ptr))


def _as_strided_grad(grad, self, size, stride, storage_offset):
    off = self.storage_offset() if storage_offset is None else storage_offset
    return _c(_as_strided_backward, grad, list(size), list(stride), off,
              _sh(self), list(self.stride()), self.storage_offset())  # fmt: skip


as_strided = defop(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
    cpu=_as_strided_cpu,
    backward={"self": _as_strided_grad},
)
_as_strided_backward = defop(
    "_as_strided_backward(Tensor grad, SymInt[] src_size, SymInt[] src_stride, SymInt src_offset, "
    "SymInt[] dst_size, SymInt[] dst_stride, SymInt dst_offset) -> Tensor",
    cpu=_as_strided_backward_cpu,
    backward={"grad": lambda grad, src_size, src_stride, src_offset, dst_size, dst_stride, dst_offset: _c(
        _as_strided_backward, grad, dst_size, dst_stride, dst_offset, src_size, src_stride, src_offset)},
)  # fmt: skip


def _diag_geometry(shape, st, offset, dim1, dim2):
    """(sizes, strides, element offset) of the diagonal view, as at::diagonal computes them."""
    nd = len(shape)
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        n = max(min(shape[d1], shape[d2] - offset), 0)
        off = offset * st[d2] if n else 0
    else:
        n = max(min(shape[d1] + offset, shape[d2]), 0)
        off = -offset * st[d1] if n else 0
    sizes, strides = [], []  # one loop, no comprehensions: a small view's cost is these lines
    for i in range(nd):
        if i != d1 and i != d2:
            sizes.append(shape[i])
            strides.append(st[i])
    return sizes + [n], strides + [st[d1] + st[d2]], off


def _diagonal_cpu(self, offset, dim1, dim2):
    a = self._data
    shape, st, off = _diag_geometry(a.shape, _est(a), offset, dim1, dim2)
    return _view(self, _strided(a, shape, st, off))


def _diagonal_backward_cpu(grad_output, input_sizes, offset, dim1, dim2):
    out = _zeros_like_into(grad_output, input_sizes)
    shape, st, off = _diag_geometry(out.shape, _est(out), offset, dim1, dim2)
    _strided(out, shape, st, off)[...] = grad_output._data
    return _make(out, grad_output._dtype)


diagonal = defop(
    "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
    cpu=_diagonal_cpu,
    backward={"self": lambda grad, self_sym_sizes, offset, dim1, dim2: _c(
        diagonal_backward, grad, list(self_sym_sizes), offset, dim1, dim2)},
)  # fmt: skip
diagonal_backward = defop(
    "diagonal_backward(Tensor grad_output, SymInt[] input_sizes, int offset, int dim1, int dim2) -> Tensor",
    cpu=_diagonal_backward_cpu,
    backward={
        "grad_output": lambda grad, offset, dim1, dim2: _c(diagonal, grad, offset, dim1, dim2)
    },
)


# ---- matrix transposes (T, mT, H, mH, adjoint) -------------------------------------------------
def _matrix_check(self, what: str):
    nd = self._data.ndim
    if nd < 2:
        raise RuntimeError(
            f"tensor.{what} is only supported on matrices or batches of matrices. Got {nd}-D tensor."
        )


def _numpy_t(self):
    nd = self._data.ndim
    if nd not in (0, 2):
        import warnings

        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=3,
        )
    return _c(permute, self, list(range(nd - 1, -1, -1)))


def _conj(x):
    return x.conj() if x._dtype.category == D._COMPLEX else x


def _deprecated_0d(self, what: str, hint: str):
    import warnings

    warnings.warn(f"{what} is deprecated on 0-D tensors. {hint}", UserWarning, stacklevel=4)
    return self if hint.startswith("This") else _conj(self)


_CONJ_HINT = "Consider using x.conj()."


def _mt(self):
    if self._data.ndim == 0:
        return _deprecated_0d(self, "Tensor.mT", "This function is the identity in these cases.")
    _matrix_check(self, "mT")
    return _c(transpose, self, -2, -1)


def _mh(self, what="mH"):
    if self._data.ndim == 0:
        return _deprecated_0d(self, "Tensor.mH" if what == "mH" else what, _CONJ_HINT)
    _matrix_check(self, what)
    return _conj(_c(transpose, self, -2, -1))


def _matrix_h(self):
    nd = self._data.ndim
    if nd == 0:
        return _deprecated_0d(self, "Tensor.H", _CONJ_HINT)
    if nd != 2:
        extra = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor.{extra}"
        )
    return _conj(_c(transpose, self, 0, 1))


numpy_T = defop("numpy_T(Tensor(a) self) -> Tensor(a)", composite=_numpy_t)
mT = defop("mT(Tensor(a) self) -> Tensor(a)", composite=_mt)
mH = defop("mH(Tensor(a) self) -> Tensor(a)", composite=_mh)
matrix_H = defop("matrix_H(Tensor(a) self) -> Tensor(a)", composite=_matrix_h)
adjoint = defop(
    "adjoint(Tensor(a) self) -> Tensor(a)", composite=lambda self: _mh(self, "adjoint()")
)


def _adjoint_body(input):
    """Conjugate transpose of the last two dimensions (a view for real tensors).

    >>> numtorch.zeros(4, 2, 3).adjoint().shape
    torch.Size([4, 3, 2])
    """
    return _c(adjoint, input)


both("adjoint", "input", "self", _adjoint_body, (adjoint,))
tensor_property("T", lambda self: _c(numpy_T, self), doc="The dimensions reversed (a view).")
tensor_property("mT", lambda self: _c(mT, self), doc="The last two dimensions transposed (a view).")
tensor_property(
    "mH", lambda self: _c(mH, self), doc="Conjugate transpose of the last two dimensions."
)
tensor_property("H", lambda self: _c(matrix_H, self), doc="Conjugate transpose of a matrix.")


# ---- complex views -----------------------------------------------------------------------------
def _view_as_real_cpu(self):
    if self._dtype.category != D._COMPLEX:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    a, rt = self._data, self._dtype.to_real()
    st = [2 * s for s in _est(a)] + [1]
    return _view(self, _strided(a, list(a.shape) + [2], st, dtype=rt.np), rt)


def _view_as_complex_cpu(self):
    dt = self._dtype
    if dt not in (D.float16, D.float32, D.float64):
        raise RuntimeError(
            f"view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {_cname(dt)}"
        )
    a = self._data
    if a.ndim == 0 or a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    st = _est(a)
    if st[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in st[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if dt is D.float16:
        raise RuntimeError("view_as_complex: ComplexHalf is not supported")
    ct = dt.to_complex()
    if a.flags.c_contiguous:  # NumPy's own reinterpreting view: ~4x cheaper than _strided
        return _view(self, a.view(ct.np)[..., 0], ct)
    return _view(self, _strided(a, a.shape[:-1], [s // 2 for s in st[:-1]], dtype=ct.np), ct)


view_as_real = defop("view_as_real(Tensor(a) self) -> Tensor(a)", cpu=_view_as_real_cpu,
                     backward={"self": lambda grad: _c(view_as_complex, grad.contiguous())})  # fmt: skip
view_as_complex = defop("view_as_complex(Tensor(a) self) -> Tensor(a)", cpu=_view_as_complex_cpu,
                        backward={"self": lambda grad: _c(view_as_real, grad)})  # fmt: skip


def _real(self):
    if self._dtype.category != D._COMPLEX:
        return self
    # a conjugate view's real part is its memory's (Note [Conjugate views])
    return _c(select, _c(view_as_real, self.conj() if self._is_conj else self), -1, 0)


def _imag(self):
    if self._dtype.category != D._COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if self._is_conj:  # PyTorch's is a negated view; numtorch has no neg bit: a copy
        return -_c(select, _c(view_as_real, self.conj()), -1, 1)
    return _c(select, _c(view_as_real, self), -1, 1)


real = defop("real(Tensor(a) self) -> Tensor(a)", composite=_real)
imag = defop("imag(Tensor(a) self) -> Tensor(a)", composite=_imag)


# ---- public functions and methods ------------------------------------------------------------
def _narrow_body(input, dim, start, length):
    """A view of ``length`` elements of dimension ``dim`` from ``start``.

    >>> numtorch.zeros(4, 5).narrow(1, 1, 2).shape
    torch.Size([4, 2])
    """
    start = int(start.item()) if isinstance(start, Tensor) else _int(start, "narrow", "start")
    return _c(narrow, input, _int(dim, "narrow", "dim"), start, _int(length, "narrow", "length"))


def _select_body(input, dim, index):
    """The view at ``index`` along ``dim`` (that dimension removed).

    >>> numtorch.zeros(4, 5).select(1, 0).shape
    torch.Size([4])
    """
    return _c(select, input, _int(dim, "select", "dim"), _int(index, "select", "index"))


def _unfold_body(self, dimension, size, step):
    """A view of all windows of ``size`` elements, ``step`` apart, along ``dimension``.

    >>> numtorch.zeros(7).unfold(0, 3, 2).shape
    torch.Size([3, 3])
    """
    return _c(
        unfold,
        self,
        _int(dimension, "unfold", "dimension"),
        _int(size, "unfold", "size"),
        _int(step, "unfold", "step"),
    )


def _as_strided_body(input, size, stride, storage_offset):
    """A view of the storage with the given sizes, strides and storage offset.

    >>> numtorch.zeros(4).as_strided((3, 2), (1, 1)).shape
    torch.Size([3, 2])
    """
    off = None if storage_offset is None else _int(storage_offset, "as_strided", "storage_offset")
    return _c(
        as_strided,
        input,
        _ints(size, "as_strided", "size"),
        _ints(stride, "as_strided", "stride"),
        off,
    )


def _diagonal_body(input, offset, dim1, dim2):
    """A view of the diagonal of the (``dim1``, ``dim2``) planes, appended as the last dimension.

    >>> numtorch.zeros(3, 4).diagonal(1).shape
    torch.Size([3])
    """
    return _c(
        diagonal,
        input,
        _int(offset, "diagonal", "offset"),
        _int(dim1, "diagonal", "dim1"),
        _int(dim2, "diagonal", "dim2"),
    )


def _view_as_real_body(input):
    """A real view of a complex tensor with a trailing dimension of size 2 (real, imag).

    >>> numtorch.view_as_real(numtorch.zeros(3, dtype=numtorch.complex64)).shape
    torch.Size([3, 2])
    """
    return _c(view_as_real, input)


def _view_as_complex_body(input):
    """A complex view of a real tensor whose last dimension (of size 2) holds (real, imag).

    >>> numtorch.view_as_complex(numtorch.zeros(3, 2)).dtype
    torch.complex64
    """
    return _c(view_as_complex, input)


def _real_body(input):
    """The real part (a view; the tensor itself when it is real).

    >>> numtorch.real(numtorch.zeros(2, dtype=numtorch.complex64)).dtype
    torch.float32
    """
    return _c(real, input)


def _imag_body(input):
    """The imaginary part of a complex tensor (a view).

    >>> numtorch.imag(numtorch.zeros(2, dtype=numtorch.complex64)).dtype
    torch.float32
    """
    return _c(imag, input)


both("narrow", "input, dim, start, length", "self, dim, start, length", _narrow_body, (narrow,))
both("select", "input, dim, index", "self, dim, index", _select_body, (select,))
both("unfold", None, "self, dimension, size, step", _unfold_body, (unfold,))
both("as_strided", "input, size, stride, storage_offset=None", "self, size, stride, storage_offset=None",
     _as_strided_body, (as_strided,))  # fmt: skip
both(
    "diagonal",
    "input, offset=0, dim1=0, dim2=1",
    "self, offset=0, dim1=0, dim2=1",
    _diagonal_body,
    (diagonal,),
)
both("view_as_real", "input", None, _view_as_real_body, (view_as_real,))
both("view_as_complex", "input", None, _view_as_complex_body, (view_as_complex,))
both("real", "input", None, _real_body, (real,))
both("imag", "input", None, _imag_body, (imag,))


def _set_part(which):
    def setter(self, value):
        part = _c(real if which == "real" else imag, self)
        part.copy_(value)

    return setter


tensor_property("real", lambda self: _c(real, self), _set_part("real"), "The real part (a view).")
tensor_property(
    "imag", lambda self: _c(imag, self), _set_part("imag"), "The imaginary part (a view)."
)


# ---- Tensor.view / Tensor.reshape fast path ------------------------------------------------------
# Note [Reshape fast path]
# x.view(2, 4) / x.reshape(2, 4) on a plain C-contiguous CPU tensor with no dispatch mode, no
# gradient to record and int sizes is a NumPy reshape wrapped as a view: exactly what the
# dispatcher reaches through aten.reshape -> aten.view -> _view_cpu. The generated wrapper
# calls these for exact Tensors (Note [Binding fast call]); anything else takes the body.
def _fast_shape(shape, numel: int):
    if not shape:
        return None
    if len(shape) == 1 and shape[0].__class__ is not int:
        shape = shape[0]
        if shape.__class__ is not tuple and shape.__class__ is not list and shape.__class__ is not _Size:
            return None
    n, infer = 1, -1
    for i, s in enumerate(shape):
        if s.__class__ is not int:
            return None
        if s >= 0:
            n *= s
        elif s == -1 and infer < 0:
            infer = i
        else:
            return None
    if infer >= 0:
        if n == 0 or numel % n:
            return None
        shape = (*shape[:infer], numel // n, *shape[infer + 1 :])
    elif n != numel:
        return None
    return shape


def _make_shape_fast(body, is_view: bool):
    rec = None  # record_output(aten.view), made on the first call that records

    def fast(self, shape):
        nonlocal rec
        st = _STATE
        a = self._data
        grad = self._rg and st.grad_enabled
        if st.td_modes or st.fw_level >= 0 or self._device is not _CPU or (grad and st.anomaly):
            return body(self, shape)
        n, new = 1, shape
        for s in shape:  # the common spelling, x.view(2, 4): all sizes plain ints >= 0
            if s.__class__ is not int or s < 0:
                new = _fast_shape(shape, a.size)
                n = -1 if new is None else a.size
                break
            n *= s
        if n == a.size and n and shape and a.flags.c_contiguous and (a.ndim == 0 or a.strides[-1] == a.itemsize):
            t = _new(Tensor)  # _view(self, a.reshape(new)), inlined
            t._data = a.reshape(new)
            t._dtype = self._dtype
            t._device = _CPU
            t._rg = False
            t._grad_fn = None
            t._grad = None
            t._vc = self._vc
            t._base = self if self._base is None else self._base
            if grad:  # Note [Generated recording]: ViewBackward0, as aten.view records it
                if rec is None or rec.deriv is not _aten_view.autograd:
                    rec = _engine.record_output(_aten_view)
                return rec(t, self, list(new) if new is shape or not is_view else _view_size(shape))
            return t
        if not grad and n == a.size and n and shape:  # a strided tensor, nothing to record
            st = _compute_stride(a.shape, _est(a), new)
            if st is None:
                if not is_view:
                    # reshape's copy (aten.clone, then aten._unsafe_view of the copy): with no
                    # mode nothing sees either call (ViewBackward0 of a permuted gradient:
                    # 56 us -> 6 us on a (2, 32, 2, 32) float32)
                    return _make(c_copy(a).reshape(new), self._dtype)
            else:
                # NumPy's reshape is a view here too (its base a's memory owner, not a copy's)
                # and, when its strides are PyTorch's, the view _view_cpu makes (20 us -> 3 us)
                r = a.reshape(new)
                b = r.base
                if (b is a or (b is not None and b is a.base)) and _est(r) == st:
                    return _view(self, r)
        return body(self, shape)

    return fast


def _view_size(shape) -> list:
    # the size list Tensor.view passes to aten.view (its *args, or the one sequence given)
    if len(shape) == 1 and shape[0].__class__ is not int:
        shape = shape[0]
    return list(shape)


def _make_getitem_fast(body):
    # x[i] / x[a:b:c] with in-range ints on a plain tensor: the view select/slice.Tensor make
    # (Note [Reshape fast path]); an empty slice keeps PyTorch's offset through the body.
    rec_slice = rec_select = None  # record_output(op), made on the first call that records

    def record(t, self, d, k):
        # the body's one node for the int or slice k on dim d: SelectBackward0 / SliceBackward0
        # with the values indexing._select/_slice pass
        nonlocal rec_slice, rec_select
        if k.__class__ is int:
            if rec_select is None or rec_select.deriv is not select.autograd:
                rec_select = _engine.record_output(select)
            return rec_select(t, self, d, k)
        if rec_slice is None or rec_slice.deriv is not slice.autograd:
            rec_slice = _engine.record_output(slice)
        return rec_slice(t, self, d, 0 if k.start is None else k.start,
                         _INT64_MAX if k.stop is None else k.stop, 1 if k.step is None else k.step)  # fmt: skip

    def fast(self, key):
        st = _STATE
        a = self._data
        grad = self._rg and st.grad_enabled
        if not st.td_modes and st.fw_level < 0 and self._device is _CPU and a.ndim and not (grad and st.anomaly):
            n = a.shape[0]
            if key.__class__ is _pyslice:
                step, start, stop = key.step, key.start, key.stop
                if (
                    (step is None or (step.__class__ is int and step > 0))
                    and (start is None or (start.__class__ is int and -n <= start <= n))
                    and (stop is None or (stop.__class__ is int and -n <= stop <= n))
                ):
                    r = a[key]
                    if r.size or not a.size:
                        t = _view(self, r)
                        return record(t, self, 0, key) if grad else t
            elif key.__class__ is int and -n <= key < n:
                t = _view(self, a[key, ...])
                return record(t, self, 0, key) if grad else t
            elif key.__class__ is tuple:  # Note [Basic index tuples]
                one = single_item(key, a.ndim) if grad else None
                r = basic_view(a, key) if one is not None or not grad else None
                if r is not None:
                    t = _view(self, r)
                    return record(t, self, *one) if grad else t
                if not grad:  # Note [New axes in a basic index]
                    r = newaxis_view(a, key)
                    if r is not None:
                        return _view(self, r)
            elif key is None and not grad:
                r = newaxis_view(a, (None,))
                if r is not None:
                    return _view(self, r)
            elif not grad:  # Note [One index tensor]
                r = take_rows(self, key)
                if r is not None:
                    return _make(r, self._dtype)
        return body(self, key)

    return fast


def _make_transpose_fast(body):
    # x.transpose(d0, d1) with in-range int dims on a plain CPU tensor with nothing to record:
    # _transpose_cpu's swapped view without the dispatch (TransposeBackward0's formula)
    def fast(self, dim0, dim1):
        S, a = _STATE, self._data
        n = a.ndim
        if S.td_modes or S.fw_level >= 0 or self._device is not _CPU or self._rg and S.grad_enabled:
            return body(self, dim0, dim1)
        if not (dim0.__class__ is dim1.__class__ is int and -n <= dim0 < n and -n <= dim1 < n):
            return body(self, dim0, dim1)
        return _view(self, a.swapaxes(dim0, dim1))

    return fast


def install_fast_paths() -> None:
    """Attach the fast calls above to their bindings (numtorch/__init__.py, before _api.install)."""
    from .._registry import BINDINGS

    for b in BINDINGS:
        if b.module != "Tensor":
            continue
        if b.name in ("view", "reshape") and b.sig.startswith("self, *"):
            b.fast = (_make_shape_fast(b.body, b.name == "view"), ("self", b.sig.partition("*")[2]))
        elif b.name == "transpose" and b.sig == "self, dim0, dim1":
            b.fast = (_make_transpose_fast(b.body), ("self", "dim0", "dim1"))
        elif b.name == "expand" and b.sig == "self, *size":
            b.fast = (_make_expand_fast(b.body), ("self", "size"))
        elif b.name == "__getitem__" and b.sig == "self, key":
            b.fast = (_make_getitem_fast(b.body), ("self", "key"))
    cpu = {"as_strided": _as_strided_cpu, "unfold": _unfold_cpu, "view_as_complex": _view_as_complex_cpu}
    fast_views.install(BINDINGS, _make_expand_fast, _diagonal_cpu, _diag_geometry, cpu)  # Note [Composite view fast calls]


from ..._device import CPU as _CPU  # noqa: E402
from ..._state import STATE as _STATE  # noqa: E402

_new = object.__new__
from ..._size import Size as _Size  # noqa: E402
from ...autograd import _engine  # noqa: E402
from .core import view as _aten_view  # noqa: E402
from . import fast_views  # noqa: E402
from .basic_index import basic_view, newaxis_view, single_item, take_rows  # noqa: E402
from .fast_expand import make_expand_fast as _make_expand_fast  # noqa: E402
