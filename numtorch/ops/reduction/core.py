"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, aminmax, all/any,
count_nonzero, var/std(_mean), norm, logsumexp. Scans and softmax live in ``scan.py``,
sorting-based ops in ``sorting.py``, var/std/norm in ``stats.py``; they import this module.

Simple folds are one ``Combiner`` each (numtorch/kernels/_codegen_reduction.py) run by the
engine in ``_reduce.py``; the rest call hand-written kernels in kernels/cpu/reduction/core.py.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ... import return_types
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._tensor import Tensor, _make
from ...kernels._codegen_reduction import Combiner
from . import _reduce as E
from ._grad import _expand_back, _expand_to, evenly, full_grad, full_mean_grad, nansum_grad, plain, prod_bw, restore_dims, select  # noqa: F401
from ..._overlap import check_no_internal_overlap
from .._registry import NOARG, OPS, defop, holomorphic, public

_SUM = Combiner("sum", "a + b")
_NANSUM = Combiner("nansum", "a + b", "x if x == x else 0")
_MEAN = Combiner("mean", "a + b", post="a / n")
_PROD = Combiner("prod", "a * b")
# NaN-propagating selects in one pass: they vectorize in a lanes leaf (Note [Reduction order])
_AMAX = Combiner("amax", "a if (a > b or a != a) else b")
_AMIN = Combiner("amin", "a if (a < b or a != a) else b")
_ALL = Combiner("all", "a & b", "x != 0")
_ANY = Combiner("any", "a | b", "x != 0")
_COUNT = Combiner("count_nonzero", "a + b", "x != 0")
_NORMS = {
    2.0: Combiner("norm2", "a + b", "x * x", "math.sqrt(a)"),
    1.0: Combiner("norm1", "a + b", "abs(x)"),
    0.0: Combiner("norm0", "a + b", "x != 0"),
    math.inf: Combiner("norminf", "a if (a > b or a != a) else b", "abs(x)"),
    -math.inf: Combiner("normninf", "a if (a < b or a != a) else b", "abs(x)"),
}
_NORMP = Combiner("normp", "a + b", "abs(x) ** p", "a ** (1.0 / p)", ("p",))

MinMax = return_types.register("max", ("values", "indices"))
Min = return_types.register("min", ("values", "indices"))
AMinMax = return_types.register("aminmax", ("min", "max"))


# ---- shared helpers -------------------------------------------------------------------------
def fold(comb, t: Tensor, dim, keepdim: bool, dt: D.dtype, empty=0, params=(), cast_input=False) -> Tensor:
    """Reduce ``t`` over ``dim`` with ``comb``; the result has dtype ``dt``. ``cast_input``: the
    input is first cast to ``dt`` (sum/prod with ``dtype=``); otherwise ``dt`` is only the
    accumulator's type (count_nonzero, any, all read complex values whole)."""
    a = t._data
    dims = E.dims_arg(dim, a.ndim)
    if cast_input and a.dtype.kind == "c" and dt.category != D._COMPLEX:
        # sum(complex, dtype=int64): PyTorch casts the input to dtype first (dropping the
        # imaginary part, with its warning), then reduces
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        a = a.real.astype(dt.np)
    return E.wrap(E.run(comb, a, dims, keepdim, E.kernel_dtype(dt), params, empty), dt)


def _count(self, dim) -> int:
    shape = self._data.shape
    return math.prod(shape[d] for d in E.dims_arg(dim, len(shape)))


def _sum_dtype(dt: D.dtype, dtype) -> D.dtype:
    if dtype is not None:
        return D.to_dtype(dtype)
    return D.int64 if dt.category <= D._INT else dt


def _no_complex(t: Tensor, kernel: str) -> None:
    if t._dtype.category == D._COMPLEX:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{E.cname(t._dtype)}'")


def check_dtype_arg(rule: str, out: Tensor, dt: D.dtype) -> None:
    if rule == "nansum" and out._dtype is not dt:
        raise RuntimeError(f"nansum: provided dtype must match dtype of result. Got {E.cname(out._dtype)} and "
                           f"{E.cname(dt)}.")  # fmt: skip
    E.check_out_dtype(out, dt)


def bad_args(name: str, got: str, overloads: tuple) -> TypeError:
    """PyTorch's argument parser error for a call matching none of ``overloads``."""
    lines = "".join(f"\n * ({o})" for o in overloads)
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:{lines}\n"
    )


def _legacy_type(t) -> str:
    # TH's legacy type names in checkSameType / checkScalarType texts (complex: its type string)
    return f"CPU{E.cname(t._dtype)}Type" if t._dtype.is_complex else t.type()


def _legacy_out_check(name: str, self, values, indices) -> None:
    # median_with_indices_impl: checkScalarType(indices, Long), then checkSameType(values, self)
    if indices._dtype is not D.int64:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                           f"{_legacy_type(indices)} instead (while checking arguments for {name})")  # fmt: skip
    if values._dtype is not self._dtype:
        raise RuntimeError(f"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
                           f"but type {_legacy_type(values)} does not equal {_legacy_type(self)} (while checking "
                           f"arguments for {name})")  # fmt: skip


def _decl(schema, cpu, backward=None, out=None, node_name=None, mode="cast", nout=1, out_text=None, pre=None):
    """Declare an op and (``out=``: its out schema) the overload writing into out tensors.

    mode: "cast" copies into out's dtype; "castable" too, where PyTorch's can_cast allows it
    (std, var: a float result into an int out raises); "same" requires out's dtype to be the
    input's; "exact" requires each out to have its result's dtype (values and int64 indices);
    "exact_first" checks that (values in the input's dtype) before computing, as mode and cummax do,
    with ``out_text`` (a format of {want}, {got} and {which}: "values" or "indices"); "legacy":
    median's TH-style texts, after ``pre(*args)`` (its dim and empty-slice checks); "indices":
    kthvalue's texts, after its own checks."""
    op = defop(schema, cpu=cpu, backward=backward, node_name=node_name)
    if out is None:
        return op

    # sum/mean/prod/nansum(dtype=, out=): PyTorch requires out's dtype to be the one asked for
    dtype_rule = ("nansum" if out.startswith("nansum") else "exact") if "dtype=None, Tensor(a!) out)" in out else None

    def out_impl(*v):
        outs = v[-nout:]
        if mode == "legacy":
            pre(*v[:-nout])
            _legacy_out_check("median", v[0], *outs)
        for i, o in enumerate(outs):  # PyTorch checks these before the dims
            if mode == "same":
                E.check_same_dtype(v[0], o)
            elif mode == "exact_first" and o._dtype is not (want := D.int64 if i else v[0]._dtype):
                raise RuntimeError(out_text.format(want=E.cname(want), got=E.cname(o._dtype),
                                                   which=("values", "indices")[i]))  # fmt: skip
        try:
            res = E.functional(op, cpu, v[:-nout])
        except NotImplementedError:  # kthvalue: the outputs' dtypes are checked before the kernel's
            for i, o in enumerate(outs if mode == "indices" else ()):
                if o._dtype is not (v[0]._dtype, D.int64)[i]:
                    raise RuntimeError(("output values must be of same type as input",
                                        "output indices must be of scalar type Long")[i]) from None  # fmt: skip
            raise
        if dtype_rule is not None and v[-2] is not None:
            check_dtype_arg(dtype_rule, outs[0], D.to_dtype(v[-2]))
        pairs = list(zip(outs, res if nout > 1 else (res,), strict=True))
        # every out= tensor is checked before any is written: a failing call leaves all of them
        # untouched (sort(out=(values, int32 indices)) must not write the values first)
        for i, (o, r) in enumerate(pairs):
            if nout > 1 and o._data.shape == r._data.shape:  # expanded (not resized) outputs
                check_no_internal_overlap(o._data)
            if mode == "indices" and o._dtype is not r._dtype:  # _reduction_with_indices_allocate_or_resize_output
                raise RuntimeError(("output values must be of same type as input", "output indices must be of scalar type Long")[i])
            if mode == "same":
                E.check_same_dtype(v[0], o)
            elif mode in ("exact", "exact_first", "legacy"):
                E.check_out_dtype(o, r._dtype)
            elif mode == "castable" and not D.can_cast(r._dtype, o._dtype):
                raise RuntimeError(f"result type {E.cname(r._dtype)} can't be cast to the desired output type "
                                   f"{E.cname(o._dtype)}")
        for o, r in pairs:
            E.write_out(o, r)
        return outs[0] if nout == 1 else type(res)(*outs)

    out_impl.functional = op  # device-generic (E.functional): other backends register it as is
    return op, defop(out, cpu=out_impl)


def _fn(name, sig, body, rel=("input",), method=True, fn=True, doc_ops=(), fast=None):
    """Declare ``numtorch.<name>`` with ``sig`` and (``method``) ``Tensor.<name>`` with the
    same parameters minus ``out``. ``fast=(fn, cond)``: the bindings call ``fn(input, dim,
    keepdim)`` when ``cond`` (text ending in " and ") holds and ``out`` is None for an exact
    Tensor (Note [Reduction fast path])."""
    if fn:
        f = fast and (fast[0], ("input", "dim", "keepdim"), fast[1] + "out is None")
        public(name, sig, body, relevant=rel, ops=doc_ops, fast=f)
    if method:
        msig = sig.replace("input", "self", 1)
        mbody = body
        if msig.endswith(", out=None"):
            msig = msig[: -len(", out=None")].removesuffix(", *")

            def mbody(*v):
                return body(*v, None)

            mbody.__doc__ = body.__doc__
        f = fast and (fast[0], ("self", "dim", "keepdim"), fast[1] + "True")
        public(name, msig, mbody, relevant=("self",) + tuple(rel[1:]), module="Tensor", ops=doc_ops,
               fast=f)  # fmt: skip


def _call(op, op_out, vals, out):
    if out is None:
        return dispatch(op, vals)
    return dispatch(op_out, vals + (list(out) if isinstance(out, (tuple, list)) else [out]))


# ---- sum, nansum, mean, prod ------------------------------------------------------------------
def _sum_cpu(self, dim, keepdim, dtype):
    return fold(_SUM, self, dim, keepdim, _sum_dtype(self._dtype, dtype), cast_input=True)


_SUM_BW = {"self": lambda grad, self_sym_sizes, dim, keepdim: _expand_to(grad, self_sym_sizes, dim, keepdim)}
sum_all = defop("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
                cpu=lambda self, dtype: _sum_cpu(self, None, False, dtype),
                backward={"self": lambda grad, self_sym_sizes: full_grad(grad, self_sym_sizes)})  # fmt: skip
sum_dim, sum_out = _decl(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _sum_cpu, _SUM_BW, node_name="SumBackward1",
    out="sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
)  # fmt: skip


def _sum(input, dim, keepdim, dtype, out):
    """Sum of the elements over ``dim`` (all when None); integers and bools sum to int64.

    >>> numtorch.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
    """
    if dim is NOARG:  # the overload without dim has no keepdim or out (Note [Absent argument])
        if keepdim or out is not None:
            raise bad_args("sum", "Tensor, keepdim=bool" if keepdim else "Tensor, out=Tensor", _SUM_SIGS)
        dim = None
    if out is not None and dtype is None:
        dtype = out._dtype
    if dim is None and not keepdim and out is None:
        return dispatch(sum_all, [input, dtype])
    return _call(sum_dim, sum_out, [input, dim, keepdim, dtype], out)


_SUM_SIGS = ("Tensor input, *, torch.dtype dtype = None",
             "Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None")  # fmt: skip
_MEAN_SIGS = ("Tensor input, *, torch.dtype dtype = None, Tensor out = None", _SUM_SIGS[1])


# Note [Reduction fast path]: dtype -> result dtype of the inputs it takes
_INTS = {D.bool: D.int64, D.int32: D.int64, D.int64: D.int64}
_FLOATS = {D.float32: D.float32, D.float64: D.float64}
_SAME = {D.int32: D.int32, D.int64: D.int64, **_FLOATS}
_LOGICAL = {dt: D.bool for dt in (D.bool, D.int32, D.int64, D.float32, D.float64)}
_NODTYPE = "dtype is None and "
_fn("sum", "input, dim=NOARG, keepdim=False, *, dtype=None, out=None", _sum,
    fast=(E.reduce_fast(_SUM, {**_INTS, **_FLOATS}, (sum_all, (None,)), (sum_dim, (None,)),
                        lambda s, d, k: _sum(s, d, k, None, None), nodim=NOARG), _NODTYPE))  # fmt: skip

def _nansum_cpu(self, dim, keepdim, dtype):
    for d in [dim] if isinstance(dim, int) else dim or ():
        E.wrap_dim(d, self._data.ndim)  # the dims are checked first, as PyTorch's
    if self._dtype.category == D._COMPLEX:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    dt = _sum_dtype(self._dtype, dtype)
    # the kernel runs in dtype=: no complex nansum (an integral input is summed by sum(), which has one)
    if dt.category == D._COMPLEX and self._data.size and self._dtype.category >= D._FLOAT:
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{E.cname(dt)}'")
    return fold(_NANSUM, self, dim, keepdim, dt, cast_input=True)


nansum, nansum_out = _decl(
    "nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _nansum_cpu,
    {"self": nansum_grad},
    out="nansum.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
)  # fmt: skip


def _nansum(input, dim, keepdim, dtype, out):
    """Sum treating NaN as zero.

    >>> numtorch.tensor([1.0, float("nan"), 2.0]).nansum()
    tensor(3.)
    """
    if out is not None and dtype is None:
        # a floating input reduces in out='s dtype, which nansum's kernel has only as floats
        # (dtype= instead casts the input first: an integral one is a plain sum)
        # (an empty input runs no kernel: seed 300)
        if isinstance(input, Tensor) and input._dtype.category == D._FLOAT and out._dtype.category < D._FLOAT and input._data.size:
            raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{E.cname(out._dtype)}'")
        dtype = out._dtype
    return _call(nansum, nansum_out, [input, dim, keepdim, dtype], out)


_fn("nansum", "input, dim=None, keepdim=False, *, dtype=None, out=None", _nansum)


def _mean_cpu(self, dim, keepdim, dtype):
    dt = self._dtype if dtype is None else D.to_dtype(dtype)
    if dt.category < D._FLOAT:
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            f"mean(): could not infer output dtype. {which} dtype must be either a floating point "
            f"or complex dtype. Got: {E.cname(dt)}"
        )
    return fold(_MEAN, self, dim, keepdim, dt, math.nan, cast_input=dtype is not None)


def _mean_bw(grad, self_sym_sizes, dim, keepdim):
    # PyTorch's mean_backward: the summed-back gradient divided by the count, a div.Scalar
    sizes = self_sym_sizes
    count = math.prod(sizes[d] for d in E.dims_arg(dim, len(sizes)))
    full = full_mean_grad(grad, sizes, max(count, 1))
    if full is not None:
        return full
    g = grad.expand(sizes) if dim is None else _expand_to(grad, sizes, dim, keepdim)
    return dispatch(OPS["aten::div.Scalar"], [g, max(count, 1)])


mean_all = defop("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
                 cpu=lambda self, dtype: _mean_cpu(self, None, False, dtype),
                 backward={"self": lambda grad, self_sym_sizes: _mean_bw(grad, self_sym_sizes, None, False)})  # fmt: skip
mean_dim, mean_out = _decl(
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _mean_cpu, {"self": _mean_bw}, node_name="MeanBackward1",
    out="mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
)  # fmt: skip


def _mean(input, dim, keepdim, dtype, out):
    """Arithmetic mean over ``dim`` (all when None); floating or complex input only.

    >>> numtorch.tensor([[1.0, 2.0], [3.0, 5.0]]).mean(1)
    tensor([1.5000, 4.0000])
    """
    if dim is NOARG:  # the overload without dim has no keepdim (Note [Absent argument])
        if keepdim:
            raise bad_args("mean", "Tensor, keepdim=bool", _MEAN_SIGS)
        dim = None
    if out is not None and dtype is None and input._dtype.category >= D._FLOAT:
        dtype = out._dtype
    if dim is None and not keepdim and out is None:
        return dispatch(mean_all, [input, dtype])
    return _call(mean_dim, mean_out, [input, dim, keepdim, dtype], out)


_fn("mean", "input, dim=NOARG, keepdim=False, *, dtype=None, out=None", _mean,
    fast=(E.reduce_fast(_MEAN, _FLOATS, (mean_all, (None,)), (mean_dim, (None,)),
                        lambda s, d, k: _mean(s, d, k, None, None), nodim=NOARG), _NODTYPE))  # fmt: skip


def _prod_cpu(self, dim, keepdim, dtype):
    return fold(_PROD, self, dim, keepdim, _sum_dtype(self._dtype, dtype), 1, cast_input=True)


# formulas call other areas' ops through the aten namespace, below the Python API
# (Note [Composite bodies are below the Python API]); a packet picks its overload per call
aten = _ops.aten


prod_all, prod_all_out = _decl(
    "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    lambda self, dtype: _prod_cpu(self, None, False, dtype),
    {"self": holomorphic(lambda grad, self, result: prod_bw(grad, self, result))},
    out="prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
)  # fmt: skip
prod_dim, prod_out = _decl(
    "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _prod_cpu, {"self": holomorphic(prod_bw)}, node_name="ProdBackward1",
    out="prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
)  # fmt: skip


_PROD_SIGS = ("Tensor input, *, torch.dtype dtype = None",
              "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None")  # fmt: skip


def _prod(input, dim, keepdim, dtype, out):
    """Product of the elements (over ``dim`` when given); integers and bools give int64.

    >>> numtorch.tensor([[1, 2], [3, 4]]).prod(1)
    tensor([ 2, 12])
    """
    # the overload without ``dim`` has no keepdim or out; an explicit None dim is no int
    # (Note [Absent argument])
    if dim is NOARG:
        if keepdim:
            raise bad_args("prod", "Tensor, keepdim=bool", _PROD_SIGS)
        if out is not None:
            raise bad_args("prod", "Tensor, out=Tensor", _PROD_SIGS)
        return _call(prod_all, prod_all_out, [input, dtype], out)
    if dim is None:
        if keepdim:
            raise TypeError("prod(): argument 'dim' must be int, not NoneType")
        raise bad_args("prod", "Tensor, dim=NoneType", _PROD_SIGS)
    if out is not None and dtype is None:
        dtype = out._dtype
    if isinstance(dim, (list, tuple)):
        if keepdim:
            raise TypeError(
                f"prod(): argument 'dim' (position 2) must be int, not {type(dim).__name__}"
            )
        raise bad_args("prod", f"Tensor, {type(dim).__name__}", _PROD_SIGS)
    return _call(prod_dim, prod_out, [input, dim, keepdim, dtype], out)


_fn("prod", "input, dim=NOARG, keepdim=False, *, dtype=None, out=None", _prod,
    fast=(E.reduce_fast(_PROD, {**_INTS, **_FLOATS}, (prod_all, (None,)), (prod_dim, (None,)),
                        lambda s, d, k: _prod(s, d, k, None, None), nodim=NOARG), _NODTYPE))  # fmt: skip


# ---- max, min, amax, amin, argmax, argmin, aminmax ------------------------------------------
def _empty_check(self, name, dims, given=None):
    # ``given``: the dims as the caller wrote them (amax names -1 as -1; max names it wrapped)
    a = self._data
    if a.size == 0:
        if not dims:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for g in given or dims:
            if a.shape[E.wrap_dim(g, a.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {g} to have non-zero size.")


def _extreme(comb, name, kernel):
    def cpu(self, dim, keepdim):
        # torch's order: an empty input's zero-size dims (before duplicates: seed 70), the dims,
        # the empty input's other checks (its result needs no kernel), the dtype
        given = dim if isinstance(dim, (list, tuple)) else [dim]
        if self._data.size == 0 and dim not in (None, [], ()):
            _empty_check(self, name, given)
        dims = E.dims_arg(dim, self._data.ndim)
        if self._data.size == 0:
            _empty_check(self, name, dims if dim not in (None, [], ()) else (), given)
            if self._dtype.category == D._COMPLEX:
                shape = np.empty(self._data.shape, bool).sum(axis=tuple(dims), keepdims=keepdim).shape
                return _make(np.empty(shape, self._dtype.np), self._dtype)
        _no_complex(self, kernel)
        return fold(comb, self, dims, keepdim, self._dtype)

    return cpu


def _evenly(grad, self, result, dim=None, keepdim=False):
    # the gradient is shared equally by the tied extreme elements (amax/amin, max(), median())
    if plain(grad, self, result):
        return evenly(grad, self, result, dim, keepdim)
    result = restore_dims(result, self.dim(), dim, keepdim)
    grad = restore_dims(grad, self.dim(), dim, keepdim)
    mask = (self == result) | ((self != self) & (result != result))
    count = mask.sum(dim, keepdim=True) if dim is not None else mask.sum()
    return mask * (grad / count)


_AMAX_CPU, _AMIN_CPU = (
    _extreme(_AMAX, "amax", "max_values_cpu"),
    _extreme(_AMIN, "amin", "min_values_cpu"),
)
amax, amax_out = _decl("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", _AMAX_CPU,
                       {"self": _evenly}, mode="same",
                       out="amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")  # fmt: skip
amin, amin_out = _decl("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", _AMIN_CPU,
                       {"self": _evenly}, mode="same",
                       out="amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")  # fmt: skip


def _amax(input, dim, keepdim, out):
    """Maximum over ``dim`` (every dim when empty); NaN propagates. Gradient is shared by ties.

    >>> numtorch.tensor([[1, 5], [7, 2]]).amax(1)
    tensor([5, 7])
    """
    return _call(amax, amax_out, [input, [] if dim is None else dim, keepdim], out)


def _amin(input, dim, keepdim, out):
    """Minimum over ``dim`` (every dim when empty); NaN propagates. Gradient is shared by ties.

    >>> numtorch.tensor([[1, 5], [7, 2]]).amin(1)
    tensor([1, 2])
    """
    return _call(amin, amin_out, [input, [] if dim is None else dim, keepdim], out)


_EXT = {D.bool: D.bool, **_SAME}
_fn("amax", "input, dim=(), keepdim=False, *, out=None", _amax,
    fast=(E.reduce_fast(_AMAX, _EXT, (amax, ([], False)), (amax, ()),
                        lambda s, d, k: _amax(s, d, k, None), nodim=()), ""))  # fmt: skip
_fn("amin", "input, dim=(), keepdim=False, *, out=None", _amin,
    fast=(E.reduce_fast(_AMIN, _EXT, (amin, ([], False)), (amin, ()),
                        lambda s, d, k: _amin(s, d, k, None), nodim=()), ""))  # fmt: skip


def _argext(self, dim, keepdim, largest):
    """(values, int64 indices) of the max/min over one dim; NaN wins; ties keep the first."""
    a = self._data
    d, sh = E.wrap_dim(dim, a.ndim), a.shape
    # a non-empty C-contiguous array the kernels read as it is: (outer, R, inner) and the result
    # shape straight from its shape, without layout() and restore() (half a small argmax)
    if direct := (a.ndim and a.size and a.flags.c_contiguous and a.dtype in E._KERNEL_NP):
        x, outer, R, inner = a.reshape(-1), math.prod(sh[:d]), sh[d], math.prod(sh[d + 1 :])
    else:
        dims = (d,) if a.ndim else ()
        x, outer, R, inner, kept = E.layout(E.kernel_input(a), dims)
    vals = np.empty(outer * inner, x.dtype)
    idx = np.empty(outer * inner, np.int64)
    if vals.size:
        if inner == 1:
            k = E.K.argext_rows_p if E.parallel(x.size) else E.K.argext_rows
            k(x, vals, idx, outer, R, largest)
        else:
            E.K.argext_cols(x, vals, idx, outer, R, inner, largest)
    if direct:
        shape = sh[:d] + ((1,) if keepdim else ()) + sh[d + 1 :]
        v, i = vals.reshape(shape), idx.reshape(shape)
    else:
        v, i = E.restore(vals, sh, dims, kept, keepdim), E.restore(idx, sh, dims, kept, keepdim)
    return E.wrap(v, self._dtype), E.wrap(i, D.int64)


def _minmax_dim(name, largest, cls):
    def cpu(self, dim, keepdim):
        d = E.wrap_dim(dim, self._data.ndim)  # PyTorch: the dim, an empty slice, then complex input
        if self._data.size == 0:
            _empty_check(self, name, (d,))
        if self._dtype.category == D._COMPLEX:
            raise RuntimeError(f"{name}(): does not support complex input")
        return cls(*_argext(self, dim, keepdim, largest))

    return cpu


def _select_bw(grad, self, dim, keepdim, result1):
    # scatter the values' gradient back to the selected indices (max.dim, kthvalue, ...)
    if self.dim() == 0:
        return grad
    if plain(grad, self, any_size=True):  # Note [Selection gradients put in one kernel]
        out = select(grad, self, dim, keepdim, result1)
        if out is not None:
            return out
    idx = restore_dims(result1, self.dim(), dim, keepdim)
    g = restore_dims(grad, self.dim(), dim, keepdim)
    return aten.zeros_like.default(self).scatter(dim, idx, g)


for _name, _largest, _cls, _comb in (("max", True, MinMax, _AMAX), ("min", False, Min, _AMIN)):
    _c = _extreme(_comb, _name, f"{_name}_all")
    globals()[f"{_name}_all"] = defop(
        f"{_name}(Tensor self) -> Tensor", cpu=lambda self, _c=_c: _c(self, None, False),
        backward={"self": lambda grad, self, result: _evenly(grad, self, result)})  # fmt: skip
    globals()[f"{_name}_unary_out"] = defop(
        f"{_name}.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        cpu=lambda self, out, _c=_c: E.write_out(out, _c(self, None, False)))  # fmt: skip
    globals()[f"{_name}_dim"], globals()[f"{_name}_dim_out"] = _decl(
        f"{_name}.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        _minmax_dim(_name, _largest, _cls), {"self": _select_bw}, mode="exact", nout=2,
        out=f"{_name}.dim_{_name}(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) {_name}, "
        f"Tensor(b!) {_name}_{'values' if _largest else 'indices'}) -> (Tensor(a!) values, Tensor(b!) indices)",
    )  # fmt: skip
    globals()[f"{_name}_other"] = defop(
        f"{_name}.other(Tensor self, Tensor other) -> Tensor",
        composite=lambda self, other, _n=_name: getattr(self, f"{_n}imum")(other))  # fmt: skip


def _minmax_body(name, largest):
    ops = globals()
    op_all = ops[f"{name}_all"]
    # the bindings call it for max() / min() (Note [Binding fast call]); the body for the rest
    fast_all = E.reduce_fast(_AMAX if largest else _AMIN, _EXT, (op_all, ()), None,
                             lambda s, d, k: dispatch(op_all, [s]))  # fmt: skip

    op_dim = ops[f"{name}_dim"]
    fast_dim = E.select_fast(largest, op_dim, MinMax if largest else Min,
                             lambda s, d, k: _call(op_dim, None, [s, d, k], None))  # fmt: skip

    def body(input, dim, keepdim, other, out):
        if other is None and out is None:
            if dim is None and keepdim is False:
                return fast_all(input)
            if dim.__class__ is int:
                return fast_dim(input, dim, keepdim)
        if isinstance(dim, Tensor):
            dim, other = None, dim
        if other is not None:
            if out is not None:
                return getattr(__import__("numtorch"), f"{name}imum")(input, other, out=out)
            return dispatch(ops[f"{name}_other"], [input, other])
        if dim is None:
            if keepdim:
                raise TypeError(
                    f"{name}() received an invalid combination of arguments - got (Tensor, keepdim=bool)"
                )
            if out is not None:
                return dispatch(ops[f"{name}_unary_out"], [input, out])
            return fast_all(input)
        return _call(ops[f"{name}_dim"], ops[f"{name}_dim_out"], [input, dim, keepdim], out)

    word = "largest" if largest else "smallest"
    body.__doc__ = f"""The {word} element; with ``dim``, ``(values, indices)`` over that dim;
    with a tensor ``other``, the elementwise {name}imum. NaN propagates.

    >>> numtorch.{name}(numtorch.tensor([[1, 5], [7, 2]]), 1)
    torch.return_types.{name}(
    values=tensor([{"5, 7" if largest else "1, 2"}]),
    indices=tensor([{"1, 0" if largest else "0, 1"}]))
    """

    def mbody(self, dim, keepdim, other):  # Tensor.max: one frame less than _fn's wrapper
        if other is None:
            if dim is None and keepdim is False:
                return fast_all(self)
            if dim.__class__ is int:
                return fast_dim(self, dim, keepdim)
        return body(self, dim, keepdim, other, None)

    mbody.__doc__ = body.__doc__
    return body, mbody, fast_all


# Note [Binding fast call] takes max() / min() (dim and other None) to fast_all directly
_ALL_COND = "dim is None and keepdim is False and other is None"
for _name, _largest in (("max", True), ("min", False)):
    _b, _mb, _fa = _minmax_body(_name, _largest)
    _fn(_name, "input, dim=None, keepdim=False, *, other=None, out=None", _b, rel=("input", "dim", "other"),
        method=False, fast=(_fa, _ALL_COND + " and "))  # fmt: skip
    public(_name, "self, dim=None, keepdim=False, *, other=None", _mb, relevant=("self", "dim", "other"),
           module="Tensor", fast=(_fa, ("self", "dim", "keepdim"), _ALL_COND))  # fmt: skip


def _argcpu(name, largest):
    def cpu(self, dim, keepdim):
        if self._dtype.category == D._COMPLEX:
            raise RuntimeError(f"{name}(): does not support complex input")
        if self._dtype is D.bool:
            raise RuntimeError(f"{name}(): does not support bool input")
        a = self._data
        if dim is None:
            if a.size == 0:
                raise IndexError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
                )
            flat = E.wrap(a.reshape(-1), self._dtype)
            i = _argext(flat, 0, False, largest)[1]
            return E.wrap(i._data.reshape((1,) * a.ndim if keepdim else ()), D.int64)
        d = E.wrap_dim(dim, a.ndim)
        if a.size == 0 and a.ndim and a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _argext(self, dim, keepdim, largest)[1]

    return cpu


argmax, argmax_out = _decl("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
                           _argcpu("argmax", True), mode="exact",
                           out="argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")  # fmt: skip
argmin, argmin_out = _decl("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
                           _argcpu("argmin", False), mode="exact",
                           out="argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")  # fmt: skip


def _argmax(input, dim, keepdim, out):
    """Index of the first maximum over ``dim`` (of the flattened tensor when None); NaN wins.

    >>> numtorch.tensor([[1, 5], [7, 7]]).argmax(1)
    tensor([1, 0])
    """
    return _call(argmax, argmax_out, [input, dim, keepdim], out)


def _argmin(input, dim, keepdim, out):
    """Index of the first minimum over ``dim`` (of the flattened tensor when None); NaN wins.

    >>> numtorch.tensor([[1, 5], [2, 2]]).argmin(1)
    tensor([0, 0])
    """
    return _call(argmin, argmin_out, [input, dim, keepdim], out)


_fn("argmax", "input, dim=None, keepdim=False, *, out=None", _argmax)
_fn("argmin", "input, dim=None, keepdim=False, *, out=None", _argmin)


def _aminmax_cpu(self, dim, keepdim):
    if dim is not None:  # the dim check precedes the kernel's dtype dispatch
        E.wrap_dim(dim, self.dim())
    if self._data.size == 0 and dim is not None:
        d = E.wrap_dim(dim, self.dim())
        if self._data.ndim and self._data.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    if self._data.size == 0 and dim is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
        )
    if self._dtype.category == D._COMPLEX:
        if dim is not None and not self._data.ndim:  # a 0-d input skips the kernel's dispatch
            raise RuntimeError(f"aminmax not implemented for {E.cname(self._dtype)}")
        raise NotImplementedError(f"\"aminmax_cpu\" not implemented for '{E.cname(self._dtype)}'")
    a = self._data
    if dim is None and a.dtype.kind in "fi" and a.dtype.itemsize >= 4 and not E.parallel(a.size):
        mm = np.empty(2, a.dtype)  # one pass over everything (kernels/cpu/reduction/core.py)
        E.K.minmax_all(E.kernel_input(a).reshape(-1), mm)
        shape = (1,) * a.ndim if keepdim else ()
        lo, hi = (E.wrap(mm[i : i + 1].reshape(shape).copy(), self._dtype) for i in (0, 1))
        return AMinMax(lo, hi)
    dims = None if dim is None else [dim]
    return AMinMax(*E.extremes((_AMIN, _AMAX), self, dims, keepdim, (_AMIN_CPU, _AMAX_CPU)))


aminmax, aminmax_out = _decl(
    "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
    _aminmax_cpu, mode="same", nout=2,
    out="aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) min, Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)",
)  # fmt: skip


def _aminmax(input, dim, keepdim, out):
    """``(min, max)`` over ``dim`` (all elements when None) in one call.

    >>> numtorch.aminmax(numtorch.tensor([3, 1, 2]))
    torch.return_types.aminmax(
    min=tensor(1),
    max=tensor(3))
    """
    return _call(aminmax, aminmax_out, [input, dim, keepdim], out)


_fn("aminmax", "input, *, dim=None, keepdim=False, out=None", _aminmax)


# ---- all, any, count_nonzero ------------------------------------------------------------------
def _logical(comb, name, empty):
    def cpu(self, dim, keepdim):
        dt = D.uint8 if self._dtype is D.uint8 else D.bool
        if isinstance(dim, (list, tuple)) and len(dim) == 0:  # at::all/any.dims: dim=[] reduces nothing
            return _make((self._data != 0).astype(dt.np), dt)
        return fold(comb, self, dim, keepdim, dt, empty)

    def out_cpu(self, dim, keepdim, out):
        if out._dtype not in (D.bool, D.uint8):
            raise RuntimeError(
                f"{name} only supports bool tensor for result, got: {E.cname(out._dtype)}"
            )
        return E.write_out(out, cpu(self, dim, keepdim))

    op = defop(f"{name}.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", cpu=cpu)
    op_out = defop(f"{name}.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
                   cpu=out_cpu)  # fmt: skip

    def body(input, dim, keepdim, out):
        return _call(op, op_out, [input, dim, keepdim], out)

    body.__doc__ = f"""Whether {"all" if name == "all" else "any"} elements (over ``dim``) are nonzero; bool result (uint8 for uint8).

    >>> numtorch.tensor([[True, False], [True, True]]).{name}(1)
    tensor([{"False,  True" if name == "all" else "True, True"}])
    """
    slow = lambda s, d, k: body(s, d, k, None)  # noqa: E731
    fast = E.reduce_fast(comb, _LOGICAL, (op, (None, False)), (op, ()), slow)
    _fn(name, "input, dim=None, keepdim=False, *, out=None", body, fast=(fast, ""))
    return op, op_out


all_dims, all_out = _logical(_ALL, "all", True)
any_dims, any_out = _logical(_ANY, "any", False)

count_nonzero, count_nonzero_out = _decl(
    "count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor",
    lambda self, dim: (_make(np.array(np.count_nonzero(self._data), np.int64), D.int64)  # all dims: NumPy's count
                       if dim.__class__ in (list, tuple) and not dim and self._data.dtype.kind in "biufc" and self._dtype._rank <= 10
                       else fold(_COUNT, self, dim, False, D.int64)),
    out="count_nonzero.dim_IntList_out(Tensor self, int[] dim, *, Tensor(a!) out) -> Tensor(a!)",
)  # fmt: skip


def _count_nonzero(input, dim, out):
    """Number of nonzero elements over ``dim`` (all when None), as int64.

    >>> numtorch.tensor([[0, 1], [2, 3]]).count_nonzero(0)
    tensor([1, 2])
    """
    if dim is None and input._dtype._rank > 10:  # Note [Wide unsigned dtypes]: count_nonzero.default's
        raise NotImplementedError(f"\"nonzero_count_cpu\" not implemented for '{E.cname(input._dtype)}'")  # kernel
    return _call(count_nonzero, count_nonzero_out, [input, [] if dim is None else dim], out)


_fn("count_nonzero", "input, dim=None, *, out=None", _count_nonzero)
