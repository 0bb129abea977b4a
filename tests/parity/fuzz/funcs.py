"""Multi-step scenarios the generators name as ``fn:<name>``: each takes the library
(torch or numtorch) first and runs the same code in both."""

from __future__ import annotations

from .runner import apply_operator


def _operator(lib, name, a, b=None):
    return apply_operator(name, a, b)


def _getitem(lib, a, key):
    return a[key]


def _setitem(lib, a, key, v):
    a[key] = v
    return a


def _view_write(lib, a, op, attr, args, write):
    """The view (or copy) ``op`` returns, then a write through it: whether the write reaches
    the input is part of the op's contract (ravel of a non-contiguous tensor copies)."""
    y = getattr(a, op) if attr else getattr(a, op)(*args)
    if write:
        first = y[0] if isinstance(y, (tuple, list)) and y else y
        if isinstance(first, lib.Tensor) and first.numel():
            (first.select(0, 0) if first.dim() else first).fill_(1)
    return y, a


def _autograd(lib, s, x, extra):
    y = x * x
    if s == "backward_shape":
        y.backward(lib.ones(extra + 1, dtype=x.dtype))
    elif s == "backward_list":
        lib.autograd.backward([y.sum(), y.sum()], [lib.tensor(1.0, dtype=x.dtype)] * extra)
    elif s == "backward_nonscalar":
        y.backward()
    elif s == "backward_twice":
        z = (x * 2).sum() if extra else y.sum()
        z.backward()
        z.backward()
    elif s == "complex_backward":
        y.sum().backward()
    elif s == "requires_grad_nonleaf":
        (x.detach() + 1).requires_grad_(extra == 0)
        y.requires_grad_(False)
    elif s == "int_requires_grad":
        lib.tensor([1, 2]).requires_grad_()
    elif s == "hook_dtype":
        x.register_hook(lambda g: g.to(lib.float16) if extra else g.sum())
        y.sum().backward()
    elif s == "grad_inplace_leaf":
        x.add_(1)
    elif s == "inplace_saved":
        z = x.exp()
        z.add_(1)
        z.sum().backward()
    elif s == "std_grad":
        v = x.detach().clone().fill_(1.5).requires_grad_()
        (v.std() if extra else v.var()).backward() if v.numel() else None
        return v.grad
    elif s == "grad_unused":
        return lib.autograd.grad(y.sum(), [x, lib.ones(1, requires_grad=True)], allow_unused=extra == 1)
    elif s == "retain_graph":
        z = y.sum()
        lib.autograd.grad(z, x, retain_graph=True)
        return lib.autograd.grad(z, x, create_graph=extra == 1)
    elif s == "grad_of_int_output":
        return lib.autograd.grad(x.argmax(), x)
    elif s == "detach_inplace":
        d = y.detach()
        d.zero_()
        return y
    return x.grad


def _misc(lib, s, x, v):
    if s == "contains":
        return v in x
    if s == "item":
        return x.item()
    if s == "tolist":
        return x.tolist()
    if s == "is_contiguous_cl":
        return (x.is_contiguous(memory_format=lib.channels_last),
                x.contiguous(memory_format=lib.channels_last).is_contiguous(memory_format=lib.channels_last))
    if s == "conj_write":
        c = x.conj()
        c.view(-1)[0] = 5 if c.numel() else 0
        return c, x
    if s == "storage_offset":
        return x[1:].storage_offset() if x.dim() else x.storage_offset()
    if s in ("bool", "int", "float"):
        return {"bool": bool, "int": int, "float": float}[s](x)
    if s == "len":
        return len(x)
    if s == "iter":
        return list(x)
    if s == "numel":
        return x.numel(), x.dim(), tuple(x.shape), x.nelement()
    if s == "clone_cl":
        return x.clone(memory_format=lib.channels_last).stride()
    if s == "type_as":
        return x.type_as(lib.zeros(1, dtype=lib.float64))
    if s == "to":
        return x.to(lib.int32 if v is None else lib.float16)
    if s == "index_int":
        return x[v] if not isinstance(v, str) else x[..., None]
    if s == "eq_none":
        return x == v if not isinstance(v, str) else x != 1
    if s == "hash_dim":
        return x.size(v) if isinstance(v, int) else x.size(-1)
    raise AssertionError(s)


FUNCS = {"operator": _operator, "getitem": _getitem, "setitem": _setitem, "view_write": _view_write,
         "autograd": _autograd, "misc": _misc}  # fmt: skip
