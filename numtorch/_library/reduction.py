"""``numtorch.library.reduction``: a scalar combine function becomes a full reduction op.

The counterpart of ``library.elementwise`` (Note [User scalar functions become module
source]): the user's ``combine(a, b)`` is rendered into the built-in reduction engine's
generated module (``kernels._codegen_reduction``) as its combiner, so the op gets the same
kernels as ``amax``: the (outer, R, inner) layout for any dims, the pairwise row folds and
column blocks, the parallel variants above the size threshold and the on-disk cache.
``dim`` (None, an int or a list) and ``keepdim`` follow PyTorch's reductions; the result has
the input's dtype. A combine that is exactly ``a + b`` or ``a * b`` gets the vectorised leaf of
the built-in ``sum`` / ``prod``. Autograd comes from a backward the user writes with numtorch ops (so it
is itself differentiable: double backward needs nothing more).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

from .. import _dtype as D
from .._meta import MetaArray, empty_meta
from .._state import STATE
from .._tensor import Tensor
from ..kernels import _codegen_user
from ..kernels._codegen_reduction import Combiner
from ..ops._pointwise import _cname
from ..ops._registry import OUT_NOT_DIFFERENTIABLE, make_derivative
from ..ops.reduction import _reduce as R
from .custom_ops import define_op
from .elementwise import _NoFormula
from .infer_schema import Tag

_NUMBA_ERRORS = ("TypingError", "NumbaError", "LoweringError", "UnsupportedError")
_MODULES: dict = {}
# input dtype -> result dtype of the fast path (the kernel's accumulator is the result's dtype)
_ACC = {d: d for d in (D.bool, D.int32, D.int64, D.float32, D.float64, D.complex64, D.complex128)}


@dataclass(frozen=True)
class UserCombiner(Combiner):
    """A Combiner whose ``comb`` calls the user's function, rendered into its module."""

    helpers: tuple = ()
    header: tuple = ()

    def module(self):
        mod = _MODULES.get(self)
        if mod is None:
            src = _codegen_user.render_user_reduction(self, list(self.helpers), list(self.header))
            mod = _MODULES[self] = _codegen_user.load_user_module(f"red_{self.name}", src)
        return mod


class _Reducer:
    """The CPU kernel of one user reduction: ``(self, dim, keepdim) -> Tensor``."""

    def __init__(self, comb: UserCombiner, qualname: str, fn_name: str, identity):
        self.comb, self.qualname, self.fn_name, self.identity = comb, qualname, fn_name, identity
        self.opname = qualname.partition("::")[2]

    def __call__(self, x: Tensor, dim=None, keepdim: bool = False) -> Tensor:
        a = x._data
        dims = R.dims_arg(dim, a.ndim)
        if self.identity is None and a.size == 0:
            self._refuse_empty(a.shape, dim, dims)
        dt = x._dtype
        try:
            res = R.run(self.comb, a, dims, keepdim, R.kernel_dtype(dt), empty=self.identity)
        except Exception as e:
            self.untyped(e, dt)
        return R.wrap(res, dt)

    def untyped(self, e: Exception, dt) -> None:
        """Re-raise ``e``; a Numba typing error as the user's function failing for ``dt``."""
        if type(e).__name__ not in _NUMBA_ERRORS:
            raise e
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip() and "During:" not in ln), "")
        raise RuntimeError(
            f"{self.qualname}: the combine function '{self.fn_name}' failed to compile for inputs of "
            f"dtype {_cname(dt)} ({dt}): {first}"
        ) from None

    def _refuse_empty(self, shape, dim, dims) -> None:
        if dim is None or (isinstance(dim, (list, tuple)) and not dim):
            raise IndexError(
                f"{self.opname}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in dims:
            if shape[d] == 0:
                raise IndexError(f"{self.opname}(): Expected reduction dim {d} to have non-zero size.")

    def out(self, x: Tensor, dim=None, keepdim: bool = False, *, out: Tensor) -> Tensor:
        R.check_same_dtype(x, out)
        return R.write_out(out, self(x, dim, keepdim))

    def meta(self, x: Tensor, dim=None, keepdim: bool = False, out: Tensor | None = None) -> Tensor:
        """The Meta kernel: the CPU kernel's checks and result shape, no data."""
        shape = x._data.shape
        dims = R.dims_arg(dim, len(shape))
        if self.identity is None and x._data.size == 0:
            self._refuse_empty(shape, dim, dims)
        res = empty_meta(R.out_shape(shape, dims, keepdim), x._dtype)
        if out is None:
            return res
        R.check_same_dtype(x, out)
        if out._data.shape != res._data.shape:
            out._data = MetaArray(res._data.shape, out._dtype.np)
        out._vc[0] += 1
        return out


class _BackwardFormula:
    """The engine's formula ``(grad, self, result, dim, keepdim)`` around the user's
    ``backward(x, result, grad)``, whose result and grad come with the reduced dims kept
    (size 1), so that they broadcast against ``x``."""

    __signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("grad", "self", "result", "dim", "keepdim")]
    )

    def __init__(self, backward):
        self.backward = backward

    def __call__(self, grad, x, result, dim, keepdim):
        if not keepdim:
            for d in R.dims_arg(dim, x.dim()):
                grad, result = grad.unsqueeze(d), result.unsqueeze(d)
        return self.backward(x, result, grad)


class ReductionOpDef:
    """What ``reduction`` returns: call it as ``f(x, dim=None, keepdim=False, *, out=None)``;
    ``f.default`` / ``f.out`` are the OpOverloads."""

    def __init__(self, qualname: str, default, out, red: _Reducer):
        self._qualname = qualname
        self.default, self.out, self._red = default, out, red
        self.__name__ = qualname.partition("::")[2]
        # Note [Reduction fast path] (ops/reduction/_reduce.py): the built-ins' one-frame route
        # for a plain contiguous tensor over all dims or one int dim, recording included
        self._fast = R.reduce_fast(red.comb, _ACC, (default, (None, False)), (default, ()),
                                   lambda x, dim, keepdim: default.fast(x, dim, keepdim))  # fmt: skip

    def __repr__(self) -> str:
        return f"<ReductionOpDef({self._qualname})>"

    def __call__(self, input, dim=None, keepdim=False, *, out=None):
        if (out is None and input.__class__ is Tensor and (dim is None or dim.__class__ is int)
                and keepdim.__class__ is bool and not STATE.tf_modes):  # fmt: skip
            try:  # the common call: no schema binding
                return self._fast(input, dim, keepdim)
            except Exception as e:  # a first call compiles: the user's function may not type
                self._red.untyped(e, input._dtype)
        if out is not None:
            return self.out(input, dim, keepdim, out=out)
        return self.default(input, dim, keepdim)

    def register_autograd(self, backward, /) -> None:
        """Set the backward ``backward(x, result, grad) -> grad of x``, written with numtorch
        ops; ``result`` and ``grad`` have the reduced dims kept (size 1)."""
        op = self.default
        op.autograd = make_derivative(op._schema, {"self": _BackwardFormula(backward)})
        op._reset_fast()


def reduction(name: str, combine=None, /, *, identity=None, backward=None, tags=()):
    """Turn a scalar ``combine(a, b)`` (associative and commutative: the engine folds in any
    order, in parallel) into a reduction op ``numtorch.ops.<ns>.<name>`` with PyTorch's
    ``dim`` / ``keepdim`` and an ``out=`` variant. ``identity`` is the result of an empty
    reduction (None: an empty reduction raises, as ``amax``'s does). ``backward(x, result,
    grad)`` gives autograd (also ``f.register_autograd``); without it backward raises.

    >>> def absmax_doc(a, b):
    ...     return max(abs(a), abs(b))
    >>> am = numtorch.library.reduction("mylib_doc::absmax", absmax_doc, identity=0.0)  # doctest: +SKIP
    >>> am(numtorch.tensor([[1.0, -3.0], [2.0, 0.5]]), dim=1)  # doctest: +SKIP
    tensor([3., 2.])
    """

    def inner(fn):
        return _build(name, fn, identity, backward, tags)

    return inner if combine is None else inner(combine)


def _vector_combine(fn) -> str | None:
    """"a + b" / "a * b" when ``fn`` is exactly that: the engine's vectorised (reassoc) leaf
    then folds it, as it does the built-in sum and prod (Note [Reduction order])."""
    try:
        fdef = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, SyntaxError, IndexError):
        return None
    body = fdef.body[1:] if fdef.body and isinstance(fdef.body[0], ast.Expr) else fdef.body  # a docstring
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.BinOp):
        return None
    e = body[0].value
    names = [a.arg for a in fdef.args.args]
    ops = {ast.Add: "a + b", ast.Mult: "a * b"}
    if type(e.op) in ops and isinstance(e.left, ast.Name) and isinstance(e.right, ast.Name):
        if sorted((e.left.id, e.right.id)) == sorted(names) and e.left.id != e.right.id:
            return ops[type(e.op)]
    return None


def _build(qualname, fn, identity, backward, tags) -> ReductionOpDef:
    ns, sep, opname = qualname.partition("::")
    if not sep or not ns or not opname:
        raise ValueError(f"Expected custom op name of the form 'namespace::name', got {qualname!r}")
    params = list(inspect.signature(fn).parameters.values()) if callable(fn) else []
    if len(params) != 2 or any(p.default is not p.empty or p.kind != p.POSITIONAL_OR_KEYWORD for p in params):
        raise TypeError(f"reduction: the combine function must take exactly two accumulators (a, b), got {fn!r}")
    if identity is not None and type(identity) not in (int, float, bool):
        raise TypeError(f"reduction: identity must be an int, float, bool or None, got {type(identity).__name__}")
    uname = f"_user_{opname}_combine"
    helper, header = _codegen_user.user_function_source(fn, uname)
    comb = UserCombiner(f"user_{ns}_{opname}", _vector_combine(fn) or f"{uname}(a, b)", helpers=(helper,),
                        header=tuple(header))  # fmt: skip
    red = _Reducer(comb, qualname, fn.__name__, identity)
    sig = "Tensor self, int[1]? dim=None, bool keepdim=False"
    tags = (*tags, Tag.reduction)
    op = define_op(f"{ns}::{opname}({sig}) -> Tensor", tags)
    op.impls["cpu"] = red
    op.impls["meta"] = red.meta
    op_out = define_op(f"{ns}::{opname}.out({sig}, *, Tensor(a!) out) -> Tensor(a!)", (*tags, Tag.out))
    op_out.impls["cpu"] = lambda x, dim, keepdim, out: red.out(x, dim, keepdim, out=out)
    op_out.impls["meta"] = red.meta
    op_out.autograd = OUT_NOT_DIFFERENTIABLE
    d = ReductionOpDef(qualname, op, op_out, red)
    if backward is not None:
        d.register_autograd(backward)
    else:
        op.autograd = make_derivative(op._schema, {"self": _NoFormula(
            f"{qualname}: no backward was given; pass backward= to numtorch.library.reduction "
            "(or call register_autograd) to differentiate it")})  # fmt: skip
    for o in (op, op_out):
        o._reset_fast()
    return d
