"""numtorch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp on functions of tensors."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from ._api import grad


def _tuple(x):
    is_tuple = isinstance(x, (tuple, list))
    return (tuple(x) if is_tuple else (x,)), is_tuple


def _grad_inputs(inputs, create_graph):
    out = []
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"The inputs given to the function must be Tensors, got {type(t).__name__}")
        d = t if create_graph and t._rg else t.detach()
        d = _make(d._data, d._dtype, Tensor, d._device, vc=d._vc) if not create_graph else d
        if not d._rg:
            d.requires_grad_(True)
        out.append(d)
    return tuple(out)


def _zeros_like(t):
    return _make(np.zeros(t._data.shape, t._dtype.np), t._dtype)


def _fill(grads, like):
    return tuple(g if g is not None else _zeros_like(x) for g, x in zip(grads, like))


def _detach_all(ts, create_graph):
    return tuple(t if create_graph or t is None else t.detach() for t in ts)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J) for a function of tensors.

    >>> numtorch.autograd.functional.vjp(lambda x: x * x, numtorch.tensor([1.0, 2.0]), numtorch.ones(2))[1]
    tensor([2., 4.])
    """
    inputs, in_tuple = _tuple(inputs)
    from .grad_mode import enable_grad

    with enable_grad():
        xs = _grad_inputs(inputs, create_graph)
        outs, out_tuple = _tuple(func(*xs))
        if v is None:
            if len(outs) != 1 or outs[0]._data.size != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor with a single element.")
            vs = (None,)
        else:
            vs, _ = _tuple(v)
        gs = grad(outs, xs, vs, create_graph=create_graph, allow_unused=True)
    res = _fill(_detach_all(gs, create_graph), xs)
    outs = _detach_all(outs, create_graph)
    return (outs if out_tuple else outs[0]), (res if in_tuple else res[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v), by the double-backward trick.

    >>> numtorch.autograd.functional.jvp(lambda x: x * x, numtorch.tensor([1.0, 2.0]), numtorch.ones(2))[1]
    tensor([2., 4.])
    """
    inputs, in_tuple = _tuple(inputs)
    from .grad_mode import enable_grad

    with enable_grad():
        xs = _grad_inputs(inputs, create_graph)
        outs, out_tuple = _tuple(func(*xs))
        if v is None:
            if len(xs) != 1 or xs[0]._data.size != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single Tensor with a single element.")
            vs = (_make(np.ones(xs[0]._data.shape, xs[0]._dtype.np), xs[0]._dtype),)
        else:
            vs, _ = _tuple(v)
        gs = []
        for o in outs:
            g = _zeros_like(o)
            g.requires_grad_(True)
            gs.append(g)
        us = grad(outs, xs, gs, create_graph=True, allow_unused=True)
        total = None
        for u, t in zip(us, vs):
            if u is not None and u._rg:
                term = (u * t).sum()
                total = term if total is None else total + term
        if total is None:
            jv = tuple(_zeros_like(o) for o in outs)
        else:
            jv = grad(total, gs, create_graph=create_graph, allow_unused=True, materialize_grads=True)
    jv = _detach_all(jv, create_graph)
    outs = _detach_all(outs, create_graph)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian: for each output, a tensor of shape ``output.shape + input.shape``.

    >>> numtorch.autograd.functional.jacobian(lambda x: x * x, numtorch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".')
    inputs, in_tuple = _tuple(inputs)
    from .grad_mode import enable_grad

    with enable_grad():
        xs = _grad_inputs(inputs, create_graph)
        outs, out_tuple = _tuple(func(*xs))
        jac = []
        for o in outs:
            rows = [[] for _ in xs]
            for m in range(o._data.size):
                g = np.zeros(o._data.shape, o._dtype.np)
                g.reshape(-1)[m] = 1
                gs = grad(o, xs, _make(g, o._dtype), retain_graph=True, create_graph=create_graph, allow_unused=True)
                for j, (gj, x) in enumerate(zip(gs, xs)):
                    rows[j].append(gj if gj is not None else _zeros_like(x))
            blocks = []
            for j, x in enumerate(xs):
                if rows[j]:
                    from .. import stack

                    blk = stack(rows[j]).reshape(tuple(o._data.shape) + tuple(x._data.shape))
                else:
                    blk = _make(np.zeros(tuple(o._data.shape) + tuple(x._data.shape), x._dtype.np), x._dtype)
                blocks.append(blk if create_graph else blk.detach())
            jac.append(tuple(blocks) if in_tuple else blocks[0])
    return tuple(jac) if out_tuple else jac[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function.

    >>> numtorch.autograd.functional.hessian(lambda x: (x ** 3).sum(), numtorch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    inputs_t, in_tuple = _tuple(inputs)

    def jac_func(*xs):
        out = func(*xs)
        if not isinstance(out, Tensor) or out._data.size != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        from .grad_mode import enable_grad

        with enable_grad():
            gs = grad(out, xs, create_graph=True, allow_unused=True)
        return _fill(gs, xs)

    res = jacobian(jac_func, inputs_t, create_graph=create_graph)
    if not in_tuple:
        return res[0][0] if isinstance(res[0], tuple) else res[0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar function."""
    inputs_t, in_tuple = _tuple(inputs)
    from .grad_mode import enable_grad

    with enable_grad():
        xs = _grad_inputs(inputs_t, True)
        out = func(*xs)
        gs = _fill(grad(out, xs, create_graph=True, allow_unused=True), xs)
        vs, _ = _tuple(v)
        total = None
        for g, t in zip(gs, vs):
            if g._rg:
                term = (g * t).sum()
                total = term if total is None else total + term
        hv = _fill(grad(total, xs, create_graph=create_graph, allow_unused=True), xs) if total is not None else tuple(_zeros_like(x) for x in xs)
    hv = _detach_all(hv, create_graph)
    out = out if create_graph else out.detach()
    return out, (hv if in_tuple else hv[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar function (H is symmetric, so this equals vhp)."""
    return vhp(func, inputs, v, create_graph, strict)
