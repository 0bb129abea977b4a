"""``numtorch.library.elementwise``: a scalar Python function becomes a full elementwise op.

The op is the built-in elementwise engine (``ops._pointwise.Pointwise``) with the user's
function rendered into its generated kernel module (Note [User scalar functions become module
source]): broadcasting, PyTorch's type promotion, strided inputs, ``out=`` and in-place
variants, the parallel kernel above the size threshold and the on-disk cache all come from
there. Autograd comes from the user's scalar derivative, itself generated into a kernel.
"""

from __future__ import annotations

import inspect

from .. import _dtype as D
from .._schema import parse_schema
from .._state import STATE
from .._tensor import Tensor
from ..kernels import _codegen_user
from ..ops._meta_rules import pointwise_meta
from ..ops._pointwise import Pointwise, PointwiseDecl, _cname
from ..ops._registry import OUT_NOT_DIFFERENTIABLE, make_derivative
from .custom_ops import define_op
from .infer_schema import Tag


class UserPointwise(Pointwise):
    """A Pointwise whose expression calls user functions rendered into its module."""

    # device_helpers: the user's functions as written, for other targets (CUDA): ``helpers`` may
    # call the CPU's vectorizable math helpers, which only the CPU kernels' modules import
    __slots__ = ("helpers", "device_helpers", "header", "qualname", "fn_name")

    def kernel(self, variant: str):
        k = self._cache.get(variant)
        if k is None:
            if self._mod is None:
                src = _codegen_user.render_user_pointwise(self.inputs, self.params, self.expr, self.helpers, self.header)
                self._mod = _codegen_user.load_user_module(f"user_{self.name}", src)
            k = self._cache[variant] = getattr(self._mod, variant)
        return k

    def _untyped(self, e: Exception, dest):
        if type(e).__name__ not in ("TypingError", "NumbaError", "LoweringError", "UnsupportedError"):
            raise e
        dt = _cname(D.from_numpy_dtype(dest.dtype))
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip() and "During:" not in ln), "")
        raise RuntimeError(
            f"{self.qualname}: the scalar function '{self.fn_name}' failed to compile for inputs of "
            f"dtype {dt} ({D.from_numpy_dtype(dest.dtype)}): {first}"
        ) from None


def _engine(name, qualname, fn_name, inputs, params, expr, helpers, header, rule, device_helpers) -> UserPointwise:
    pw = UserPointwise(name, inputs, expr, params, rule=rule)
    pw.helpers, pw.header, pw.qualname, pw.fn_name = helpers, header, qualname, fn_name
    pw.device_helpers = device_helpers
    return pw


class _Formula:
    """A backward formula whose parameter names are given (the engine reads them by name:
    Note [Saved tensors are inferred from backward's parameters]): ``op(grad * grad_output?,
    *values)``, where ``scale`` says whether the saved ``grad_output`` multiplies ``grad``."""

    def __init__(self, op, names, scale: bool = False):
        self.op, self.scale = op, scale
        lead = ("grad", "grad_output") if scale else ("grad",)
        self.__signature__ = inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in (*lead, *names)]
        )

    def __call__(self, grad, *vals):
        if self.scale:
            go, *vals = vals
            return self.op(grad * go, *vals)
        return self.op(grad, *vals)


class _NoFormula:
    """The gradient of a derivative the user did not give: differentiating there raises."""

    __signature__ = inspect.Signature([inspect.Parameter("grad", inspect.Parameter.POSITIONAL_OR_KEYWORD)])

    def __init__(self, message: str):
        self.message = message

    def __call__(self, grad):
        raise RuntimeError(self.message)


class ElementwiseOpDef:
    """What ``elementwise`` returns: call it as the op (``f(x, out=None)``); ``f.inplace(x)``
    runs the in-place variant; ``f.default`` / ``f.out`` / ``f.inplace_op`` are the OpOverloads."""

    def __init__(self, qualname, default, inplace_op, out, backward_ops, n_in, defaults):
        self._qualname = qualname
        self.default, self.inplace_op, self.out, self.backward_ops = default, inplace_op, out, backward_ops
        self._n_in, self._defaults = n_in, defaults
        self.__name__ = qualname.partition("::")[2]

    def __repr__(self) -> str:
        return f"<ElementwiseOpDef({self._qualname})>"

    def __call__(self, *args, out=None, **kwargs):
        if out is None and not kwargs and len(args) == self._n_in and not STATE.tf_modes:
            for a in args:
                if a.__class__ is not Tensor:
                    break
            else:  # the common call: straight to the op's generated fast path
                return self.default.fast(*args, *self._defaults)
        if out is not None:
            return self.out(*args, out=out, **kwargs)
        return self.default(*args, **kwargs)

    def inplace(self, *args, **kwargs):
        return self.inplace_op(*args, **kwargs)


def elementwise(name: str, fn=None, /, *, derivative=None, second_derivative=None, promote_integers: bool = True,
                tags=()):  # fmt: skip
    """Turn a scalar function into an elementwise op ``numtorch.ops.<ns>.<name>`` with ``out=``
    and in-place (``<name>_``) variants. Parameters without defaults are tensor operands;
    parameters with defaults are scalar arguments. ``derivative``: the scalar derivative (for
    one operand), or ``{operand: derivative}``; each takes the same arguments as ``fn``.
    ``second_derivative`` (double backward: Hessian-vector products, gradgradcheck): the scalar
    second derivative of a one-operand function, or ``{(a, b): d2f/da db}`` (one entry per
    unordered pair; ``{a: ...}`` stands for ``(a, a)``). Differentiating twice through a pair
    without one raises.

    >>> import math
    >>> def softplus_doc(x, beta=1.0):
    ...     return math.log1p(math.exp(beta * x)) / beta
    >>> sp = numtorch.library.elementwise("mylib_doc::softplus", softplus_doc)  # doctest: +SKIP
    >>> sp(numtorch.zeros(2))  # doctest: +SKIP
    tensor([0.6931, 0.6931])
    """

    def inner(fn):
        return _build(name, fn, derivative, second_derivative, promote_integers, tags)

    return inner if fn is None else inner(fn)


def _signature(fn):
    ops_, params, defaults = [], [], []
    for p in inspect.signature(fn).parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD,):
            raise TypeError(f"elementwise: {fn.__name__}'s parameters must be plain positional parameters")
        if p.default is p.empty:
            if params:
                raise TypeError(f"elementwise: {fn.__name__}'s operands (no default) must come before its scalar parameters")
            ops_.append(p.name)
        else:
            if type(p.default) not in (int, float, bool):
                raise TypeError(f"elementwise: the default of '{p.name}' must be an int, float or bool")
            params.append((p.name, p.default))
            defaults.append(p.default)
    if not ops_:
        raise TypeError(f"elementwise: {fn.__name__} needs at least one operand (a parameter without default)")
    return ops_, params, tuple(defaults)


_SCALAR_SCHEMA = {int: "int", float: "float", bool: "bool"}


def _build(qualname, fn, derivative, second, promote_integers, tags):
    ns, sep, opname = qualname.partition("::")
    if not sep:
        raise ValueError(f"Expected custom op name of the form 'namespace::name', got {qualname!r}")
    inputs, params, defaults = _signature(fn)
    pnames = [p for p, _ in params]
    uname = f"_user_{opname}"
    # integer compute dtypes (promote_integers=False) keep math's own functions: the helpers'
    # non-float fallback is NumPy's, whose integer loops differ (np.exp(int8) is float32)
    helper, header = _codegen_user.user_function_source(fn, uname, vector_math=promote_integers)
    plain, _ = _codegen_user.user_function_source(fn, uname)
    call = f"{uname}({', '.join(inputs + pnames)})"
    rule = "float" if promote_integers else "common"
    pw = _engine(f"{ns}_{opname}", qualname, fn.__name__, inputs, pnames, call, [helper], header, rule, [plain])
    args = [f"Tensor {n}" for n in inputs] + [f"{_SCALAR_SCHEMA[type(d)]} {p}={d!r}" for p, d in params]
    sig = ", ".join(args)
    tags = (*tags, Tag.pointwise)
    in_idx = tuple(range(len(inputs)))
    n_in = len(inputs)
    functional = pw.unary if n_in == 1 else pw.binary if n_in == 2 else (lambda *v: pw(v[:n_in], v[n_in:]))
    op = define_op(f"{ns}::{opname}({sig}) -> Tensor", tags)
    op.impls["cpu"] = functional
    op.impls["meta"] = lambda *v: pointwise_meta(pw, v[:n_in], v[n_in:])
    ip_args = [f"Tensor(a!) {inputs[0]}" if i == 0 else a for i, a in enumerate(args)]
    op_ = define_op(f"{ns}::{opname}_({', '.join(ip_args)}) -> Tensor(a!)", (*tags, Tag.inplace))
    op_.impls["cpu"] = lambda *v: pw(v[:n_in], v[n_in:], inplace=True)
    op_.impls["meta"] = lambda *v: pointwise_meta(pw, v[:n_in], v[n_in:], inplace=True)
    op_out = define_op(f"{ns}::{opname}.out({sig}, *, Tensor(a!) out) -> Tensor(a!)", (*tags, Tag.out))
    op_out.impls["cpu"] = lambda *v: pw(v[:n_in], v[n_in:-1], v[-1])
    op_out.impls["meta"] = lambda *v: pointwise_meta(pw, v[:n_in], v[n_in:-1], v[-1])
    op_out.autograd = OUT_NOT_DIFFERENTIABLE
    par_idx = tuple(range(n_in, n_in + len(pnames)))
    # Note [Pointwise declaration]: other backends and numtorch.compile build on it
    op.pointwise = PointwiseDecl(pw, in_idx, par_idx, "functional", op.impls["cpu"])
    op_.pointwise = PointwiseDecl(pw, in_idx, par_idx, "inplace", op_.impls["cpu"])
    op_out.pointwise = PointwiseDecl(pw, in_idx, par_idx, "out", op_out.impls["cpu"])
    backward_ops = {}
    if derivative is not None:
        derivs = derivative if isinstance(derivative, dict) else {inputs[0]: derivative}
        formulas = {}
        for name, dfn in derivs.items():
            if name not in inputs:
                raise ValueError(f"elementwise: derivative given for '{name}', which is not an operand of {fn.__name__}")
            bop = _backward_op(ns, opname, f"backward_{name}", dfn, inputs, pnames, args, header, pw, qualname, tags)
            backward_ops[name] = bop
            formulas[name] = _Formula(bop, inputs + pnames)
        _second_order(ns, opname, fn, second, backward_ops, inputs, pnames, args, header, pw, qualname, tags)
        op.autograd = make_derivative(op._schema, formulas)
        op_.autograd = make_derivative(op_._schema, formulas)
    elif second is not None:
        raise ValueError(f"elementwise: second_derivative needs derivative= as well ({qualname})")
    else:
        op.autograd = op_.autograd = None
    for o in (op, op_, op_out):
        o._reset_fast()
    return ElementwiseOpDef(qualname, op, op_, op_out, backward_ops, n_in, defaults)


def _backward_op(ns, opname, tag, dfn, inputs, pnames, args, header, pw, qualname, tags):
    """The elementwise op ``grad_output * dfn(inputs)``, named ``<opname>_<tag>``."""
    dname = f"_user_{opname}_{tag}"
    helper, dheader = _codegen_user.user_function_source(dfn, dname, vector_math=pw.rule == "float")
    plain, _ = _codegen_user.user_function_source(dfn, dname)
    expr = f"grad * {dname}({', '.join(inputs + pnames)})"
    bpw = _engine(f"{ns}_{opname}_{tag}", qualname, dfn.__name__, ["grad", *inputs], pnames, expr,
                  [helper], header + dheader, pw.rule, [plain])  # fmt: skip
    bop = define_op(f"{ns}::{opname}_{tag}(Tensor grad_output, {', '.join(args)}) -> Tensor", tags)
    n = len(inputs) + 1
    bop.impls["cpu"] = (lambda *v: bpw(v[:n], v[n:])) if n > 2 else bpw.binary
    pars = tuple(range(n, n + len(pnames)))
    bop.pointwise = PointwiseDecl(bpw, tuple(range(n)), pars, "functional", bop.impls["cpu"])
    bop.impls["meta"] = lambda *v: pointwise_meta(bpw, v[:n], v[n:])
    bop.autograd = None
    bop._reset_fast()
    return bop


def _second_order(ns, opname, fn, second, backward_ops, inputs, pnames, args, header, pw, qualname, tags):
    """Autograd of each backward op ``grad_output * d_a(x)``: ``d_a(x)`` for grad_output,
    ``grad_output * d2_ab(x)`` for operand b (STYLE rule 3: derivatives are numtorch ops)."""
    pairs = {}
    if second is not None:
        items = second.items() if isinstance(second, dict) else [((inputs[0], inputs[0]), second)]
        for key, d2 in items:
            a, b = (key, key) if isinstance(key, str) else key
            if a not in inputs or b not in inputs:
                raise ValueError(f"elementwise: second derivative given for ({a!r}, {b!r}), not a pair of operands of {fn.__name__}")
            tag = f"backward2_{a}_{b}"
            pairs[a, b] = pairs[b, a] = _backward_op(ns, opname, tag, d2, inputs, pnames, args, header, pw, qualname, tags)
    vals = inputs + pnames
    for a, bop in backward_ops.items():
        formulas = {"grad_output": _Formula(bop, vals)}
        for b in inputs:
            b2 = pairs.get((a, b))
            formulas[b] = _Formula(b2, vals, scale=True) if b2 is not None else _NoFormula(
                f"{qualname}: no second derivative was given for ({a}, {b}); pass second_derivative= to "
                "numtorch.library.elementwise to differentiate it twice"
            )
        bop.autograd = make_derivative(bop._schema, formulas)
        bop._reset_fast()
    for b2 in set(pairs.values()):
        b2.autograd = make_derivative(b2._schema, {n: _NoFormula(
            f"{qualname}: numtorch.library.elementwise differentiates a scalar function at most twice") for n in
            ["grad_output", *inputs]})  # fmt: skip
        b2._reset_fast()

