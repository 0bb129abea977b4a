"""BatchedTensor and the vmap key (Note [vmap key]).

# Note [vmap key]
# A BatchedTensor is a Tensor whose ``_value`` holds every sample, batch dim first, and whose own
# ``_data`` is a view of sample 0: metadata (shape, dtype, dim, strides) reads as PyTorch's
# per-sample ("logical") view does, while reading data (item, bool, numpy) raises PyTorch's vmap
# errors. The dispatcher's slow path (every call with a BatchedTensor argument takes it) runs the
# Autograd key on the wrapper first, so a grad transform inside vmap records on the per-sample
# level, then the vmap key: ``vmap_key`` finds the innermost level among the arguments, restores
# the grad mode that level was entered with (so outer grad levels record on the values) and calls
# the op's batching rule, which calls ops on the values. Ops without a rule run once per sample
# (``loop_fallback``) with a one-time performance warning naming the op.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._C import _disabled_torch_function_impl
from .._config import _WARN_ALWAYS
from .._state import STATE
from .._tensor import NO_TF_SUBCLASSES, PLAIN_SUBCLASSES, Tensor, _new
from ._levels import CALL_GRAD, VMAP_LEVELS


class BatchedTensor(Tensor):
    __slots__ = ("_value", "_level")
    __torch_function__ = _disabled_torch_function_impl

    def item(self):
        raise RuntimeError(
            "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
            "calling .item() on a Tensor, please try to rewrite what you're doing with other "
            "operations. If error is occurring somewhere inside PyTorch internals, please file a "
            "bug report."
        )

    def __bool__(self):
        raise RuntimeError(
            "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
            "flow. We don't support that yet, please shout over at "
            "https://github.com/pytorch/functorch/issues/257 ."
        )

    __int__ = __float__ = __index__ = _scalar = item

    def tolist(self):
        return self.item()

    def numpy(self, *, force: bool = False):
        raise RuntimeError("Cannot access data pointer of Tensor (e.g. FakeTensor, FunctionalTensor). "
                           "If you're using torch.compile/export/fx, it is likely that we are erroneously "
                           "tracing into a custom kernel. To fix this, please wrap the custom kernel into "
                           "an opaque custom op. Please see the following for details: "
                           "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")  # fmt: skip

    __array__ = numpy

    def __repr__(self, *, tensor_contents=None) -> str:
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._value!r}\n)"


# a wrapper must never take the plain-tensor fast paths (Note [Plain subclasses])
PLAIN_SUBCLASSES.discard(BatchedTensor)
NO_TF_SUBCLASSES.discard(BatchedTensor)  # its ops must reach the vmap key, never a binding fast call


def make_batched(value: Tensor, level: int) -> BatchedTensor:
    """Wrap ``value`` (batch dim first) as a BatchedTensor of ``level``."""
    d = value._data
    t = _new(BatchedTensor)
    t._data = d[0] if d.shape[0] else np.empty(d.shape[1:], d.dtype)
    t._dtype = value._dtype
    t._device = value._device
    t._rg = False
    t._grad_fn = None
    t._grad = None
    t._vc = value._vc
    t._base = None
    t._value = value
    t._level = level
    return t


def is_batched_at(v, level: int) -> bool:
    return v.__class__ is BatchedTensor and v._level == level


def unwrap(v, level: int):
    return v._value if v.__class__ is BatchedTensor and v._level == level else v


def wrap(out, level: int):
    if isinstance(out, Tensor):
        return make_batched(out, level)
    if isinstance(out, (tuple, list)):
        res = [wrap(o, level) for o in out]
        if hasattr(out, "_fields"):
            return type(out)(*res)
        return type(out)(res)
    return out


def top_level(op, vals):
    lvl = -1
    for i in op.tensor_idx:
        v = vals[i]
        if v.__class__ is BatchedTensor and v._level > lvl:
            lvl = v._level
    for i in op.list_idx:
        for v in vals[i]:
            if v.__class__ is BatchedTensor and v._level > lvl:
                lvl = v._level
    return lvl


def _find(level: int):
    lv = VMAP_LEVELS[-1]
    if lv.level == level:  # the innermost level: nearly every call
        return lv
    for lv in reversed(VMAP_LEVELS):
        if lv.level == level:
            return lv
    raise RuntimeError(
        "vmap: a BatchedTensor escaped the vmap call that created it (it was stored or returned in a "
        "way vmap could not unwrap); return it from the vmapped function instead."
    )


# Note [vmap pointwise fast path]
# Most vmapped calls are pointwise ops whose batched arguments all belong to the innermost level
# and share one logical rank: then the values line up as they are (batch dim first), and one
# pass over the tensor arguments replaces the level search, the rule lookup and the rank padding.
# Anything else (outer levels only, mixed ranks, in-place, a library vmap kernel) takes the
# general path below. The per-op entry is cached by id, as rule_for's is.
_ENTRY: dict = {}  # id(op) -> (op, rule, whether the pointwise fast path applies)


def _entry(op):
    rule = _rules.rule_for(op)
    fast = rule is _rules.pointwise and not op.list_idx and op.kind != "inplace"
    e = _ENTRY[id(op)] = (op, rule, fast)
    return e


def _pointwise_fast(op, vals):
    lv = VMAP_LEVELS[-1]
    level = lv.level
    rank = -1  # the batched arguments' common logical rank
    plain = 0  # the highest rank of the other tensors: broadcast from the right, no padding
    new = list(vals)
    for i in op.tensor_idx:
        v = vals[i]
        if v.__class__ is BatchedTensor:
            if v._level != level:
                return None
            r = v._data.ndim
            if r != rank:
                if rank >= 0:
                    return None  # batched ranks differ: the general rule pads them
                rank = r
            new[i] = v._value
        elif isinstance(v, Tensor) and v._data.ndim > plain:
            plain = v._data.ndim
    if rank < plain:
        return None  # nothing batched at the innermost level, or a batched value needs padding
    st = STATE
    prev = st.grad_enabled
    want = lv.grad_enabled and CALL_GRAD[0]
    if want == prev:  # the common case: no grad mode to restore
        out = op.fast(*new)
    else:
        st.grad_enabled = want
        try:
            out = op.fast(*new)
        finally:
            st.grad_enabled = prev
    return make_batched(out, level) if out.__class__ is Tensor else wrap(out, level)


def vmap_key(op, vals):
    e = _ENTRY.get(id(op))
    if e is None or e[0] is not op:
        e = _entry(op)
    if e[2] and not op.py_kernels:
        out = _pointwise_fast(op, vals)
        if out is not None:
            return out
    rule = e[1]
    if rule is _rules.random_rule:  # the innermost level decides, batched arguments or not
        lv = VMAP_LEVELS[-1]
    else:
        level = top_level(op, vals)
        if level < 0:
            return below_vmap(op, vals)
        lv = _find(level)
    st = STATE
    prev = st.grad_enabled
    # the Autograd key above turned grad mode off for the per-sample level only
    st.grad_enabled = lv.grad_enabled and CALL_GRAD[0]
    try:
        if op.py_kernels and "vmap" in op.py_kernels:  # numtorch.library.register_vmap
            from .autograd_function import custom_op_vmap

            return custom_op_vmap(op, vals, lv, op.py_kernels["vmap"])
        if rule is None:
            return loop_fallback(op, vals, lv)
        return rule(op, vals, lv)
    finally:
        st.grad_enabled = prev


_WARNED: set = set()  # ops warned about once per process, unless numtorch.set_warn_always(True)


def loop_fallback(op, vals, lv):
    """Run op once per sample and stack the results (ops without a batching rule)."""
    from .. import stack

    name = op.name()
    if name not in _WARNED or _WARN_ALWAYS[0]:
        _WARNED.add(name)
        warnings.warn(
            f"There is a performance drop because we have not yet implemented the batching rule for "
            f"{name}. Please file us an issue on GitHub so that we can prioritize its implementation.",
            UserWarning,
            stacklevel=4,
        )
    level = lv.level
    if op.kind == "inplace" and not is_batched_at(vals[op.self_idx], level):
        raise_inplace_error(op)
    outs = []
    for b in range(lv.batch_size):
        sample = [_select(v, level, b) for v in vals]
        outs.append(op.fast(*sample) if not op.list_idx else _dispatch.slow_dispatch(op, sample))
    if op.kind == "inplace":
        return vals[op.self_idx]
    first = outs[0] if outs else None
    if isinstance(first, Tensor):
        return make_batched(stack(outs), level)
    if isinstance(first, (tuple, list)) and all(isinstance(o, Tensor) for o in first):
        res = [make_batched(stack([o[k] for o in outs]), level) for k in range(len(first))]
        return type(first)(*res) if hasattr(first, "_fields") else type(first)(res)
    if first is None:
        return None
    raise RuntimeError(
        f"vmap: {name} returned a non-Tensor value ({type(first).__name__}) per sample; "
        "vmap only supports functions whose per-sample results are Tensors."
    )


def _select(v, level, b):
    if v.__class__ is BatchedTensor and v._level == level:
        return v._value.select(0, b)
    if isinstance(v, (list, tuple)) and v and any(is_batched_at(x, level) for x in v):
        return [_select(x, level, b) for x in v]
    return v


def raise_inplace_error(op):
    raise RuntimeError(
        f"vmap: {op._schema.name}(self, *extra_args) is not possible because there exists a Tensor "
        "`other` in extra_args that has more elements than `self`. This happened due to `other` "
        "being vmapped over but `self` not being vmapped over in a vmap. Please try to use "
        "out-of-place operators instead of inplace arithmetic. If said operator is being called "
        "inside the PyTorch framework, please file a bug report instead."
    )


from .. import _dispatch  # noqa: E402
from .._dispatch import below_vmap  # noqa: E402
from . import _rules  # noqa: E402
