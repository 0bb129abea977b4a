"""var, std, var_mean, std_mean, norm and logsumexp (imported by ``reduction.py``)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make
from .._registry import body_of, defop, public
from . import _reduce as E
from . import norm_fast as _NF
from ._grad import kept, plain, wrap
from .fast_bindings import nanmean_count, nanmean_plain
from .core import (
    _NORMP,
    _NORMS,
    _call,
    _count,
    _decl,
    _fn,
    aten,
    check_dtype_arg,
    fold,
    restore_dims,
)


# ---- var, std, var_mean, std_mean -------------------------------------------------------------
_WHOLE_NP = (np.dtype(np.float32), np.dtype(np.float64))


# Note [Whole-tensor var]
# var/std over every element of a contiguous float tensor (the default dim=None) read the data
# as it is: the layout and restore helpers, there to move the reduced dims last and back, cost
# more than the kernel on a small tensor. var and std wrap only the variance (``with_mean``):
# the mean's restore and cast were a third of a small std's 14 us.
def _var_mean(self: Tensor, dim, correction, keepdim: bool, name: str, sqrt: bool = False, with_mean: bool = True):
    if self._dtype.category == D._COMPLEX:
        # |z - mean|^2 splits into the parts: var(z) = var(re) + var(im), a real result
        real = self._dtype.to_real()
        (vr, mr), (vi, mi) = (_var_mean(_make(p, real), dim, correction, keepdim, name)
                              for p in (self._data.real, self._data.imag))  # fmt: skip
        v = vr._data + vi._data
        v = _make(np.asarray(np.sqrt(v) if sqrt else v), real)
        return (v, _make(np.asarray(mr._data + 1j * mi._data, self._dtype.np), self._dtype)) if with_mean else v
    if self._dtype.category != D._FLOAT:
        what = "std and var" if name in ("std", "var") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    a = self._data
    c = 1.0 if correction is None else float(correction)
    whole = dim is None and not keepdim and a.flags.c_contiguous and a.dtype in _WHOLE_NP
    if whole:  # Note [Whole-tensor var]
        x, outer, R, inner = a.reshape(-1), 1, a.size, 1
    else:
        dims = E.dims_arg(dim, a.ndim)
        x, outer, R, inner, kept = E.layout(E.kernel_input(a), dims)
    if R - c <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=5,
        )
    var = np.empty(outer * inner, np.float64)
    mean = np.empty(outer * inner, np.float64)
    if var.size:
        if inner == 1:
            k = E.K.var_rows_p if E.parallel(x.size) else E.K.var_rows
            k(x, var, mean, outer, R, c)
        else:
            E.K.var_cols(x, var, mean, outer, R, inner, c)
    if sqrt:  # in double, as PyTorch's accumulator: std of float32 1e30s is finite, its var is not
        np.sqrt(var, out=var)
    dt = self._dtype
    if whole:
        v = E.wrap(var.reshape(()), dt)
        return (v, E.wrap(mean.reshape(()), dt)) if with_mean else v
    v = E.wrap(E.restore(var, a.shape, dims, kept, keepdim), dt)
    return (v, E.wrap(E.restore(mean, a.shape, dims, kept, keepdim), dt)) if with_mean else v


def _var_np(g, self, dim, correction):
    # _var_bw's arithmetic on ``g`` (an array with the reduced dims restored), in NumPy
    # (Note [Backward formulas in NumPy])
    a = self._data
    dims = E.dims_arg(dim, a.ndim)
    dof = _count(self, dim) - (1.0 if correction is None else float(correction))
    return g * (a - a.mean(axis=dims, keepdims=True)) * (2.0 / dof if dof else math.inf)


def _std_np(grad, self, dim, correction, keepdim, result):
    g, r = kept(grad, self.dim(), dim, keepdim), kept(result, self.dim(), dim, keepdim)
    with np.errstate(all="ignore"):
        return _var_np(np.where(r == 0, 0, g / (r * 2)), self, dim, correction)


def _mean_np(g, self, dim, keepdim):
    return kept(g, self.dim(), dim, keepdim) / max(_count(self, dim), 1)


def _var_bw(grad, self, dim, correction, keepdim):
    if plain(grad, self, any_size=True):
        return wrap(_var_np(kept(grad, self.dim(), dim, keepdim), self, dim, correction), grad)
    c = 1.0 if correction is None else float(correction)
    g = restore_dims(grad, self.dim(), dim, keepdim)
    dims = list(E.dims_arg(dim, self.dim()))
    dof = _count(self, dim) - c
    # C's 2.0 / 0.0 = inf, as PyTorch's var_backward: no degrees of freedom give NaN, not an error
    return g * (self - self.mean(dims, keepdim=True)) * (2.0 / dof if dof else math.inf)


def _std_bw(grad, self, dim, correction, keepdim, result):
    # PyTorch's std_backward: zero where the std is zero (constant input), not 0/0 = NaN
    if plain(grad, self, result, any_size=True):
        return wrap(_std_np(grad, self, dim, correction, keepdim, result), grad)
    return _var_bw((grad / (result * 2)).masked_fill(result == 0, 0), self, dim, correction, keepdim)


def _mean_part(g, self, dim, keepdim):
    return restore_dims(g, self.dim(), dim, keepdim).expand(self.shape) / max(_count(self, dim), 1)


def _var_mean_bw(grads, self, dim, correction, keepdim):
    g, gm = grads
    if plain(g, gm, self, any_size=True):
        v = _var_np(kept(g, self.dim(), dim, keepdim), self, dim, correction)
        return wrap(v + _mean_np(gm, self, dim, keepdim), g)
    return _var_bw(grads[0], self, dim, correction, keepdim) + _mean_part(
        grads[1], self, dim, keepdim
    )


def _std_mean_bw(grads, self, dim, correction, keepdim, results):
    g, gm = grads
    if plain(g, gm, self, results[0], any_size=True):
        v = _std_np(g, self, dim, correction, keepdim, results[0])
        return wrap(v + _mean_np(gm, self, dim, keepdim), g)
    return _std_bw(grads[0], self, dim, correction, keepdim, results[0]) + _mean_part(
        grads[1], self, dim, keepdim
    )


_SIG = "(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)"
_OUT = "(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, "
var, var_out = _decl(f"var.correction{_SIG} -> Tensor",
                     lambda self, dim, correction, keepdim: _var_mean(self, dim, correction, keepdim, "var", with_mean=False),
                     {"self": _var_bw}, node_name="VarBackward0", mode="castable",
                     out=f"var.correction_out{_OUT}Tensor(a!) out) -> Tensor(a!)")  # fmt: skip


def _std_cpu(self, dim, correction, keepdim):
    return _var_mean(self, dim, correction, keepdim, "std", sqrt=True, with_mean=False)


def _std_mean_cpu(self, dim, correction, keepdim):
    return _var_mean(self, dim, correction, keepdim, "std_mean", sqrt=True)


std, std_out = _decl(f"std.correction{_SIG} -> Tensor", _std_cpu, {"self": _std_bw},
                     node_name="StdBackward0", mode="castable",
                     out=f"std.correction_out{_OUT}Tensor(a!) out) -> Tensor(a!)")  # fmt: skip
var_mean = defop(f"var_mean.correction{_SIG} -> (Tensor, Tensor)",
                 cpu=lambda self, dim, correction, keepdim: _var_mean(self, dim, correction, keepdim, "var_mean"),
                 backward={"self": _var_mean_bw}, node_name="VarMeanBackward0")  # fmt: skip
std_mean = defop(f"std_mean.correction{_SIG} -> (Tensor, Tensor)", cpu=_std_mean_cpu,
                 backward={"self": _std_mean_bw}, node_name="StdMeanBackward0")  # fmt: skip


def _correction(name, dim, unbiased, correction):
    if isinstance(dim, bool):  # var(input, unbiased)
        if unbiased is not None:
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got (Tensor, bool, bool)"
            )
        dim, unbiased = None, dim
    if unbiased is not None:
        if correction is not None:
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got (Tensor, "
                "correction=..., unbiased=bool)"
            )
        correction = 1 if unbiased else 0
    return dim, correction


def _std_var_out_kernel(x, dim, out):
    # torch 2.13's std_var_out picks its CPU kernel by the out dtype: a reduction to one element
    # goes to std_var_all, which has no half kernel; any other reduction of a real input into a
    # complex out reaches std_cpu, which has no complex one (seed 80). An integer input is the
    # op's dtype error first, before any dim check (seed 24)
    if not x._data.size or x._dtype.category != D._FLOAT:
        return
    full = all(x._data.shape[d] == 1 for d in range(x.dim()) if d not in E.dims_arg(dim, x.dim()))
    if full and x._dtype in (D.float16, D.bfloat16) and out._dtype not in (D.float16, D.bfloat16):
        raise RuntimeError(f"std_var_all: Unsupported dtype {E.cname(x._dtype)}")
    if not full and out._dtype.category == D._COMPLEX:
        raise NotImplementedError(f"\"std_cpu\" not implemented for '{E.cname(out._dtype)}'")


def _stat_body(name, op, op_out, doc):
    def body(input, dim, unbiased, keepdim, correction, out):
        dim, correction = _correction(name, dim, unbiased, correction)
        vals = [input, dim, correction, keepdim]
        if op_out is None:
            if out is not None:
                raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
            return dispatch(op, vals)
        if isinstance(out, Tensor) and isinstance(input, Tensor):
            _std_var_out_kernel(input, dim, out)
        return _call(op, op_out, vals, out)

    body.__doc__ = doc
    _fn(name, "input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None", body,
        method=name in ("var", "std"))  # fmt: skip


_stat_body("var", var, var_out, """Variance over ``dim`` (all when None) with Bessel's ``correction``
    (default 1; legacy ``unbiased=False`` means 0).

    >>> numtorch.tensor([1.0, 2.0, 3.0, 4.0]).var()
    tensor(1.6667)
    """)  # fmt: skip
_stat_body("std", std, std_out, """Standard deviation over ``dim``: the square root of ``var``.

    >>> numtorch.tensor([1.0, 2.0, 3.0, 4.0]).std(correction=0)
    tensor(1.1180)
    """)  # fmt: skip
_stat_body("var_mean", var_mean, None, """``(var, mean)`` over ``dim`` in one pass over the data.

    >>> numtorch.var_mean(numtorch.tensor([1.0, 3.0]))
    (tensor(2.), tensor(2.))
    """)  # fmt: skip
_stat_body("std_mean", std_mean, None, """``(std, mean)`` over ``dim`` in one pass over the data.

    >>> numtorch.std_mean(numtorch.tensor([1.0, 3.0]), correction=0)
    (tensor(1.), tensor(2.))
    """)  # fmt: skip


# ---- norm ---------------------------------------------------------------------------------
# Note [The recorded norm takes the fast call's kernel]
# Where Tensor.norm / linalg.vector_norm records (its input requires grad) or a mode runs the
# body, the op's CPU function ran _norm_cpu's checks and fold -> run -> layout -> _launch: ~5 us
# of a 7.4 us small norm with grad (PyTorch 2.9), twice in each cosine_similarity, normalize and
# pairwise_distance. vnorm (Note [Norm fast calls]) is that chain's layout and kernel for a
# non-empty C-contiguous float32/float64 input with p in _NORMS, bit for bit (the binding fast
# calls' tests compare it with this body), so the CPU function calls it first. It runs below
# the dispatcher: a mode still sees aten.norm, a kernel registered over it replaces this function.
# (Looked up on its module: a test that patches vnorm away compares fold with the fast calls.)
def _norm_cpu(self, p, dim, keepdim):
    if self._dtype.category == D._COMPLEX:
        # a vector norm reads only |z|: the real norm of the magnitudes, in the real dtype.
        # hypot as numtorch.abs (libm's): NumPy's complex abs differs in the last bit, and the
        # inf-norm's backward finds its maximum by comparing with abs
        a = self._data
        return _norm_cpu(E.wrap(np.hypot(a.real, a.imag), self._dtype.to_real()), p, dim, keepdim)
    if self._dtype.category != D._FLOAT:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {E.cname(self._dtype)}"
        )
    p = 2.0 if p is None else float(p)
    # the fast call's kernel: Note [The recorded norm takes the fast call's kernel]
    r = _NF.vnorm(self, p, dim, keepdim, _NF.BODY_COUNT)
    if r is not None:
        return _make(r, self._dtype)
    if self._data.size == 0 and (p < 0 or math.isinf(p)):
        _empty_norm_check(self, p, dim)
    if p != 0 and self._data.size and all(self._data.shape[d] == 1 for d in E.dims_arg(dim, self._data.ndim)):
        # one element per output: torch's reduction drops size-1 dims and gives |x| without the
        # power and root (the float32 2-norm of 1e-30 is 1e-30, not an underflowed 0)
        return fold(_NORMS[1.0], self, dim, keepdim, self._dtype, 0.0)
    comb = _NORMS.get(p)
    if comb is not None:
        return fold(comb, self, dim, keepdim, self._dtype, 0.0 if p >= 0 else math.inf)
    return fold(_NORMP, self, dim, keepdim, self._dtype, 0.0, (p,))


def _empty_norm_check(self, p, dim):
    if not dim:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the "
            "operation does not have an identity"
        )
    for d in E.dims_arg(dim, self._data.ndim):
        if self._data.shape[d] == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {p:g} norm on the dimension {d}because "
                "this dimension is empty and the operation does not have an identity"
            )


def _norm_bw(grad, self, p, dim, keepdim, result):
    p = 2.0 if p is None else float(p)
    if p == 2 and plain(grad, self, result, any_size=True):
        g, r = kept(grad, self.dim(), dim, keepdim), kept(result, self.dim(), dim, keepdim)
        with np.errstate(all="ignore"):
            return wrap(g * np.where(r == 0, 0, self._data / r), grad)
    g = restore_dims(grad, self.dim(), dim, keepdim)
    r = restore_dims(result, self.dim(), dim, keepdim)
    where = aten.where
    if p == 0:
        return self * 0
    if p == 1:
        return self.sgn() * g
    if p == 2:
        return g * where(r == 0, 0.0, self / r)
    if math.isinf(p):
        mask = self.abs() == r
        count = mask.sum(list(E.dims_arg(dim, self.dim())), keepdim=True)
        return self.sgn() * mask * (g / count)
    if p < 1:
        s = where(self == 0, 0.0, self.sgn() * self.abs().pow(p - 1))
        return s * g * r.pow(1 - p)
    base = self.sgn() * self.abs().pow(p - 1) if p < 2 else self * self.abs().pow(p - 2)
    return where(r == 0, 0.0, base * g / r.pow(p - 1))


norm, norm_out = _decl(
    "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
    _norm_cpu, {"self": _norm_bw}, node_name="NormBackward1", mode="exact",
    out="norm.out(Tensor self, Scalar? p, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
)  # fmt: skip
norm_dtype = defop(
    "norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, ScalarType dtype) -> Tensor",
    composite=lambda self, p, dim, keepdim, dtype: dispatch(norm, [self.to(dtype), p, dim, keepdim]),
)  # fmt: skip


def _norm(input, p, dim, keepdim, out, dtype):
    """Vector norm over ``dim`` (all elements when None): ``p`` is a number, ``inf``, ``-inf``,
    ``"fro"`` (2-norm over at most two dims) or ``"nuc"`` (needs numtorch.linalg.matrix_norm).

    >>> numtorch.tensor([[3.0, 4.0]]).norm(dim=1)
    tensor([5.])
    """
    if isinstance(dim, int):
        dim = [dim]
    if isinstance(p, str):
        if p != "fro" or (dim is not None and len(dim) > 2):
            if p not in ("fro", "nuc"):
                raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
            if dim is not None and len(dim) != 2:
                raise RuntimeError(
                    f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
                )
            mn = body_of("matrix_norm", "torch.linalg")
            return mn(input, p, dim if dim is not None else (-2, -1), keepdim, dtype, out)
        p = 2.0
    if dtype is not None:
        dt = D.to_dtype(dtype)
        if dt.category < D._FLOAT:
            raise RuntimeError(
                f"linalg.vector_norm: dtype should be floating point or complex, but got {E.cname(dt)}"
            )
        input = input.to(dt)
    return _call(norm, norm_out, [input, p, [] if dim is None else dim, keepdim], out)


public("norm", "input, p='fro', dim=None, keepdim=False, out=None, dtype=None", _norm)


def _norm_method(self, p, dim, keepdim, dtype):
    return _norm(self, p, dim, keepdim, None, dtype)


_norm_method.__doc__ = _norm.__doc__
public("norm", "self, p='fro', dim=None, keepdim=False, dtype=None", _norm_method,
       relevant=("self",), module="Tensor")  # fmt: skip


# ---- logsumexp ----------------------------------------------------------------------------
_LSE_SMALL_INNER = 16  # measured on (N, 3, inner): the flat passes win to inner 8, tie at 16


def _logsumexp_cpu(self, dim, keepdim):
    a = self._data
    dt = self._dtype if self._dtype.category == D._FLOAT else D.get_default_dtype()
    dims = E.dims_arg(dim, a.ndim)
    if self._dtype.category == D._COMPLEX:
        return E.wrap(np.asarray(_logsumexp_complex(a, dims, keepdim)), self._dtype)
    x, outer, R, inner, kept = E.layout(
        E.kernel_input(a).astype(E.kernel_dtype(dt), copy=False), dims
    )
    res = np.empty(outer * inner, x.dtype)
    if res.size:
        if R == 0:
            res.fill(-math.inf)
        elif inner == 1:
            E.KS.logsumexp_rows(x, res, outer, R)
        elif inner < _LSE_SMALL_INNER:  # Note [Logsumexp over a small inner size]
            E.KS.logsumexp_cols_small(x, res, outer, R, inner)
        else:
            E.KS.logsumexp_cols(x, res, outer, R, inner)
    return E.wrap(E.restore(res, a.shape, dims, kept, keepdim), dt)


def _logsumexp_complex(a, dims, keepdim):
    # at::logsumexp: the max of the real parts is subtracted (0 where it is infinite)
    with np.errstate(all="ignore"):
        if a.size == 0:
            return np.log(np.sum(np.exp(a), axis=dims, keepdims=keepdim))
        m = np.asarray(np.max(a.real, axis=dims, keepdims=True))  # an array even for a 0-d input
        m[np.isinf(m)] = 0
        s = np.log(np.sum(np.exp(a - m), axis=dims, keepdims=keepdim))
        return s + (m if keepdim else np.squeeze(m, axis=dims))


def _logsumexp_bw(grad, self, dim, keepdim, result):
    g = restore_dims(grad, self.dim(), dim, keepdim)
    e = (self - restore_dims(result, self.dim(), dim, keepdim)).exp()
    # the conjugate Wirtinger derivative (Note [Complex gradients])
    return g * (e.conj() if e.is_complex() else e)


logsumexp, logsumexp_out = _decl(
    "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
    _logsumexp_cpu, {"self": _logsumexp_bw},
    out="logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
)  # fmt: skip


def _logsumexp(input, dim, keepdim, out):
    """``log(sum(exp(input), dim))`` computed stably (the max is subtracted first).

    >>> numtorch.tensor([[0.0, 0.0]]).logsumexp(1)
    tensor([0.6931])
    """
    if out is not None:  # at::logsumexp_out: a floating out, and integer input in out's dtype
        if out._dtype.category < D._FLOAT:
            raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: "
                               f"{E.cname(out._dtype)}")  # fmt: skip
        if input._dtype.category < D._FLOAT:
            input = input.to(out._dtype)
    return _call(logsumexp, logsumexp_out, [input, dim, keepdim], out)


_fn("logsumexp", "input, dim, keepdim=False, *, out=None", _logsumexp)


# ---- nanmean: at::nanmean's decomposition, nansum / count of non-NaN ------------------------------
def _nanmean_impl(self, dim=None, keepdim=False, dtype=None):
    if self._dtype.category < D._FLOAT:
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {E.cname(self._dtype)}"
        )
    if dtype is None:  # Note [nanmean without the composite's ops]
        r = nanmean_plain(self, dim, keepdim)
        if r is not None:
            return r
    factor = nanmean_count(self, dim, keepdim)  # Note [nanmean's count with a graph]
    if factor is None:
        factor = self.isnan().logical_not_().sum(dim, keepdim)
    return self.nansum(dim, keepdim, dtype=dtype).div(factor)


def _nanmean_out(self, dim, keepdim, dtype, out):
    from ..._factory_utils import write_out

    if dtype is not None:  # PyTorch's nanmean.out is nansum.out, then a division
        check_dtype_arg("nansum", out, D.to_dtype(dtype))
    return write_out(out, _nanmean_impl(self, dim, keepdim, dtype)._data)


nanmean = defop("nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                composite=_nanmean_impl)  # fmt: skip
nanmean_out = defop("nanmean.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
                    "Tensor(a!) out) -> Tensor(a!)", composite=_nanmean_out)  # fmt: skip


def _nanmean(input, dim, keepdim, dtype, out):
    """The mean over ``dim`` (all elements when None) of the non-NaN elements.

    >>> numtorch.tensor([1.0, float('nan'), 3.0]).nanmean()
    tensor(2.)
    """
    return _call(nanmean, nanmean_out, [input, dim, keepdim, dtype], out)


_fn("nanmean", "input, dim=None, keepdim=False, *, dtype=None, out=None", _nanmean)
