"""OpInfos for the indexing area: numtorch/ops/indexing/ (NumPy references, PyTorch semantics)."""

from __future__ import annotations

import numpy as np

from .core import ALL_REAL, OpInfo, SampleInput, make_arg

_S = SampleInput
NUM = ("int8", "int32", "int64", "float32", "float64")


def _idx(rng, shape, n, low=0):
    return rng.integers(low, n, size=shape).astype(np.int64)


def _moved(a, dim):
    return np.moveaxis(a, dim, 0)


# ---- references ------------------------------------------------------------------------------------
def _gather_ref(a, dim, idx, sparse_grad=False):
    a = np.atleast_1d(a)
    dim %= a.ndim
    cut = tuple(slice(None) if k == dim else slice(0, n) for k, n in enumerate(idx.shape))
    return np.take_along_axis(a[cut], np.atleast_1d(idx), dim).reshape(idx.shape)


def _scatter_ref(a, dim, idx, src=None, value=None, reduce=None):
    out = a.copy()
    if a.ndim == 0:
        return _scatter_ref(a.reshape(1), dim, idx.reshape(1), src.reshape(1) if isinstance(src, np.ndarray) else src,
                            value, reduce).reshape(())  # fmt: skip
    for pos in np.ndindex(idx.shape):
        tgt = list(pos)
        tgt[dim] = idx[pos]
        v = src[pos] if isinstance(src, np.ndarray) else (value if src is None else src)
        if reduce == "add":
            out[tuple(tgt)] += v
        elif reduce == "multiply":
            out[tuple(tgt)] *= v
        else:
            out[tuple(tgt)] = v
    return out


def _scatter_add_ref(a, dim, idx, src):
    return _scatter_ref(a, dim, idx, src, reduce="add")


def _scatter_reduce_ref(a, dim, idx, src, reduce, include_self=True):
    out, groups = a.copy(), {}
    for pos in np.ndindex(idx.shape):
        tgt = list(pos)
        tgt[dim] = idx[pos]
        groups.setdefault(tuple(tgt), []).append(src[pos])
    for tgt, vals in groups.items():
        v = np.array(([a[tgt]] if include_self else []) + vals, a.dtype)
        if reduce == "sum":
            r = v.sum(dtype=a.dtype)
        elif reduce == "prod":
            r = v.prod(dtype=a.dtype)
        elif reduce == "mean":
            r = v.sum(dtype=a.dtype) / len(v) if a.dtype.kind == "f" else v.sum() // len(v)
        else:
            r = v.max() if reduce == "amax" else v.min()
        out[tgt] = r
    return out


def _index_add_ref(a, dim, idx, src, alpha=1):
    out = a.copy()
    o, s = _moved(out, dim), _moved(src, dim)
    for j, i in enumerate(np.atleast_1d(idx)):
        o[i] = (o[i] + s[j] * np.array(alpha).astype(a.dtype)).astype(a.dtype)
    return out


def _index_copy_ref(a, dim, idx, src):
    out = a.copy()
    _moved(out, dim)[np.atleast_1d(idx)] = _moved(src, dim)
    return out


def _index_fill_ref(a, dim, idx, value):
    out = a.copy()
    _moved(out, dim)[np.atleast_1d(idx)] = value
    return out


def _index_put_ref(a, indices, values, accumulate=False):
    out = a.copy()
    key = tuple(indices)
    if accumulate:
        np.add.at(out, key, np.broadcast_to(values, out[key].shape))
    else:
        out[key] = values
    return out


def _masked_fill_ref(a, mask, value):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    return np.where(mask, np.asarray(value).astype(a.dtype), a).astype(a.dtype).reshape(shape)


def _masked_select_ref(a, mask):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


def _masked_scatter_ref(a, mask, src):
    out = a.copy()
    mask = np.broadcast_to(mask, a.shape)
    out[mask] = src.reshape(-1)[: int(mask.sum())]
    return out


def _put_ref(a, idx, src, accumulate=False):
    out = a.copy().reshape(-1)
    if accumulate:
        np.add.at(out, idx.reshape(-1), src.reshape(-1))
    else:
        out[idx.reshape(-1)] = src.reshape(-1)
    return out.reshape(a.shape)


def _take_along_dim_ref(a, idx, dim=None):
    if dim is None:
        return a.reshape(-1)[idx.reshape(-1)]
    return np.take_along_axis(a, np.where(idx < 0, idx + a.shape[dim], idx), dim)


def _bincount_ref(x, weights=None, minlength=0):
    r = np.bincount(x, weights, minlength)
    return r.astype(np.float32) if weights is not None and weights.dtype == np.float32 else r


def _searchsorted_ref(seq, x, out_int32=False, right=False, side=None):
    s = side or ("right" if right else "left")
    if seq.ndim == 1:
        return np.searchsorted(seq, x, s)
    return np.stack([np.searchsorted(b, v, s) for b, v in zip(seq, x, strict=True)])


def _getitem_ref(a, key):
    return a[key]


# ---- samples ---------------------------------------------------------------------------------------
def _gather_samples(dtype, rng):
    a = make_arg((3, 4), dtype, rng)
    return [
        _S(a, (1, _idx(rng, (3, 2), 4)), name="dim1"),
        _S(a, (0, _idx(rng, (2, 4), 3)), name="dim0"),
        _S(a, (-1, _idx(rng, (2, 3), 4)), name="smaller"),
        _S(
            make_arg((2, 3, 4), dtype, rng, noncontiguous=True),
            (2, _idx(rng, (2, 3, 5), 4)),
            name="nc",
        ),
        _S(make_arg((), dtype, rng), (0, np.array(0)), name="0d"),
        _S(a, (1, np.zeros((3, 0), np.int64)), name="empty"),
    ]


def _src_samples(with_src=True, value=False):
    def gen(dtype, rng):
        a = make_arg((3, 4), dtype, rng)
        out = []
        for dim, ishape in ((0, (2, 4)), (1, (3, 3)), (-1, (2, 2))):
            n = a.shape[dim]
            i = np.stack(
                [rng.permutation(n)[: ishape[dim]] for _ in range(ishape[1 - dim % 2])], 1 - dim % 2
            )
            i = i.astype(np.int64)
            src = make_arg(i.shape, dtype, rng) if with_src else (True if dtype == "bool" else 3)
            out.append(_S(a, (dim, i, src), name=f"dim{dim}"))
        out.append(
            _S(
                make_arg((), dtype, rng),
                (0, np.array(0), make_arg((), dtype, rng) if with_src else 2),
                name="0d",
            )
        )
        return out

    return gen


def _dup_samples(extra=()):
    """Repeated indices (accumulating ops), non-contiguous self; src larger than the index is in
    tests/ops/indexing/test_indexing.py (PyTorch's src gradient has the index's shape)."""

    def gen(dtype, rng):
        out = [
            _S(
                make_arg((3, 4), dtype, rng),
                (1, _idx(rng, (3, 6), 4), make_arg((3, 6), dtype, rng), *extra),
                name="dup",
            ),
            _S(
                make_arg((4,), dtype, rng),
                (0, np.array([0, 0, 3, 0]), make_arg((4,), dtype, rng), *extra),
                name="1d",
            ),
            _S(
                make_arg((2, 3, 4), dtype, rng, noncontiguous=True),
                (0, _idx(rng, (3, 3, 4), 2), make_arg((3, 3, 4), dtype, rng), *extra),
                name="nc",
            ),  # fmt: skip
        ]
        return out

    return gen


def _scatter_reduce_samples(dtype, rng):
    out = []
    cases = [(r, i % 2 == 0) for i, r in enumerate(("sum", "prod", "mean", "amax", "amin") * 2)]
    for reduce, inc in cases:  # varied first: the gradient tests take the first four
        a, src = make_arg((2, 4), dtype, rng, 1, 4), make_arg((2, 5), dtype, rng, 1, 4)
        out.append(
            _S(
                a,
                (1, _idx(rng, (2, 5), 4), src, reduce),
                {"include_self": inc},
                name=f"{reduce}{inc}",
            )
        )
    return out


def _along_samples(extra=lambda dtype, rng, shape: (), inplace_ok=True):
    def gen(dtype, rng):
        a = make_arg((3, 4), dtype, rng)
        return [
            _S(a, (0, np.array([2, 0]), *extra(dtype, rng, (2, 4))), name="dim0"),
            _S(a, (1, np.array([3, 1, 2]), *extra(dtype, rng, (3, 3))), name="dim1"),
            _S(
                make_arg((2, 3, 4), dtype, rng, noncontiguous=True),
                (-1, np.array([0]), *extra(dtype, rng, (2, 3, 1))),
                name="nc",
            ),
            _S(
                make_arg((4,), dtype, rng),
                (0, np.array(1), *extra(dtype, rng, (1,))),
                name="0d-index",
            ),
        ]

    return gen


def _arr(dtype, rng, shape):
    return (make_arg(shape, dtype, rng),)


def _fill(dtype, rng, shape):
    return (True if dtype == "bool" else 5,)


def _index_put_samples(accumulate):
    def gen(dtype, rng):
        a = make_arg((3, 4), dtype, rng)
        idx = (
            [np.array([0, 2, 0]), np.array([1, 1, 3])]
            if accumulate
            else [np.array([0, 2]), np.array([1, 3])]
        )
        n, rows = len(idx[0]), np.array([2, 2, 0] if accumulate else [2, 0])
        return [
            _S(a, (idx, make_arg((n,), dtype, rng), accumulate), name="pairs"),
            _S(a, ([rows], make_arg((len(rows), 4), dtype, rng), accumulate), name="rows"),
            _S(a, ([a > a.flat[0]], make_arg((), dtype, rng), accumulate), name="mask"),
            _S(
                make_arg((2, 3, 4), dtype, rng, noncontiguous=True),
                ([np.array([1]), np.array([[0], [2]])], make_arg((4,), dtype, rng), accumulate),
                name="bcast-nc",
            ),  # fmt: skip
        ]

    return gen


def _masked_samples(value):
    def gen(dtype, rng):
        a = make_arg((3, 4), dtype, rng)
        return [
            _S(a, (make_arg((3, 4), "bool", rng), *value(dtype, rng)), name="same"),
            _S(a, (make_arg((4,), "bool", rng), *value(dtype, rng)), name="bcast-mask"),
            _S(
                make_arg((2, 3, 4), dtype, rng, noncontiguous=True),
                (make_arg((3, 1), "bool", rng), *value(dtype, rng)),
                name="nc",
            ),
            _S(make_arg((), dtype, rng), (np.array(True), *value(dtype, rng)), name="0d"),
        ]

    return gen


def _scalar_value(dtype, rng):
    return (True if dtype == "bool" else -2,)


def _tensor_value(dtype, rng):
    return (make_arg((), dtype, rng),)


def _masked_scatter_samples(dtype, rng):
    a = make_arg((3, 4), dtype, rng)
    return [
        _S(a, (make_arg((3, 4), "bool", rng), make_arg((3, 4), dtype, rng)), name="same"),
        _S(a, (make_arg((4,), "bool", rng), make_arg((13,), dtype, rng)), name="bcast-mask"),
    ]


def _where_samples(dtype, rng):
    return [
        _S(
            make_arg((3, 4), dtype, rng),
            (make_arg((3, 4), "bool", rng), make_arg((3, 4), dtype, rng)),
            name="same",
        ),
        _S(
            make_arg((3, 1), dtype, rng),
            (make_arg((4,), "bool", rng), make_arg((1, 4), dtype, rng)),
            name="bcast",
        ),
        _S(
            make_arg((2, 3), dtype, rng, noncontiguous=True),
            (make_arg((2, 3), "bool", rng), make_arg((), dtype, rng)),
            name="nc",
        ),
    ]


def _where_fn_samples(dtype, rng):
    return [_S(s.args[0], (s.input, s.args[1]), name=s.name) for s in _where_samples(dtype, rng)]


def _unary_samples(dtype, rng):
    return [
        _S(make_arg(s, dtype, rng, -1, 2), name=str(s)) for s in ((), (0,), (5,), (3, 4), (2, 2, 3))
    ]


def _take_samples(dtype, rng):
    a = make_arg((3, 4), dtype, rng)
    return [
        _S(a, (np.array([[0, -1], [5, 11]]),), name="2d"),
        _S(make_arg((2, 3, 4), dtype, rng, noncontiguous=True), (np.array([7, 7, 0]),), name="nc"),
        _S(make_arg((), dtype, rng), (np.array([0, -1]),), name="0d"),
    ]


def _put_samples(accumulate):
    def gen(dtype, rng):
        idx = np.array([1, -1, 1]) if accumulate else np.array([1, -1, 4])
        return [
            _S(
                make_arg((3, 4), dtype, rng),
                (idx, make_arg((3,), dtype, rng), accumulate),
                name="flat",
            ),
            _S(
                make_arg((2, 3), dtype, rng, noncontiguous=True),
                (idx.reshape(3, 1), make_arg((3,), dtype, rng), accumulate),
                name="nc",
            ),
        ]

    return gen


def _take_along_samples(dtype, rng):
    a = make_arg((3, 4), dtype, rng)
    return [
        _S(a, (_idx(rng, (3, 2), 4, -4), 1), name="dim1"),
        _S(a, (_idx(rng, (1, 4), 3), 0), name="bcast"),
        _S(a, (_idx(rng, (5,), 12),), name="flat"),
    ]


def _bincount_samples(dtype, rng):
    x = rng.integers(0, 6, size=8).astype(dtype)
    return [_S(x, name="plain"), _S(x, (rng.random(8).astype(np.float32),), name="weights"),
            _S(x, (), {"minlength": 9}, name="minlength"), _S(np.zeros(0, dtype), name="empty")]  # fmt: skip


def _searchsorted_samples(dtype, rng):
    seq = np.sort(make_arg((6,), dtype, rng))
    rows = np.sort(make_arg((2, 5), dtype, rng), axis=-1)
    return [
        _S(seq, (make_arg((3, 2), dtype, rng),), name="1d"),
        _S(seq, (make_arg((4,), dtype, rng),), {"right": True}, name="right"),
        _S(rows, (make_arg((2, 3), dtype, rng),), {"side": "right"}, name="rows"),
    ]


def _bucketize_samples(dtype, rng):
    return [_S(make_arg((3, 2), dtype, rng), (np.sort(make_arg((5,), dtype, rng)),), {"right": r}, name=f"right={r}")
            for r in (False, True)]  # fmt: skip


def _getitem_samples(dtype, rng):
    a = make_arg((3, 4, 5), dtype, rng)
    keys = [1, -1, slice(1, None), (Ellipsis, slice(None, None, 2)), (0, None, slice(1, 3)), None, (),
            np.array([2, 0, 2]), (slice(None), np.array([[1], [3]]), np.array([0, 4])), a[..., 0] > a[0, 0, 0],
            (np.array([0, 1]), slice(1, 3), np.array([4, 4])), (Ellipsis, np.array([True, False, True, True, False]))]  # fmt: skip
    out = [_S(a, (k,), name=repr(k)[:40]) for k in keys]
    out.append(
        _S(
            make_arg((3, 4), dtype, rng, noncontiguous=True),
            ((slice(None, None, 2), np.array([1, 0])),),
            name="nc",
        )
    )
    return out


def _index_select_ref(a, dim, idx):
    return np.take(a, np.atleast_1d(idx), axis=dim)


OPINFOS = [
    OpInfo("Tensor.__getitem__", _getitem_ref, _getitem_samples, dtypes=ALL_REAL),
    OpInfo("gather", _gather_ref, _gather_samples, dtypes=ALL_REAL, method="gather", supports_out=True),
    OpInfo("scatter", _scatter_ref, _src_samples(), dtypes=ALL_REAL, method="scatter", inplace="scatter_",
           supports_out=True),
    OpInfo("Tensor.scatter", lambda a, d, i, v: _scatter_ref(a, d, i, value=v), _src_samples(False), dtypes=ALL_REAL,
           variants=("scatter.value",)),
    OpInfo("Tensor.scatter_add", _scatter_add_ref, _dup_samples(), dtypes=ALL_REAL, variants=("scatter_add_",)),
    OpInfo("scatter_add", _scatter_add_ref, _dup_samples(), dtypes=ALL_REAL, method="scatter_add",
           inplace="scatter_add_", supports_out=True),
    OpInfo("scatter_reduce", _scatter_reduce_ref, _scatter_reduce_samples, dtypes=NUM, method="scatter_reduce",
           inplace="scatter_reduce_", supports_out=True, tol={"float32": (1e-5, 1e-4)}),
    OpInfo("index_select", _index_select_ref, _along_samples(), dtypes=ALL_REAL, method="index_select",
           supports_out=True),
    OpInfo("index_add", _index_add_ref, _along_samples(_arr), dtypes=ALL_REAL, method="index_add",
           inplace="index_add_", supports_out=True),
    OpInfo("index_copy", _index_copy_ref, _along_samples(_arr), dtypes=ALL_REAL, method="index_copy",
           inplace="index_copy_", supports_out=True),
    OpInfo("index_fill", _index_fill_ref, _along_samples(_fill), dtypes=ALL_REAL, method="index_fill",
           inplace="index_fill_"),
    OpInfo("index_put", _index_put_ref, _index_put_samples(False), dtypes=ALL_REAL, method="index_put",
           inplace="index_put_", variants=("index_put_",)),
    OpInfo("Tensor.index_put", _index_put_ref, _index_put_samples(True), dtypes=ALL_REAL),
    OpInfo("masked_fill", _masked_fill_ref, _masked_samples(_scalar_value), dtypes=ALL_REAL, method="masked_fill",
           inplace="masked_fill_"),
    OpInfo("Tensor.masked_fill", _masked_fill_ref, _masked_samples(_tensor_value), dtypes=ALL_REAL),
    OpInfo("masked_select", _masked_select_ref, _masked_samples(lambda d, r: ()), dtypes=ALL_REAL,
           method="masked_select", supports_out=True),
    OpInfo("masked_scatter", _masked_scatter_ref, _masked_scatter_samples, dtypes=ALL_REAL, method="masked_scatter",
           inplace="masked_scatter_"),
    OpInfo("Tensor.where", lambda x, c, y: np.where(c, x, y), _where_samples, dtypes=ALL_REAL),
    OpInfo("where", lambda c, x, y: np.where(c, x, y), _where_fn_samples, dtypes=ALL_REAL, supports_out=True,
           grad=False),
    OpInfo("nonzero", np.argwhere, _unary_samples, dtypes=ALL_REAL, method="nonzero", supports_out=True, grad=False),
    OpInfo("argwhere", np.argwhere, _unary_samples, dtypes=ALL_REAL, method="argwhere", grad=False),
    OpInfo("take", lambda a, i: a.reshape(-1)[i], _take_samples, dtypes=ALL_REAL, method="take", supports_out=True),
    OpInfo("put", _put_ref, _put_samples(False), dtypes=ALL_REAL, method="put", inplace="put_"),
    OpInfo("Tensor.put", _put_ref, _put_samples(True), dtypes=ALL_REAL, variants=("put_",)),
    OpInfo("take_along_dim", _take_along_dim_ref, _take_along_samples, dtypes=ALL_REAL, method="take_along_dim",
           supports_out=True),
    OpInfo("bincount", _bincount_ref, _bincount_samples, dtypes=("uint8", "int32", "int64"), method="bincount",
           grad=False),
    OpInfo("searchsorted", _searchsorted_ref, _searchsorted_samples, dtypes=NUM, supports_out=True, grad=False),
    OpInfo("bucketize", lambda x, b, right=False: np.searchsorted(b, x, "right" if right else "left"),
           _bucketize_samples, dtypes=NUM, supports_out=True, grad=False),
]  # fmt: skip
