"""OpOverload / OpOverloadPacket and the ``numtorch.ops`` namespace (``ops.aten.add.Tensor``)."""

from __future__ import annotations

import dataclasses
import types

from ._schema import NO_DEFAULT, FunctionSchema, bind
from ._state import STATE

# Note [Operator calls see __torch_function__]
# As PyTorch's ``torch.ops.aten.*`` builtins do, a direct call of an overload or packet goes
# through modes and tensor-like arguments' handlers, which receive the overload (packet) itself.
# The dispatcher's own calls (``dispatch(op, vals)`` -> ``op.fast``) never do: they are the
# C++ side. overrides.py fills these three at import (it imports this module's users).
_NO_TF: set = set()
_NH = object()
_op_torch_function = None


def _has_tf(args, kwargs) -> bool:
    no_tf = _NO_TF
    for a in args:
        c = a.__class__
        if c not in no_tf:
            if c is list or c is tuple:
                if _has_tf(a, None):
                    return True
            elif _needs_handler(c):
                return True
    if kwargs:
        return _has_tf(tuple(kwargs.values()), None)
    return False


def _needs_handler(c) -> bool:
    from .overrides import _needs_handler as nh

    return nh(c)


class OpOverload:
    """One operator overload, e.g. ``numtorch.ops.aten.add.Tensor``.

    Calling it enters the dispatcher below the Python API (no ``__torch_function__``):

    >>> numtorch.ops.aten.add.Tensor(numtorch.ones(2), numtorch.ones(2))
    tensor([2., 2.])
    """

    __slots__ = ("_schema", "_overloadname", "_packet", "tensor_idx", "list_idx", "impls",
                 "autograd", "py_kernels", "tags", "kind", "out_idx", "self_idx", "nargs", "fast",
                 "dplan", "_fill", "_bind_lo", "_bind_hi", "__dict__")  # fmt: skip

    def __init__(self, schema: FunctionSchema, packet: OpOverloadPacket, tags=()):
        self._schema = schema
        self._overloadname = schema.overload_name or "default"
        self._packet = packet
        args = schema.arguments
        self.nargs = len(args)
        self.tensor_idx = tuple(i for i, a in enumerate(args) if a.is_tensor)
        self.list_idx = tuple(i for i, a in enumerate(args) if a.is_tensor_list)
        self.out_idx = tuple(i for i, a in enumerate(args) if a.is_out)
        writes = [i for i, a in enumerate(args) if a.is_write and not a.is_out]
        self.self_idx = writes[0] if writes else -1
        self.impls: dict = {}  # device type ("cpu", "cuda", "meta") or "composite" -> callable
        self.autograd = None  # numtorch.autograd formula info, or None (non-differentiable)
        self.py_kernels: dict = {}  # user registrations through numtorch.library
        self.tags = tuple(tags)
        self.kind = "view" if _returns_alias(schema) else ("inplace" if writes else "functional")
        if self.out_idx:
            self.kind = "out"
        self.fast = self._first_call
        self.dplan = None  # the Python key's normalisation plan (_schema.dispatch_plan), made on use
        self._fill, self._bind_lo, self._bind_hi = _bind_plan(schema)
        self.__name__ = f"{schema.name}.{self._overloadname}"
        self.__qualname__ = self.__name__
        self.__module__ = f"numtorch.ops.{schema.namespace}"

    def __call__(self, /, *args, **kwargs):
        if STATE.tf_modes or _has_tf(args, kwargs):
            r = _op_torch_function(self, args, kwargs)
            if r is not _NH:
                return r
        if not kwargs:  # Note [Positional calls skip bind]
            n = len(args)
            if self._bind_lo <= n <= self._bind_hi:
                return self.fast(*args, *self._fill[n:])
        return self.fast(*bind(self._schema, args, kwargs))

    def _first_call(self, *vals):
        from ._dispatch import make_fast

        self.fast = make_fast(self)
        return self.fast(*vals)

    def _reset_fast(self) -> None:
        self.fast = self._first_call

    def redispatch_below_autograd(self, *args, **kwargs):
        from ._dispatch import below_autograd

        return below_autograd(self, bind(self._schema, args, kwargs))

    def name(self) -> str:
        return f"{self._schema.namespace}::{self._schema.name}" + (
            f".{self._schema.overload_name}" if self._schema.overload_name else ""
        )

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        return self._packet

    @property
    def op(self):
        return self

    @property
    def namespace(self) -> str:
        return self._schema.namespace

    def __repr__(self) -> str:
        return f"{self._schema.namespace}.{self._schema.name}.{self._overloadname}"

    __str__ = __repr__

    # no __hash__ of its own: object's (identity, in C) keys the dicts hot paths look ops up in

    def __reduce__(self):
        return (_lookup_overload, (self._schema.namespace, self._schema.name, self._overloadname))

    # an op is a process-wide singleton: copies are the op itself, as in PyTorch
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    @property
    def _overloadpacket(self) -> OpOverloadPacket:
        return self._packet


# Note [Positional calls skip bind]
# A handler's ``func(*args, **kwargs)`` mostly passes positional arguments only, the trailing
# ones with defaults dropped (normalize_for_dispatch). When the arguments after the given ones
# all have defaults that are not lists (bind copies those, as a kernel may mutate them) and none
# is keyword-only-required, the value list is args + those defaults: no bind call.
def _bind_plan(schema: FunctionSchema) -> tuple:
    params = schema.arguments
    n_pos = next((i for i, a in enumerate(params) if a.kwarg_only), len(params))
    lo = len(params)
    while lo > 0 and params[lo - 1].default is not NO_DEFAULT and not isinstance(params[lo - 1].default, list):
        lo -= 1
    return tuple(a.default for a in params), lo, n_pos


def _returns_alias(schema: FunctionSchema) -> bool:
    return any(r.alias and not r.alias.endswith("!") for r in schema.returns)


class OpOverloadPacket:
    """All overloads of one operator name, e.g. ``numtorch.ops.aten.add``.

    >>> numtorch.ops.aten.add.overloads()[:2]
    ['Tensor', 'Scalar']
    """

    def __init__(self, namespace: str, name: str):
        self._namespace = namespace
        self._name = name
        self._overloads: dict[str, OpOverload] = {}
        self.__name__ = name
        self.__qualname__ = name

    def _add(self, ov: OpOverload) -> None:
        self._overloads[ov._overloadname] = ov
        _cache_attr(self, ov._overloadname, ov)

    def _remove(self, oname: str) -> None:
        del self._overloads[oname]
        if self.__dict__.get(oname) is not None:
            del self.__dict__[oname]

    def __getattr__(self, attr: str) -> OpOverload:
        if attr.startswith("__"):  # copy/pickle probe dunders before __dict__ exists
            raise AttributeError(attr)
        try:
            return self.__dict__["_overloads"][attr]
        except KeyError:
            raise AttributeError(
                f"The underlying op of '{self._namespace}.{self._name}' has no overload name '{attr}'"
            ) from None

    def overloads(self) -> list[str]:
        return list(self._overloads)

    @property
    def _qualified_op_name(self) -> str:
        return f"{self._namespace}::{self._name}"

    @property
    def op(self):
        return self

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_lookup_packet, (self._namespace, self._name))

    def __hash__(self) -> int:
        return id(self)

    def __call__(self, /, *args, **kwargs):
        if STATE.tf_modes or _has_tf(args, kwargs):
            r = _op_torch_function(self, args, kwargs)
            if r is not _NH:
                return r
        errors = []
        for ov in self._overloads.values():
            try:
                vals = bind(ov._schema, args, kwargs)
            except TypeError as e:
                errors.append(str(e))
                continue
            if _types_fit(ov, vals):
                from ._dispatch import dispatch

                try:
                    return dispatch(ov, vals)
                except Exception as e:
                    failed = getattr(ov, "_call_failed", None)  # a custom op names its kernel's failure
                    if failed is not None:
                        failed(e, vals)
                    raise
        raise TypeError(
            f"{self._namespace}::{self._name}() received an invalid combination of arguments: "
            + "; ".join(errors)
        )

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._namespace}.{self._name}')>"

    def __str__(self) -> str:
        return f"{self._namespace}.{self._name}"


def _types_fit(ov: OpOverload, vals: list) -> bool:
    from ._tensor import Tensor

    for i, a in enumerate(ov._schema.arguments):
        v = vals[i]
        if a.is_tensor and not (isinstance(v, Tensor) or (v is None and a.is_optional)):
            return False
        if a.type.startswith("Scalar") and isinstance(v, Tensor):
            return False
    return True


class _OpNamespace(types.ModuleType):
    def __init__(self, name: str):
        super().__init__(f"numtorch.ops.{name}")
        self._ns = name
        self._packets: dict[str, OpOverloadPacket] = {}

    def __getattr__(self, name: str) -> OpOverloadPacket:
        try:
            return self.__dict__["_packets"][name]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' '{self._ns}' object has no attribute '{name}'") from None

    def __dir__(self):
        return sorted(self._packets)

    def _add_packet(self, name: str, packet: OpOverloadPacket) -> OpOverloadPacket:
        self._packets[name] = packet
        _cache_attr(self, name, packet)
        return packet

    def _remove_packet(self, name: str) -> None:
        del self._packets[name]
        if self.__dict__.get(name) is not None:
            del self.__dict__[name]


# Note [Op lookups are plain attributes]
# ``aten.mul.Tensor`` in a composite's body runs on every call: a miss in a module's (or any
# object's) normal lookup raises and formats an AttributeError before __getattr__ runs, 4-5 us per
# dot on the 2-core machine. So packets and overloads are also stored as instance attributes
# when registered (and dropped when a custom op is undefined); __getattr__ stays for the rest.
def _cache_attr(obj, name: str, value) -> None:
    if name not in obj.__dict__ and not hasattr(type(obj), name):
        obj.__dict__[name] = value


class _Ops(types.ModuleType):
    """``numtorch.ops``: one namespace per library (``aten``, and user namespaces)."""

    def __init__(self):
        super().__init__("numtorch.ops")
        self._namespaces: dict[str, _OpNamespace] = {}

    def __getattr__(self, name: str) -> _OpNamespace:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.namespace(name)

    def namespace(self, name: str) -> _OpNamespace:
        spaces = self.__dict__["_namespaces"]
        if name not in spaces:
            spaces[name] = _OpNamespace(name)
        return spaces[name]


ops = _Ops()


def register_overload(schema: FunctionSchema, tags=()) -> OpOverload:
    ns = ops.namespace(schema.namespace)
    packet = ns._packets.get(schema.name)
    if packet is None:
        packet = ns._add_packet(schema.name, OpOverloadPacket(schema.namespace, schema.name))
    oname = schema.overload_name or "default"
    if oname in packet._overloads:
        raise RuntimeError(f"operator {schema.namespace}::{schema.name}.{oname} is already registered")
    if not schema.qualified:  # a registered op's schema prints its namespace, as PyTorch's does
        schema = dataclasses.replace(schema, qualified=True)
    ov = OpOverload(schema, packet, tags)
    packet._add(ov)
    return ov


def _lookup_packet(namespace: str, name: str) -> OpOverloadPacket:
    return getattr(ops.namespace(namespace), name)


def _lookup_overload(namespace: str, name: str, overload: str) -> OpOverload:
    return getattr(getattr(ops.namespace(namespace), name), overload)
