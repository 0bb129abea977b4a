"""Build numtorch's public functions and Tensor methods from the registry's bindings.

Each binding becomes one generated Python function with the exact signature PyTorch has
(so ``inspect.signature`` and keyword calls work) and the cheap ``__torch_function__`` gate
of Note [One cheap gate]: a set-membership test per tensor parameter plus one read of the
mode stack. Only when it fails does the slow path in ``overrides.py`` run. Generating
Python wrappers with ``exec`` is fine (they are not Numba kernels); it is done once at import.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
import types

from . import overrides
from ._C import TF_STATE
from ._device import CPU
from ._ops import OpOverload
from ._state import STATE
from ._tensor import NO_TF_SUBCLASSES, PLAIN_SUBCLASSES
from .ops._registry import BINDINGS, NOARG, Binding

# Note [Allocation failures]
# An allocation NumPy cannot satisfy raises its MemoryError (``_ArrayMemoryError: Unable to
# allocate 4.00 TiB ...``) from whichever op allocates; the public entry point turns it into
# PyTorch's RuntimeError text, once for every op. The ``try`` costs nothing until it raises
# (Python 3.11 zero-cost exceptions).
# both templates end with these: Note [Allocation failures], Note [Non-tensor arguments]
_HANDLERS = """    except MemoryError as _e:
        raise _oom(_e) from None
    except AttributeError as _e:
        _bad = _not_tensor(_e, _T, {fname!r}, {params}, ({vals}{vcomma}))
        if _bad is None:
            raise
        {bad}
"""
_TEMPLATE = """
def {name}({sig}):
    try:{fast}
        if _S.tf_modes or {gate}:
            _r = _tf(_self_fn, {rel}, ({pos}{comma}), {kw}, {is_method})
            if _r is not _NH:
                return _r
        return _body({call})
""" + _HANDLERS
# an operator dunder's handlers: their TypeError is NotImplemented too, as in torch's C++
# TypeError_to_NotImplemented_ wrappers (so ``x + y`` then raises Python's operand error)
_TEMPLATE_NOTIMPL = """
def {name}({sig}):
    try:{fast}
        if _S.tf_modes or {gate}:
            try:
                _r = _tf(_self_fn, {rel}, ({pos}{comma}), {kw}, {is_method})
            except TypeError:
                return NotImplemented
            if _r is not _NH:
                return _r
        return _body({call})
""" + _HANDLERS


# Note [Non-tensor arguments]
# PyTorch's argument parser refuses a non-tensor where a schema says Tensor ("mm(): argument
# 'mat2' (position 2) must be Tensor, not int") before any kernel runs. numtorch's bodies read
# such an argument as a Tensor and fail with Python's AttributeError ('int' object has no
# attribute '_data'); the public entry point turns exactly that failure (the missing attribute
# was looked up on the argument itself: ``AttributeError.obj``) into PyTorch's TypeError. A
# number accepted by a Scalar overload never gets there, and the ``try`` costs nothing until
# it raises. Unlike PyTorch, the position is given for a keyword-passed positional argument too.
_PREFIX = {"torch.linalg": "linalg_", "torch.special": "special_", "torch.fft": "fft_"}


def _type_name(v) -> str:
    t = type(v)
    heap = t.__flags__ & (1 << 9)  # Py_TPFLAGS_HEAPTYPE: C types carry their module, as tp_name
    return t.__name__ if heap or t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def not_tensor(e: AttributeError, tensor: type, fname: str, params: tuple, vals: tuple) -> TypeError | None:
    """PyTorch's TypeError for the argument ``e`` failed on, or None (Note [Non-tensor arguments])."""
    obj = getattr(e, "obj", _NOTHING)
    for (name, position), v in zip(params, vals, strict=True):
        if v is obj and not isinstance(v, tensor):
            at = f" (position {position})" if position is not None else ""
            return TypeError(f"{fname}(): argument '{name}'{at} must be Tensor, not {_type_name(v)}")
    return None


_NOTHING = object()


def out_of_memory(e: MemoryError) -> RuntimeError:
    """PyTorch's CPU allocator error for a failed allocation (Note [Allocation failures])."""
    n = getattr(e, "_total_size", None)
    size = f"{n} bytes" if n is not None else "more memory than is available"
    return RuntimeError(
        f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {size}. "
        "Error code 12 (Cannot allocate memory)"
    )


_FAST = """
    if {exact} and not _S.tf_modes:
        return {fn}({args})"""
# Note [Tensor-list binding fast call] (ops/shape/join_fast.py): the function tests the list
_FAST_LIST = """
    if {exact}not _S.tf_modes:
        _r = {fn}({args})
        if _r is not None:
            return _r"""
# Note [Declining fast call inline]: a fast call that or_body (or sampler_fast.with_body) pairs
# with the binding's own body is called here, and the body after it where it declines (None):
# the closure's frame and its ``*vals`` packing cost ~60 ns a call
_FAST_DECLINES = """
    if {exact} and not _S.tf_modes:
        _r = _fop({args})
        if _r is not None:
            return _r
        return _body({bargs})"""
_FAST_NOTIMPL = """
    if {exact} and not _S.tf_modes:
        try:
            return {fn}({args})
        except TypeError:
            return NotImplemented"""


def _fast_text(b: Binding, ns: dict) -> str:
    # Note [Binding fast call]: plain Tensors skip the body (and its argument parsing). Every
    # relevant (tensor-like) argument must be a plain Tensor, except that an optional one after
    # the first may be None (max's dim and other): the binding's ``cond`` says which it takes.
    if b.fast is None or (b.relevant and b.lists):
        return ""
    op, args, *rest = b.fast
    cond = rest[0] if rest else ""
    if b.lists or not b.relevant:  # a function that returns None to decline (factories too)
        ns["_fop"] = op
        return _FAST_LIST.format(exact=f"{cond} and " if cond else "", fn="_fop", args=", ".join(args))
    notimpl = len(rest) > 1 and rest[1]
    ns["_fop"] = op
    names = []
    for i, a in enumerate(args):
        if isinstance(a, str):
            names.append(a)
        else:
            names.append(f"_c{i}")
            ns[f"_c{i}"] = a
    # an optional (``=None``) relevant argument after the first may also be absent: None
    pos, kwonly = _split_sig(b.sig)
    optional = {n for n, d in pos + kwonly if d == "None"}
    plain = [
        f"({r} is None or {_plain(r)})" if i and r in optional else f"({_plain(r)})"
        for i, r in enumerate(b.relevant)
    ]
    exact = " and ".join(plain + ([cond] if cond else []))
    tmpl = _FAST_NOTIMPL if notimpl else _FAST
    fn = "_fop.fast" if isinstance(op, OpOverload) else "_fop"
    dec = getattr(op, "declines", None)  # (fast, body, count of None values after the args)
    if dec is not None and dec[1] is b.body and not notimpl and len(rest) < 3 and names == list(args):
        ns["_fop"] = dec[0]
        bargs = ", ".join(names + ["None"] * dec[2])
        return _FAST_DECLINES.format(exact=exact, args=", ".join(names), bargs=bargs)
    text = tmpl.format(exact=exact, args=", ".join(names), fn=fn)
    if len(rest) > 2:  # (op, args) for a plain Tensor and a float: an operator dunder's scalar case
        ns["_sop"] = rest[2][0]
        snames = []
        for i, a in enumerate(rest[2][1]):
            snames.append(a if isinstance(a, str) else f"_s{i}")
            ns.setdefault(f"_s{i}", a)
        o = b.relevant[1]  # a float or an int: the pick takes the same overload for both
        exact = f"({_plain(b.relevant[0])}) and (_type({o}) is float or _type({o}) is int)"
        text += tmpl.format(exact=exact, args=", ".join(snames), fn="_sop.fast")
    return text


def _plain(r: str) -> str:
    # Note [Plain subclasses]: the third test only runs for subclasses, never for Tensor
    return f"_type({r}) is _T or _type({r}) in _NOTF or _TF[0] and _type({r}) in _PLAIN"


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
    src, ns, filename = _render(b, is_method, tensor_type)
    return _finish(b, is_method, compile(src, filename, "exec"), ns)


def _schema_tensors(b: Binding) -> list:
    """The binding's parameters that a schema of its ops declares as one Tensor (a method's
    ``other`` that its __torch_function__ gate does not look at: Tensor.expand_as)."""
    out = []
    for op in b.ops:
        for a in getattr(getattr(op, "_schema", None), "arguments", ()):
            n = "input" if a.name == "self" else a.name
            if a.is_tensor and n not in out:
                out.append(n)
    return out


def _render(b: Binding, is_method: bool, tensor_type, with_fast: bool = True) -> tuple[str, dict, str]:
    pos, kwonly = _split_sig(b.sig)
    names = [n.lstrip("*") for n, _ in pos + kwonly]
    strict = b.relevant[:1] if b.relevant[:1] in (("input",), ("self",)) else ()
    gate = [f"_type({r}) is not _T" for r in strict]
    gate += [f"_type({r}) not in _NO_TF" for r in b.relevant[len(strict) :]]
    gate += [f"_list_tf({r})" for r in b.lists]
    # handlers run in argument order (Note [Handler order]), whatever order the gate tests in
    order = {n.lstrip("*"): i for i, (n, _) in enumerate(pos + kwonly)}
    ordered = sorted(list(b.relevant) + [f"*{r}" for r in b.lists], key=lambda r: order.get(r.lstrip("*"), 0))
    rel = ", ".join(ordered)
    rel = f"({rel},)" if rel else "()"
    kw_pairs = ", ".join(f"({n!r}, {n}, {d})" for n, d in kwonly if d is not None)
    kw_req = ", ".join(f"{n!r}: {n}" for n, d in kwonly if d is None)
    kw = f"_kw(({kw_pairs}{',' if kw_pairs else ''}), {{{kw_req}}})" if kwonly else "None"
    # Note [Non-tensor arguments]: each tensor parameter with its position as PyTorch counts it
    index = {n.lstrip("*"): i for i, (n, _) in enumerate(pos)}
    tensors = list(b.relevant) + [n for n in _schema_tensors(b) if n in names and n not in b.relevant]
    params = tuple(
        (r, (index[r] + (0 if is_method else 1)) if r in index else None)
        for r in tensors
        if not (is_method and index.get(r) == 0)
    )
    ns: dict = {}
    fast = _fast_text(b, ns).replace("\n", "\n    ") if with_fast else ""  # inside the template's ``try``
    notimpl = b.fast is not None and len(b.fast) > 3 and b.fast[3]
    src = (_TEMPLATE_NOTIMPL if notimpl else _TEMPLATE).format(
        fast=fast,
        name=b.name,
        sig=b.sig,
        gate=" or ".join(gate) or "False",
        rel=rel,
        pos=", ".join(n for n, _ in pos),
        comma="," if pos else "",
        kw=kw,
        is_method=is_method,
        call=", ".join(names),
        fname=_PREFIX.get(b.module, "") + b.name,
        # an operator dunder's TypeError is NotImplemented (then Python's operand error)
        bad="return NotImplemented" if notimpl or b.name[:2] == b.name[-2:] == "__" else "raise _bad from None",
        params=params,
        vals=", ".join(r for r, _ in params),
        vcomma="," if params else "",
    )
    ns.update({
        "_S": STATE,
        "_T": tensor_type,
        "_type": type,  # a binding may itself be named ``type`` (Tensor.type)
        "_NO_TF": overrides.NO_TF,
        "_list_tf": overrides.list_has_tf,
        "_tf": overrides.dispatch_torch_function,
        "_NH": overrides.NOT_HANDLED,
        "_kw": overrides.nondefault_kwargs,
        "_body": b.body,
        "_PLAIN": PLAIN_SUBCLASSES,
        "_NOTF": NO_TF_SUBCLASSES,
        "_TF": TF_STATE,
        "_oom": out_of_memory,
        "_not_tensor": not_tensor,
        "NOARG": NOARG,  # Note [Absent argument]
        "_CPU": CPU,  # a factory's fast call takes device=CPU as None (Note [Factory binding fast call])
    })
    return src, ns, f"<numtorch.{b.module}.{b.name}>"


def _finish(b: Binding, is_method: bool, code, ns: dict) -> types.FunctionType:
    exec(code, ns)
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
    rendered = [_render(b, b.module == "Tensor", tensor_cls) for b in BINDINGS]
    codes = _compiled([(src, filename) for src, _, filename in rendered])
    for b, (_, ns, _), code in zip(BINDINGS, rendered, codes, strict=True):
        is_method = b.module == "Tensor"
        fn = _finish(b, is_method, code, ns)
        if is_method:
            setattr(tensor_cls, b.name, fn)
        by_module.setdefault(b.module, {})[b.name] = fn
        overrides.register_public(fn, b, is_method)
        if b.fast is not None:
            _INSTALLED.append((b, is_method, fn, tensor_cls))
    methods = by_module.get("Tensor", {})
    for alias, target in SAME_OBJECT.items():  # one object under two names, as in torch
        overrides.PUBLIC.pop(methods[alias], None)
        methods[alias] = methods[target]
        setattr(tensor_cls, alias, methods[target])
    for dunder, target in TF_FUNC.items():
        if dunder in methods and target in methods:
            overrides.PUBLIC[methods[dunder]]._tf_func = methods[target]
    return by_module


# Note [Fast calls under kernel overrides]
# A binding's fast call computes without the dispatcher, so a kernel registered over an aten
# op through numtorch.library (lib.impl("mm", f, "CPU")) would never be called. While any such
# kernel is live, every generated binding runs the code rendered without its fast call: the
# function objects keep their identity (references users hold see the change) and get their
# code swapped, back again when the last override is removed. Meta kernels do not count (fast
# calls serve CPU tensors only). Tests: tests/test_library_overrides_fast.py.
_INSTALLED: list = []  # (binding, is_method, function, tensor class) of each fast-call binding
_SAVED: dict = {}  # function -> its code with the fast call, while an override is live
_OVERRIDES = [0]


def aten_kernel_overrides(delta: int) -> None:
    """Count a library kernel registered over an aten op (+1) or removed (-1)."""
    before = _OVERRIDES[0]
    _OVERRIDES[0] = now = max(0, before + delta)
    if before == 0 and now:
        for b, is_method, fn, tcls in _INSTALLED:
            src, ns, filename = _render(b, is_method, tcls, with_fast=False)
            exec(compile(src, filename, "exec"), ns)
            _SAVED[fn] = fn.__code__
            fn.__code__ = ns[b.name].__code__
    elif before and not now:
        for fn, code in _SAVED.items():
            fn.__code__ = code
        _SAVED.clear()


# Note [Operators pass the method PyTorch passes]
# PyTorch's C++ operators hand ``__torch_function__`` the method they call (``x * 2`` passes
# ``Tensor.mul``, ``x += y`` passes ``Tensor.add_``), so handlers keyed on ``Tensor.mul`` see
# operators too. The other dunders pass themselves. Checked against torch in
# tests/parity/test_overrides_parity.py.
TF_FUNC = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div", "__div__": "div",
    "__itruediv__": "div_", "__idiv__": "div_",
    "__ifloordiv__": "floor_divide_", "__mod__": "remainder", "__imod__": "remainder_",
    "__matmul__": "matmul", "__rand__": "bitwise_and", "__ror__": "bitwise_or",
    "__rxor__": "bitwise_xor", "__neg__": "neg", "__pos__": "positive", "__abs__": "abs",
    "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
}  # fmt: skip
SAME_OBJECT = {"__rdiv__": "__rtruediv__"}


# Note [Wrapper code cache]
# Compiling ~850 generated wrappers is a tenth of ``import numtorch``. Their code objects
# depend only on the rendered sources, so they are marshalled once into the kernel cache
# folder under a hash of all sources and Python's version; any change gives a new file.
def _compiled(items: list) -> list:
    from .kernels._codegen import cache_dir

    h = hashlib.sha1(sys.version.encode())
    for src, filename in items:
        h.update(filename.encode())
        h.update(src.encode())
    path = cache_dir() / f"api_{h.hexdigest()[:16]}.marshal"
    try:
        codes = marshal.loads(path.read_bytes())
        if len(codes) == len(items):
            return codes
    except (OSError, ValueError, EOFError, TypeError):
        pass
    codes = [compile(src, filename, "exec") for src, filename in items]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(marshal.dumps(codes))
        os.replace(tmp, path)  # atomic: a concurrent import never reads half a file
    except OSError:
        pass  # a read-only cache folder only costs the compile next time
    return codes


def export(module_name: str, fns: dict) -> None:
    mod = sys.modules[module_name]
    for name, fn in fns.items():
        setattr(mod, name, fn)
