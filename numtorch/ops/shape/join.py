"""Joins: cat/concat/concatenate, stack and its hstack/vstack/dstack/column_stack family, and
the shape-aligning helpers atleast_nd, broadcast_tensors, meshgrid, cartesian_prod."""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, _make, _wrap_dim
from .._pointwise import _broadcast, _cname
from .._registry import defop, public
from . import join_fast as _jf
from . import join_grad as _jg
from .copy import write_out
from .core import _c, _int, _sh, expand, reshape, unsqueeze, view


# ---- cat / stack ---------------------------------------------------------------------------------
def _legacy_empty(t: Tensor) -> bool:
    return t._data.ndim == 1 and t._data.shape[0] == 0


def _cat_plan(tensors, dim):
    """(valid tensors, wrapped dim, result dtype) with PyTorch's checks, in its order."""
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dt = None
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}"
            )
        if x._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        dt = x._dtype if dt is None else D.promote_types(dt, x._dtype)
    valid = [x for x in tensors if not _legacy_empty(x)]
    if not valid:
        return valid, dim, dt
    first = valid[0]
    d = _wrap_dim(dim, first._data.ndim)
    for i, x in enumerate(tensors):
        if _legacy_empty(x) or x is first:
            continue
        if x._data.ndim != first._data.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {first._data.ndim} and {x._data.ndim}"
            )
        for k, (p, q) in enumerate(zip(first._data.shape, x._data.shape, strict=False)):
            if k != d and p != q:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {p} but "
                    f"got size {q} for tensor number {i} in the list."
                )
    return valid, d, dt


def _cat_same(tensors, dim):
    """The common cat (plain tensors of one dtype and rank, sizes equal off ``dim``) without
    _cat_plan's checks, which cannot fail there (2.7 of a 5.2 us small cat); else None."""
    first = tensors[0] if tensors.__class__ in (list, tuple) and tensors else None
    if first.__class__ is not Tensor or dim.__class__ is not int:
        return None
    a, dt = first._data, first._dtype
    nd = a.ndim
    if not nd or not -nd <= dim < nd:
        return None
    d = dim + nd if dim < 0 else dim
    total, arrays = 0, []
    for x in tensors:
        if x.__class__ is not Tensor or x._dtype is not dt:
            return None
        b = x._data
        if b.ndim != nd:
            return None
        total += b.shape[d]
        arrays.append(b)
    sh = a.shape
    out = np.empty((*sh[:d], total, *sh[d + 1 :]), dt.np)
    try:  # NumPy checks the sizes off ``d`` (cheaper than comparing shape slices here)
        np.concatenate(arrays, axis=d, out=out)
    except ValueError:  # a size mismatch: _cat_plan raises PyTorch's error
        return None
    return _make(out, dt)


def _cat_cpu(tensors, dim=0):
    r = _cat_same(tensors, dim)
    if r is not None:
        return r
    valid, d, dt = _cat_plan(tensors, dim)
    if not valid:
        return _make(np.empty((0,), dt.np), dt)
    if len(valid) == 1:
        return _make(valid[0]._data.astype(dt.np, order="C", copy=True), dt)
    shape = list(valid[0]._data.shape)
    shape[d] = sum(x._data.shape[d] for x in valid)
    out = np.empty(shape, dt.np)  # NumPy would follow the inputs' layout; PyTorch's is C order
    return _make(np.concatenate([x._data for x in valid], axis=d, out=out, casting="unsafe"), dt)


def _cat_out_cpu(tensors, dim, out):
    # cat's meta function: zero-dim inputs and the dim first, then out='s cast, then the sizes
    if tensors and all(t._data.ndim for t in tensors) and -tensors[0]._data.ndim <= dim < tensors[0]._data.ndim:
        dt = tensors[0]._dtype
        for t in tensors[1:]:
            dt = D.promote_types(dt, t._dtype)
        if not D.can_cast(dt, out._dtype):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {_cname(out._dtype)}")
    r = _cat_cpu(tensors, dim)
    if not D.can_cast(r._dtype, out._dtype):
        raise TypeError(
            f"torch.cat(): input types can't be cast to the desired output type {_cname(out._dtype)}"
        )
    from .inplace import OVERLAP_ERR, overlap

    for x in tensors:
        if overlap(out._data, x._data) in ("full", "partial"):
            raise RuntimeError(OVERLAP_ERR)
    return write_out(out, r._data)


cat = defop(
    "cat(Tensor[] tensors, int dim=0) -> Tensor", cpu=_cat_cpu, backward={"tensors": _jg.cat_grad}
)
cat_out = defop(
    "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)", cpu=_cat_out_cpu
)


# stack is CompositeExplicitAutograd in ATen: a mode sees aten.stack (not unsqueeze + cat) and
# its node is StackBackward0, whose formula selects each input's slice of the gradient (the
# engine casts each piece to its input's dtype, as stack_tensors_backward does).
def _stack_plan(tensors, dim):
    """(wrapped dim, result dtype, result shape) with PyTorch's checks."""
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    shape, dt = first._data.shape, first._dtype
    d = _wrap_dim(dim, len(shape) + 1)
    for i, x in enumerate(tensors):
        if x._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {_sh(first)} at entry 0 and {_sh(x)} at entry {i}"
            )
        if x._dtype is not dt:
            dt = D.promote_types(dt, x._dtype)
    return d, dt, (*shape[:d], len(tensors), *shape[d:])


def _stack_cpu(tensors, dim=0):
    d, dt, shape = _stack_plan(tensors, dim)
    out = np.empty(shape, dt.np)  # C order, as PyTorch's result
    # np.stack's own Python (expand_dims, checks) was half a small stack: concatenate reshapes
    one = shape[:d] + (1,) + shape[d + 1 :]
    np.concatenate([x._data.reshape(one) for x in tensors], axis=d, out=out, casting="unsafe")
    return _make(out, dt)


def _stack_parts(tensors, dim):
    d = _stack_plan(tensors, dim)[0]
    return [_c(unsqueeze, x, d) for x in tensors], d


def _stack_any(tensors, dim=0):  # other devices: their cat kernel on unsqueezed views
    return _c(cat, *_stack_parts(tensors, dim))


def _stack_out(tensors, dim, out):
    return _c(cat_out, *_stack_parts(tensors, dim), out)


stack = defop("stack(Tensor[] tensors, int dim=0) -> Tensor", cpu=_stack_cpu, any_device=_stack_any,
              backward={"tensors": _jg.stack_grad})  # fmt: skip
stack_out = defop("stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)", cpu=_stack_out,
                  any_device=_stack_out)  # fmt: skip


def _stack_family(name: str, prep, dim_of):
    """hstack / vstack / dstack / column_stack: reshape the inputs, then cat along one dim."""

    shown = "vstack" if name == "row_stack" else name  # row_stack is vstack in ATen

    def run(tensors, out=None):
        if not tensors:
            raise RuntimeError(f"{shown} expects a non-empty TensorList")
        parts = [prep(x) for x in tensors]
        d = dim_of(parts)
        return _c(cat, parts, d) if out is None else _c(cat_out, parts, d, out)

    op = defop(f"{name}(Tensor[] tensors) -> Tensor", composite=run)
    op_out = defop(f"{name}.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)", composite=run)
    return op, op_out


def _col(x):
    # reshape(numel, 1) of a 0-d or 1-D tensor is always viewable: reshape's own view, without
    # its composite's size inference and stride test
    a = x._data
    return _c(view, x, [a.size, 1]) if a.ndim <= 1 else x


def _first_dim(parts):
    return 0 if parts and parts[0].ndim == 1 else 1


hstack = _stack_family("hstack", lambda x: _atleast(x, 1), _first_dim)
vstack = _stack_family("vstack", lambda x: _atleast(x, 2), lambda p: 0)
row_stack = _stack_family("row_stack", lambda x: _atleast(x, 2), lambda p: 0)
dstack = _stack_family("dstack", lambda x: _atleast(x, 3), lambda p: 2)
column_stack = _stack_family("column_stack", _col, lambda p: 1)
concat = defop(
    "concat(Tensor[] tensors, int dim=0) -> Tensor",
    composite=lambda tensors, dim=0: _c(cat, tensors, dim),
)
concatenate = defop("concatenate(Tensor[] tensors, int dim=0) -> Tensor",
                    composite=lambda tensors, dim=0: _c(cat, tensors, dim))  # fmt: skip


# ---- atleast / broadcast_tensors / meshgrid / cartesian_prod ----------------------------------
def _atleast(x, n):
    nd = x.ndim
    if nd >= n:
        return x
    if nd == 0:
        return _c(reshape, x, [1] * n)
    if n == 2 or nd == 2:
        return _c(unsqueeze, x, 0 if n == 2 else -1)
    return _c(unsqueeze, _c(unsqueeze, x, 0), -1)


def _atleast_ops(n: int):
    one = defop(f"atleast_{n}d(Tensor self) -> Tensor", composite=lambda self: _atleast(self, n))
    seq = defop(f"atleast_{n}d.Sequence(Tensor[] tensors) -> Tensor[]",
                composite=lambda tensors: [_atleast(x, n) for x in tensors])  # fmt: skip
    return one, seq


atleast_1d, atleast_2d, atleast_3d = (_atleast_ops(n) for n in (1, 2, 3))


def _broadcast_tensors(tensors):
    shape = list(_broadcast([x.shape for x in tensors])) if tensors else []
    # expand_outplace: a tensor already of the broadcast shape is returned as it is
    return [x if _sh(x) == shape else _c(expand, x, shape, False) for x in tensors]


broadcast_tensors = defop(
    "broadcast_tensors(Tensor[] tensors) -> Tensor[]", composite=_broadcast_tensors
)


def _meshgrid(tensors, indexing="ij"):
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for x in tensors:
        if x.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if x.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
        if x.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {x}"
            )
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [x.numel() for x in ts]
    grids = []
    for i, x in enumerate(ts):
        vs = [1] * len(ts)
        vs[i] = -1
        grids.append(_c(expand, _c(view, x, vs), shape, False))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


meshgrid = defop("meshgrid(Tensor[] tensors) -> Tensor[]", composite=_meshgrid)
meshgrid_indexing = defop(
    "meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]", composite=_meshgrid
)


def _cartesian_prod(tensors):
    for x in tensors:
        if x.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {_sh(x)}")
    if len(tensors) == 1:
        return tensors[0]
    return _c(stack, [_c(reshape, g, [-1]) for g in _meshgrid(tensors, "ij")], 1)


cartesian_prod = defop("cartesian_prod(Tensor[] tensors) -> Tensor", composite=_cartesian_prod)


# ---- public functions ------------------------------------------------------------------------------
def _tensor_seq(tensors, fname: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}"
        )
    return list(tensors)


def _cat_body(tensors, dim, out):
    """Concatenate tensors along ``dim`` (dtypes promote; legacy empty 1-D tensors are skipped).

    >>> numtorch.cat([numtorch.zeros(2, 3), numtorch.ones(1, 3)]).shape
    torch.Size([3, 3])
    """
    ts, d = _tensor_seq(tensors, "cat"), _int(dim, "cat", "dim")
    return _c(cat, ts, d) if out is None else _c(cat_out, ts, d, out)


def _stack_body(tensors, dim, out):
    """Join equally shaped tensors along a new dimension ``dim``.

    >>> numtorch.stack([numtorch.zeros(3), numtorch.ones(3)]).shape
    torch.Size([2, 3])
    """
    ts, d = _tensor_seq(tensors, "stack"), _int(dim, "stack", "dim")
    return _c(stack, ts, d) if out is None else _c(stack_out, ts, d, out)


def _family_body(name, ops, doc):
    def body(tensors, out):
        return _c(
            ops[0] if out is None else ops[1],
            _tensor_seq(tensors, name),
            *(() if out is None else (out,)),
        )

    body.__doc__ = doc
    fast = (getattr(_jf, name.replace("row_", "v")), ("tensors",), "out is None")
    public(name, "tensors, *, out=None", body, relevant=(), lists=("tensors",), ops=ops, fast=fast)


def _varargs_tensors(tensors) -> list:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}"
            )
    return list(tensors)


def _atleast_body(n, ops):
    def body(tensors):
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return _c(ops[0], tensors[0])
        return tuple(_c(ops[1], _varargs_tensors(tensors)))

    body.__doc__ = f"""Each input viewed with at least {n} dimensions (one tensor, or a tuple).

    >>> numtorch.atleast_{n}d(numtorch.tensor(1.)).shape
    torch.Size({[1] * n})
    """
    public(f"atleast_{n}d", "*tensors", body, relevant=(), lists=("tensors",), ops=ops)


def _broadcast_tensors_body(tensors):
    """Views of the inputs expanded to their common broadcast shape.

    >>> [t.shape for t in numtorch.broadcast_tensors(numtorch.zeros(2, 1), numtorch.zeros(3))][0]
    torch.Size([2, 3])
    """
    return tuple(_c(broadcast_tensors, _varargs_tensors(tensors)))


def _meshgrid_body(tensors, indexing):
    """Coordinate grids (expanded views) from 1-D tensors; ``indexing`` is "ij" or "xy".

    >>> [g.shape for g in numtorch.meshgrid(numtorch.zeros(2), numtorch.zeros(3), indexing="ij")][0]
    torch.Size([2, 3])
    """
    ts = _varargs_tensors(tensors)
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning,
            stacklevel=3,
        )
        return tuple(_c(meshgrid, ts))
    return tuple(_c(meshgrid_indexing, ts, indexing))


def _cartesian_prod_body(tensors):
    """All combinations of the elements of 1-D tensors, one per row.

    >>> numtorch.cartesian_prod(numtorch.tensor([1, 2]), numtorch.tensor([3])).tolist()
    [[1, 3], [2, 3]]
    """
    return _c(cartesian_prod, _varargs_tensors(tensors))


for _n, _ops in (
    ("cat", (cat, cat_out)),
    ("concat", (concat, cat_out)),
    ("concatenate", (concatenate, cat_out)),
):
    public(_n, "tensors, dim=0, *, out=None", _cat_body, relevant=(), lists=("tensors",), ops=_ops,
           fast=(_jf.cat, ("tensors", "dim"), "out is None"))  # Note [Tensor-list binding fast call]
public("stack", "tensors, dim=0, *, out=None", _stack_body, relevant=(), lists=("tensors",),
       ops=(stack, stack_out), fast=(_jf.stack, ("tensors", "dim"), "out is None"))  # fmt: skip
_family_body(
    "hstack",
    hstack,
    """Concatenate horizontally (dim 1, or dim 0 for 1-D inputs).

    >>> numtorch.hstack([numtorch.zeros(2), numtorch.ones(3)]).shape
    torch.Size([5])
    """,
)
_family_body(
    "vstack",
    vstack,
    """Concatenate vertically (dim 0) after ``atleast_2d``.

    >>> numtorch.vstack([numtorch.zeros(3), numtorch.ones(3)]).shape
    torch.Size([2, 3])
    """,
)
_family_body(
    "row_stack",
    row_stack,
    """Alias of ``vstack``.

    >>> numtorch.row_stack([numtorch.zeros(3), numtorch.ones(3)]).shape
    torch.Size([2, 3])
    """,
)
_family_body(
    "dstack",
    dstack,
    """Concatenate depthwise (dim 2) after ``atleast_3d``.

    >>> numtorch.dstack([numtorch.zeros(3), numtorch.ones(3)]).shape
    torch.Size([1, 3, 2])
    """,
)
_family_body(
    "column_stack",
    column_stack,
    """Stack 0-d/1-d inputs as columns (others as they are) along dim 1.

    >>> numtorch.column_stack([numtorch.zeros(3), numtorch.ones(3)]).shape
    torch.Size([3, 2])
    """,
)
for _n, _ops in (("1", atleast_1d), ("2", atleast_2d), ("3", atleast_3d)):
    _atleast_body(int(_n), _ops)
public(
    "broadcast_tensors",
    "*tensors",
    _broadcast_tensors_body,
    relevant=(),
    lists=("tensors",),
    ops=(broadcast_tensors,),
    fast=(_jf.broadcast_tensors, ("tensors",)),
)
public("meshgrid", "*tensors, indexing=None", _meshgrid_body, relevant=(), lists=("tensors",),
       ops=(meshgrid, meshgrid_indexing), fast=(_jf.meshgrid, ("tensors", "indexing")))  # fmt: skip
public(
    "cartesian_prod",
    "*tensors",
    _cartesian_prod_body,
    relevant=(),
    lists=("tensors",),
    ops=(cartesian_prod,),
)
