"""numtorch.utils: ``data`` (datasets and loaders), ``hooks`` (hook handles), ``checkpoint`` and
small helpers (``swap_tensors``, ``set_module``, ``ThroughputBenchmark``).

Submodules load on first attribute access, so importing ``numtorch.utils`` (which the
dispatcher does for ``utils._python_dispatch``) never pulls in the data pipeline.
"""

from __future__ import annotations

import copyreg
import importlib
import weakref

_LAZY = ("data", "hooks", "weak", "_pytree", "_python_dispatch", "collect_env", "dlpack", "checkpoint",
         "backcompat", "backend_registration", "cpp_backtrace", "deterministic", "throughput_benchmark")  # fmt: skip
# names defined in a submodule, loaded with it on first access
_FROM = {"ThroughputBenchmark": "throughput_benchmark", "get_cpp_backtrace": "cpp_backtrace",
         "rename_privateuse1_backend": "backend_registration",
         "generate_methods_for_privateuse1_backend": "backend_registration"}  # fmt: skip


def __getattr__(name: str):
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _FROM:
        return getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_FROM))


def set_module(obj, mod: str) -> None:
    """Set ``obj.__module__`` (for nicer reprs of re-exported objects).

    >>> def f(): pass
    >>> numtorch.utils.set_module(f, "numtorch"); f.__module__
    'numtorch'
    """
    if not isinstance(mod, str):
        raise TypeError("The mod argument should be a string")
    obj.__module__ = mod


_POISONED = (
    "Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can happen when you try to run "
    "backward on a tensor that was swapped. For a module m with `torch.__future__.set_swap_module_params_on_conversion"
    "(True)` you should not change the device or dtype of the module (e.g. `m.cpu()` or `m.half()`) between running "
    "forward and backward. To resolve this, please only change the device/dtype before running forward (or after "
    "both forward and backward)."
)


def swap_tensors(t1, t2) -> None:
    """Swap the contents (class, data, autograd state, attributes) of two tensors in place, so
    each keeps its identity with the other's content.

    >>> a, b = numtorch.zeros(2), numtorch.ones(3)
    >>> numtorch.utils.swap_tensors(a, b); a
    tensor([1., 1., 1.])
    """
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    slots1 = set(copyreg._slotnames(t1.__class__))
    slots2 = set(copyreg._slotnames(t2.__class__))
    if slots1 != slots2:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    for t in (t1, t2):
        # a leaf already in a graph: its gradient must not land in the swapped-in content
        ref = t.__dict__.get("_acc_ref") if hasattr(t, "__dict__") else None
        acc = ref() if ref is not None else None
        if acc is not None:
            acc.register_prehook(_poisoned)
            t.__dict__.pop("_acc_ref")
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    d1, d2 = dict(t1.__dict__), dict(t2.__dict__)
    t1.__dict__.clear()
    t1.__dict__.update(d2)
    t2.__dict__.clear()
    t2.__dict__.update(d1)
    for slot in slots1:
        has1, has2 = hasattr(t1, slot), hasattr(t2, slot)
        v1, v2 = getattr(t1, slot, None), getattr(t2, slot, None)
        if has2:
            setattr(t1, slot, v2)
        elif has1:
            delattr(t1, slot)
        if has1:
            setattr(t2, slot, v1)
        elif has2:
            delattr(t2, slot)


def _poisoned(grad_outputs):
    raise RuntimeError(_POISONED)
