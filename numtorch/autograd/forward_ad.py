"""Forward-mode AD with dual tensors: ``dual_level``, ``make_dual``, ``unpack_dual``.

# Note [JVP from the backward formulas]
# An op with an explicit ``jvp=`` uses it. Every other differentiable op gets its JVP from its
# VJP by the double-backward trick: with u = J^T g for a dummy g, J t = d<u, t>/dg. That costs
# a re-run of the op and two backward passes, and needs no per-op code. View ops instead apply
# themselves to the tangent, so the tangent of a view is a view of the base's tangent and
# in-place updates through views reach the base's tangent, as in PyTorch.
"""

from __future__ import annotations

import weakref
from collections import namedtuple

import numpy as np

from .._state import STATE
from .._tensor import Tensor, _make

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
_LIVE: list = []  # weakrefs to tensors holding tangents at the current level


class dual_level:
    """Context manager for a forward-AD level; tangents are cleared on exit.

    >>> import numtorch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(numtorch.tensor([1.0, 2.0]), numtorch.tensor([1.0, 0.0]))
    ...     fwAD.unpack_dual(x * x).tangent
    tensor([2., 0.])
    """

    def __enter__(self):
        if STATE.fw_level >= 0:
            raise RuntimeError("Nested forward mode AD is not supported at the moment")
        STATE.fw_level = 0
        return 0

    def __exit__(self, *exc):
        for ref in _LIVE:
            t = ref()
            if t is not None:
                t.__dict__.pop("_fw_grads", None)
        _LIVE.clear()
        STATE.fw_level = -1


def enter_dual_level() -> int:
    return dual_level().__enter__()


def exit_dual_level(*, level: int | None = None) -> None:
    dual_level().__exit__(None, None, None)


def _set_tangent(t: Tensor, tangent: Tensor) -> None:
    t.__dict__["_fw_grads"] = {0: tangent}
    _LIVE.append(weakref.ref(t))


def tangent_of(t) -> Tensor | None:
    if not isinstance(t, Tensor):
        return None
    fw = t.__dict__.get("_fw_grads")
    return fw.get(0) if fw else None


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` carrying ``tangent`` as its forward gradient."""
    if STATE.fw_level < 0:
        raise RuntimeError(
            "To create a dual Tensor, you need to be within a dual_level context manager."
        )
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(tensor._data.shape)} while the "
            f"given forward gradient is of size {list(tangent._data.shape)}."
        )
    if tensor._dtype.category < 2:
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor._dtype}")
    dual = tensor.view_as(tensor) if hasattr(tensor, "view_as") else _make(tensor._data, tensor._dtype)
    _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """Split a dual tensor into its primal (a view without tangent) and tangent (or None)."""
    if not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = _make(tensor._data, tensor._dtype, Tensor, tensor._device, vc=tensor._vc)
    primal._rg, primal._grad_fn, primal._base = tensor._rg, tensor._grad_fn, tensor._base
    return UnpackedDualTensor(primal, tangent)


# ---- propagation (called from the Autograd key) ---------------------------------------------
def has_tangent(op, vals) -> bool:
    for i in op.tensor_idx:
        if tangent_of(vals[i]) is not None:
            return True
    for i in op.list_idx:
        if any(tangent_of(t) is not None for t in vals[i]):
            return True
    return False


def jvp_call(op, vals, record):
    """Run ``record(op, vals)`` (the reverse-mode path) and attach output tangents."""
    inplace = op.kind == "inplace"
    before = None
    if inplace:
        s = vals[op.self_idx]
        before = _make(s._data.copy(), s._dtype, Tensor, s._device)
    out = record(op, vals)
    outs = out if isinstance(out, tuple) else (out,)
    if op.kind == "view":
        tangents = _view_tangents(op, vals)
    else:
        primals = list(vals)
        if inplace:
            primals[op.self_idx] = before
            target = _functional_variant(op)
        else:
            target = op
        tangents = _double_vjp(target, primals, [tangent_of(v) for v in vals])
    for o, t in zip(outs, tangents):
        if t is None or not isinstance(o, Tensor):
            continue
        old = tangent_of(o)
        if inplace and old is not None:
            old._data[...] = t._data
            old._vc[0] += 1
        else:
            _set_tangent(o, t)
    return out


def _view_tangents(op, vals):
    from .._dispatch import dispatch

    t = tangent_of(vals[0])
    if t is None:
        return [None]
    v = list(vals)
    v[0] = t
    prev, STATE.fw_level = STATE.fw_level, -1
    try:
        r = dispatch(op, v)
    finally:
        STATE.fw_level = prev
    # a tangent is read as memory (Note [Conjugate views]): a conjugate view's gets its own
    return [t.resolve_conj() for t in r] if isinstance(r, tuple) else [r.resolve_conj()]


def _functional_variant(op):
    from .._ops import ops

    s = op._schema
    packet = getattr(ops.namespace(s.namespace), s.name.rstrip("_"))
    return getattr(packet, op._overloadname)


def _double_vjp(op, vals, tangents):
    from .._dispatch import dispatch
    from ._api import grad

    prev_level, prev_grad = STATE.fw_level, STATE.grad_enabled
    STATE.fw_level, STATE.grad_enabled = -1, True
    try:
        v = list(vals)
        prims, tans = [], []
        for i in op.tensor_idx:
            t = tangents[i]
            if t is not None:
                v[i] = _leaf_like(vals[i])
                prims.append(v[i])
                tans.append(t)
        for i in op.list_idx:  # tensor lists (cat, stack, einsum's operands): element by element
            items = list(vals[i])
            for k, x in enumerate(items):
                t = tangent_of(x)
                if t is not None:
                    items[k] = _leaf_like(x)
                    prims.append(items[k])
                    tans.append(t)
            v[i] = items
        out = dispatch(op, v)
        outs = [o for o in (out if isinstance(out, tuple) else (out,))]
        diff = [o for o in outs if isinstance(o, Tensor) and o._rg]
        gs = []
        for o in diff:
            g = _make(np.zeros(o._data.shape, o._dtype.np), o._dtype)
            g._rg = True
            gs.append(g)
        us = grad(diff, prims, gs, create_graph=True, allow_unused=True)
        total = None
        for u, t in zip(us, tans):
            if u is not None and u._rg:
                # u = J^H g in PyTorch's convention, so J t is the gradient in g of the real
                # Re<t, u> = Re(sum(conj(t) u)); without the conj the tangent would come
                # out as f'(z) conj(t).
                term = (u * (t.conj() if t._dtype.is_complex else t)).sum()
                total = term if total is None else total + term
        if total is not None and total._dtype.is_complex:
            total = total.real
        res = [None] * len(outs)
        if total is not None:
            jt = grad(total, gs, allow_unused=True, materialize_grads=True)
        else:
            jt = [_make(np.zeros(g._data.shape, g._dtype.np), g._dtype) for g in gs]
        it = iter(jt)
        for k, o in enumerate(outs):
            if isinstance(o, Tensor) and o._rg:
                res[k] = next(it).detach()
        return res
    finally:
        STATE.fw_level, STATE.grad_enabled = prev_level, prev_grad


def _leaf_like(x):
    p = _alias_of(x)
    p._rg = True
    return p


def _alias_of(x):
    # a vmap BatchedTensor's own data is sample 0 only: alias its values (every sample) instead
    from .._functorch.batched import BatchedTensor, make_batched

    if x.__class__ is BatchedTensor:
        return make_batched(_alias_of(x._value), x._level)
    from .._conj import mark

    return mark(_make(x._data, x._dtype, Tensor, x._device), x._is_conj)  # Note [Conjugate views]


def _function_jvp(cls, ctx, args, outputs) -> None:
    """Custom Function: call its jvp right after forward (before apply returns)."""
    tans = [tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tans):
        return
    if getattr(ctx, "materialize_grads", True):
        tans = [
            t if t is not None or not isinstance(a, Tensor) else _make(np.zeros(a._data.shape, a._dtype.np), a._dtype)
            for a, t in zip(args, tans)
        ]
    ctx._in_jvp = True  # ctx.saved_tensors reads save_for_forward's tensors in jvp
    try:
        res = cls.jvp(ctx, *tans)
    finally:
        ctx._in_jvp = False
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    res = res if isinstance(res, tuple) else (res,)
    for o, t in zip(outs, res):
        if isinstance(o, Tensor) and t is not None:
            _set_tangent(o, t)


def check_forward_ad(func, inputs, diff, eps, atol, rtol, raise_exception) -> bool:
    """gradcheck(check_forward_ad=True): the Jacobian column by column through tangents."""
    from .gradcheck import GradcheckError, _directions, _n_real, _numerical_jacobian, _outputs, _split

    num = _numerical_jacobian(func, inputs, diff, eps)
    for j, x in enumerate(diff):
        # A complex input is two real ones: tangents 1 and 1j per element.
        for col, (flat, step) in enumerate(_directions(x)):
            with dual_level():
                dual_inputs = []
                for t in inputs:
                    if t is x:
                        tan = np.zeros(x._data.shape, x._dtype.np)
                        tan.reshape(-1)[flat] = step
                        t = make_dual(t.detach(), _make(tan, x._dtype))
                    elif isinstance(t, Tensor) and t._rg:
                        t = t.detach()
                    dual_inputs.append(t)
                outs = _outputs(func, dual_inputs)
                cols = [tangent_of(o) for o in outs]
            for i, c in enumerate(cols):
                got = np.zeros(_n_real(outs[i])) if c is None else _split(c)[: _n_real(outs[i])]
                want = num[i][j][:, col]
                if not np.all(np.abs(got - want) <= atol + rtol * np.abs(want)):
                    if raise_exception:
                        raise GradcheckError(
                            f"Jacobian computed with forward mode mismatch for output {i} with "
                            f"respect to input {j},\nnumerical:{want}\nanalytical:{got}\n"
                        )
                    return False
    return True
