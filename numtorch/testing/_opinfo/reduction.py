"""OpInfos for numtorch/ops/reduction/.

NumPy references follow PyTorch's semantics: integers sum to int64, ``dim=None`` means every
dim, ties keep the first index (argmax) or sort stably, NaN is the largest value.
"""

from __future__ import annotations

import warnings

import numpy as np

from .core import ALL_REAL, NUMERIC, OpInfo, SampleInput, make_arg

_S = SampleInput
INTS_FLOATS = ("int32", "int64", "float32", "float64")
# (shape, args, kwargs[, noncontiguous]) for reductions taking ``dim`` lists and ``keepdim``
_DIMS = [((), (), {}), ((), (0,), {}), ((), (-1,), {"keepdim": True}), ((5,), (), {}), ((5,), (0,), {}),
         ((2, 3, 4), (), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (-1,), {"keepdim": True}),
         ((2, 3, 4), ((0, 2),), {}), ((2, 3, 4), ((2, 1),), {"keepdim": True}),
         ((2, 3, 4), (0,), {}, True), ((2, 3, 4), ((0, 1),), {}, True), ((0, 3), (1,), {}),
         ((4, 0), (), {})]  # fmt: skip
_ONE_DIM = [((), (0,), {}), ((), (-1,), {"keepdim": True}), ((5,), (0,), {}), ((2, 3, 4), (1,), {}),
            ((2, 3, 4), (-1,), {"keepdim": True}), ((2, 3, 4), (0,), {}, True), ((3, 4), (1,), {}, True),
            ((0, 3), (1,), {})]  # fmt: skip
_SCAN_DIMS = [((), (0,), {}), ((5,), (0,), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (-1,), {}),
              ((2, 3, 4), (0,), {}, True), ((0, 3), (1,), {})]  # fmt: skip


def _gen(specs, low=None, high=None, extra=()):
    """Samples from (shape, args, kwargs[, noncontiguous]) specs, plus ``extra`` ones."""

    def gen(dtype, rng):
        out = []
        for spec in list(specs) + list(extra):
            shape, args, kwargs = spec[:3]
            nc = len(spec) > 3 and spec[3]
            a = make_arg(shape, dtype, rng, low, high, noncontiguous=nc)
            out.append(
                _S(a, args, dict(kwargs), name=f"{list(shape)}{args}{kwargs}{'nc' if nc else ''}")
            )
        return out

    return gen


def _axis(a, dim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0) or a.ndim == 0:
        return None
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def _red(fn, int_dtype=None):
    """A reference ``f(a, dim=None, keepdim=False, dtype=None)`` from a NumPy reduction."""

    def ref(a, dim=None, keepdim=False, dtype=None):
        acc = dtype or (int_dtype if a.dtype.kind in "biu" else None)
        r = fn(a, axis=_axis(a, dim), keepdims=keepdim, **({"dtype": acc} if acc else {}))
        return np.asarray(r)

    return ref


def _nanmean(a, dim=None, keepdim=False, dtype=None):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # all-NaN and empty slices: NaN, as 0 / 0 in PyTorch
        return _red(np.nanmean)(a, dim, keepdim, dtype)


def _nansum(a, dim=None, keepdim=False, dtype=None):
    return _red(np.sum, np.int64)(
        np.where(np.isnan(a), 0, a) if a.dtype.kind == "f" else a, dim, keepdim, dtype
    )


def _argext(fn):
    def ref(a, dim=None, keepdim=False):
        if dim is None:
            r = np.asarray(fn(a.reshape(-1)), np.int64)
            return r.reshape((1,) * a.ndim) if keepdim else r
        if a.ndim == 0:
            return np.asarray(0, np.int64)
        return np.asarray(fn(a, axis=dim, keepdims=keepdim), np.int64)

    return ref


def _minmax(vfn, ifn):
    def ref(a, dim=None, keepdim=False):
        if dim is None:
            return np.asarray(vfn(a))
        return np.asarray(vfn(a, axis=_axis(a, dim), keepdims=keepdim)), _argext(ifn)(
            a, dim, keepdim
        )

    return ref


def _logical(fn):
    def ref(a, dim=None, keepdim=False):
        r = np.asarray(fn(a != 0, axis=_axis(a, dim), keepdims=keepdim))
        return r.astype(np.uint8) if a.dtype == np.uint8 else r

    return ref


def _var(sqrt=False, with_mean=False):
    def ref(a, dim=None, unbiased=None, keepdim=False, correction=None):
        c = correction if correction is not None else (1 if unbiased in (None, True) else 0)
        ax = _axis(a, dim)
        n = a.size if ax is None else np.prod([a.shape[d] for d in np.atleast_1d(ax)])
        m = np.mean(a, axis=ax, keepdims=True, dtype=np.float64)
        v = np.sum((a - m) ** 2, axis=ax, keepdims=keepdim) / max(0, n - c)
        v = np.asarray(np.sqrt(v) if sqrt else v).astype(a.dtype)
        return (
            (v, np.asarray(np.mean(a, axis=ax, keepdims=keepdim)).astype(a.dtype))
            if with_mean
            else v
        )

    return ref


def _norm(a, p="fro", dim=None, keepdim=False):
    p = 2.0 if p == "fro" else float(p)
    ax = _axis(a, dim if not isinstance(dim, int) else (dim,))
    x = np.abs(a.astype(np.float64))
    if p == np.inf:
        r = np.max(x, axis=ax, keepdims=keepdim)
    elif p == -np.inf:
        r = np.min(x, axis=ax, keepdims=keepdim)
    elif p == 0:
        r = np.sum(x != 0, axis=ax, keepdims=keepdim)
    else:
        r = np.sum(x**p, axis=ax, keepdims=keepdim) ** (1 / p)
    return np.asarray(r).astype(a.dtype)


def _logsumexp(a, dim, keepdim=False):
    a = a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.float32)
    ax = _axis(a, dim)
    m = np.max(a, axis=ax, keepdims=True) if a.size else np.zeros([1] * a.ndim)
    r = np.log(np.sum(np.exp(a - m), axis=ax, keepdims=True)) + m
    if not keepdim and ax is not None:
        r = np.squeeze(r, axis=ax)
    elif not keepdim:
        r = r.reshape(())
    return r.astype(a.dtype if a.dtype != np.float64 else np.float64)


def _moved(fn):
    """A reference computed on the data with ``dim`` moved last (0-d as one element)."""

    def ref(a, dim, *args, **kwargs):
        b = np.moveaxis(a.reshape(1) if a.ndim == 0 else a, dim, -1)
        outs = fn(b, *args, **kwargs)
        single = not isinstance(outs, tuple)
        outs = (outs,) if single else outs
        res = tuple(
            np.moveaxis(o, -1, dim).reshape(a.shape) if o.shape == b.shape else o for o in outs
        )
        return res[0] if single else res

    return ref


def _cum(fn):
    def ref(b, dtype=None):
        acc = dtype or (
            np.int64 if b.dtype.kind in "biu" else (np.float64 if b.dtype.kind == "f" else None)
        )
        r = fn(b.astype(acc) if acc else b, axis=-1)
        return r.astype(dtype or (np.int64 if b.dtype.kind in "biu" else b.dtype))

    return _moved(ref)


def _cumext(better):
    def ref(b):
        vals, idx = b.copy(), np.zeros(b.shape, np.int64)
        for r in range(1, b.shape[-1]):
            take = better(b[..., r], vals[..., r - 1])
            vals[..., r] = np.where(take, b[..., r], vals[..., r - 1])
            idx[..., r] = np.where(take, r, idx[..., r - 1])
        return vals, idx

    return _moved(ref)


def _softmax(log):
    def ref(b, dtype=None):
        x = b.astype(np.float64)
        m = np.max(x, axis=-1, keepdims=True) if x.size else 0
        e = np.exp(x - m)
        r = (x - m - np.log(e.sum(-1, keepdims=True))) if log else e / e.sum(-1, keepdims=True)
        return r.astype(dtype or b.dtype)

    return _moved(ref)


def _order(b, descending):
    key = b.astype(np.int64) if b.dtype.kind in "bu" else b
    return np.argsort(-key if descending else key, axis=-1, kind="stable")


def _sort(a, dim=-1, descending=False, stable=None):
    def ref(b):
        i = _order(b, descending)
        return np.take_along_axis(b, i, -1), i

    return _moved(ref)(a, dim)


def _argsort(a, dim=-1, descending=False, stable=False):
    return _sort(a, dim, descending)[1]


def _topk(a, k, dim=-1, largest=True, sorted=True):
    b = np.moveaxis(a.reshape(1) if a.ndim == 0 else a, dim, -1)
    i = _order(b, largest)[..., :k]
    v = np.take_along_axis(b, i, -1)
    if a.ndim == 0:
        return v.reshape(()), i.reshape(())
    return np.moveaxis(v, -1, dim), np.moveaxis(i, -1, dim)


def _pick(pos_fn):
    def ref(a, dim=-1, keepdim=False):
        b = np.moveaxis(a.reshape(1) if a.ndim == 0 else a, dim, -1)
        i = np.argsort(b, axis=-1, kind="stable")
        pos = np.full(b.shape[:-1] + (1,), pos_fn(b.shape[-1]))
        idx = np.take_along_axis(i, pos, -1)
        v = np.take_along_axis(b, idx, -1)
        if a.ndim == 0:
            return v.reshape(()), idx.reshape(())
        v, idx = np.moveaxis(v, -1, dim), np.moveaxis(idx, -1, dim)
        return (v, idx) if keepdim else (v.squeeze(dim), idx.squeeze(dim))

    return ref


def _kthvalue(a, k, dim=-1, keepdim=False):
    return _pick(lambda n: k - 1)(a, dim, keepdim)


def _median(a, dim=None, keepdim=False):
    if dim is None:
        return np.asarray(np.sort(a.reshape(-1))[(a.size - 1) // 2])
    return _pick(lambda n: (n - 1) // 2)(a, dim, keepdim)


def _mode(a, dim=-1, keepdim=False):
    b = np.moveaxis(a.reshape(1) if a.ndim == 0 else a, dim, -1)
    flat = b.reshape(-1, b.shape[-1])
    vals, idx = np.empty(len(flat), a.dtype), np.empty(len(flat), np.int64)
    for r, row in enumerate(flat):
        u, c = np.unique(row, return_counts=True)
        vals[r] = u[np.argmax(c)]
        idx[r] = np.nonzero(row == vals[r])[0][-1]
    shape = b.shape[:-1]
    v, i = vals.reshape(shape), idx.reshape(shape)
    if keepdim and a.ndim:
        v, i = np.expand_dims(v, dim), np.expand_dims(i, dim)
    return v, i


def _unique(a, sorted=True, return_inverse=False, return_counts=False, dim=None):
    u, inv, cnt = np.unique(a.reshape(-1) if dim is None else a, return_inverse=True,
                            return_counts=True, axis=dim)  # fmt: skip
    inv = inv.reshape(a.shape) if dim is None else inv.reshape(-1)
    if not return_inverse and not return_counts:
        return u
    return (
        (u,)
        + ((inv.astype(np.int64),) if return_inverse else ())
        + ((cnt.astype(np.int64),) if return_counts else ())
    )


_SOFTMAX = [((), (0,), {}), ((5,), (0,), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (-1,), {}),
            ((2, 3, 4), (0,), {}, True), ((0, 3), (1,), {}), ((3, 4), (1,), {"dtype": "float64"})]  # fmt: skip
_TOL32 = {"float32": (1e-4, 1e-4)}
_NORM = [((5,), (), {}), ((2, 3, 4), (), {}), ((2, 3, 4), (2, 1), {}), ((2, 3, 4), (2, (0, 2)), {}),
         ((2, 3, 4), (1, (0, 2)), {}), ((2, 3, 4), (float("inf"), 1), {}), ((2, 3, 4), (-float("inf"),), {}),
         ((2, 3, 4), (0, 2, True), {}), ((2, 3, 4), (3.5, -1), {}), ((5,), (0.5,), {}),
         ((3, 4), ("fro", (0, 1)), {}), ((2, 3, 4), (), {"dim": 1, "keepdim": True}, True), ((), (), {})]  # fmt: skip


def _dtype_kw(gen):
    """Samples whose ``dtype`` kwarg is a NumPy dtype name turn into numtorch dtypes."""

    def wrapped(dtype, rng):
        import numtorch

        out = gen(dtype, rng)
        for s in out:
            if isinstance(s.kwargs.get("dtype"), str):
                s.kwargs["dtype"] = getattr(numtorch, s.kwargs["dtype"])
        return out

    return wrapped


def _np_dtype_ref(ref):
    def wrapped(a, *args, dtype=None, **kwargs):
        if dtype is not None:
            dtype = np.dtype(dtype.name) if hasattr(dtype, "name") else dtype
            kwargs["dtype"] = dtype
        return ref(a, *args, **kwargs)

    return wrapped


def _prod_samples(dtype, rng):
    # torch's prod overload without dim takes no out= (Note [Absent argument])
    samples = _gen(_ONE_DIM[:-1] + [((2, 3), (), {})], 0.5, 1.5)(dtype, rng)
    samples[-1].out = False
    return samples


def _no_out_without_dim(gen):
    # sum's overload without dim takes no out= either (Note [Absent argument])
    def wrapped(dtype, rng):
        samples = gen(dtype, rng)
        for s in samples:
            s.out = bool(s.args) or "dim" in s.kwargs
        return samples

    return wrapped


OPINFOS = [
    OpInfo("sum", _np_dtype_ref(_red(np.sum, np.int64)), _no_out_without_dim(_dtype_kw(_gen(_DIMS, extra=[((2, 3), (1,), {"dtype": "float64"})]))),
           dtypes=ALL_REAL, method="sum", supports_out=True),
    OpInfo("nansum", _np_dtype_ref(_nansum), _gen(_DIMS), dtypes=NUMERIC, method="nansum", supports_out=True),
    OpInfo("mean", _np_dtype_ref(_red(np.mean)), _gen(_DIMS), method="mean", supports_out=True),
    OpInfo("nanmean", _np_dtype_ref(_nanmean), _gen(_DIMS), method="nanmean", supports_out=True),
    OpInfo("prod", _np_dtype_ref(_red(np.prod, np.int64)), _prod_samples,
           dtypes=("bool", "int32", "int64", "float32", "float64"), method="prod", supports_out=True),
    OpInfo("amax", _red(np.max), _gen([s for s in _DIMS if 0 not in s[0]]), dtypes=ALL_REAL, method="amax", supports_out=True),
    OpInfo("amin", _red(np.min), _gen([s for s in _DIMS if 0 not in s[0]]), dtypes=ALL_REAL, method="amin", supports_out=True),
    OpInfo("max", _minmax(np.max, np.argmax), _gen([s for s in _ONE_DIM if 0 not in s[0]] + [((2, 3, 4), (), {})]),
           dtypes=NUMERIC, method="max"),
    OpInfo("min", _minmax(np.min, np.argmin), _gen([s for s in _ONE_DIM if 0 not in s[0]] + [((2, 3, 4), (), {})]),
           dtypes=NUMERIC, method="min"),
    OpInfo("argmax", _argext(np.argmax), _gen([s for s in _ONE_DIM if 0 not in s[0]] + [((2, 3, 4), (), {}), ((3, 4), (), {"keepdim": True})]),
           dtypes=NUMERIC, method="argmax", supports_out=True, grad=False),
    OpInfo("argmin", _argext(np.argmin), _gen([s for s in _ONE_DIM if 0 not in s[0]] + [((2, 3, 4), (), {})]),
           dtypes=NUMERIC, method="argmin", supports_out=True, grad=False),
    OpInfo("aminmax", lambda a, dim=None, keepdim=False: (_red(np.min)(a, dim, keepdim), _red(np.max)(a, dim, keepdim)),
           _gen([((5,), (), {}), ((2, 3, 4), (), {"dim": 1}), ((2, 3, 4), (), {"dim": -1, "keepdim": True}), ((), (), {"dim": 0})]),
           dtypes=NUMERIC, method="aminmax", grad=False),
    OpInfo("all", _logical(np.all), _gen(_DIMS), dtypes=ALL_REAL, method="all", supports_out=True, grad=False),
    OpInfo("any", _logical(np.any), _gen(_DIMS), dtypes=ALL_REAL, method="any", supports_out=True, grad=False),
    OpInfo("count_nonzero", lambda a, dim=None: np.asarray(np.count_nonzero(a, axis=_axis(a, dim))).astype(np.int64),
           _gen([s[:2] + ({},) + s[3:] for s in _DIMS if not s[2]]), dtypes=ALL_REAL, method="count_nonzero",
           supports_out=True, grad=False),
    OpInfo("var", _var(), _gen(_DIMS[3:-2] + [((2, 3, 4), (1,), {"correction": 0}), ((2, 3, 4), ((0, 2), False, True), {}),
                                               ((5,), (), {"unbiased": False})]), method="var", supports_out=True),
    OpInfo("std", _var(sqrt=True), _gen(_DIMS[3:-2] + [((2, 3, 4), (1,), {"correction": 2.5})]), method="std", supports_out=True),
    OpInfo("var_mean", _var(with_mean=True), _gen(_DIMS[3:-2]), gradgrad=False),
    OpInfo("std_mean", _var(sqrt=True, with_mean=True), _gen(_DIMS[3:-2]), gradgrad=False),
    OpInfo("norm", _norm, _gen(_NORM, 0.5, 3.0), method="norm", supports_out=True, tol=_TOL32),
    OpInfo("logsumexp", _logsumexp, _gen([s for s in _DIMS if s[1]]), dtypes=INTS_FLOATS, method="logsumexp",
           supports_out=True, tol=_TOL32),
    OpInfo("cumsum", _np_dtype_ref(_cum(np.cumsum)), _gen(_SCAN_DIMS), dtypes=ALL_REAL, method="cumsum",
           inplace="cumsum_", supports_out=True),
    OpInfo("cumprod", _np_dtype_ref(_cum(np.cumprod)), _gen(_SCAN_DIMS, 0.5, 1.5), dtypes=("bool", "int32", "int64", "float32", "float64"),
           method="cumprod", inplace="cumprod_", supports_out=True),
    OpInfo("cummax", _cumext(lambda v, b: np.isnan(v) | (~np.isnan(b) & (v >= b)) if v.dtype.kind == "f" else v >= b),
           _gen(_SCAN_DIMS), dtypes=NUMERIC, method="cummax"),
    OpInfo("cummin", _cumext(lambda v, b: np.isnan(v) | (~np.isnan(b) & (v <= b)) if v.dtype.kind == "f" else v <= b),
           _gen(_SCAN_DIMS), dtypes=NUMERIC, method="cummin"),
    OpInfo("softmax", _np_dtype_ref(_softmax(False)), _dtype_kw(_gen(_SOFTMAX)), method="softmax", supports_out=True),
    OpInfo("log_softmax", _np_dtype_ref(_softmax(True)), _dtype_kw(_gen(_SOFTMAX)), method="log_softmax", supports_out=True),
    OpInfo("nn.functional.softmax", _np_dtype_ref(_softmax(False)), _dtype_kw(_gen(_SOFTMAX))),
    OpInfo("nn.functional.log_softmax", _np_dtype_ref(_softmax(True)), _dtype_kw(_gen(_SOFTMAX))),
    OpInfo("sort", _sort, _gen([((5,), (), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (0, True), {}), ((), (), {}),
                                ((2, 3, 4), (), {"stable": True, "descending": True}, True), ((0, 3), (0,), {})]),
           dtypes=ALL_REAL, method="sort"),
    OpInfo("argsort", _argsort, _gen([((5,), (), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (0, True), {}), ((), (), {}),
                                      ((3, 4), (), {"stable": True}, True)]),
           dtypes=ALL_REAL, method="argsort", grad=False),
    OpInfo("topk", _topk, _gen([((5,), (2,), {}), ((2, 3, 4), (2, 1), {}), ((2, 3, 4), (2, 0, False), {}),
                                ((), (1,), {}), ((3, 4), (0,), {}), ((3, 6), (4,), {"largest": False}, True)]),
           dtypes=NUMERIC, method="topk"),
    OpInfo("msort", lambda a: np.sort(a, axis=0) if a.ndim else a.copy(),
           _gen([((5,), (), {}), ((3, 4), (), {}), ((2, 3, 4), (), {}, True), ((), (), {}), ((0, 3), (), {})]),
           dtypes=NUMERIC, method="msort", supports_out=True),
    OpInfo("kthvalue", _kthvalue, _gen([((5,), (2,), {}), ((2, 3, 4), (2, 1), {}), ((2, 3, 4), (2, 0, True), {}),
                                        ((), (1,), {}), ((3, 6), (4,), {}, True)]),
           dtypes=NUMERIC, method="kthvalue"),
    OpInfo("median", _median, _gen([((5,), (), {}), ((2, 3, 4), (), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (-1, True), {}),
                                    ((), (), {}), ((), (0,), {}), ((3, 6), (1,), {}, True)]),
           dtypes=NUMERIC, method="median"),
    OpInfo("nanmedian", _median, _gen([((5,), (), {}), ((2, 3, 4), (1,), {}), ((), (), {})]), dtypes=NUMERIC, method="nanmedian"),
    OpInfo("mode", _mode, _gen([((5,), (), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (0, True), {}), ((), (), {})]),
           dtypes=("bool", "int32", "int64", "float32", "float64"), method="mode"),
    OpInfo("unique", _unique, _gen([((8,), (), {}), ((3, 4), (), {"return_inverse": True}), ((3, 4), (), {"return_counts": True}),
                                    ((2, 3, 4), (), {"return_inverse": True, "return_counts": True}), ((), (), {}),
                                    ((4, 3), (), {"dim": 0, "return_inverse": True, "return_counts": True})], -3, 3),
           dtypes=NUMERIC, method="unique", grad=False),
]  # fmt: skip
