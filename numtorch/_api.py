"""Build numtorch's public functions and Tensor methods from the registry's bindings.

Each binding becomes one generated Python function with the exact signature PyTorch has
(so ``inspect.signature`` and keyword calls work) and the cheap ``__torch_function__`` gate
of Note [One cheap gate]: a set-membership test per tensor parameter plus one read of the
mode stack. Only when it fails does the slow path in ``overrides.py`` run. Generating
Python wrappers with ``exec`` is fine (they are not Numba kernels); it is done once at import.
"""

from __future__ import annotations

import sys
import types

from . import overrides
from ._state import STATE
from .ops._registry import BINDINGS, Binding

_TEMPLATE = """
def {name}({sig}):
    if _S.tf_modes or {gate}:
        _r = _tf(_self_fn, {rel}, ({pos}{comma}), {kw}, {is_method})
        if _r is not _NH:
            return _r
    return _body({call})
"""


def _split_sig(sig: str):
    pos, kwonly, kw = [], [], False
    for part in (p.strip() for p in sig.split(",")):
        if not part:
            continue
        if part.startswith("*"):
            kw = True
            if part != "*":
                pos.append((part, None))
            continue
        name, _, default = part.partition("=")
        (kwonly if kw else pos).append((name.strip(), default.strip() or None))
    return pos, kwonly


def build(b: Binding, is_method: bool, tensor_type) -> types.FunctionType:
    pos, kwonly = _split_sig(b.sig)
    names = [n.lstrip("*") for n, _ in pos + kwonly]
    strict = b.relevant[:1] if b.relevant[:1] in (("input",), ("self",)) else ()
    gate = [f"_type({r}) is not _T" for r in strict]
    gate += [f"_type({r}) not in _NO_TF" for r in b.relevant[len(strict) :]]
    gate += [f"_list_tf({r})" for r in b.lists]
    rel = ", ".join(list(b.relevant) + [f"*{r}" for r in b.lists])
    rel = f"({rel},)" if rel else "()"
    kw_pairs = ", ".join(f"({n!r}, {n}, {d})" for n, d in kwonly if d is not None)
    kw_req = ", ".join(f"{n!r}: {n}" for n, d in kwonly if d is None)
    kw = f"_kw(({kw_pairs}{',' if kw_pairs else ''}), {{{kw_req}}})"
    src = _TEMPLATE.format(
        name=b.name,
        sig=b.sig,
        gate=" or ".join(gate) or "False",
        rel=rel,
        pos=", ".join(n for n, _ in pos),
        comma="," if pos else "",
        kw=kw,
        is_method=is_method,
        call=", ".join(names),
    )
    ns = {
        "_S": STATE,
        "_T": tensor_type,
        "_type": type,  # a binding may itself be named ``type`` (Tensor.type)
        "_NO_TF": overrides.NO_TF,
        "_list_tf": overrides.list_has_tf,
        "_tf": overrides.dispatch_torch_function,
        "_NH": overrides.NOT_HANDLED,
        "_kw": overrides.nondefault_kwargs,
        "_body": b.body,
    }
    exec(compile(src, f"<numtorch.{b.module}.{b.name}>", "exec"), ns)
    fn = ns[b.name]
    ns["_self_fn"] = fn
    fn.__doc__ = b.doc
    fn.__module__ = "numtorch" if b.module == "torch" else b.module.replace("torch", "numtorch", 1)
    if is_method:
        fn.__qualname__ = f"Tensor.{b.name}"
    return fn


def install(tensor_cls) -> dict[str, dict[str, types.FunctionType]]:
    """Create every binding; attach methods to Tensor; return functions by module name."""
    by_module: dict[str, dict[str, types.FunctionType]] = {}
    for b in BINDINGS:
        is_method = b.module == "Tensor"
        fn = build(b, is_method, tensor_cls)
        if is_method:
            setattr(tensor_cls, b.name, fn)
        by_module.setdefault(b.module, {})[b.name] = fn
        overrides.register_public(fn, b, is_method)
    return by_module


def export(module_name: str, fns: dict) -> None:
    mod = sys.modules[module_name]
    for name, fn in fns.items():
        setattr(mod, name, fn)
