"""The tables of ``numtorch.overrides``, generated from the bindings registry and ``Tensor``.

``PUBLIC`` maps each generated public function/method to its Binding (filled by
``numtorch._api.install``); ``ROUTED`` maps each other Tensor method or property accessor that
goes through ``__torch_function__`` (``numtorch._tensor_tf``) to its name and signature. Nothing here is a
hand-kept list of functions: every table is derived from those two and the namespaces.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import sys
import types
from typing import Any, Callable

PUBLIC: dict[Callable, Any] = {}  # generated public function -> its Binding
ROUTED: dict[Any, tuple[str, Any]] = {}  # Tensor method / property accessor -> (name, signature)
_NAMESPACES = ("numtorch", "numtorch.nn.functional", "numtorch.linalg", "numtorch.special", "numtorch.fft")


def _torch_module(b) -> str:
    return "torch.Tensor" if b.module == "Tensor" else b.module


def resolve_name(f) -> str | None:
    """PyTorch's name of an overridable function, as ``__torch_function__`` handlers see it.

    >>> numtorch.overrides.resolve_name(numtorch.add), numtorch.overrides.resolve_name(numtorch.Tensor.mul)
    ('torch.add', 'torch.Tensor.mul')
    """
    b = PUBLIC.get(f)
    if b is not None:
        return f"{_torch_module(b)}.{b.name}"
    from ._ops import OpOverload, OpOverloadPacket

    if isinstance(f, (OpOverload, OpOverloadPacket)):
        return str(f)
    r = ROUTED.get(f)
    if r is not None:
        return f"torch.Tensor.{r[0]}"
    qual = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    mod = getattr(f, "__module__", None)
    if qual is None:
        return None
    if mod and mod.startswith("numtorch"):
        mod = "torch" + mod[len("numtorch") :]
        if qual.startswith("Tensor."):
            mod = "torch"
    return f"{mod}.{qual}" if mod else qual


def _namespace_objects():
    from ._tensor import Tensor

    for name in _NAMESPACES:
        mod = sys.modules.get(name)
        if mod is not None:
            yield mod, vars(mod)
    yield Tensor, None


def get_overridable_functions() -> dict:
    """Namespace -> the functions in it that go through ``__torch_function__`` (sorted by name).

    >>> fs = numtorch.overrides.get_overridable_functions()
    >>> numtorch.add in fs[numtorch] and numtorch.Tensor.add in fs[numtorch.Tensor]
    True
    """
    return {k: list(v) for k, v in _overridable().items()}


@functools.lru_cache(maxsize=1)
def _overridable() -> dict:
    out: dict = {}
    for ns, _ in _namespace_objects():
        key = "Tensor" if isinstance(ns, type) else ns.__name__.replace("numtorch", "torch", 1)
        fns = [(b.name, f) for f, b in PUBLIC.items() if b.module == key]
        if key == "Tensor":
            fns += [(n, f) for f, (n, _) in ROUTED.items()]
        out[ns] = tuple(f for _, f in sorted(fns, key=lambda p: p[0]))
    return out


def _get_tensor_methods() -> set:
    from ._tensor import Tensor

    return set(_overridable()[Tensor])


def is_tensor_method_or_property(func: Callable) -> bool:
    """Whether ``func`` is a Tensor method or property accessor as passed to handlers.

    >>> numtorch.overrides.is_tensor_method_or_property(numtorch.Tensor.add)
    True
    >>> numtorch.overrides.is_tensor_method_or_property(numtorch.add)
    False
    """
    return func in _get_tensor_methods() or getattr(func, "__name__", None) == "__get__"


def _dummy(sig: str) -> Callable:
    # PyTorch writes these lambdas out by hand; here they are generated from the signatures
    ns = {"float": builtins.float, "inf": builtins.float("inf"), "nan": builtins.float("nan")}
    ns.update({k: v for k, v in vars(sys.modules["numtorch"]).items() if not k.startswith("_")})
    ns["float"] = builtins.float
    from .ops._registry import NOARG  # the registry imports this module's importers

    ns["NOARG"] = NOARG  # Note [Absent argument]
    return eval(f"lambda {sig}: -1", ns)  # noqa: S307 (trusted registry text)


def get_testing_overrides() -> dict:
    """Each overridable function -> a dummy lambda with its exact Python signature returning -1.

    >>> import inspect
    >>> inspect.signature(numtorch.overrides.get_testing_overrides()[numtorch.add])
    <Signature (input, other, *, alpha=1, out=None)>
    """
    out = {}
    for f, b in PUBLIC.items():
        out[f] = _dummy(b.sig)
    for f, (_, sig) in ROUTED.items():
        out[f] = dummy = lambda *args, **kwargs: -1  # noqa: E731
        dummy.__signature__ = sig
    return out


def get_ignored_functions() -> set:
    """Public callables of the torch namespaces and Tensor that ``__torch_function__`` never sees.

    >>> numtorch.is_tensor in numtorch.overrides.get_ignored_functions()
    True
    """
    routed = set(PUBLIC) | set(ROUTED)
    out = set()
    for ns, attrs in _namespace_objects():
        if attrs is None:  # Tensor: its own attributes, methods and properties alike
            for name in dir(ns):
                v = inspect.getattr_static(ns, name)
                if isinstance(v, (staticmethod, classmethod)):
                    v = getattr(ns, name)
                if callable(v) and not isinstance(v, type) and v not in routed:
                    if name not in ("__torch_function__", "__torch_dispatch__", "__class__"):
                        out.add(getattr(ns, name))
            continue
        for name, v in attrs.items():
            if name.startswith("_") or isinstance(v, (type, types.ModuleType)):
                continue
            if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)) and v not in routed:
                out.add(v)
    return out
