"""Shape and view ops: view, reshape, permute, expand, slicing views, splits, diagonal.

Copies (cat, flip, repeat, tril, copy_, ...) live in ``copy.py`` and conversions
(to, type, float, ...) in ``factory/conversion.py``; this module imports neither (shape/__init__.py
imports the area in order).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ... import _dtype as D
from ..._ops import ops
from ..._tensor import Tensor, _make, _root_array, _view, _wrap_dim
from ...autograd._backward import _sum_to
from .._pointwise import _cname
from .._registry import defop, public
from ._format import contiguous_format

# Note [Views are NumPy views]
# A view op builds a NumPy view of self._data with exactly the sizes, strides and storage
# offset PyTorch computes (computeStride, inferExpandGeometry, diagonal, unfold, ...) and
# wraps it with _view(), which shares the version counter and records _base. Where NumPy
# has no view with those strides (expand, unfold, diagonal, as_strided, a view of a
# non-contiguous tensor), _strided() builds one over the same buffer, always writeable, so
# writes through any view reach the base and the other views.

_VIEW_ERR = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)


# ---- helpers shared by the shape modules -------------------------------------------------
class _Buf:
    """What ``np.asarray`` turns into an array over foreign memory; ``base`` keeps it alive."""

    def __init__(self, interface: dict, base: np.ndarray):
        self.__array_interface__ = interface
        self.base = base


def _ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _strided(a: np.ndarray, shape, strides, offset: int = 0, dtype=None, ptr=None) -> np.ndarray:
    """A writeable view of ``a``'s memory: element ``strides`` and ``offset`` from ``ptr``
    (default: ``a``'s first element), in units of ``dtype`` (default ``a.dtype``)."""
    npd = a.dtype if dtype is None else np.dtype(dtype)
    isz = npd.itemsize
    bst = tuple([s * isz for s in strides])  # list comprehensions, explicit loops: a tiny view's
    root = _root_array(a)  # cost is these lines (2.1 -> 1.0 us with generator expressions gone)
    if root.flags.c_contiguous and root.size:
        # an ndarray over the root's buffer: ~10x cheaper than an __array_interface__ round trip
        if ptr is None:
            off = offset * isz + (0 if root is a else _ptr(a) - _ptr(root))
        else:
            off = ptr + offset * isz - _ptr(root)
        span = 0
        for n, s in zip(shape, bst, strict=False):
            if not n:
                span = 0
                break
            span += (n - 1) * s
        if 0 <= off and off + span + isz <= root.nbytes:
            return np.ndarray(tuple(shape), npd, root, off, bst)
    face = {
        "shape": tuple(shape),
        "strides": bst,
        "typestr": npd.str,
        "descr": npd.descr,
        "data": ((_ptr(a) if ptr is None else ptr) + offset * isz, not a.flags.writeable),
        "version": 3,
    }
    return np.asarray(_Buf(face, a))


def _est(a: np.ndarray) -> tuple:
    isz = a.itemsize
    return tuple([s // isz for s in a.strides])


def _as_view(a: np.ndarray, shape: tuple, st: tuple) -> np.ndarray:
    if a.flags.c_contiguous:
        r = a.reshape(shape)  # a view with C strides; usually what PyTorch computes
        if _est(r) == st:
            return r
    return _strided(a, shape, st)


def _plain_contiguous(a: np.ndarray) -> bool:
    """C-contiguous with a unit innermost stride: PyTorch's view strides are then NumPy's C
    strides (computeStride sees one chunk whose base stride is 1)."""
    return a.flags.c_contiguous and a.size > 0 and (a.ndim == 0 or a.strides[-1] == a.itemsize)


def _ints(v, fname: str, arg: str) -> list:
    """An int list argument (list, tuple, Size, or one int) as a list of Python ints."""
    if type(v) is int:
        return [v]
    if isinstance(v, (int, np.integer)) or (isinstance(v, Tensor) and v.ndim == 0):
        v = (v,)
    out = []
    for x in v:
        if type(x) is not int:
            if isinstance(x, (float, complex, np.floating)) or not hasattr(x, "__index__"):
                raise TypeError(
                    f"{fname}(): argument '{arg}' failed to unpack the object at pos {len(out) + 1} "
                    f'with error "type must be tuple of ints,but got {type(x).__name__}"'
                )
            x = operator.index(x)
        out.append(x)
    return out


def _int(v, fname: str, arg: str) -> int:
    if type(v) is int:
        return v
    if isinstance(v, (float, complex, np.floating, str)) or not hasattr(v, "__index__"):
        raise TypeError(f"{fname}(): argument '{arg}' must be int, not {type(v).__name__}")
    return operator.index(v)


def _wrap_strict(dim: int, ndim: int) -> int:
    """A dimension that must exist: a 0-d tensor wraps -1/0 to 0, then has no dimension 0."""
    w = _wrap_dim(dim, ndim)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {w} but tensor has no dimensions")
    return w


def _dims_set(dims, ndim: int) -> list:
    out = []
    for d in dims:
        w = _wrap_dim(d, ndim)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return out


def _infer_size(shape, numel: int) -> tuple:
    """Resolve one -1 in ``shape`` against ``numel`` (at::infer_size)."""
    newsize, infer = 1, None
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            newsize *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    if numel == newsize or (infer is not None and newsize > 0 and numel % newsize == 0):
        if infer is None:
            return tuple(shape)
        if newsize == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        return tuple(shape[:infer]) + (numel // newsize,) + tuple(shape[infer + 1 :])
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


def _compute_stride(oldshape, oldstride, newshape):
    """PyTorch's computeStride: strides viewing ``oldshape``/``oldstride`` as ``newshape``,
    or None when some new dimension would span two non-contiguous chunks."""
    if not oldshape:
        return (1,) * len(newshape)
    numel = math.prod(oldshape)
    if numel == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        st, acc = [0] * len(newshape), 1
        for d in range(len(newshape) - 1, -1, -1):
            st[d] = acc
            acc *= max(newshape[d], 1)
        return tuple(st)
    st = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk, tnumel, vnumel = oldstride[-1], 1, 1
    for td in range(len(oldshape) - 1, -1, -1):
        tnumel *= oldshape[td]
        if td == 0 or (oldshape[td - 1] != 1 and oldstride[td - 1] != tnumel * chunk):
            while view_d >= 0 and (vnumel < tnumel or newshape[view_d] == 1):
                st[view_d] = vnumel * chunk
                vnumel *= newshape[view_d]
                view_d -= 1
            if vnumel != tnumel:
                return None
            if td > 0:
                chunk, tnumel, vnumel = oldstride[td - 1], 1, 1
    return tuple(st) if view_d == -1 else None


def _c(op, *vals):
    return op.fast(*vals)  # dispatch(op, list(vals)) without the list


def _sh(t: Tensor) -> list:
    return list(t._data.shape)


# ---- view / reshape ------------------------------------------------------------------------
def _view_cpu(self, size):
    a = self._data
    shape = _infer_size(size, a.size)
    if _plain_contiguous(a):
        return _view(self, a.reshape(shape))
    st = _compute_stride(a.shape, _est(a), shape)
    if st is None:
        raise RuntimeError(_VIEW_ERR)
    return _view(self, _as_view(a, shape, st))


def _view_dtype_cpu(self, dtype):
    dt = D.to_dtype(dtype)
    a, old = self._data, self._dtype
    if dt.itemsize != old.itemsize:
        what = f"to view {_cname(old)} as {_cname(dt)} (different element sizes)"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        st, up = self.stride(), dt.itemsize > old.itemsize
        r = dt.itemsize // old.itemsize if up else 1
        if up and a.shape[-1] % r:
            raise RuntimeError(
                f"self.size(-1) must be divisible by {r} {what}, but got {a.shape[-1]}"
            )
        if up and self.storage_offset() % r:
            raise RuntimeError(
                f"self.storage_offset() must be divisible by {r} {what}, but got {self.storage_offset()}"
            )
        if st[-1] != 1 and a.size:  # NumPy keeps no strides for zero-size arrays
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {st[-1]}")
        for i, s in enumerate(st[:-1]):
            if s % r:
                raise RuntimeError(f"self.stride({i}) must be divisible by {r} {what}, but got {s}")
    # PyTorch's dtype views share the version counter but are not autograd views (no _base)
    return _make(a.view(dt.np), dt, Tensor, self._device, vc=self._vc)


view = defop("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", cpu=_view_cpu,
             backward={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})  # fmt: skip
view_dtype = defop("view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)", cpu=_view_dtype_cpu)
_unsafe_view = defop(
    "_unsafe_view(Tensor self, SymInt[] size) -> Tensor",
    cpu=lambda self, size: _make(_view_cpu(self, size)._data, self._dtype),
    backward={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)},
)
alias = defop("alias(Tensor(a) self) -> Tensor(a)", cpu=lambda self: _view(self, self._data.view()),
              backward={"self": lambda grad: grad})  # fmt: skip


def _reshape(self, shape):
    a = self._data
    shape = _infer_size(shape, a.size)
    if _plain_contiguous(a) or _compute_stride(a.shape, _est(a), shape) is not None:
        return _c(view, self, list(shape))
    # aten.clone through the op table: shape/copy.py imports this module
    return _c(_unsafe_view, _c(_clone_op(), self, contiguous_format), list(shape))


def _clone_op():
    # aten.clone, looked up once (ops.aten.clone.default costs ~5 us per call)
    op = _CLONE[0]
    if op is None:
        op = _CLONE[0] = ops.aten.clone.default
    return op


_CLONE = [None]
reshape = defop("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", composite=_reshape)
view_as = defop("view_as(Tensor(a) self, Tensor other) -> Tensor(a)",
                composite=lambda self, other: _c(view, self, _sh(other)))  # fmt: skip
reshape_as = defop("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)",
                   composite=lambda self, other: _c(reshape, self, _sh(other)))  # fmt: skip


def _flatten(self, start_dim, end_dim):
    nd = self._data.ndim
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if nd == 0:
        return _c(reshape, self, [1])
    if s == e:
        return self
    sh = _sh(self)
    return _c(reshape, self, sh[:s] + [math.prod(sh[s : e + 1])] + sh[e + 1 :])


def _unflatten(self, dim, sizes):
    d = _wrap_dim(dim, self._data.ndim)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if self._data.ndim == 0:
        raise RuntimeError(
            f"unflatten got an unexpected error:\nDimension specified as {d} but tensor has no dimensions"
        )
    n = self._data.shape[d]
    try:
        inferred = _infer_size(list(sizes), n)
    except RuntimeError as e:
        if str(e).startswith("shape '"):
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{d} ({n}) in the input tensor"
            ) from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    sh = _sh(self)
    return _c(view, self, sh[:d] + list(inferred) + sh[d + 1 :])


flatten = defop("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
                composite=_flatten)  # fmt: skip
unflatten = defop(
    "unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)", composite=_unflatten
)
# at::ravel is contiguous().view(-1): a non-contiguous input is copied even where a strided
# view would exist (reshape/flatten take that view)
ravel = defop("ravel(Tensor(a) self) -> Tensor(a)",
              composite=lambda self: _c(view, self.contiguous(), [-1]))  # fmt: skip


# ---- squeeze / unsqueeze / permute / transpose / expand ------------------------------------
def _squeeze_cpu(self, dims):
    a = self._data
    axes = tuple(d for d in dims if a.ndim and a.shape[d] == 1)
    return _view(self, np.squeeze(a, axes) if axes else a.view())


def _unsqueeze_cpu(self, dim):
    a = self._data
    d = _wrap_dim(dim, a.ndim + 1)
    if _plain_contiguous(a):
        return _view(self, a.reshape(a.shape[:d] + (1,) + a.shape[d:]))
    st = _est(a)
    new = 1 if d >= a.ndim else a.shape[d] * st[d]
    return _view(self, _as_view(a, a.shape[:d] + (1,) + a.shape[d:], st[:d] + (new,) + st[d:]))


def _permute_cpu(self, dims):
    nd = self._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    w = [_wrap_dim(d, nd) for d in dims]
    if len(set(w)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view(self, self._data.transpose(w))


def _transpose_cpu(self, dim0, dim1):
    a = self._data
    d0, d1 = _wrap_dim(dim0, a.ndim), _wrap_dim(dim1, a.ndim)
    return _view(self, a.swapaxes(d0, d1) if a.ndim else a.view())


def _t_cpu(self):
    nd = self._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return _view(self, self._data.T)


def _invert(dims, nd):
    inv = [0] * nd
    for i, d in enumerate(dims):
        inv[_wrap_dim(d, nd)] = i
    return inv


def _tname(t: Tensor) -> str:
    return f"torch.{_cname(t._dtype)}Tensor"


def _expand_cpu(self, size, implicit=False):
    a = self._data
    n, tnd = len(size), a.ndim
    if n < tnd:
        raise RuntimeError(
            f"expand({_tname(self)}{{{list(a.shape)}}}, size={list(size)}): the number of sizes "
            f"provided ({n}) must be greater or equal to the number of dimensions in the tensor ({tnd})"
        )
    st, shape, est = [0] * n, [0] * n, _est(a)
    if tnd == 0:  # PyTorch returns the sizes as given, all strides 0
        if any(s < 0 for s in size):
            raise RuntimeError("numel: integer multiplication overflow")
        return _view(self, _strided(a, size, st))
    for i in range(n - 1, -1, -1):
        d = tnd - n + i
        sz = a.shape[d] if d >= 0 else 1
        s = est[d] if d >= 0 else (shape[i + 1] * st[i + 1] if i + 1 < n else 1)
        target = size[i]
        if target == -1:
            if d < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            target = sz
        if sz != target:
            if sz != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({sz}) at non-singleton dimension {i}.  Target sizes: {list(size)}.  "
                    f"Tensor sizes: {list(a.shape)}"
                )
            sz, s = target, 0
        if sz < 0:
            raise RuntimeError("numel: integer multiplication overflow")
        shape[i], st[i] = sz, s
    if a.flags.c_contiguous and a.size:  # an ndarray over a's own buffer, as Tensor.expand's fast path
        isz = a.itemsize
        return _view(self, np.ndarray(tuple(shape), a.dtype, a, 0, tuple([s * isz for s in st])))
    return _view(self, _strided(a, shape, st))


def _unsqueeze_to(grad, sizes, dim):
    # PyTorch's unsqueeze_to: the dim comes back only where squeeze.dim removed it
    d = _wrap_dim(dim, len(sizes)) if sizes else 0
    return grad.unsqueeze(d) if sizes and sizes[d] == 1 else grad


squeeze = defop("squeeze(Tensor(a) self) -> Tensor(a)",
                cpu=lambda self: _squeeze_cpu(self, range(self._data.ndim)),
                backward={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})  # fmt: skip
squeeze_dim = defop("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
                    cpu=lambda self, dim: _squeeze_cpu(self, [_wrap_dim(dim, self._data.ndim)]),
                    backward={"self": lambda grad, self_sym_sizes, dim: _unsqueeze_to(grad, self_sym_sizes, dim)},
                    node_name="SqueezeBackward1")  # fmt: skip
squeeze_dims = defop("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
                     cpu=lambda self, dim: _squeeze_cpu(self, _dims_set(dim, self._data.ndim)),
                     backward={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)},
                     node_name="SqueezeBackward2")  # fmt: skip


# squeeze_.dim is an op (matmul's 1-D @ 2-D case calls it, as PyTorch's does): self takes the
# array squeeze.dim's kernel for its device gives. The backward assumes the dim was squeezed (it
# is wherever numtorch calls it); PyTorch's saves the old sizes, which a formula here cannot.
def _squeeze_dim_(self, dim):
    self._data = squeeze_dim.impls["meta" if self.device.type == "meta" else "cpu"](self, dim)._data
    return self


squeeze_dim_ = defop("squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)", cpu=_squeeze_dim_,
                     backward={"self": lambda grad, dim: grad.unsqueeze(dim)},
                     node_name="SqueezeBackward4")  # fmt: skip
squeeze_dim_.impls["meta"] = _squeeze_dim_


unsqueeze = defop("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", cpu=_unsqueeze_cpu,
                  backward={"self": lambda grad, dim: grad.squeeze(dim)})  # fmt: skip
permute = defop("permute(Tensor(a) self, int[] dims) -> Tensor(a)", cpu=_permute_cpu,
                backward={"self": lambda grad, dims: grad.permute(_invert(dims, grad.ndim))})  # fmt: skip
transpose = defop("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", cpu=_transpose_cpu,
                  backward={"self": lambda grad, dim0, dim1: grad.transpose(dim0, dim1)})  # fmt: skip
t = defop("t(Tensor(a) self) -> Tensor(a)", cpu=_t_cpu, backward={"self": lambda grad: grad.t()})
expand = defop(
    "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
    cpu=_expand_cpu,
    backward={"self": lambda grad, self_sym_sizes: _sum_to(grad, self_sym_sizes)},  # at::sum_to
)
swapaxes = defop("swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)",
                 composite=lambda self, axis0, axis1: _c(transpose, self, axis0, axis1))  # fmt: skip
swapdims = defop("swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
                 composite=lambda self, dim0, dim1: _c(transpose, self, dim0, dim1))  # fmt: skip
expand_as = defop("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)",
                  composite=lambda self, other: _c(expand, self, _sh(other), False))  # fmt: skip
broadcast_to = defop("broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)",
                     composite=lambda self, size: _c(expand, self, list(size), False))  # fmt: skip


def _movedim(self, source, destination):
    src, dst = list(source), list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
            f"same number of dims as destination ({dst} dims)"
        )
    nd = self._data.ndim
    ns, ndst = [_wrap_dim(d, nd) for d in src], [_wrap_dim(d, nd) for d in dst]
    if len(set(ns)) != len(ns):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(ndst)) != len(ndst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if nd == 0:
        return _c(alias, self)
    order = [-1] * nd
    for s, d in zip(ns, ndst, strict=False):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in ns)
    order = [o if o >= 0 else next(rest) for o in order]
    return _c(permute, self, order)


movedim_int = defop("movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
                    composite=lambda self, source, destination: _movedim(self, [source], [destination]))  # fmt: skip
movedim = defop(
    "movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
    composite=_movedim,
)


# ---- public functions and methods ----------------------------------------------------------
def both(
    name: str, fsig: str | None, msig: str | None, body, ops=(), fbody=None, frel=("input",)
) -> None:
    """Declare ``numtorch.<name>`` (signature ``fsig``) and ``Tensor.<name>`` (``msig``)."""
    if fsig is not None:
        public(name, fsig, fbody or body, relevant=frel, ops=ops)
    if msig is not None:
        public(name, msig, body, relevant=("self",), module="Tensor", ops=ops)


def _size(v, fname: str, arg: str = "size") -> list:
    if isinstance(v, tuple) and len(v) == 1 and isinstance(v[0], (list, tuple)):
        v = v[0]
    return _ints(v, fname, arg)


def _required(v: tuple, fname: str, arg: str) -> tuple:
    """A method's ``*args`` that PyTorch declares as one required parameter."""
    if not v:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "{arg}"')
    return v


def varargs_method(body, fname: str, arg: str):
    """``body`` for a method taking ``*arg`` where PyTorch requires at least one value."""

    def method(self, args, *rest):
        return body(self, _required(args, fname, arg), *rest)

    method.__doc__ = body.__doc__
    return method


def _view_method(self, size):
    """A view of the same data with another shape (one size may be -1) or dtype.

    >>> numtorch.zeros(6).view(2, 3).shape
    torch.Size([2, 3])
    """
    if not size:
        raise TypeError(
            "view() received an invalid combination of arguments - got (), but expected one of:\n"
            " * (torch.dtype dtype)\n * (tuple of ints size)\n"
        )
    if len(size) == 1 and isinstance(size[0], D.dtype):
        return _c(view_dtype, self, size[0])
    return _c(view, self, _size(size, "view"))


def _view_as(self, other):
    """``self.view(other.size())``.

    >>> numtorch.zeros(6).view_as(numtorch.zeros(3, 2)).shape
    torch.Size([3, 2])
    """
    return _c(view_as, self, other)


def _reshape_body(input, shape):
    """The same data with another shape: a view when the strides allow it, else a copy.

    >>> numtorch.zeros(2, 3).reshape(-1).shape
    torch.Size([6])
    """
    return _c(reshape, input, _size(shape, "reshape", "shape"))


def _reshape_as(self, other):
    """``self.reshape(other.size())``.

    >>> numtorch.zeros(6).reshape_as(numtorch.zeros(2, 3)).shape
    torch.Size([2, 3])
    """
    return _c(reshape_as, self, other)


def _flatten_body(input, start_dim, end_dim):
    """Merge dimensions ``start_dim..end_dim`` into one.

    >>> numtorch.zeros(2, 3, 4).flatten(1).shape
    torch.Size([2, 12])
    """
    return _c(
        flatten, input, _int(start_dim, "flatten", "start_dim"), _int(end_dim, "flatten", "end_dim")
    )


def _unflatten_body(input, dim, sizes):
    """Split dimension ``dim`` into ``sizes`` (one may be -1).

    >>> numtorch.zeros(2, 6).unflatten(1, (2, 3)).shape
    torch.Size([2, 2, 3])
    """
    return _c(unflatten, input, _int(dim, "unflatten", "dim"), _ints(sizes, "unflatten", "sizes"))


def _ravel_body(input):
    """The data as a 1-D tensor (a view when possible).

    >>> numtorch.zeros(2, 3).ravel().shape
    torch.Size([6])
    """
    return _c(ravel, input)


def _squeeze_body(input, dim):
    """Remove size-1 dimensions (all, one, or a tuple of them).

    >>> numtorch.zeros(2, 1, 3, 1).squeeze().shape
    torch.Size([2, 3])
    """
    if dim is None:
        return _c(squeeze, input)
    if isinstance(dim, (list, tuple)):
        return _c(squeeze_dims, input, _ints(dim, "squeeze", "dim"))
    return _c(squeeze_dim, input, _int(dim, "squeeze", "dim"))


def _unsqueeze_body(input, dim):
    """Insert a size-1 dimension at ``dim``.

    >>> numtorch.zeros(3).unsqueeze(0).shape
    torch.Size([1, 3])
    """
    return _c(unsqueeze, input, _int(dim, "unsqueeze", "dim"))


def _permute_body(input, dims):
    """A view with the dimensions reordered.

    >>> numtorch.zeros(2, 3, 4).permute(2, 0, 1).shape
    torch.Size([4, 2, 3])
    """
    return _c(permute, input, _size(dims, "permute", "dims"))


def _transpose_body(input, dim0, dim1):
    """A view with ``dim0`` and ``dim1`` swapped.

    >>> numtorch.zeros(2, 3).transpose(0, 1).shape
    torch.Size([3, 2])
    """
    return _c(transpose, input, _int(dim0, "transpose", "dim0"), _int(dim1, "transpose", "dim1"))


def _t_body(input):
    """Transpose a tensor of at most 2 dimensions.

    >>> numtorch.zeros(2, 3).t().shape
    torch.Size([3, 2])
    """
    return _c(t, input)


def _expand_method(self, size):
    """A view broadcasting size-1 dimensions to ``size`` (-1 keeps a size); no copy.

    >>> numtorch.zeros(3, 1).expand(3, 4).stride()
    (1, 0)
    """
    return _c(expand, self, _size(_required(size, "expand", "size"), "expand"), False)


def _expand_as(self, other):
    """``self.expand(other.size())``.

    >>> numtorch.zeros(1).expand_as(numtorch.zeros(3)).shape
    torch.Size([3])
    """
    return _c(expand_as, self, other)


def _broadcast_to_body(input, size):
    """``input`` broadcast to ``size`` (a view, like ``expand``).

    >>> numtorch.broadcast_to(numtorch.zeros(3), (2, 3)).shape
    torch.Size([2, 3])
    """
    return _c(broadcast_to, input, _size(size, "broadcast_to"))


def _movedim_body(input, source, destination):
    """Move dimensions ``source`` to positions ``destination`` (ints or sequences).

    >>> numtorch.zeros(2, 3, 4).movedim(0, -1).shape
    torch.Size([3, 4, 2])
    """
    if isinstance(source, (list, tuple)) or isinstance(destination, (list, tuple)):
        return _c(
            movedim,
            input,
            _ints(source, "movedim", "source"),
            _ints(destination, "movedim", "destination"),
        )
    return _c(
        movedim_int,
        input,
        _int(source, "movedim", "source"),
        _int(destination, "movedim", "destination"),
    )


def _swap_body(name, op):
    def body(input, a, b):
        return _c(op, input, _int(a, name, "dim0"), _int(b, name, "dim1"))

    body.__doc__ = f"""Alias of ``transpose``.

    >>> numtorch.zeros(2, 3).{name}(0, 1).shape
    torch.Size([3, 2])
    """
    return body


both("view", None, "self, *size", _view_method, (view, view_dtype))
both("view_as", None, "self, other", _view_as, (view_as,))
both("reshape", "input, shape", None, _reshape_body, (reshape,))
both("reshape", None, "self, *shape", varargs_method(_reshape_body, "reshape", "shape"), (reshape,))
both("reshape_as", None, "self, other", _reshape_as, (reshape_as,))
both(
    "flatten",
    "input, start_dim=0, end_dim=-1",
    "self, start_dim=0, end_dim=-1",
    _flatten_body,
    (flatten,),
)
both("unflatten", "input, dim, sizes", "self, dim, sizes", _unflatten_body, (unflatten,))
both("ravel", "input", "self", _ravel_body, (ravel,))
both(
    "squeeze",
    "input, dim=None",
    "self, dim=None",
    _squeeze_body,
    (squeeze, squeeze_dim, squeeze_dims),
)
both("unsqueeze", "input, dim", "self, dim", _unsqueeze_body, (unsqueeze,))
both("permute", "input, dims", None, _permute_body, (permute,))
both("permute", None, "self, *dims", varargs_method(_permute_body, "permute", "dims"), (permute,))
both("transpose", "input, dim0, dim1", "self, dim0, dim1", _transpose_body, (transpose,))
both(
    "swapaxes",
    "input, axis0, axis1",
    "self, axis0, axis1",
    _swap_body("swapaxes", swapaxes),
    (swapaxes,),
)
both(
    "swapdims",
    "input, dim0, dim1",
    "self, dim0, dim1",
    _swap_body("swapdims", swapdims),
    (swapdims,),
)
both("t", "input", "self", _t_body, (t,))
both("expand", None, "self, *size", _expand_method, (expand,))
both("expand_as", None, "self, other", _expand_as, (expand_as,))
both("broadcast_to", "input, size", "self, size", _broadcast_to_body, (broadcast_to,))
both(
    "movedim",
    "input, source, destination",
    "self, source, destination",
    _movedim_body,
    (movedim, movedim_int),
)
both(
    "moveaxis",
    "input, source, destination",
    "self, source, destination",
    _movedim_body,
    (movedim, movedim_int),
)


def tensor_property(name: str, getter, setter=None, doc: str = "") -> None:
    """Attach ``Tensor.<name>`` as a property that honours ``__torch_function__``, as
    PyTorch's ``Tensor.T`` does (the handler receives ``Tensor.<name>.__get__``)."""
    from ..._state import STATE
    from ...overrides import handle_torch_function, has_torch_function_unary

    def get(self):
        if (type(self) is not Tensor or STATE.tf_modes) and has_torch_function_unary(self):
            return handle_torch_function(prop.__get__, (self,), self)
        return getter(self)

    prop = property(get, setter, doc=doc)
    setattr(Tensor, name, prop)
