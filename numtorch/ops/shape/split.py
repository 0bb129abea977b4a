"""Multi-output views: unbind, split, split_with_sizes, chunk, tensor_split, hsplit/vsplit/dsplit.

See Note [Views are NumPy views] in ``shape.py`` and Note [Multi-output views] below.
"""

from __future__ import annotations

from ... import _dtype as D
from ..._tensor import Tensor, _view, _wrap_dim
from .._pointwise import _cname
from .._registry import defop
from .core import _c, _int, _ints, _wrap_strict, both
from .views import _index, _pyslice
from .views import slice as _slice


# ---- unbind / split / chunk / tensor_split ------------------------------------------------------
def _unbind_cpu(self, dim):
    a = self._data
    d = _wrap_strict(dim, a.ndim)
    return tuple(_view(self, _index(a, d, i)) for i in range(a.shape[d]))


def _split_sizes_cpu(self, split_sizes, dim):
    a = self._data
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, a.ndim)
    out, start = [], 0
    for n in split_sizes:
        if n < 0:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={list(split_sizes)}"
            )
        out.append(_view(self, _index(a, d, _pyslice(start, start + n))))
        start += n
    if start != a.shape[d]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {a.shape[d]} (input tensor's "
            f"size at dimension {d}), but got split_sizes={list(split_sizes)}"
        )
    return tuple(out)


def _split_cpu(self, split_size, dim):
    a = self._data
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    n = a.shape[_wrap_dim(dim, a.ndim)]
    if split_size == 0 and n != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )
    k = max(-(-n // split_size), 1) if split_size else 1
    return _split_sizes_cpu(self, [split_size] * (k - 1) + [n - split_size * (k - 1)], dim)


# Note [Multi-output views]
# unbind/split return a tuple (aten returns a list; the autograd engine records tuples), and
# their formulas take ``grads`` only: the engine passes zeros for outputs that got no gradient.
def _split_grad(grads, dim):
    from .join import cat

    return _c(cat, list(grads), dim)


unbind = defop(
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    cpu=_unbind_cpu,
    backward={"self": lambda grads, dim: _stack(list(grads), dim)},
)
split = defop("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
              cpu=_split_cpu, backward={"self": _split_grad})  # fmt: skip
split_with_sizes = defop(
    "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
    cpu=_split_sizes_cpu,
    backward={"self": _split_grad},
)
split_sizes = defop(
    "split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]",
    composite=lambda self, split_size, dim: _c(split_with_sizes, self, split_size, dim),
)


def _stack(tensors, dim):
    from .join import stack

    return _c(stack, tensors, dim)


def _chunk(self, chunks, dim):
    a = self._data
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = a.shape[_wrap_dim(dim, a.ndim)]
    size = -(-n // chunks)
    if size == 0 and n == 0:
        return _c(split_with_sizes, self, [0] * chunks, dim)
    return _c(split, self, size, dim)


def _tensor_split_check(self):
    if self._data.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )


def _tensor_split_sections(self, sections, dim):
    _tensor_split_check(self)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    d = _wrap_dim(dim, self._data.ndim)
    n = self._data.shape[d]
    lo, extra = divmod(n, sections)
    out, start = [], 0
    for i in range(sections):
        size = lo + 1 if i < extra else lo
        out.append(_c(_slice, self, d, start, start + size, 1))
        start += size
    return out


def _tensor_split_indices(self, indices, dim):
    _tensor_split_check(self)
    d = _wrap_dim(dim, self._data.ndim)
    bounds = [0, *indices, self._data.shape[d]]
    return [_c(_slice, self, d, s, e, 1) for s, e in zip(bounds[:-1], bounds[1:], strict=False)]


def _tensor_split_tensor(self, tensor_indices_or_sections, dim):
    _tensor_split_check(self)
    ind = tensor_indices_or_sections
    if ind._dtype is not D.int64:
        raise RuntimeError(
            f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got {_cname(ind._dtype)}"
        )
    if ind.ndim > 1:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
            f"one-dimensional tensor, but got a tensor with {ind.ndim} dims"
        )
    if ind.ndim == 0:
        return _c(tensor_split, self, int(ind.item()), dim)
    return _c(tensor_split_indices, self, [int(v) for v in ind.tolist()], dim)


chunk = defop("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", composite=_chunk)
tensor_split = defop("tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]",
                     composite=_tensor_split_sections)  # fmt: skip
tensor_split_indices = defop(
    "tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]",
    composite=_tensor_split_indices,
)
tensor_split_tensor = defop(
    "tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor tensor_indices_or_sections, int dim=0) -> Tensor(a)[]",
    composite=_tensor_split_tensor,
)


def _directional_split(name: str, min_dim: int, dim_of):
    def run(self, sections):
        nd = self._data.ndim
        if nd < min_dim:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a "
                f"tensor with {nd} dimensions!"
            )
        d = dim_of(nd)
        if isinstance(sections, int):
            if sections == 0 or self._data.shape[d] % sections:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {self._data.shape[d]} is not divisible by the split_size {sections}!"
                )
            return _c(tensor_split, self, sections, d)
        return _c(tensor_split_indices, self, sections, d)

    ops = (
        defop(f"{name}.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]", composite=run),
        defop(f"{name}.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]", composite=run),
    )

    def body(input, indices_or_sections):
        if isinstance(indices_or_sections, (list, tuple)):
            return tuple(_c(ops[1], input, _ints(indices_or_sections, name, "indices")))
        return tuple(_c(ops[0], input, _int(indices_or_sections, name, "sections")))

    body.__doc__ = f"""Split along dimension {dim_of(3)} (``tensor_split`` with sections or indices).

    >>> [p.shape for p in numtorch.zeros(4, 4, 4).{name}(2)][0]
    torch.Size({[2, 4, 4] if name == "vsplit" else [4, 2, 4] if name == "hsplit" else [4, 4, 2]})
    """
    both(name, "input, indices_or_sections", "self, indices_or_sections", body, ops)


_directional_split("hsplit", 1, lambda nd: 0 if nd == 1 else 1)
_directional_split("vsplit", 2, lambda nd: 0)
_directional_split("dsplit", 3, lambda nd: 2)


# ---- public functions and methods ---------------------------------------------------------------
def _unbind_body(input, dim):
    """The views along ``dim``, as a tuple.

    >>> len(numtorch.zeros(3, 2).unbind())
    3
    """
    return tuple(_c(unbind, input, _int(dim, "unbind", "dim")))


def _split_body(input, split_size, dim):
    """Views of chunks of ``split_size`` (an int) or of the given sizes (a list) along ``dim``.

    >>> [p.shape[0] for p in numtorch.zeros(5).split(2)]
    [2, 2, 1]
    """
    dim = _int(dim, "split", "dim")
    if isinstance(split_size, (list, tuple)):
        return tuple(_c(split_with_sizes, input, _ints(split_size, "split", "split_size"), dim))
    return tuple(_c(split, input, _int(split_size, "split", "split_size"), dim))


def _split_with_sizes_body(input, split_sizes, dim):
    """Views of the given sizes along ``dim``.

    >>> [p.shape[0] for p in numtorch.zeros(5).split_with_sizes([1, 4])]
    [1, 4]
    """
    return tuple(
        _c(
            split_with_sizes,
            input,
            _ints(split_sizes, "split_with_sizes", "split_sizes"),
            _int(dim, "split_with_sizes", "dim"),
        )
    )


def _chunk_body(input, chunks, dim):
    """At most ``chunks`` equal views along ``dim`` (the last may be smaller).

    >>> [p.shape[0] for p in numtorch.zeros(5).chunk(3)]
    [2, 2, 1]
    """
    return tuple(_c(chunk, input, _int(chunks, "chunk", "chunks"), _int(dim, "chunk", "dim")))


def _tensor_split_body(input, indices_or_sections, dim):
    """Views split into ``n`` near-equal sections (an int) or at the given indices (a list).

    >>> [p.shape[0] for p in numtorch.zeros(5).tensor_split(3)]
    [2, 2, 1]
    """
    dim = _int(dim, "tensor_split", "dim")
    if isinstance(indices_or_sections, Tensor):
        return tuple(_c(tensor_split_tensor, input, indices_or_sections, dim))
    if isinstance(indices_or_sections, (list, tuple)):
        return tuple(
            _c(
                tensor_split_indices,
                input,
                _ints(indices_or_sections, "tensor_split", "indices"),
                dim,
            )
        )
    return tuple(
        _c(tensor_split, input, _int(indices_or_sections, "tensor_split", "sections"), dim)
    )


both("unbind", "input, dim=0", "self, dim=0", _unbind_body, (unbind,))
both("split", "tensor, split_size_or_sections, dim=0", "self, split_size, dim=0", _split_body,
     (split, split_with_sizes), frel=("tensor",))  # fmt: skip
both("chunk", "input, chunks, dim=0", "self, chunks, dim=0", _chunk_body, (chunk,))
both("tensor_split", "input, indices_or_sections, dim=0", "self, indices_or_sections, dim=0", _tensor_split_body,
     (tensor_split, tensor_split_indices, tensor_split_tensor))  # fmt: skip
both(
    "split_with_sizes",
    "input, split_sizes, dim=0",
    "self, split_sizes, dim=0",
    _split_with_sizes_body,
    (split_with_sizes,),
)
