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


def user_function_source(fn, new_name: str) -> tuple[str, list[str]]:
    """(source of ``fn`` renamed to ``new_name`` and decorated with ``@inline``, header lines)."""
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
