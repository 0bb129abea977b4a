"""Tensor hooks and leaf-gradient accumulation used by the engine."""

from __future__ import annotations

import sys

import numpy as np

from .. import _dtype as D
from .._api import _OVERRIDES
from .._C import ALL_DISABLED, TF_STATE
from .._device import CPU
from .._sparse_tensor import SparseCooTensor
from .._state import STATE
from .._tensor import PY_DISPATCH_TYPES, Tensor, _make, _view
from ..amp._policy import _INSTALLED as _AUTOCAST
from ..kernels import PARALLEL_THRESHOLD


def _checked(fn, old, new):
    """A tensor hook's result: PyTorch's check_single_result refuses another dtype or size."""
    if isinstance(new, Tensor) and isinstance(old, Tensor):
        name = getattr(fn, "__name__", type(fn).__name__)
        if new._dtype is not old._dtype:
            from ..ops._pointwise import _cname

            raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                               f"torch.{_cname(old._dtype)}Tensor got torch.{_cname(new._dtype)}Tensor)")  # fmt: skip
        if new._data.shape != old._data.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")
    return new


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
                grads[nr] = _checked(fn, grads[nr], r)
    for fn in list(hooks.get("node", ())):
        r = fn(tuple(grads))
        if r is not None:
            grads = list(r)
    return grads


# Note [Stealing the incoming gradient]
# As PyTorch's AccumulateGrad does when the gradient's use count is 1, the first gradient of a
# leaf becomes its .grad without a copy only when nothing else can see that buffer: the engine
# drops its own reference first, then the Tensor must be referenced only by the engine's local,
# this call's argument and getrefcount's (3), its array only by that Tensor and getrefcount's
# (2), and the array must own its memory. Otherwise (a gradient that is also the user's
# `gradient=`, another leaf's grad, a saved tensor, a view) .grad gets a copy, so a later
# in-place accumulation can never write into someone else's tensor.
_STEAL_REFS = 3


def _can_steal(g, var) -> bool:
    a = g._data
    if not a.flags.c_contiguous or a.shape != var._data.shape or sys.getrefcount(g) > _STEAL_REFS + 1:
        return False
    if sys.getrefcount(a) > 3:  # g's slot, local, argument
        return False
    root = a.base  # NumPy collapses view chains: the array owning the memory, if not a
    if root is not None and (root.__class__ is not np.ndarray or root.base is not None):
        return False
    b = g._base
    if b is None:
        # a kernel's result reshaped to its output shape is a view of an array only it sees
        return root is None or sys.getrefcount(root) <= 3  # a.base, local, argument
    # a contiguous view (e.g. weight.t()'s or a summed expand's gradient) of a base that
    # nothing else holds, itself the memory's owner or a view only it holds
    if root is None or b._base is not None or sys.getrefcount(b) > 3:  # g._base, local, arg
        return False
    bd = b._data
    if bd is root:
        return sys.getrefcount(root) <= 5  # b._data, a.base, root, bd, argument
    return bd.base is root and sys.getrefcount(bd) <= 3 and sys.getrefcount(root) <= 4


def _clone_obey_contract(g, var):
    # PyTorch's AccumulateGrad copy, as the aten calls a dispatch mode or subclass sees:
    # new_empty_strided(var's size and strides) then copy_ (Note [Recording at the Autograd key])
    from .._dispatch import dispatch
    from ..ops.factory.core import new_empty_strided
    from ..ops.shape.inplace import copy_

    if g.__class__ is SparseCooTensor or var.__class__ is SparseCooTensor:  # no strides: a plain copy
        return g.clone()
    size, stride = list(var.shape), list(var.stride())
    new = dispatch(new_empty_strided, [g, size, stride, g._dtype, None, g._device, None])
    return dispatch(copy_, [new, g, False])


_ADD_ = []  # aten.add_.Tensor, on first use: the ops import after autograd


def _add_op():
    from .._ops import ops

    _ADD_.append(ops.aten.add_.Tensor)
    return _ADD_[0]


# Note [Accumulating into .grad in place]
# A second gradient into a leaf's .grad is aten.add_.Tensor(grad, g, 1): through op.fast, the
# pointwise call and its learned in-place kernel ~2.5 us a leaf, most of an optimizer step's
# small fwd+bwd gap. For two plain CPU tensors of one dtype whose addition is one IEEE add per
# element (float32, float64, complex64, complex128: what the kernel computes, bit for bit), a
# C-contiguous writable .grad of g's shape that is no inference tensor and shares no memory
# with g, below the parallel threshold, with no dispatch mode, forward-AD level, autocast region
# or library kernel over an aten op (Note [Fast calls under kernel overrides]), nothing that call
# decides can differ: np.add writes the sum in place and the version counter moves as add_'s
# does. Anything else (float16, bfloat16, broadcasting, strided or large .grad) calls add_.
_ADD_DTYPES = frozenset((D.float32, D.float64, D.complex64, D.complex128))


def _unseen() -> bool:
    # _fast_guard.free() (no dispatch mode, forward-AD level or autocast region) and no library
    # kernel: nothing would see the aten call we skip
    return not (STATE.td_modes or STATE.fw_level >= 0 or _AUTOCAST or _OVERRIDES[0])


def _add_in_place(t: Tensor, g: Tensor) -> bool:
    d, e = t._data, g._data
    if (t._dtype not in _ADD_DTYPES or g._dtype is not t._dtype or e.shape != d.shape
            or d.size >= PARALLEL_THRESHOLD or t._vc.__class__ is not list
            or t._device is not CPU or g._device is not CPU or not _unseen()):  # fmt: skip
        return False
    f = d.flags
    if not f.c_contiguous or not f.writeable or (e is not d and np.may_share_memory(d, e)):
        return False
    np.add(d, e, out=d)
    t._vc[0] += 1
    return True


def accumulate(var: Tensor, g: Tensor, create_graph: bool) -> None:
    hooks = var._backward_hooks
    if hooks:
        for fn in list(hooks):
            r = fn(g)
            if r is not None:
                g = _checked(fn, g, r)
    tf = TF_STATE[0]
    TF_STATE[0] = ALL_DISABLED  # Note [Derivative formulas are below the Python API]
    try:
        if var._grad is None:
            if create_graph:
                var._grad = g
            elif _can_steal(g, var):
                if g.__class__ is Tensor and g._device is CPU and _unseen():
                    var._grad = _view(g, g._data)  # detach's kernel: nothing sees aten.detach
                else:
                    var._grad = g.detach()
            elif STATE.td_modes or g.__class__ in PY_DISPATCH_TYPES:
                var._grad = _clone_obey_contract(g, var)
            else:
                var._grad = _make(g._data.copy(), g._dtype, Tensor, g._device)
        elif create_graph or (var._grad.__class__ is SparseCooTensor and g.__class__ is not SparseCooTensor):
            var._grad = var._grad + g if create_graph else g + var._grad  # PyTorch: a dense one replaces a sparse grad
        elif var._grad.__class__ is Tensor and g.__class__ is Tensor:
            if not _add_in_place(var._grad, g):
                # Tensor.add_'s dispatch (the same aten.add_.Tensor call) without the binding's frame
                (_ADD_[0] if _ADD_ else _add_op()).fast(var._grad, g, 1)
        else:
            var._grad.add_(g)
    finally:
        TF_STATE[0] = tf
    hooks = var._post_acc_hooks
    if hooks:
        for fn in list(hooks):
            fn(var)
