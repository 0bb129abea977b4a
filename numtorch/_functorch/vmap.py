"""``vmap``: in_dims/out_dims pytrees, chunk_size, randomness (Note [vmap key])."""

from __future__ import annotations

import functools

from .._state import STATE
from .._tensor import Tensor
from ..utils import _pytree as pytree
from ._levels import VMAP_LEVELS, VmapLevel
from .batched import BatchedTensor, make_batched


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorize ``func`` over a batch dim of its inputs (``torch.vmap``).

    >>> numtorch.vmap(numtorch.dot)(numtorch.ones(3, 2), numtorch.ones(3, 2))
    tensor([2., 2., 2.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}"
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if chunk_size is None:
            dims = _simple_dims(in_dims, len(args))
            bsz = None if dims is None else _simple_size(args, dims)
            if bsz is not None:  # Tensors at int in_dims, anything at None: no pytree work
                return _run(func, args, None, dims, bsz, out_dims, randomness, kwargs)
        flat_args, spec, flat_dims = _flatten_in(func, args, in_dims)
        bsz = _batch_size(func, flat_args, flat_dims)
        if chunk_size is None or chunk_size >= bsz:
            return _run(func, flat_args, spec, flat_dims, bsz, out_dims, randomness, kwargs)
        return _chunked(func, flat_args, spec, flat_dims, bsz, out_dims, randomness, kwargs, chunk_size)

    return wrapped


def _fname(func) -> str:
    return getattr(func, "__name__", repr(func))


def _flatten_in(func, args, in_dims):
    if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
        raise ValueError(
            f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or "
            f"a (potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({_fname(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
            "are trying to vmap over a function with no inputs. The latter is unsupported."
        )
    flat_args, spec = pytree.tree_flatten(args)
    dims = in_dims if not isinstance(in_dims, int) and in_dims is not None else [in_dims] * len(args)
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise ValueError(
            f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible "
            f"with the structure of `inputs`. in_dims has structure {pytree.tree_flatten(in_dims)[1]} "
            f"but inputs has structure {spec}."
        )
    flat_dims = []
    for a, d in zip(args, dims):
        n = len(pytree.tree_flatten(a)[0])
        if d is None or isinstance(d, int):
            flat_dims.extend([d] * n)
        else:
            fd = _broadcast_prefix(d, a, func, in_dims, spec)
            flat_dims.extend(fd)
    return flat_args, spec, flat_dims


def _broadcast_prefix(d, a, func, in_dims, spec):
    if d is None or isinstance(d, int):
        return [d] * len(pytree.tree_flatten(a)[0])
    if isinstance(d, dict) and isinstance(a, dict) and d.keys() == a.keys():
        return [x for k in a for x in _broadcast_prefix(d[k], a[k], func, in_dims, spec)]
    if isinstance(d, (list, tuple)) and isinstance(a, (list, tuple)) and len(d) == len(a):
        return [x for dd, aa in zip(d, a) for x in _broadcast_prefix(dd, aa, func, in_dims, spec)]
    raise ValueError(
        f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
        f"structure of `inputs`. in_dims has structure {pytree.tree_flatten(in_dims)[1]} but inputs "
        f"has structure {spec}."
    )


def _batch_size(func, flat_args, flat_dims) -> int:
    sizes = set()
    for i, (a, d) in enumerate(zip(flat_args, flat_dims)):
        if d is None:
            continue
        if not isinstance(a, Tensor):
            raise ValueError(
                f"vmap({_fname(func)}, in_dims=..., ...)(<inputs>): Got in_dim={d} for an input but "
                f"the input is of type {type(a)}. We cannot vmap over non-Tensor arguments, please "
                "use None as the respective in_dim"
            )
        n = a.dim()
        if not isinstance(d, int) or not -n <= d < max(n, 0) or n == 0:
            raise ValueError(
                f"vmap({_fname(func)}, in_dims=..., ...)(<inputs>): Got in_dim={d} for some input, "
                f"but that input is a Tensor of dimensionality {n} so expected in_dim to satisfy "
                f"-{n} <= in_dim < {n}."
            )
        sizes.add(a.shape[d])
    if not sizes:
        raise ValueError(
            f"vmap({_fname(func)}, in_dims=..., ...)(<inputs>): at least one input must be "
            "vmapped over (in_dims must not be all None)"
        )
    if len(sizes) > 1:
        raise ValueError(
            f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sorted(sizes)} for the mapped dimension"
        )
    return sizes.pop()


def _simple_dims(in_dims, n: int):
    """One int-or-None in_dim per positional argument, or None when in_dims nests."""
    if in_dims.__class__ is int:
        return (in_dims,) * n
    if in_dims.__class__ is tuple and len(in_dims) == n:
        for d in in_dims:
            if d is not None and d.__class__ is not int:
                return None
        return in_dims
    return None


def _simple_size(args, dims):
    """The batch size when every argument with an int in_dim is a Tensor that has that dim and
    all those sizes agree, else None (the general path then raises PyTorch's errors)."""
    bsz = None
    for a, d in zip(args, dims):
        if d is None:
            continue
        if not isinstance(a, Tensor):
            return None
        shape = a._data.shape
        if not -len(shape) <= d < len(shape) or (bsz is not None and shape[d] != bsz):
            return None
        bsz = shape[d]
    return bsz


def _run(func, flat_args, spec, flat_dims, bsz, out_dims, randomness, kwargs):
    """Call ``func`` on BatchedTensors; ``spec`` None: ``flat_args`` are the positional args."""
    lv = VmapLevel(bsz, randomness, STATE.grad_enabled)
    level = lv.level
    VMAP_LEVELS.append(lv)
    try:
        wrapped = [
            make_batched(a.movedim(d, 0) if d else a, level) if d is not None else a
            for a, d in zip(flat_args, flat_dims)
        ]
        out = func(*(wrapped if spec is None else pytree.tree_unflatten(wrapped, spec)), **kwargs)
    finally:
        VMAP_LEVELS.remove(lv)
    if out_dims == 0 and out.__class__ is BatchedTensor and out._level == level:
        return out._value  # the common single output
    return _unwrap_out(func, out, out_dims, level, bsz)


def _unwrap_out(func, out, out_dims, level, bsz):
    flat, ospec = pytree.tree_flatten(out)
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(flat)
    else:
        try:
            dims = _broadcast_prefix(out_dims, out if not isinstance(out, Tensor) else (out,), func,
                                     out_dims, ospec)  # fmt: skip
        except ValueError:
            raise ValueError(
                f"vmap({_fname(func)}, ...): out_dims is not compatible with the structure of "
                f"`outputs`. out_dims has structure {pytree.tree_flatten(out_dims)[1]} but outputs "
                f"has structure {ospec}."
            ) from None
    res = []
    for o, d in zip(flat, dims):
        if not isinstance(o, Tensor):
            raise ValueError(
                f"vmap({_fname(func)}, ...): `{_fname(func)}` must only return Tensors, got type "
                f"{type(o)}. Did you mean to set out_dims= to None for output?"
            )
        batched = o.__class__ is BatchedTensor and o._level == level
        if d is None:
            if batched:
                raise ValueError(
                    f"vmap({_fname(func)}, ...): `{_fname(func)}` can not return a BatchedTensor "
                    "when out_dim is None"
                )
            res.append(o)
            continue
        v = o._value if batched else o.expand((bsz,) + tuple(o.shape))
        res.append(v.movedim(0, d) if d else v)
    return pytree.tree_unflatten(res, ospec)


def _chunked(func, flat_args, spec, flat_dims, bsz, out_dims, randomness, kwargs, chunk):
    from .. import cat

    parts = []
    for start in range(0, bsz, chunk):
        n = min(chunk, bsz - start)
        sliced = [a.narrow(d, start, n) if d is not None else a for a, d in zip(flat_args, flat_dims)]
        parts.append(_run(func, sliced, spec, flat_dims, n, out_dims, randomness, kwargs))
    flat0, ospec = pytree.tree_flatten(parts[0])
    flats = [pytree.tree_flatten(p)[0] for p in parts]
    dims = [out_dims] * len(flat0) if isinstance(out_dims, int) or out_dims is None else \
        pytree.tree_flatten(out_dims)[0]  # fmt: skip
    res = [flats[0][k] if dims[k] is None else cat([f[k] for f in flats], dims[k]) for k in range(len(flat0))]
    return pytree.tree_unflatten(res, ospec)
