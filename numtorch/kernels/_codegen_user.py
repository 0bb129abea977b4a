"""Render a user's scalar Python function into a generated pointwise kernel module.

# Note [User scalar functions become module source]
# ``numtorch.library.elementwise`` takes a plain ``def f(x, beta=1.0): ...``. Its source text
# (from ``inspect``) is written, renamed and decorated with the house ``inline``, into the same
# generated module file the built-in ops get (Note [Generated kernels are real files]), ahead of
# the contiguous / parallel / strided loops that call it. Nothing is exec'd and no kernel is made
# by a closure, so Numba's disk cache works for user ops exactly as for built-in ones. The
# globals the function reads must be modules (math, numpy, cmath) or numbers, which are
# rendered as imports and constants; anything else is refused with a clear error.
"""

from __future__ import annotations

import ast
import cmath
import inspect
import math
import textwrap

import numpy as np

from . import _codegen

_MODULES = {math: "math", np: "numpy", cmath: "cmath"}


# Note [User math is vectorized as the built-ins']
# ``math.exp(x)`` in a user's function would compile to a scalar libm call, which keeps LLVM
# from vectorizing the loop: softplus written as ``math.log1p(math.exp(x))`` ran 3-4x slower
# than the built-in softplus at 1e6 elements. The pointwise route therefore calls the
# vectorizable helpers the built-in kernels use (Note [Vectorizable exp]) for the math and NumPy
# functions that have one, exactly where the function reads them as ``<module>.<name>(...)``
# through a global bound to math or numpy (a local of that name is left alone), for ops that
# promote integers (their compute dtype is floating or complex). The helpers take NumPy's
# function for any type other than float32/float64 (complex: where math's would not compile).
_VECTOR_NAMES = {
    **{f: f"v{f}" for f in ("exp", "exp2", "expm1", "tanh", "log", "log1p", "log2", "log10", "erf", "erfc",
                            "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh",
                            "arccosh", "arctanh")},
    "asin": "varcsin", "acos": "varccos", "atan": "varctan", "asinh": "varcsinh", "acosh": "varccosh",
    "atanh": "varctanh",
}  # fmt: skip
_VECTOR_MODULES = {math: frozenset(n for n in _VECTOR_NAMES if hasattr(math, n)),
                   np: frozenset(n for n in _VECTOR_NAMES if hasattr(np, n))}  # fmt: skip


class _VectorMath(ast.NodeTransformer):
    def __init__(self, modules: dict):
        self.modules = modules  # global name -> the vectorizable function names of its module

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        one_arg = len(node.args) == 1 and not node.keywords  # not math.log(x, base)
        if one_arg and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr in self.modules.get(f.value.id, ()):
            node.func = ast.copy_location(ast.Name(id=_VECTOR_NAMES[f.attr], ctx=ast.Load()), f)
        return node


def _vectorize(fn, fdef) -> None:
    code = fn.__code__
    names = set(code.co_names) | set(code.co_varnames) | set(code.co_cellvars)
    if names & set(_VECTOR_NAMES.values()):
        return  # the function already uses one of the helpers' names
    local = set(code.co_varnames) | set(code.co_cellvars)
    modules = {}
    for name in code.co_names:
        v = fn.__globals__.get(name)
        if name not in local and _hashable(v) and v in _VECTOR_MODULES:
            modules[name] = _VECTOR_MODULES[v]
    if modules:
        _VectorMath(modules).visit(fdef)


def user_function_source(fn, new_name: str, vector_math: bool = False) -> tuple[str, list[str]]:
    """(source of ``fn`` renamed to ``new_name`` and decorated with ``@inline``, header lines).
    ``vector_math``: call the vectorizable math helpers (Note [User math is vectorized as the
    built-ins']); the module must import them, as render_user_pointwise's does."""
    if not inspect.isfunction(fn):
        raise TypeError(f"elementwise expects a Python function (def), got {type(fn).__name__}")
    if fn.__name__ == "<lambda>":
        raise TypeError("elementwise needs a function defined with def, not a lambda: its source is compiled into a kernel module")
    if fn.__closure__:
        names = ", ".join(fn.__code__.co_freevars)
        raise TypeError(
            f"elementwise: {fn.__name__} reads variables of an enclosing function ({names}); a kernel "
            "is compiled from the function's own source, so pass them as parameters with defaults"
        )
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except OSError as e:
        raise TypeError(f"elementwise: the source of {fn.__name__} is not available ({e})") from None
    tree = ast.parse(src)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise TypeError(f"elementwise: {fn.__name__} must be a plain function definition")
    fdef.decorator_list = []
    if vector_math:
        _vectorize(fn, fdef)
    fdef.name = new_name
    fdef.returns = None
    for a in fdef.args.args + fdef.args.kwonlyargs:
        a.annotation = None
    header = []
    for name in fn.__code__.co_names:
        if name not in fn.__globals__:
            continue
        v = fn.__globals__[name]
        if v in _MODULES.keys() if _hashable(v) else False:
            header.append(f"import {_MODULES[v]} as {name}" if _MODULES[v] != name else f"import {name}")
        elif type(v) in (int, float, bool):
            header.append(f"{name} = {v!r}")
        elif inspect.ismodule(v):
            continue  # an attribute chain through another module: Numba decides
        else:
            raise TypeError(
                f"elementwise: {fn.__name__} uses the global '{name}' ({type(v).__name__}); a kernel "
                "function may use math, numpy, cmath and numeric constants only"
            )
    return "@inline\n" + ast.unparse(fdef), header


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def render_user_pointwise(inputs, params, expr, helpers: list[str], header: list[str]) -> str:
    """The built-in pointwise module source with the user's functions placed before its kernels."""
    src = _codegen.render_pointwise(inputs, params, expr)
    head, sep, rest = src.partition("\n\n")
    extra = ["from numtorch.kernels._jit import inline", *dict.fromkeys(header), "", *[h + "\n" for h in helpers]]
    return head + "\n" + "\n".join(extra) + sep + rest


def load_user_module(stem: str, source: str):
    return _codegen.load_module(stem, source)


def render_user_reduction(comb, helpers: list[str], header: list[str]) -> str:
    """The built-in reduction module source (``_codegen_reduction``) with the user's combine
    function placed before the kernels that fold with it."""
    from ._codegen_reduction import render

    head, sep, rest = render(comb).partition("\n\n")
    extra = [*dict.fromkeys(header), "", *[h + "\n" for h in helpers]]
    return head + "\n" + "\n".join(extra) + sep + rest
