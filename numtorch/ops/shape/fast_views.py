"""Fast calls (Note [Binding fast call]) of the view ops PyTorch builds by composition:
diagonal, movedim/moveaxis, flatten, unflatten, broadcast_to, expand_as.
"""

# Note [Composite view fast calls]
# On a plain CPU tensor with no dispatch mode, no forward-AD level and nothing to record, each
# of these is one NumPy view of the input wrapped by _view (the input's storage, version
# counter and base), exactly the tensor the body reaches through its aten ops (diagonal ->
# _diagonal_cpu, movedim -> permute, flatten/unflatten of a C-contiguous tensor -> view,
# broadcast_to/expand_as -> expand), without the argument parsing and the dispatches (3.4-5.3 us
# -> ~1 us for a 24-element float32). Anything else - a gradient to record, a mode that must see
# the op, a non-int argument, a dim out of range, any error - takes the body, so errors and
# recorded graphs are the body's. tests/ops/shape/test_fast_views.py compares both routes.

from __future__ import annotations

from numpy import dtype as _np_dtype
from numpy import ndarray as _ndarray

from ... import _dtype as _D
from ..._device import CPU as _CPU
from ..._size import Size as _Size
from ..._state import STATE as _STATE
from ..._tensor import Tensor as _Tensor
from ..._tensor import _view
from .._fast_guard import plain as _guard_plain
from . import fast_parts
from .fast_expand import make_expand_as_fast


def _plain(self) -> bool:
    S = _STATE
    return not (
        S.td_modes or S.fw_level >= 0 or self._device is not _CPU or self._rg and S.grad_enabled
    )


def _make_diagonal(body, diagonal_cpu, diag_geometry):
    def fast(self, offset, dim1, dim2):
        a = self._data
        n = a.ndim
        if (
            offset.__class__ is dim1.__class__ is dim2.__class__ is int
            and n >= 2
            and -n <= dim1 < n
            and -n <= dim2 < n
            and _plain(self)
        ):
            d1 = dim1 + n if dim1 < 0 else dim1
            d2 = dim2 + n if dim2 < 0 else dim2
            if d1 != d2:
                if not (a.size and a.flags.c_contiguous):
                    return diagonal_cpu(self, offset, dim1, dim2)
                # _diag_geometry in bytes (it is linear in the strides' unit), written out
                # with as few steps as may be (each one counts on a ~1 us call), as an
                # ndarray over a's own buffer
                sh, st = a.shape, a.strides
                if offset >= 0:
                    k, m, off = sh[d2] - offset, sh[d1], offset * st[d2]
                else:
                    k, m, off = sh[d1] + offset, sh[d2], -offset * st[d1]
                if k > m:
                    k = m
                if k > 0:  # empty: the kernel (its offset 0)
                    if n == 2:
                        shape, strides = (k,), (st[0] + st[1],)
                    elif n == 3:
                        o = 3 - d1 - d2
                        shape, strides = (sh[o], k), (st[o], st[d1] + st[d2])
                    else:
                        keep = [i for i in range(n) if i != d1 and i != d2]
                        shape = tuple([sh[i] for i in keep]) + (k,)
                        strides = tuple([st[i] for i in keep]) + (st[d1] + st[d2],)
                    return _view(self, _ndarray(shape, a.dtype, a, off, strides))
                return diagonal_cpu(self, offset, dim1, dim2)
        return body(self, offset, dim1, dim2)

    return fast


def _make_movedim(body):
    def fast(self, source, destination):
        a = self._data
        n = a.ndim
        if (
            _plain(self)
            and source.__class__ is destination.__class__ is int
            and -n <= source < n
            and -n <= destination < n
        ):
            order = list(range(n))
            s = order.pop(source)
            order.insert(destination % n if n else 0, s)
            return _view(self, a.transpose(order))
        return body(self, source, destination)

    return fast


def _make_flatten(body):
    def fast(self, start_dim, end_dim):
        a = self._data
        n = a.ndim
        if (
            _plain(self)
            and start_dim.__class__ is end_dim.__class__ is int
            and -n <= start_dim < n
            and -n <= end_dim < n
            and a.size
            and a.flags.c_contiguous
        ):
            s, e = start_dim % n, end_dim % n
            if s < e:
                if s == 0 and e == n - 1:  # the whole tensor (the default call)
                    return _view(self, a.reshape(a.size))
                sh = a.shape
                m = 1
                for k in sh[s : e + 1]:
                    m *= k
                return _view(self, a.reshape(sh[:s] + (m,) + sh[e + 1 :]))
        return body(self, start_dim, end_dim)

    return fast


def _make_unflatten(body):
    def fast(self, dim, sizes):
        a = self._data
        n = a.ndim
        if (
            _plain(self)
            and dim.__class__ is int
            and -n <= dim < n
            and (sizes.__class__ is tuple or sizes.__class__ is list or sizes.__class__ is _Size)
            and sizes
            and a.size
            and a.flags.c_contiguous
        ):
            m = 1
            for k in sizes:
                if k.__class__ is not int or k <= 0:
                    return body(self, dim, sizes)
                m *= k
            d = dim % n
            sh = a.shape
            if m == sh[d]:
                return _view(self, a.reshape(sh[:d] + tuple(sizes) + sh[d + 1 :]))
        return body(self, dim, sizes)

    return fast


def _make_broadcast_to(body, expand_fast):
    def fast(self, size):
        if size.__class__ is tuple or size.__class__ is list or size.__class__ is _Size:
            r = expand_fast(self, (size,))
            if r is not None:
                return r
        return body(self, size)

    return fast


# Note [Composite view fast calls], continued (session 14): as_strided, unfold, view_as_real,
# view_as_complex and imag call the op's CPU kernel (or, for a C-contiguous complex input,
# NumPy's reinterpreting view with the kernel's sizes and strides) without the public body's
# int parsing and the dispatch; the kernels' own checks raise the body's errors.
def _int_list(v) -> bool:
    if v.__class__ is not tuple and v.__class__ is not list and v.__class__ is not _Size:
        return False
    for x in v:
        if x.__class__ is not int:
            return False
    return True


def _make_as_strided(body, as_strided_cpu):
    seqs = (tuple, list, _Size)

    def fast(self, size, stride, storage_offset):
        a, S = self._data, _STATE  # (_plain written out, one loop: ~0.25 us less a call)
        if (
            size.__class__ in seqs
            and stride.__class__ in seqs
            and len(size) == len(stride)
            and (storage_offset is None or storage_offset.__class__ is int and storage_offset >= 0)
            and not (S.td_modes or S.fw_level >= 0 or self._device is not _CPU or self._rg and S.grad_enabled)
            and a.base is None
            and a.flags.c_contiguous
            and a.size
        ):  # the storage is ``a``: _strided's ndarray over its buffer (int sizes > 0, strides >= 0)
            off = storage_offset or 0
            isz, bst, span = a.itemsize, [], off
            # (lengths checked equal: zip's strict= keyword call costs ~0.1 us here)
            for k, s in zip(size, stride):  # noqa: B905
                if k.__class__ is not int or s.__class__ is not int or k <= 0 or s < 0:
                    break
                span += (k - 1) * s
                bst.append(s * isz)
            else:
                if span < a.size:
                    shape = size if size.__class__ is tuple else tuple(size)
                    return _view(self, _ndarray(shape, a.dtype, a, off * isz, bst))
        return general(self, size, stride, storage_offset)

    def general(self, size, stride, storage_offset):
        if (
            _plain(self)
            and _int_list(size)
            and _int_list(stride)
            and (storage_offset is None or storage_offset.__class__ is int)
        ):
            return as_strided_cpu(self, list(size), list(stride), storage_offset)
        return body(self, size, stride, storage_offset)

    return fast


def _make_unfold(body, unfold_cpu):
    def fast(self, dimension, size, step):
        n = self._data.ndim
        if (
            _plain(self)
            and dimension.__class__ is size.__class__ is step.__class__ is int
            and -n <= dimension < n
        ):
            a = self._data
            d = dimension % n
            if (
                a.base is None
                and a.flags.c_contiguous
                and a.size
                and 0 <= size <= a.shape[d]
                and step > 0
            ):
                # _unfold_cpu's geometry as an ndarray over the storage ``a`` (its _strided)
                st = a.strides
                shape, strides = a.shape[:d] + ((a.shape[d] - size) // step + 1,) + a.shape[d + 1 :] + (size,), (
                    st[:d] + (step * st[d],) + st[d + 1 :] + (st[d],))  # fmt: skip
                return _view(self, _ndarray(shape, a.dtype, a, 0, strides))
            return unfold_cpu(self, dimension, size, step)
        return body(self, dimension, size, step)

    return fast


def _complex_plain(self) -> bool:
    a = self._data
    return (
        _plain(self)
        and not self._is_conj
        and a.size
        and a.ndim
        and a.flags.c_contiguous
        and a.dtype.kind == "c"
    )


def _make_view_as_real(body):
    # complex dtype -> (its real dtype, the NumPy dtype of a (real, imag) pair)
    pairs = {
        dt: (dt.to_real(), _np_dtype((dt.to_real().np, (2,))))
        for dt in (_D.complex64, _D.complex128)
    }

    def fast(input):
        # _complex_plain written out (two frames: ~0.07 us of a ~0.7 us call)
        p, a, S = pairs.get(input._dtype), input._data, _STATE
        if (
            p is not None
            and not (
                S.td_modes
                or S.fw_level >= 0
                or input._device is not _CPU
                or input._rg
                and S.grad_enabled
            )
            and not input._is_conj
            and a.size
            and a.ndim
            and a.flags.c_contiguous
            and a.dtype.kind == "c"
        ):
            # viewing as the pair's subarray dtype appends the dim of 2: the C-contiguous
            # (..., 2) view in one NumPy call (view + reshape: 0.5 us -> 0.23 us)
            return _view(input, a.view(p[1]), p[0])
        return body(input)

    return fast


def _make_view_as_complex(body, view_as_complex_cpu):
    # float32/float64 -> (the complex dtype, its NumPy dtype): the kernel's dtypes of a view
    pairs = {dt: (dt.to_complex(), _np_dtype(dt.to_complex().np)) for dt in (_D.float32, _D.float64)}

    def fast(input):
        # also no autocast region: view_as_complex has a float32 rule on the CPU
        if _guard_plain(input):
            a = input._data
            p = pairs.get(input._dtype)
            if p is not None and a.base is None and a.flags.c_contiguous and a.ndim and a.shape[-1] == 2:
                # the kernel's C-contiguous view, offset 0
                return _view(input, a.view(p[1])[..., 0], p[0])
            return view_as_complex_cpu(input)
        return body(input)

    return fast


def _make_imag(body):
    def fast(input):
        if _complex_plain(input):  # select(view_as_real(x), -1, 1), as the composite
            a = input._data
            rt = input._dtype.to_real()
            return _view(input, a.view(rt.np)[..., 1::2], rt)
        return body(input)

    return fast


# and the plain view ops (session 14): reshape/view_as/reshape_as/ravel of a C-contiguous
# tensor to int sizes of its numel (a NumPy reshape, as Note [Reshape fast path]), squeeze,
# unsqueeze (its kernel's C-contiguous branch) and permute: _view of the NumPy view the
# kernel makes, without the parsing and the dispatch.
def _contig(a) -> bool:
    return a.flags.c_contiguous and a.size and (a.ndim == 0 or a.strides[-1] == a.itemsize)


def _reshaped(self, shape):
    """``self`` viewed with the int ``shape`` (sizes >= 0 of its numel), or None."""
    a = self._data
    if not (_plain(self) and _contig(a)) or (shape.__class__ is not tuple and shape.__class__ is not list and
                                               shape.__class__ is not _Size):  # fmt: skip
        return None
    n = 1
    for k in shape:
        if k.__class__ is not int or k < 0:
            return None
        n *= k
    return _view(self, a.reshape(shape)) if n == a.size and shape else None


def _make_reshape(body):
    def fast(input, shape):
        r = _reshaped(input, shape)
        return body(input, shape) if r is None else r

    return fast


def _make_shape_as(body):  # view_as / reshape_as
    def fast(self, other):
        r = _reshaped(self, other._data.shape) if other.__class__ is _Tensor else None
        return body(self, other) if r is None else r

    return fast


def _make_ravel(body):
    def fast(input):
        a = input._data
        if _plain(input) and _contig(a):  # _reshaped(input, (a.size,)) without its checks
            return _view(input, a.reshape(a.size))
        return body(input)

    return fast


def _make_squeeze(body):
    def fast(input, dim):
        a = input._data
        n = a.ndim
        if _plain(input) and n and (dim is None or dim.__class__ is int and -n <= dim < n):
            if dim is None:  # every size-1 dim: NumPy's squeeze(), a view unless there is none
                r = a.squeeze()
                return _view(input, a.view() if r is a else r)
            return _view(input, a.squeeze(dim) if a.shape[dim] == 1 else a.view())
        return body(input, dim)

    return fast


def _make_unsqueeze(body):
    def fast(input, dim):
        a = input._data
        n = a.ndim
        if (
            _plain(input)
            and dim.__class__ is int
            and -n - 1 <= dim <= n
            and a.flags.c_contiguous  # _contig(a) written out (a frame: ~0.04 us)
            and a.size
            and (n == 0 or a.strides[-1] == a.itemsize)
        ):
            d = dim % (n + 1)  # (the first and last dim: one tuple, not three: ~0.08 us)
            if not d:
                s = (1,) + a.shape
            elif d == n:
                s = a.shape + (1,)
            else:
                s = a.shape[:d] + (1,) + a.shape[d:]
            return _view(input, a.reshape(s))
        return body(input, dim)

    return fast


def _make_permute(body):
    def fast(input, dims):
        a = input._data
        n = a.ndim
        if _plain(input) and (dims.__class__ is tuple or dims.__class__ is list) and len(dims) == n:
            w = []
            for d in dims:
                if d.__class__ is not int or not -n <= d < n or d % n in w:
                    return body(input, dims)
                w.append(d % n)
            return _view(input, a.transpose(w))
        return body(input, dims)

    return fast


def _pieces(self, d: int, sizes) -> tuple:
    """The views _slice_cpu makes of consecutive non-empty ``sizes`` along ``d``."""
    a, out, start = self._data, [], 0
    pre = (slice(None),) * d
    for n in sizes:
        out.append(_view(self, a[pre + (slice(start, start + n),)]))
        start += n
    return tuple(out)


def _make_tensor_split(body):
    # int sections of a non-empty dim, every piece non-empty (an empty slice keeps PyTorch's
    # offset through _strided: the body's)
    def fast(input, indices_or_sections, dim):
        a, k = input._data, indices_or_sections
        n = a.ndim
        if (
            _plain(input)
            and k.__class__ is int
            and dim.__class__ is int
            and n
            and -n <= dim < n
            and k > 0
        ):
            lo, extra = divmod(a.shape[dim], k)
            if lo:
                return _pieces(input, dim % n, [lo + 1] * extra + [lo] * (k - extra))
        return body(input, indices_or_sections, dim)

    return fast


def _make_directional_split(body, min_dim: int, dim_of):
    def fast(input, indices_or_sections):
        a, k = input._data, indices_or_sections
        if _plain(input) and k.__class__ is int and a.ndim >= min_dim and k > 0:
            d = dim_of(a.ndim)
            n = a.shape[d]
            if n and not n % k:
                return _pieces(input, d, [n // k] * k)
        return body(input, indices_or_sections)

    return fast


_DIRECTIONAL = {
    "hsplit": (1, lambda nd: 0 if nd == 1 else 1),
    "vsplit": (2, lambda nd: 0),
    "dsplit": (3, lambda nd: 2),
}


def _none(self, size):
    return None  # the expand fast call's fallback here: the caller's own body runs instead


def install(bindings, make_expand_fast, diagonal_cpu, diag_geometry, cpu=None) -> None:
    """Attach the fast calls above (views.install_fast_paths calls this with its expand fast
    call's maker, _diagonal_cpu and _diag_geometry, and ``cpu``: the kernels as_strided, unfold
    and view_as_complex by name; this module imports nothing of views')."""
    cpu = cpu or {}
    for b in bindings:
        if b.module not in ("torch", "Tensor"):
            continue
        args = tuple(p.partition("=")[0].strip() for p in b.sig.split(","))
        if b.name == "diagonal" and args[1:] == ("offset", "dim1", "dim2"):
            b.fast = (_make_diagonal(b.body, diagonal_cpu, diag_geometry), args)
        elif b.name in ("movedim", "moveaxis") and args[1:] == ("source", "destination"):
            b.fast = (_make_movedim(b.body), args)
        elif b.name == "flatten" and args[1:] == ("start_dim", "end_dim"):
            b.fast = (_make_flatten(b.body), args)
        elif b.name == "unflatten" and args[1:] == ("dim", "sizes"):
            b.fast = (_make_unflatten(b.body), args)
        elif b.name == "broadcast_to" and args[1:] == ("size",):
            b.fast = (_make_broadcast_to(b.body, make_expand_fast(_none)), args)
        elif b.name == "expand_as" and args == ("self", "other"):
            b.fast = (make_expand_as_fast(b.body), args)
        elif (
            b.name == "as_strided"
            and args[1:] == ("size", "stride", "storage_offset")
            and "as_strided" in cpu
        ):
            b.fast = (_make_as_strided(b.body, cpu["as_strided"]), args)
        elif (
            b.name == "unfold" and args == ("self", "dimension", "size", "step") and "unfold" in cpu
        ):
            b.fast = (_make_unfold(b.body, cpu["unfold"]), args)
        elif b.name == "view_as_real" and len(args) == 1:
            b.fast = (_make_view_as_real(b.body), args)
        elif b.name == "view_as_complex" and len(args) == 1 and "view_as_complex" in cpu:
            b.fast = (_make_view_as_complex(b.body, cpu["view_as_complex"]), args)
        elif b.name == "imag" and len(args) == 1:
            b.fast = (_make_imag(b.body), args)
        elif b.name == "reshape" and args == ("input", "shape"):
            b.fast = (_make_reshape(b.body), args)
        elif b.name in ("view_as", "reshape_as") and args == ("self", "other"):
            b.fast = (_make_shape_as(b.body), args)
        elif b.name == "ravel" and len(args) == 1:
            b.fast = (_make_ravel(b.body), args)
        elif b.name == "squeeze" and args[1:] == ("dim",):
            b.fast = (_make_squeeze(b.body), args)
        elif b.name == "unsqueeze" and args[1:] == ("dim",):
            b.fast = (_make_unsqueeze(b.body), args)
        elif b.name == "tensor_split" and args[1:] == ("indices_or_sections", "dim"):
            b.fast = (_make_tensor_split(b.body), args)
        elif b.name in _DIRECTIONAL and args[1:] == ("indices_or_sections",):
            b.fast = (_make_directional_split(b.body, *_DIRECTIONAL[b.name]), args)
        elif b.name == "permute" and args == ("input", "dims"):
            b.fast = (_make_permute(b.body), args)
    fast_parts.install(bindings)  # Note [Part view fast calls]
