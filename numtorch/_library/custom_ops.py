"""``custom_op`` and ``CustomOpDef``: a Python function (typically calling a Numba kernel)
becomes an operator in ``numtorch.ops.<ns>``, dispatched like a built-in one."""

from __future__ import annotations

import inspect

from .. import _dtype as D
from .._device import device as _device
from .._dispatch import dispatch
from .._ops import OpOverload, ops
from .._schema import bind, parse_schema
from .._state import STATE
from .._tensor import Tensor
from .. import overrides as _ov
from .autograd import AutogradKernel
from .infer_schema import Tag, infer_schema
from .numba_kernel import NumbaKernel, body_failed, forget_plans, is_numba_cpu

_NUMBERS = (int, float, bool)


class CustomOpOverload(OpOverload):
    """An OpOverload defined through numtorch.library: calls go through ``__torch_function__``
    first (modes and subclasses see ``mylib.name.default``), as PyTorch's op objects do."""

    __slots__ = ()

    def __call__(self, /, *args, **kwargs):
        if STATE.tf_modes or _tf_args(args, kwargs):
            r = _ov._run_handlers(self, _relevant(args, kwargs), args, kwargs or None)
            if r is not _ov.NOT_HANDLED:
                return r
        vals = _bind(self, args, kwargs)
        try:
            return self.fast(*vals)
        except Exception as e:
            body_failed(self, e, vals)  # a Numba compile error in a Python kernel, named after the op
            raise

    def _call_failed(self, e, vals) -> None:
        # the overload packet's call (numtorch.ops.ns.name(...)) reports as this one's does
        body_failed(self, e, vals)

    def _reset_fast(self) -> None:
        self.fast = self._first_call
        d = self.__dict__.get("_custom_def")
        if d is not None:  # its generated call read the kernels and autograd now replaced
            d._plan_fast_call()


def _tf_args(args, kwargs) -> bool:
    for a in args:
        if a.__class__ not in _ov.NO_TF and (not isinstance(a, (list, tuple)) or _ov.list_has_tf(a)):
            if isinstance(a, (list, tuple)) or _ov._needs_handler(type(a)):
                return True
    return bool(kwargs) and _tf_args(tuple(kwargs.values()), None)


def _relevant(args, kwargs):
    out = []
    for a in (*args, *(kwargs or {}).values()):
        out.extend(a if isinstance(a, (list, tuple)) else (a,))
    return out


def _declaration(op) -> str:
    return f"Declaration: {op.name().split('.')[0]}{str(op._schema)[len(op._schema.namespace) + 2 + len(op._schema.name):]}"


def _bind(op, args, kwargs) -> list:
    """bind() with PyTorch's custom-op wording, then a type check of every value."""
    s = op._schema
    fname = f"{s.namespace}::{s.name}"
    try:
        vals = bind(s, args, kwargs or {}, fname=fname)
    except TypeError as e:
        raise RuntimeError(f"{e}. {_declaration(op)}") from None
    for pos, (a, v) in enumerate(zip(s.arguments, vals)):
        if not _fits(a.type, v):
            raise RuntimeError(
                f"{fname}() Expected a value of type '{a.type}' for argument '{a.name}' but instead "
                f"found type '{type(v).__name__}'.\nPosition: {pos}\nValue: {v!r}\n{_declaration(op)}"
            )
    return vals


_SCALAR_FITS = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "SymInt": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "Scalar": lambda v: isinstance(v, (int, float, bool, complex)),
    "ScalarType": lambda v: isinstance(v, D.dtype),
    "Device": lambda v: isinstance(v, (_device, str)),
}


_NONE = type(None)
_EXACT = {"Tensor": (Tensor,), "Tensor?": (Tensor, _NONE), "float": (float, int), "float?": (float, int, _NONE),
          "SymInt": (int,), "int": (int,), "SymInt?": (int, _NONE), "int?": (int, _NONE), "bool": (bool,),
          "bool?": (bool, _NONE), "str": (str,), "Scalar": (int, float, bool)}  # fmt: skip


def _fits(t: str, v) -> bool:
    if t.endswith("?"):
        return v is None or _fits(t[:-1], v)
    if t.endswith("]"):
        elem = t[: t.rfind("[")]
        if isinstance(v, (list, tuple)):
            return all(_fits(elem, x) for x in v)
        return elem in ("SymInt", "int") and _fits(elem, v)  # int[2] accepts one int
    check = _SCALAR_FITS.get(t)
    return True if check is None else check(v)


def define_op(qualname_schema: str, tags=()) -> OpOverload:
    """Register a schema in ``numtorch.ops`` (refusing a name defined twice)."""
    s = parse_schema(qualname_schema)
    ns = ops.namespace(s.namespace)
    packet = ns._packets.get(s.name)
    oname = s.overload_name or "default"
    if packet is not None and oname in packet._overloads:
        raise RuntimeError(
            f"Tried to register an operator ({s}) with the same name and overload name multiple "
            "times. Each overload's schema should only be registered with a single call to def(). "
            f"Duplicate registration: {s.namespace}::{s.name}.{oname}"
        )
    if packet is None:
        from .._ops import OpOverloadPacket

        packet = ns._add_packet(s.name, OpOverloadPacket(s.namespace, s.name))
    op = CustomOpOverload(s, packet, tuple(tags))
    packet._add(op)
    op.autograd = AutogradKernel(op) if _differentiable(op) else None
    return op


def _differentiable(op) -> bool:
    return op.kind == "functional" and bool(op.tensor_idx or op.list_idx)


def undefine_op(op: OpOverload) -> None:
    s = op._schema
    ns = ops.namespace(s.namespace)
    packet = ns._packets.get(s.name)
    if packet is not None and packet._overloads.get(op._overloadname) is op:
        packet._remove(op._overloadname)
        if not packet._overloads:
            ns._remove_packet(s.name)


def kernel_adapter(op, fn):
    """``fn`` as the backend receives it: schema-ordered values positionally; keyword-only
    parameters by name; mutated arguments' version counters bumped after the call. A Numba
    function is the kernel itself (Note [Numba kernels as op kernels])."""
    if is_numba_cpu(fn):
        return NumbaKernel(op, fn)
    s = op._schema
    n_pos = sum(1 for a in s.arguments if not a.kwarg_only)
    kw = tuple(a.name for a in s.arguments if a.kwarg_only)
    mutated = tuple(i for i, a in enumerate(s.arguments) if a.is_write)
    if not kw and not mutated:
        return fn

    def kernel(*v):
        r = fn(*v[:n_pos], **dict(zip(kw, v[n_pos:]))) if kw else fn(*v)
        for i in mutated:
            x = v[i]
            for t in x if isinstance(x, (list, tuple)) else (x,):
                if isinstance(t, Tensor):
                    t._vc[0] += 1
        return r

    kernel.__wrapped__ = fn
    return kernel


class CustomOpDef:
    """What ``@numtorch.library.custom_op`` returns: call it like the op; register kernels,
    autograd, fake and vmap rules on it. See ``numtorch.library.custom_op``."""

    def __init__(self, namespace: str, name: str, schema: str, fn, tags=()):
        self._namespace, self._name = namespace, name
        self._init_fn = fn
        self._opoverload = define_op(f"{namespace}::{name}{schema}", tags)
        self._opoverload._custom_def = self
        self._backend_fns: dict = {}
        self._abstract_fn = None
        self._vmap_fn = None
        self._torch_dispatch_fns: dict = {}
        self._setup_context_fn = None
        self._backward_fn = None
        self.__name__ = name
        self.__doc__ = getattr(fn, "__doc__", None)
        self._plan_fast_call()

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        # the general route; _plan_fast_call gives an op its generated one (Note [Custom-op fast call])
        return self._opoverload(*args, **kwargs)

    def _plan_fast_call(self) -> None:
        from .fastcall import generate

        call = generate(self)
        if call is None:
            self.__class__ = CustomOpDef
        else:
            self.__class__ = type(CustomOpDef.__name__, (CustomOpDef,), {"__call__": call, "__module__": __name__})

    def register_kernel(self, device_types, fn=None, /):
        """Register ``fn`` as the kernel for ``device_types`` ("cpu", "cuda", a sequence, or None
        for every device). Usable as a decorator."""

        def inner(fn):
            kinds = [device_types] if device_types is None or isinstance(device_types, str) else list(device_types)
            for kind in kinds:
                key = "any" if kind is None else _device(kind).type
                if is_numba_cpu(fn):  # it runs on host arrays: the CPU kernel only
                    if key not in ("any", "cpu"):
                        raise ValueError(f"{self}: a Numba CPU function can only be the 'cpu' kernel, not the {key!r} one")
                    key = "cpu"
                self._backend_fns[key] = fn
                self._opoverload.impls[key] = kernel_adapter(self._opoverload, fn)
            self._opoverload._reset_fast()
            return fn

        return inner if fn is None else inner(fn)

    def register_fake(self, fn, /):
        """Register the fake (meta) function: computes output metadata from inputs' metadata.
        opcheck compares its result with the real kernel's (shape, dtype, strides)."""
        self._abstract_fn = fn
        self._opoverload.impls["meta"] = fn
        forget_plans(self._opoverload)
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """Register ``backward(ctx, *grads)`` (one gradient per positional input) and
        ``setup_context(ctx, inputs, output)`` (runs after forward, saves what backward needs)."""
        op = self._opoverload
        if Tag.out in op.tags:
            raise RuntimeError(f"Cannot register autograd formula for operator tagged with torch.Tag.out: {self}. "
                               "Out variants do not support autograd.")  # fmt: skip
        if op._schema.is_mutable:
            raise RuntimeError(
                f"Cannot register autograd formula for non-functional operator {self} with schema "
                f"{op._schema}. Please create a functional operator and register an autograd formula for that."
            )
        self._backward_fn, self._setup_context_fn = backward, setup_context
        op.autograd = AutogradKernel(op, backward, setup_context)
        op._reset_fast()

    def register_vmap(self, func=None, /):
        """Store a vmap rule ``func(info, in_dims, *args)`` (used by numtorch.func.vmap)."""

        def inner(f):
            self._vmap_fn = f
            self._opoverload.py_kernels["vmap"] = f
            return f

        return inner if func is None else inner(func)

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        """Run ``fn(mode_or_cls, func, types, args, kwargs)`` instead of ``torch_dispatch_class``'s
        ``__torch_dispatch__`` when it handles this op."""

        def inner(f):
            self._torch_dispatch_fns[torch_dispatch_class] = f
            self._opoverload.py_kernels[torch_dispatch_class] = f
            return f

        return inner if fn is None else inner(fn)

    def _destroy(self) -> None:
        undefine_op(self._opoverload)


def custom_op(name: str, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wrap a function into a custom operator ``numtorch.ops.<ns>.<name>.default``.

    >>> @numtorch.library.custom_op("mylib_doc::scale", mutates_args=())
    ... def scale(x: numtorch.Tensor, k: float) -> numtorch.Tensor:
    ...     return numtorch.from_numpy(x.numpy() * k)
    >>> scale(numtorch.ones(2), 3.0)
    tensor([3., 3.])
    """

    def inner(fn):
        ns, sep, opname = name.partition("::")
        if not sep or not ns or not opname:
            raise ValueError(f"Expected custom op name of the form 'namespace::name', got {name!r}")
        tg = () if tags is None else (tags,) if isinstance(tags, Tag) else tuple(tags)
        if schema is None:
            text = infer_schema(fn, mutates_args=mutates_args, tags=tg)
        else:
            text = schema
            _check_mutates(schema, mutates_args)
        d = CustomOpDef(ns, opname, text, fn, (*tg, Tag.pt2_compliant_tag))
        d.register_kernel(device_types)(fn)
        return d

    return inner if fn is None else inner(fn)


def _check_mutates(schema: str, mutates_args) -> None:
    if mutates_args == "unknown":
        return
    s = parse_schema(f"_::_{schema}")
    expected = {a.name for a in s.arguments if a.is_write}
    if expected != set(mutates_args):
        raise ValueError(
            f"Attempted to create a custom op with `mutates_args={mutates_args}` and `schema={schema}. "
            f"The schema suggests that the op mutates {expected}which is different from what was "
            "provided to us in `mutates_args`. Please make these consistent."
        )
