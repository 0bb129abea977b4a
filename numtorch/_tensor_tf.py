"""Route Tensor's hand-written methods and properties through ``__torch_function__``.

Generated bindings carry their own gate (``numtorch._api``). The methods written by hand in
``_tensor.py`` (``size``, ``dim``, ``item``, ``__len__`` ...) and the properties (``shape``,
``dtype``, ``grad`` ...) are wrapped here once at import, so a handler sees them as PyTorch's
does: the method itself, or ``Tensor.<name>.__get__`` / ``__set__`` for a property.
"""

from __future__ import annotations

import functools
import inspect

from . import overrides
from ._overridable import PUBLIC, ROUTED
from ._state import STATE
from ._tensor import _NO_HANDLER, _ROUTE

# Note [Hand-written Tensor methods that stay unrouted]
# Construction and the protocol's own hooks never dispatch; __repr__, backward, register_hook
# and numpy (one frame: custom-op kernels call it per call) carry their own gate (they pass the
# public method themselves); __iter__ is routed through the unbind it calls, as PyTorch's is;
# pickling reaches the properties it reads.
# Note [Self-gated accessors]
# shape, dtype, device, ndim, dim(), numel() and item() are read by every model on every call;
# this module's wrapper cost each a second frame (x.dtype 0.09 us, PyTorch's 0.05). They test
# the wrapper's gate themselves in _tensor.py: a plain Tensor with no torch-function mode runs
# the body; anything else calls _route (the wrapper's own test), which returns a handler's
# answer, or _NO_HANDLER for the body to run. A handler gets the same function (the method, or
# ``Tensor.<name>.__get__``) and arguments as from the wrapper: these take none. size, stride and
# is_contiguous keep the wrapper, which hands a handler their arguments as the caller wrote them
# (positional or keyword); ndimension and nelement are their own functions, wrapped as before.
_ACCESSORS = ("shape", "dtype", "device", "ndim", "dim", "numel", "item")
_PUBLIC: dict = {}  # accessor name -> what a handler receives as ``func``


def _route(self, name: str, nh=overrides.NO_TF, S=STATE, tf=overrides):
    if type(self) not in nh or S.tf_modes:
        if tf.has_torch_function((self,)):
            return tf.handle_torch_function(_PUBLIC[name], (self,), self)
    return _NO_HANDLER


_SKIP = frozenset({
    "__new__", "__init__", "__init_subclass__", "__torch_function__", "__torch_dispatch__",
    "__hash__", "__reduce_ex__", "__repr__", "__iter__", "__getattr__", "__setattr__",
    "as_subclass", "backward", "register_hook", "numpy",
})  # fmt: skip
_SELF_GATED = ("__repr__", "backward", "register_hook", "__reduce_ex__", "numpy", *_ACCESSORS)


def _method(name: str, fn, nh=overrides.NO_TF, S=STATE, tf=overrides, T=None):
    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        if type(self) not in nh or S.tf_modes:
            if tf.has_torch_function((self,)):
                return tf.handle_torch_function(method, (self,), self, *args, **kwargs)
        return fn(self, *args, **kwargs)

    return method


def _property(name: str, prop: property) -> property:
    fget, fset = prop.fget, prop.fset
    nh, S, tf = overrides.NO_TF, STATE, overrides

    def get(self):
        if type(self) not in nh or S.tf_modes:
            if tf.has_torch_function((self,)):
                return tf.handle_torch_function(new.__get__, (self,), self)
        return fget(self)

    def set_(self, value):
        if type(self) not in nh or S.tf_modes:
            if tf.has_torch_function((self,)):
                return tf.handle_torch_function(new.__set__, (self,), self, value)
        return fset(self, value)

    new = property(get, set_ if fset is not None else None, prop.fdel, prop.__doc__)
    return new


def _signature(fn) -> inspect.Signature:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return inspect.signature(lambda self, *args, **kwargs: None)
    params = [p.replace(annotation=p.empty) for p in sig.parameters.values()]
    return sig.replace(parameters=params, return_annotation=sig.empty)


_GET = inspect.signature(lambda self: None)
_SET = inspect.signature(lambda self, value: None)


def install(tensor_cls) -> None:
    """Wrap every unrouted public method and property of ``tensor_cls`` (once, at import)."""
    for name, v in list(vars(tensor_cls).items()):
        if name in _SELF_GATED:
            if isinstance(v, property):
                v = v.__get__
                ROUTED[v] = (f"{name}.__get__", _GET)
            else:
                ROUTED[v] = (name, _signature(v))
            if name in _ACCESSORS:
                _PUBLIC[name] = v
            continue
        if name in _SKIP or (name.startswith("_") and not name.endswith("__")):
            continue
        if isinstance(v, property):
            new = _property(name, v)
            setattr(tensor_cls, name, new)
            ROUTED[new.__get__] = (f"{name}.__get__", _GET)
            if new.fset is not None:
                ROUTED[new.__set__] = (f"{name}.__set__", _SET)
        elif inspect.isfunction(v) and v not in PUBLIC:
            new = _method(name, v)
            setattr(tensor_cls, name, new)
            ROUTED[new] = (name, _signature(v))
    _ROUTE[0] = _route
    tensor_cls.__long__ = tensor_cls.__int__  # one object under two names, as in torch
    overrides._NOWRAP.update({tensor_cls.grad.__get__, tensor_cls._base.__get__})
