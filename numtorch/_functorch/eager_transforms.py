"""grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian (Note [Transform levels]).

Reverse mode makes each input a fresh differentiable alias and calls autograd.grad with exactly
those inputs; the graph is kept (create_graph) only while an outer transform or ordinary autograd
may differentiate the result. Forward mode uses a forward-AD dual level; nested inside another
one (which forward_ad does not support), jvp takes the double-vjp route in reverse mode instead.
"""

from __future__ import annotations

import functools

from .. import autograd
from .._state import STATE
from .._tensor import Tensor
from ..autograd import forward_ad as fwAD
from ..utils import _pytree as pytree
from ._levels import GRAD_DEPTH
from .vmap import vmap


def _alias(x):
    if not isinstance(x, Tensor):
        return x
    if x._rg:
        return x.view_as(x)  # stays connected to the outer level
    if x._fw_grads:
        return x.view_as(x).requires_grad_()  # keeps the outer tangent
    return x.detach().requires_grad_()


def _check_argnums(argnums, n):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if isinstance(argnums, tuple) and not argnums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return tuple(a % n for a in nums)


def _outer_active(flat) -> bool:
    return GRAD_DEPTH[0] > 0 or STATE.fw_level >= 0 or any(
        isinstance(t, Tensor) and (t._rg or t._fw_grads) for t in flat
    )


def _grad_core(func, args, kwargs, argnums, has_aux):
    nums = _check_argnums(argnums, len(args))
    flat_diff = [t for i in nums for t in pytree.tree_leaves(args[i])]
    create = _outer_active(flat_diff)
    args = list(args)
    diff = {}
    for i in nums:
        args[i] = pytree.tree_map(_alias, args[i])
        diff[i] = args[i]
    GRAD_DEPTH[0] += 1
    try:
        with autograd.enable_grad():
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True"
                    )
                out, aux = out
            if not isinstance(out, Tensor):
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}"
                )
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                    f"with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            leaves = [t for i in nums for t in pytree.tree_leaves(diff[i])]
            grads = _grads(out, leaves, None, create)
    finally:
        GRAD_DEPTH[0] -= 1
    it = iter(grads)
    gtrees = tuple(pytree.tree_map(lambda _: next(it), diff[i]) for i in nums)
    g = gtrees[0] if isinstance(argnums, int) else gtrees
    value = out if create else out.detach()
    return g, value, aux


def _grads(outs, leaves, cotangents, create):
    from .. import zeros_like

    if not outs._rg if isinstance(outs, Tensor) else not any(o._rg for o in outs):
        return [zeros_like(t) for t in leaves]
    res = autograd.grad(outs, leaves, cotangents, create_graph=create, retain_graph=True,
                        allow_unused=True)  # fmt: skip
    return [zeros_like(t) if g is None else g for g, t in zip(res, leaves)]


def grad_and_value(func, argnums=0, has_aux=False):
    """The gradient of a scalar function and its value (``torch.func.grad_and_value``).

    >>> numtorch.func.grad_and_value(lambda x: (x ** 2).sum())(numtorch.tensor([1.0, 2.0]))
    (tensor([2., 4.]), tensor(5.))
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value, aux = _grad_core(func, args, kwargs, argnums, has_aux)
        return (g, (value, aux)) if has_aux else (g, value)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function (``torch.func.grad``).

    >>> numtorch.func.grad(lambda x: (x ** 3).sum())(numtorch.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, _, aux = _grad_core(func, args, kwargs, argnums, has_aux)
        return (g, aux) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux=False):
    """The outputs of ``func`` and a function computing vector-Jacobian products.

    >>> out, fn = numtorch.func.vjp(numtorch.sin, numtorch.tensor([0.0]))
    >>> fn(numtorch.tensor([1.0]))
    (tensor([1.]),)
    """
    leaves_in = pytree.tree_leaves(primals)
    create = _outer_active(leaves_in)
    inner = pytree.tree_map(_alias, primals)
    GRAD_DEPTH[0] += 1
    try:
        with autograd.enable_grad():
            out = func(*inner)
    finally:
        GRAD_DEPTH[0] -= 1
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError(
                "vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux is True"
            )
        out, aux = out
    flat_out, ospec = pytree.tree_flatten(out)
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f(*primals) to return only tensors, got unsupported type {type(o)}")
    flat_in = pytree.tree_leaves(inner)

    def vjp_fn(*cotangents):
        cts = cotangents[0] if len(cotangents) == 1 and not isinstance(out, Tensor) else cotangents
        flat_ct, cspec = pytree.tree_flatten(cts if not isinstance(out, Tensor) else cts[0])
        if len(flat_ct) != len(flat_out):
            raise RuntimeError(
                f"Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                f"to the function. cotangents: {cspec}, primal output: {ospec}"
            )
        live = [(o, c) for o, c in zip(flat_out, flat_ct) if o._rg]
        keep = create or _outer_active(flat_ct)
        GRAD_DEPTH[0] += 1
        try:
            if live:
                with autograd.enable_grad():
                    gs = _grads(tuple(o for o, _ in live), flat_in, tuple(c for _, c in live),
                                keep)  # fmt: skip
            else:
                from .. import zeros_like

                gs = [zeros_like(t) for t in flat_in]
        finally:
            GRAD_DEPTH[0] -= 1
        return pytree.tree_unflatten(gs, pytree.tree_flatten(inner)[1])

    result = out if create else pytree.tree_map(lambda t: t.detach(), out)
    return (result, vjp_fn, aux) if has_aux else (result, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """Jacobian-vector product: ``(func(*primals), J @ tangents)``.

    >>> numtorch.func.jvp(numtorch.sin, (numtorch.tensor([0.0]),), (numtorch.tensor([2.0]),))
    (tensor([0.]), tensor([2.]))
    """
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, pspec = pytree.tree_flatten(primals)
    flat_t, tspec = pytree.tree_flatten(tangents)
    if pspec != tspec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
            f"Got primals with structure {pspec} and tangents with structure {tspec}"
        )
    for p, t in zip(flat_p, flat_t):
        if p.shape != t.shape:
            raise RuntimeError(
                "jvp(f, primals, tangents): Expected primals and tangents to have the same shape. "
                f"Got primals with shape {tuple(p.shape)} and tangents with shape {tuple(t.shape)}"
            )
    if STATE.fw_level >= 0:
        return _jvp_double_vjp(func, primals, flat_t, has_aux)
    keep = _outer_active(flat_p + flat_t)
    GRAD_DEPTH[0] += 1
    try:
        with fwAD.dual_level():
            duals = [fwAD.make_dual(p, t) for p, t in zip(flat_p, flat_t)]
            out = func(*pytree.tree_unflatten(duals, pspec))
            aux = None
            if has_aux:
                out, aux = out
            flat_o, ospec = pytree.tree_flatten(out)
            prim, tang = [], []
            for o in flat_o:
                u = fwAD.unpack_dual(o)
                t = u.tangent if u.tangent is not None else _zeros(u.primal)
                prim.append(u.primal if keep else u.primal.detach())
                tang.append(t if keep else t.detach())
    finally:
        GRAD_DEPTH[0] -= 1
    res = (pytree.tree_unflatten(prim, ospec), pytree.tree_unflatten(tang, ospec))
    return (*res, aux) if has_aux else res


def _zeros(t):
    from .. import zeros_like

    return zeros_like(t)


def _jvp_double_vjp(func, primals, flat_t, has_aux):
    # J t = d/dg <J^T g, t>: reverse mode twice, which nests under an active dual level
    from .. import zeros_like

    out, fn, *aux = vjp(func, *primals, has_aux=has_aux)
    flat_o, ospec = pytree.tree_flatten(out)
    gs = [zeros_like(o).requires_grad_() for o in flat_o]
    with autograd.enable_grad():
        u = pytree.tree_leaves(fn(pytree.tree_unflatten(gs, ospec)))
        pairs = [(a, t) for a, t in zip(u, flat_t) if a._rg]
        if pairs:
            tang = autograd.grad([a for a, _ in pairs], gs, [t for _, t in pairs],
                                 create_graph=True, allow_unused=True)  # fmt: skip
        else:
            tang = [None] * len(gs)
    tang = [zeros_like(o) if t is None else t for t, o in zip(tang, flat_o)]
    res = (out, pytree.tree_unflatten(tang, ospec))
    return (*res, aux[0]) if has_aux else res


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is the JVP at ``primals``."""
    out = func(*primals)

    def jvp_fn(*tangents):
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


def _basis(flat, dtype_like):
    from .. import eye

    n = sum(t.numel() for t in flat)
    return eye(n, dtype=dtype_like.dtype, device=dtype_like.device), n


def _split_rows(mat, flat, dim):
    # mat (..., n) columns (or rows at dim) split per flat leaf and reshaped to its shape
    pieces, start = [], 0
    for t in flat:
        k = t.numel()
        pieces.append((mat.narrow(dim, start, k), t.shape))
        start += k
    return pieces


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian by reverse mode: a vmap of vjp over the standard basis.

    >>> numtorch.func.jacrev(numtorch.sin)(numtorch.tensor([0.0, 0.0]))
    tensor([[1., 0.],
            [0., 1.]])
    """

    @functools.wraps(func)
    def wrapper(*args):
        nums = _check_argnums(argnums, len(args))

        def f(*diff):
            a = list(args)
            for i, d in zip(nums, diff):
                a[i] = d
            return func(*a)

        res = vjp(f, *[args[i] for i in nums], has_aux=has_aux)
        out, fn = res[0], res[1]
        flat_o, ospec = pytree.tree_flatten(out)
        basis, n = _basis(flat_o, flat_o[0])
        cts = [p.reshape((n,) + tuple(s)) for p, s in _split_rows(basis, flat_o, 1)]

        def one(*c):
            return fn(pytree.tree_unflatten(list(c), ospec))

        rows = vmap(one, chunk_size=chunk_size)(*cts)  # per input: (n, *in_shape)
        per_out = []
        start = 0
        for o in flat_o:
            k = o.numel()
            per_in = pytree.tree_map(lambda r: r.narrow(0, start, k).reshape(tuple(o.shape) + tuple(r.shape[1:])), rows)
            per_out.append(per_in if not isinstance(argnums, int) else per_in[0])
            start += k
        jac = pytree.tree_unflatten(per_out, ospec)
        return (jac, res[2]) if has_aux else jac

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode: a vmap of jvp over the standard basis.

    >>> numtorch.func.jacfwd(numtorch.sin)(numtorch.tensor([0.0, 0.0]))
    tensor([[1., 0.],
            [0., 1.]])
    """

    @functools.wraps(func)
    def wrapper(*args):
        nums = _check_argnums(argnums, len(args))
        prim = tuple(args[i] for i in nums)
        flat_p, pspec = pytree.tree_flatten(prim)
        basis, n = _basis(flat_p, flat_p[0])
        tans = [p.reshape((n,) + tuple(s)) for p, s in _split_rows(basis, flat_p, 1)]

        def f(*diff):
            a = list(args)
            for i, d in zip(nums, diff):
                a[i] = d
            return func(*a)

        def push(*t):
            r = jvp(f, prim, pytree.tree_unflatten(list(t), pspec), has_aux=has_aux)
            return (r[1], r[2]) if has_aux else r[1]

        res = vmap(push, randomness=randomness)(*tans)
        tang, aux = (res[0], res[1]) if has_aux else (res, None)
        flat_t, ospec = pytree.tree_flatten(tang)
        per_out = []
        for t in flat_t:  # (n, *out_shape) -> per input (*out_shape, *in_shape)
            tt = t.movedim(0, -1)
            pieces = [p.reshape(tuple(tt.shape[:-1]) + tuple(s)) for p, s in _split_rows(tt, flat_p, -1)]
            per_in = pytree.tree_unflatten(pieces, pspec)
            per_out.append(per_in[0] if isinstance(argnums, int) else per_in)
        jac = pytree.tree_unflatten(per_out, ospec)
        if has_aux:
            aux = pytree.tree_map(lambda a: a.select(0, 0) if isinstance(a, Tensor) else a, aux)
            return jac, aux
        return jac

    return wrapper


def hessian(func, argnums=0):
    """The Hessian, ``jacfwd(jacrev(func))``.

    >>> numtorch.func.hessian(lambda x: (x ** 3).sum())(numtorch.tensor([1.0]))
    tensor([[6.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
