"""Tensor hooks and leaf-gradient accumulation used by the engine."""

from __future__ import annotations

from .._tensor import Tensor, _make


def run_pre_hooks(node, grads):
    hooks = node._pre_hooks
    if not hooks:
        return grads
    grads = list(grads)
    for nr, fns in hooks.items():
        if nr == "node":
            continue
        for fn in list(fns):
            if grads[nr] is None:
                continue
            r = fn(grads[nr])
            if r is not None:
                grads[nr] = r
    for fn in list(hooks.get("node", ())):
        r = fn(tuple(grads))
        if r is not None:
            grads = list(r)
    return grads


def accumulate(var: Tensor, g: Tensor, create_graph: bool) -> None:
    for fn in list(var._backward_hooks or ()):
        r = fn(g)
        if r is not None:
            g = r
    if var._grad is None:
        if create_graph:
            var._grad = g
        elif g._data.flags.c_contiguous and g._data.shape == var._data.shape and g._base is None:
            var._grad = g.detach()
        else:
            var._grad = _make(g._data.copy(), g._dtype, Tensor, g._device)
    elif create_graph:
        var._grad = var._grad + g
    else:
        var._grad.add_(g)
    for fn in list(var._post_acc_hooks or ()):
        fn(var)
