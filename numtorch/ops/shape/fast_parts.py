"""Fast calls (Note [Binding fast call]) of the view ops that swap two dims (torch.transpose,
swapaxes/swapdims, adjoint), take part of a tensor (select, narrow) or split it (unbind, chunk,
split_with_sizes), and of the ops that return a tensor itself (conj, resolve_conj, real of a
real tensor; Tensor.cpu of a CPU one).
"""

# Note [Part view fast calls]
# On a plain CPU tensor (Note [Guarded fast paths]: no dispatch mode, forward-AD level or
# autocast region, nothing to record) with int arguments in range, each of these is the NumPy
# view its CPU kernel makes (_transpose_cpu's swapaxes, _index's key for select/unbind/
# split_with_sizes/chunk, _slice_cpu's for narrow) wrapped by _view, without the body's int
# parsing and the dispatch of a composite (1.2-3.5 us -> 0.6-1.5 us on the sweep's inputs).
# Anything else - a gradient to record, a mode, a non-int, a dim or index out of range, an
# empty narrow (PyTorch keeps its offset: _slice_cpu's _strided) - takes the body, so errors
# and recorded graphs are the body's. conj/real of a non-complex tensor and resolve_conj of a
# tensor that is no conjugate view are the tensor itself in the body too (recorded or not).
# tests/ops/shape/test_fast_parts.py compares both routes.

from __future__ import annotations

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._tensor import _view
from .._fast_guard import free as _free
from .._fast_guard import plain as _plain

_FULL = slice(None)
_COMPLEX = D._COMPLEX


def _make_swap(body):
    def fast(input, dim0, dim1):
        a = input._data
        n = a.ndim
        if (
            _plain(input)
            and dim0.__class__ is int
            and dim1.__class__ is int
            and -n <= dim0 < n
            and -n <= dim1 < n
        ):
            return _view(input, a.swapaxes(dim0, dim1))
        return body(input, dim0, dim1)

    return fast


def _make_adjoint(body):
    def fast(input):
        a = input._data
        if a.ndim >= 2 and input._dtype.category != _COMPLEX and _plain(input):
            return _view(input, a.swapaxes(-2, -1))  # _mh: transpose(-2, -1); _conj: no-op
        return body(input)

    return fast


def _make_select(body):
    def fast(input, dim, index):
        a = input._data
        n = a.ndim
        if _plain(input) and dim.__class__ is int and index.__class__ is int and -n <= dim < n:
            d = dim + n if dim < 0 else dim
            k = a.shape[d]
            if -k <= index < k:
                return _view(input, a[(_FULL,) * d + (index, Ellipsis)])
        return body(input, dim, index)

    return fast


def _make_narrow(body):
    def fast(input, dim, start, length):
        a = input._data
        n = a.ndim
        if (
            _plain(input)
            and dim.__class__ is int
            and start.__class__ is int
            and length.__class__ is int
            and -n <= dim < n
            and length > 0
        ):
            d = dim + n if dim < 0 else dim
            k = a.shape[d]
            s = start + k if start < 0 else start
            if 0 <= s and s + length <= k and -k <= start:
                return _view(input, a[(_FULL,) * d + (slice(s, s + length, 1), Ellipsis)])
        return body(input, dim, start, length)

    return fast


def _pieces(input, a, d: int, sizes) -> tuple:
    """_split_sizes_cpu's views of ``sizes`` along ``d`` (their sum is the dim's size)."""
    pre, out, start = (_FULL,) * d, [], 0
    for k in sizes:
        out.append(_view(input, a[pre + (slice(start, start + k), Ellipsis)]))
        start += k
    return tuple(out)


def _dim(input, dim):
    """``dim`` wrapped when the fast call may run on ``input``, else None."""
    n = input._data.ndim
    if dim.__class__ is int and -n <= dim < n and _plain(input):
        return dim + n if dim < 0 else dim
    return None


def _make_unbind(body):
    def fast(input, dim):
        d = _dim(input, dim)
        if d is None:
            return body(input, dim)
        a = input._data
        pre = (_FULL,) * d
        return tuple([_view(input, a[pre + (i, Ellipsis)]) for i in range(a.shape[d])])

    return fast


def _make_chunk(body):
    def fast(input, chunks, dim):
        d = _dim(input, dim)
        if d is not None and chunks.__class__ is int and chunks > 0:
            a = input._data
            m = a.shape[d]
            if m:  # _chunk, then _split_cpu's sizes
                size = -(-m // chunks)
                k = -(-m // size)
                return _pieces(input, a, d, [size] * (k - 1) + [m - size * (k - 1)])
        return body(input, chunks, dim)

    return fast


def _make_split_with_sizes(body):
    def fast(input, split_sizes, dim):
        d = _dim(input, dim)
        if d is not None and (split_sizes.__class__ is list or split_sizes.__class__ is tuple):
            m = 0
            for k in split_sizes:
                if k.__class__ is not int or k < 0:
                    return body(input, split_sizes, dim)
                m += k
            a = input._data
            if m == a.shape[d]:
                return _pieces(input, a, d, split_sizes)
        return body(input, split_sizes, dim)

    return fast


def _make_itself(body, test):
    def fast(input):
        return input if input._device is _CPU and test(input) and _free() else body(input)

    return fast


def _real_dtype(x) -> bool:
    return x._dtype.category != _COMPLEX


def _not_conj(x) -> bool:
    return not x._is_conj


_ITSELF = {"conj": _real_dtype, "real": _real_dtype, "resolve_conj": _not_conj}


def _make_cpu(body):
    # Tensor.cpu() of a CPU tensor: _to's "nothing would change", self (any mode, recorded or not)
    def fast(self, memory_format):
        return self if memory_format is None and self._device is _CPU else body(self, memory_format)

    return fast


def install(bindings) -> None:
    """Attach the fast calls above (fast_views.install calls this)."""
    for b in bindings:
        if b.module not in ("torch", "Tensor"):
            continue
        args = tuple(p.partition("=")[0].strip() for p in b.sig.split(","))
        if b.name in ("transpose", "swapaxes", "swapdims") and len(args) == 3 and b.fast is None:
            b.fast = (_make_swap(b.body), args)  # Tensor.transpose has its own (views.py)
        elif b.name == "adjoint" and len(args) == 1:
            b.fast = (_make_adjoint(b.body), args)
        elif b.name == "select" and args[1:] == ("dim", "index"):
            b.fast = (_make_select(b.body), args)
        elif b.name == "narrow" and args[1:] == ("dim", "start", "length"):
            b.fast = (_make_narrow(b.body), args)
        elif b.name == "unbind" and args[1:] == ("dim",):
            b.fast = (_make_unbind(b.body), args)
        elif b.name == "chunk" and args[1:] == ("chunks", "dim"):
            b.fast = (_make_chunk(b.body), args)
        elif b.name == "split_with_sizes" and args[1:] == ("split_sizes", "dim"):
            b.fast = (_make_split_with_sizes(b.body), args)
        elif b.name == "cpu" and args == ("self", "memory_format") and b.fast is None:
            b.fast = (_make_cpu(b.body), args)
        elif b.name in _ITSELF and len(args) == 1:
            b.fast = (_make_itself(b.body, _ITSELF[b.name]), args)
