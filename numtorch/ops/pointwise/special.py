"""Special functions (lgamma, digamma, polygamma, erfinv, angle), logcumsumexp, histc and the
``torch.special`` names of existing ops. Scalar kernels live in ``kernels/cpu/pointwise/special.py``."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make
from ._elementwise import Elementwise
from .._pointwise import _cname
from ..reduction._reduce import wrap_dim
from .._registry import OPS, body_of, defop, public
from .core import _ALL, _cmp, _decl, _div, _fl, _mul, _u, _unary, _where, _zero_grad
from .extra import _special_alias


def _polygamma_of(n, x):
    return dispatch(_PG["functional"], [n, x])


# fmt: off
_fl("lgamma", "lgamma(self)", lambda grad, self: _mul(grad, _u("digamma", self)), allow="bif", kname="lgamma_vml_cpu")
_fl("digamma", "digamma(self)", lambda grad, self: _mul(grad, _polygamma_of(1, self)), allow="bif", kname="digamma")
# erfinv'(x) = sqrt(pi) / 2 * exp(erfinv(x)^2)
_fl("erfinv", "erfinv(self)", lambda grad, result: _mul(grad, _mul(_u("exp", _mul(result, result)), math.sqrt(math.pi) / 2)),
    allow="bif", kname="erfinv_vml_cpu")
# fmt: on


def _angle_bw(grad, self):
    # angle of a real number: pi for negatives, 0 otherwise, NaN kept. PyTorch's angle_backward:
    # zero for real input; for complex, grad * i z / |z|^2 (0 at z = 0),
    # grad being real (the result is real)
    if not self._dtype.is_complex:
        return _zero_grad(grad)
    a2 = _u("abs", self)
    a2 = _mul(a2, a2)
    g = _mul(_mul(grad, self), 1j)
    return _where(_cmp("eq", self, 0), 0.0, _div(g, a2))


_unary("angle", {"bif": "self if self != self else (math.pi if self < 0 else 0.0)",
                 "c": "math.atan2(self.imag, self.real)"},
       {"self": _angle_bw}, rule="float_real", kname="angle_cpu", inplace=False, holomorphic=False)


def _pg_prep(compute, operands, params):
    if params[0] < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return [float(params[0])]


_PG_EW = Elementwise("polygamma", ["self"], "polygamma(n, self)", ["n"], rule="float", allow="bif", prep=_pg_prep)


def _pg_bw(grad, self, n):
    return _mul(grad, _polygamma_of(n + 1, self))


_PG = _decl("polygamma(int n, Tensor self) -> Tensor", _PG_EW, {"self": _pg_bw}, inplace=False)
_PG_ = defop("polygamma_(Tensor(a!) self, int n) -> Tensor(a!)", cpu=lambda self, n: _PG_EW([self], [n], inplace=True),
             backward={"self": _pg_bw})  # fmt: skip


def _polygamma(n, input, out):
    """The n-th derivative of digamma, as ``torch.polygamma``.

    >>> numtorch.polygamma(1, numtorch.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
    """
    return dispatch(_PG["functional"], [n, input]) if out is None else dispatch(_PG["out"], [n, input, out])


def _polygamma_method(self, n):
    """``polygamma(n, self)``.

    >>> numtorch.tensor([1.0]).polygamma(1)
    tensor([1.6449])
    """
    return dispatch(_PG["functional"], [n, self])


def _polygamma_inplace(self, n):
    """In-place ``polygamma(n, self)``.

    >>> numtorch.tensor([1.0]).polygamma_(1)
    tensor([1.6449])
    """
    return dispatch(_PG_, [self, n])


_ALL.setdefault("polygamma", {}).update(T=_PG)
public("polygamma", "n, input, *, out=None", _polygamma, ops=(_PG["functional"],))
public("polygamma", "self, n", _polygamma_method, relevant=("self",), module="Tensor", ops=(_PG["functional"],))
public("polygamma_", "self, n", _polygamma_inplace, relevant=("self",), module="Tensor", ops=(_PG_,))


# ---- logcumsumexp: log(cumsum(exp(x))) without overflow ------------------------------------------
def _lcse_cpu(self, dim):
    d = wrap_dim(dim, self.ndim)  # the dim before the kernel's dtype dispatch
    if self._dtype.category not in (D._FLOAT, D._COMPLEX):
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{_cname(self._dtype)}\'')
    a = self._data
    if a.ndim == 0 or a.size == 0:
        return _make(np.array(a, copy=True), self._dtype)
    if self._dtype.is_complex:
        return _make(_lcse_complex(a, d), self._dtype)
    work = a.astype(np.float32) if a.dtype == np.float16 else a
    return _make(np.logaddexp.accumulate(work, axis=d).astype(a.dtype, copy=False), self._dtype)


def _clae(x, y):
    # PyTorch's complex _log_add_exp_helper: log1p(exp(min - max)) + max with min/max picked
    # by real part (the imaginary part is where the branch of the log shows); a NaN in either
    # part gives NaN + NaNj, equal infinite real parts -inf + 0j or log(exp(x) + exp(y)).
    # (on a tie the new element y is the max, as ATen; the branch of the result follows it)
    swap = x.real <= y.real
    lo, hi = np.where(swap, x, y), np.where(swap, y, x)
    with np.errstate(all="ignore"):
        r = np.log1p(np.exp(lo - hi)) + hi
        eq = ~np.isfinite(lo.real) & (lo.real == hi.real)
        if eq.any():
            r = np.where(eq & (lo.real < 0), lo.real + 0j, r)
            r = np.where(eq & (lo.real > 0), np.log(np.exp(x) + np.exp(y)), r)
    return np.where(np.isnan(x) | np.isnan(y), complex(math.nan, math.nan), r).astype(x.dtype)


def _lcse_complex(a, d):
    # a scan along d, vectorised over the other dims; the running value starts at -inf + 0j
    # as ATen's scan does, so the first element also passes through the helper
    a = np.moveaxis(a, d, 0)
    out = np.empty(a.shape, a.dtype)
    acc = np.full(a.shape[1:], complex(-math.inf, 0), a.dtype)
    for i in range(a.shape[0]):
        acc = out[i] = _clae(acc, a[i])
    return np.moveaxis(out, 0, d)


def _flip(x, dim):
    return dispatch(OPS["aten::flip"], [x, [dim]])


def _lcse_bw(grad, self, result, dim):
    # d result_i / d self_j = exp(self_j - result_i) for j <= i: a reversed cumulative sum,
    # shifted by the slice maximum against overflow. PyTorch splits grad into log-space
    # positive and negative parts instead; that form has no finite second derivative at grad = 0.
    # For complex input the function is holomorphic and torch's convention conjugates the
    # derivative: exp(conj(self_j) - conj(result_i)); the shift uses the real part's maximum.
    if grad.ndim == 0 or grad.numel() == 0:
        return grad
    if self._dtype.is_complex:
        self, result = self.conj(), result.conj()
        m = self.detach().real.amax(dim, keepdim=True)
    else:
        m = self.detach().amax(dim, keepdim=True)
    rev = _flip(_flip(_mul(grad, _u("exp", m - result)), dim).cumsum(dim), dim)
    return _mul(_u("exp", self - m), rev)


_LCSE = defop("logcumsumexp(Tensor self, int dim) -> Tensor", cpu=_lcse_cpu, backward={"self": _lcse_bw})


def _lcse_out(self, dim, out):
    r = dispatch(_LCSE, [self, dim])
    return out.resize_(r.shape).copy_(r) if out.shape != r.shape else out.copy_(r)


_LCSE_OUT = defop("logcumsumexp.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)", composite=_lcse_out)


def _logcumsumexp(input, dim, out):
    """Log of the cumulative sum of exponentials along ``dim``, as ``torch.logcumsumexp``.

    >>> numtorch.logcumsumexp(numtorch.tensor([1.0, 2.0]), 0)
    tensor([1.0000, 2.3133])
    """
    return dispatch(_LCSE, [input, dim]) if out is None else dispatch(_LCSE_OUT, [input, dim, out])


def _logcumsumexp_method(self, dim):
    """``logcumsumexp(self, dim)``.

    >>> numtorch.tensor([1.0, 2.0]).logcumsumexp(0)
    tensor([1.0000, 2.3133])
    """
    return dispatch(_LCSE, [self, dim])


public("logcumsumexp", "input, dim, *, out=None", _logcumsumexp, ops=(_LCSE,))
public("logcumsumexp", "self, dim", _logcumsumexp_method, relevant=("self",), module="Tensor", ops=(_LCSE,))


# ---- histc: equal-width histogram between min and max (the data's range when both are 0) ---------
def histc_range(bins, min, max, size, data_range):
    """histc's (lo, hi) after its checks (every device's): [min, max], or ``data_range()`` (the
    data's (min, max)) of ``size`` elements when they are equal, widened by 1 when that is a point."""
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and size:
        lo, hi = data_range()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    return lo, hi


def _histc_cpu(self, bins, min, max):
    if self._dtype.category != D._FLOAT:
        kname = "linspace_cpu" if self._dtype is D.bool else "histogram_cpu"
        raise NotImplementedError(f'"{kname}" not implemented for \'{_cname(self._dtype)}\'')
    a = self._data.astype(np.float64).ravel()
    lo, hi = histc_range(bins, min, max, a.size, lambda: (float(a.min()), float(a.max())))
    a = a[(a >= lo) & (a <= hi)]
    idx = np.minimum(((a - lo) * bins / (hi - lo)).astype(np.int64), bins - 1)
    return _make(np.bincount(idx, minlength=bins).astype(self._dtype.np), self._dtype)


_HISTC = defop("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor", cpu=_histc_cpu)


def _histc_out(self, bins, min, max, out):
    r = dispatch(_HISTC, [self, bins, min, max])
    return out.resize_(r.shape).copy_(r) if out.shape != r.shape else out.copy_(r)


_HISTC_OUT = defop("histc.out(Tensor self, int bins=100, Scalar min=0, Scalar max=0, *, Tensor(a!) out) -> Tensor(a!)",
                   composite=_histc_out)  # fmt: skip


def _histc(input, bins, min, max, out):
    """Histogram of ``input`` in ``bins`` equal-width bins over [min, max], as ``torch.histc``.

    >>> numtorch.histc(numtorch.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    v = [input, bins, min, max]
    return dispatch(_HISTC, v) if out is None else dispatch(_HISTC_OUT, v + [out])


def _histc_method(self, bins, min, max):
    """``histc(self, bins, min, max)``.

    >>> numtorch.tensor([1.0, 2.0, 1.0]).histc(bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    return dispatch(_HISTC, [self, bins, min, max])


public("histc", "input, bins=100, min=0, max=0, *, out=None", _histc, ops=(_HISTC,))
public("histc", "self, bins=100, min=0, max=0", _histc_method, relevant=("self",), module="Tensor", ops=(_HISTC,))


# ---- torch.special names ---------------------------------------------------------------------------
for _n, _t, _shows in (("gammaln", "lgamma", "tensor([0.5724, 0.0000])"), ("digamma", "digamma", "tensor([-1.9635,  0.4228])"),
                       ("psi", "digamma", "tensor([-1.9635,  0.4228])"), ("erfinv", "erfinv", "tensor([0.4769,    nan])"),
                       ("sinc", "sinc", "tensor([ 6.3662e-01, -3.8982e-17])"),
                       ("logit", "logit", "tensor([0.0000, 0.6931])")):  # fmt: skip
    _special_alias(_n, _t, _shows)


def _api(name):
    # the torch-level body, below its gate (Note [Composite bodies are below the Python API])
    return body_of(name)


def _forward(name, sig, call, shows, example):
    def body(*v):
        return call(*v)

    doc = (f"``torch.special.{name}``: the same op as ``numtorch.{name}``.\n\n"
           f"    >>> {example}\n    {shows}\n    ")  # fmt: skip
    public(name, sig, body, relevant=("input",), module="torch.special", doc=doc)


_forward("polygamma", "n, input, *, out=None", lambda n, x, out: _api("polygamma")(n, x, out), "tensor([1.6449])",
         "numtorch.special.polygamma(1, numtorch.tensor([1.0]))")
_forward("round", "input, *, decimals=0, out=None", lambda x, decimals, out: _api("round")(x, decimals, out),
         "tensor([1.2300])", "numtorch.special.round(numtorch.tensor([1.234]), decimals=2)")
_forward("log_softmax", "input, dim, *, dtype=None", lambda x, dim, dtype: _api("log_softmax")(x, dim, dtype, None),
         "tensor([-0.6931, -0.6931])", "numtorch.special.log_softmax(numtorch.tensor([1.0, 1.0]), 0)")
_forward("softmax", "input, dim, *, dtype=None", lambda x, dim, dtype: _api("softmax")(x, dim, dtype, None),
         "tensor([0.5000, 0.5000])", "numtorch.special.softmax(numtorch.tensor([1.0, 1.0]), 0)")
_forward("logsumexp", "input, dim, keepdim=False, *, out=None",
         lambda x, dim, keepdim, out: _api("logsumexp")(x, dim, keepdim, out),
         "tensor(0.6931)", "numtorch.special.logsumexp(numtorch.tensor([0.0, 0.0]), 0)")


def _special_xlogy(input, other, out):
    """``torch.special.xlogy``: the same op as ``numtorch.xlogy``.

    >>> numtorch.special.xlogy(numtorch.tensor([0.0, 2.0]), numtorch.tensor([0.0, 1.0]))
    tensor([0., 0.])
    """
    return _api("xlogy")(input, other, out)


public("xlogy", "input, other, *, out=None", _special_xlogy, relevant=("input", "other"), module="torch.special")


# ---- histogram: counts and bin edges (NumPy's binning, PyTorch's checks and dtypes) --------------
_HIST = return_types.register("histogram", ("hist", "bin_edges"))


def _histogram_check(self, rng):
    if self._dtype.category != D._FLOAT:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{_cname(self._dtype)}\'')
    if rng is not None and rng[0] > rng[1]:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {rng[0]:g} max {rng[1]:g} for dimension 0")


def _histogram_np(self, bins, rng, weight, density):
    a = self._data.astype(np.float64).ravel()
    w = None if weight is None else weight._data.astype(np.float64).ravel()
    if not isinstance(bins, np.ndarray) and rng is None and a.size:
        rng = (float(a.min()), float(a.max()))
    hist, edges = np.histogram(a, bins=bins, range=rng, weights=w, density=density)
    dt = self._dtype
    return _make(hist.astype(dt.np), dt), _make(edges.astype(dt.np), dt)


def _histogram_bins(self, bins=100, range=None, weight=None, density=False):
    _histogram_check(self, range)
    if bins <= 0:
        raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {bins} for dimension 0")
    return _histogram_np(self, bins, tuple(range) if range is not None else None, weight, density)


def _histogram_edges(self, bins, weight=None, density=False):
    _histogram_check(self, None)
    return _histogram_np(self, bins._data.astype(np.float64), None, weight, density)


_HISTOGRAM = defop("histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False)"
                   " -> (Tensor hist, Tensor bin_edges)", cpu=_histogram_bins)  # fmt: skip
_HISTOGRAM_T = defop("histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False)"
                     " -> (Tensor hist, Tensor bin_edges)", cpu=_histogram_edges)  # fmt: skip


def _histogram(input, bins, range, weight, density, out):
    """Counts of ``input`` in ``bins`` equal bins over ``range`` (the data's range by default)
    or between the edges in a ``bins`` tensor, with the edges, as ``torch.histogram``.

    >>> numtorch.histogram(numtorch.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0)).hist
    tensor([0., 2., 1., 0.])
    """
    if isinstance(bins, Tensor):
        r = dispatch(_HISTOGRAM_T, [input, bins, weight, density])
    else:
        r = dispatch(_HISTOGRAM, [input, bins, None if range is None else list(range), weight, density])
    if out is not None:
        for o, v in zip(out, r):
            o.resize_(v.shape).copy_(v)
        r = out
    return _HIST(*r)


def _histogram_method(self, bins, range, weight, density):
    """``histogram(self, bins, ...)``.

    >>> numtorch.tensor([1.0, 2.0, 1.0]).histogram(2).hist
    tensor([2., 1.])
    """
    return _histogram(self, bins, range, weight, density, None)


public("histogram", "input, bins=100, *, range=None, weight=None, density=False, out=None", _histogram, ops=(_HISTOGRAM,))
public("histogram", "self, bins=100, *, range=None, weight=None, density=False", _histogram_method, relevant=("self",),
       module="Tensor", ops=(_HISTOGRAM,))  # fmt: skip
