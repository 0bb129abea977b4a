"""Guards: the properties of a call that a captured graph is valid for.

# Note [Guards]
# A call's arguments are flattened (tuples, lists, dicts); each tensor contributes its class,
# shape, dtype, device, requires_grad and whether it is contiguous (the recorded view ops and the
# fused kernels' layout depend on it), plus the position of its first occurrence (two arguments
# that are one tensor are a different graph than two tensors). Every other leaf contributes its
# type and value (the graph bakes Python numbers in, as Dynamo specializes on them), or its
# identity when unhashable. Grad mode joins the key. A compiled module adds the identity of each
# parameter and buffer and each submodule's plain attributes (``training``, ``eps``); a compiled
# function adds the plain values (numbers, strings, None) of the globals its code names and of
# its closure cells, and of the Python functions those name in turn (a compiled module: of its
# submodules' ``forward`` methods and what they call), as Dynamo guards the globals it traces
# through; attribute calls (``self.helper()``, ``mod.fn()``) are not followed. The module part
# is walked again only when ``nn.modules.module.MUTATIONS`` moved: every Module attribute write,
# registration, deletion, ``_apply`` and unpickling bumps it, so a call with no module change
# in between reuses the last walk (66 us on the GPT-2 model) for one integer compare. Writes
# straight into a module's ``__dict__`` or ``_parameters`` dict bypass it, as they bypass
# PyTorch's registration hooks. Constants the graph holds by
# reference (Note [Captured graph]) are checked after the key matches: a parameter whose dtype
# or shape changed in place (``.data = ...``) invalidates the graph; the check compares the
# array and requires_grad flag seen at capture by identity and reads the metadata only when
# one of them was replaced. The key keeps
# shapes; a graph found shape-generic serves other sizes of its dynamic dims without a capture
# (Note [Dynamic shapes]); shape-only recaptures do not count toward the limit.
"""

from __future__ import annotations

from types import CodeType, FunctionType

from .._state import STATE
from .._tensor import Tensor


def flatten(args: tuple, kwargs: dict) -> tuple[list, list]:
    """(tensors, key parts) of a call's arguments (Note [Guards])."""
    tensors: list = []
    key: list = []
    _walk(args, tensors, key)
    if kwargs:
        key.append("**")
        for k in sorted(kwargs):
            key.append(k)
            _walk(kwargs[k], tensors, key)
    return tensors, key


def _walk(x, tensors: list, key: list) -> None:
    c = x.__class__
    if c is tuple or c is list:
        key.append((c, len(x)))
        for v in x:
            _walk(v, tensors, key)
    elif c is dict:
        key.append((dict, tuple(x)))
        for v in x.values():
            _walk(v, tensors, key)
    elif isinstance(x, Tensor):
        first = len(tensors)
        for i, t in enumerate(tensors):
            if t is x:
                first = i
                break
        tensors.append(x)
        d = x._data
        key.append((c, d.shape, x._dtype, x._device, x._rg, d.flags.c_contiguous, first))
    else:
        try:
            hash(x)
            key.append((c, x))
        except TypeError:
            key.append((c, id(x)))


_PLAIN = (int, float, bool, str, type(None))


def module_key(mod) -> tuple:
    """Identity of a module's parameters and buffers, and its submodules' plain attributes
    (``training``, ``eps``, ``scale = 2.0`` ...)."""
    parts: list = []
    _module_parts(mod, parts, set())
    return tuple(parts)


def _module_parts(m, parts: list, seen: set) -> None:
    # one walk over the module dicts (parameters(), buffers() and modules() each walk the tree
    # through generators: 100 us a call on the GPT-2 benchmark model, this ~4x less); a shared
    # parameter or module appears once per owner, which keeps the key deterministic
    seen.add(id(m))
    d = m.__dict__
    parts += [(k, v) for k, v in d.items() if v.__class__ in _PLAIN]
    parts += [id(p) for p in d["_parameters"].values()]
    parts += [id(b) for b in d["_buffers"].values()]
    for c in d["_modules"].values():
        if c is not None and id(c) not in seen:
            _module_parts(c, parts, seen)


_MAX_FUNCTIONS = 64  # how many reachable functions the guards follow


def function_reads(fn, roots=()) -> tuple[list, list]:
    """([(globals, name)], closure cells) holding plain Python values when compiled: the values
    the code of ``fn``, of ``roots`` (a module's ``forward`` methods) and of the Python functions
    they name (transitively) may bake into a graph (Note [Guards])."""
    reads, cells, seen = [], [], set()
    todo = [fn, *roots]
    while todo and len(seen) < _MAX_FUNCTIONS:
        f = todo.pop()
        f = getattr(f, "__func__", f)
        code = getattr(f, "__code__", None)
        if code is None or id(f) in seen:
            continue
        seen.add(id(f))
        g = getattr(f, "__globals__", {})
        for n in _names(code):
            v = g.get(n)
            if v.__class__ in _PLAIN and n in g:
                reads.append((g, n))
            elif v.__class__ is FunctionType:
                todo.append(v)
        for c in f.__closure__ or ():
            if _cell_plain(c):
                cells.append(c)
            elif _cell_function(c):
                todo.append(c.cell_contents)
    uniq: dict = {}
    for g, n in reads:
        uniq.setdefault((id(g), n), (g, n))
    return list(uniq.values()), cells


def _names(code) -> list:
    # the global names a function's code and its nested code (lambdas, comprehensions) use
    names = list(code.co_names)
    for c in code.co_consts:
        if c.__class__ is CodeType:
            names += _names(c)
    return names


def _cell_plain(c) -> bool:
    try:
        return c.cell_contents.__class__ in _PLAIN
    except ValueError:  # an empty cell
        return False


def _cell_function(c) -> bool:
    try:
        return c.cell_contents.__class__ is FunctionType
    except ValueError:
        return False


def function_key(reads: list, cells: list) -> tuple:
    return tuple(g.get(n) for g, n in reads) + tuple(c.cell_contents for c in cells)


def shape_free(key: tuple) -> tuple:
    """The key with tensor shapes left out (to tell shape-only recaptures apart)."""
    return tuple((k[0], len(k[1]), *k[2:]) if k.__class__ is tuple and len(k) == 7 else k for k in key)


def call_key(args: tuple, kwargs: dict, mod_key=None, fn_reads=None) -> tuple[list, tuple]:
    tensors, key = flatten(args, kwargs)
    key.append(STATE.grad_enabled)
    # tagged pairs: a bare tuple of 7 values would read as a tensor's part in shape_free
    if mod_key is not None:
        key.append(("module", mod_key))
    if fn_reads is not None:
        key.append(("globals", function_key(*fn_reads)))
    return tensors, tuple(key)


def const_meta(t) -> tuple:
    return (t._data.shape, t._dtype, t._device, t._rg, t._data.flags.c_contiguous)
