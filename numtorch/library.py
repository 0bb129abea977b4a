"""``numtorch.library``: user-defined operators, first-class in every dispatcher layer.

Three ways to extend numtorch (README, "Extending numtorch"):

- ``numtorch.autograd.Function`` for a differentiable composite;
- ``custom_op`` with a Numba kernel: a new op in ``numtorch.ops.<ns>``, with autograd, modes,
  ``__torch_function__`` subclasses and ``opcheck``, as PyTorch's ``torch.library``;
- ``elementwise``: a plain scalar Python function becomes a full elementwise op (broadcasting,
  type promotion, out=, in-place, parallel and disk-cached kernels, autograd);
  ``reduction`` is its counterpart for a scalar combine function (dim/keepdim, out=).
"""

from __future__ import annotations

import weakref

from ._api import aten_kernel_overrides
from ._library.custom_ops import CustomOpDef, define_op, kernel_adapter, undefine_op
from ._library.custom_ops import custom_op as custom_op
from ._library.elementwise import elementwise as elementwise
from ._library.infer_schema import Tag as Tag
from ._library.infer_schema import infer_schema as infer_schema
from ._library.numba_kernel import forget_plans
from ._library.opcheck import OpCheckError as OpCheckError
from ._library.opcheck import opcheck as opcheck
from ._library.reduction import reduction as reduction
from ._ops import ops

__all__ = ["Library", "custom_op", "define", "impl", "register_kernel", "register_autograd", "register_fake",
           "register_vmap", "register_torch_dispatch", "impl_abstract", "get_ctx", "infer_schema", "opcheck",
           "OpCheckError", "elementwise", "reduction", "Tag"]  # fmt: skip

_KEYS = {"CPU": "cpu", "CUDA": "cuda", "Meta": "meta", "CompositeExplicitAutograd": "any",
         "CompositeImplicitAutograd": "composite", "Autograd": "autograd", "AutogradCPU": "autograd",
         "AutogradCUDA": "autograd", "": "any"}  # fmt: skip


class Library:
    """A handle to register operators of one namespace: ``Library(ns, "DEF" | "IMPL" | "FRAGMENT")``.

    Registrations last as long as the Library: deleting it (or ``_destroy()``) removes its
    definitions and restores the kernels it replaced.

    >>> lib = numtorch.library.Library("mylib_doc2", "DEF")
    >>> lib.define("neg2(Tensor x) -> Tensor")
    'neg2'
    >>> lib.impl("neg2", lambda x: -x, "CPU")
    >>> numtorch.ops.mylib_doc2.neg2(numtorch.ones(1))
    tensor([-1.])
    >>> lib._destroy()
    """

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError("Unsupported kind: ", kind)
        if ns in ("prim",) and kind in ("DEF", "FRAGMENT"):
            raise ValueError(ns, " is a reserved namespace. Please try creating a library with another name.")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined: list = []
        self._replaced: list = []  # (op, slot, key, previous value or _ABSENT)
        self._finalizer = weakref.finalize(self, _undo, self._defined, self._replaced)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Define an operator from its schema text (without the namespace); returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError("define() is not allowed on a Library of kind IMPL")
        tags = (tags,) if isinstance(tags, Tag) else tuple(tags)
        text = schema if "::" in schema.split("(")[0] else f"{self.ns}::{schema}"
        op = define_op(text, tags)
        self._defined.append(op)
        return op._schema.name if not op._schema.overload_name else f"{op._schema.name}.{op._schema.overload_name}"

    def impl(self, op_name, fn, dispatch_key: str = "", *, with_keyset: bool = False, allow_override: bool = False):
        """Register ``fn`` as ``op_name``'s kernel for ``dispatch_key`` ("CPU", "CUDA", "Meta",
        "CompositeExplicitAutograd", "CompositeImplicitAutograd", "Autograd")."""
        op = _resolve(op_name if not isinstance(op_name, str) else op_name, self.ns)
        key = _KEYS.get(dispatch_key or self.dispatch_key)
        if key is None:
            raise ValueError(f"Unsupported dispatch key {dispatch_key!r}; use one of {sorted(k for k in _KEYS if k)}")
        if key == "autograd":
            self._replaced.append((op, "autograd", None, op.autograd))
            op.autograd = _AutogradImpl(fn)
        else:
            self._replaced.append((op, "impls", key, op.impls.get(key, _ABSENT)))
            op.impls[key] = kernel_adapter(op, fn) if op._schema.namespace != "aten" else fn
            if key == "meta":
                forget_plans(op)
        if op._schema.namespace == "aten" and key != "meta":
            aten_kernel_overrides(1)  # Note [Fast calls under kernel overrides]
        op._reset_fast()

    def fallthrough(self, *a, **k):
        raise NotImplementedError("fallthrough kernels are not supported by numtorch's dispatcher")

    def _destroy(self) -> None:
        self._finalizer()


_ABSENT = object()


def _undo(defined, replaced) -> None:
    for op, slot, key, prev in reversed(replaced):
        if slot == "autograd":
            op.autograd = prev
        elif prev is _ABSENT:
            op.impls.pop(key, None)
        else:
            op.impls[key] = prev
        forget_plans(op)
        op._reset_fast()
        if op._schema.namespace == "aten" and key != "meta":
            aten_kernel_overrides(-1)
    replaced.clear()
    for op in defined:
        undefine_op(op)
    defined.clear()


class _AutogradImpl:
    """A kernel registered at the Autograd key through Library.impl: it handles the call."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def call(self, op, vals):
        return self.fn(*vals)


def _resolve(qualname, default_ns: str | None = None):
    """An OpOverload from "ns::name[.overload]", "name" (in ``default_ns``), an OpOverload,
    an OpOverloadPacket or a CustomOpDef."""
    if isinstance(qualname, CustomOpDef):
        return qualname._opoverload
    if not isinstance(qualname, str):
        if hasattr(qualname, "_schema"):
            return qualname
        return qualname.default  # a packet
    ns, sep, rest = qualname.partition("::")
    if not sep:
        ns, rest = default_ns, qualname
    name, _, overload = rest.partition(".")
    try:
        return getattr(getattr(ops.namespace(ns), name), overload or "default")
    except AttributeError:
        raise ValueError(f"operator {ns}::{rest} does not exist: define it first") from None


_LIBS: list = []  # Libraries behind the module-level helpers live as long as the process


def define(qualname: str, schema: str, *, lib=None, tags=()) -> None:
    """Define ``qualname`` ("ns::name") with ``schema`` ("(Tensor x) -> Tensor")."""
    ns, _, name = qualname.partition("::")
    if lib is None:
        lib = Library(ns, "FRAGMENT")
        _LIBS.append(lib)
    lib.define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """Register ``func`` for device ``types`` ("cpu", "cuda", or a sequence). Usable as a decorator."""

    def inner(fn):
        op = _resolve(qualname)
        d = getattr(op, "_custom_def", None)
        if d is not None:
            d.register_kernel(types)(fn)
            return fn
        nonlocal lib
        if lib is None:
            lib = Library(op._schema.namespace, "FRAGMENT")
            _LIBS.append(lib)
        for t in [types] if isinstance(types, str) else types:
            lib.impl(op, fn, {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}.get(t, t))
        return fn

    return inner if func is None else inner(func)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register a device kernel for ``op`` (a CustomOpDef, OpOverload or "ns::name")."""
    return impl(op, device_types, func, lib=lib)


def _custom_def(op) -> CustomOpDef:
    o = _resolve(op)
    d = getattr(o, "_custom_def", None)
    if d is None:
        d = CustomOpDef.__new__(CustomOpDef)
        d._namespace, d._name, d._opoverload = o._schema.namespace, o._schema.name, o
        d._backend_fns, d._abstract_fn, d._vmap_fn, d._torch_dispatch_fns = {}, None, None, {}
        d._init_fn = None
        d.__name__ = o._schema.name
        d._plan_fast_call()
        o._custom_def = d
    return d


def register_autograd(op, backward, /, *, setup_context=None, lib=None) -> None:
    """``register_autograd`` for an op defined through ``define`` / ``Library``."""
    _custom_def(op).register_autograd(backward, setup_context=setup_context)


def register_fake(op, func=None, /, *, lib=None, _stacklevel: int = 1):
    """Register the fake (meta) function of ``op``. Usable as a decorator."""

    def inner(fn):
        return _custom_def(op).register_fake(fn)

    return inner if func is None else inner(func)


impl_abstract = register_fake


def register_vmap(op, func=None, /, *, lib=None):
    return _custom_def(op).register_vmap(func)


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    return _custom_def(op).register_torch_dispatch(torch_dispatch_class, func)


class FakeImplCtx:
    """The context of a fake function (``get_ctx()``)."""

    def new_dynamic_size(self, *, min: int = 0, max: int | None = None):  # noqa: A002
        raise NotImplementedError(
            "new_dynamic_size needs symbolic shapes, which numtorch does not trace yet: the fake "
            "function of a data-dependent op cannot be checked"
        )

    create_unbacked_symint = new_dynamic_size


def get_ctx() -> FakeImplCtx:
    """The ctx available inside a fake (``register_fake``) function."""
    return FakeImplCtx()
