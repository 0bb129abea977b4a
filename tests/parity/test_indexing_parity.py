"""Indexing against PyTorch itself: values, views, aten decomposition and error messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

from torch.utils._python_dispatch import TorchDispatchMode as TorchMode  # noqa: E402

from numtorch.utils._python_dispatch import TorchDispatchMode as NtMode  # noqa: E402


def _data(m, dtype="float32"):
    return m.tensor(np.arange(24).reshape(2, 3, 4).astype(dtype))


def _both(fn):
    """fn(m) with m = torch and m = numtorch; returns both results (or the exceptions raised)."""
    out = []
    for m in (torch, numtorch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(fn(m))
        except Exception as e:  # noqa: BLE001 - the exception is what we compare
            out.append(e)
    return out


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return np.asarray(x.detach().numpy() if hasattr(x, "detach") else x.numpy())


def _same(t, n):
    if isinstance(t, Exception) or isinstance(n, Exception):
        assert type(t) is type(n) and str(n) == str(t), f"torch: {t!r}\nnumtorch: {n!r}"
        return
    if isinstance(t, (tuple, list)):
        assert len(t) == len(n)
        for a, b in zip(t, n, strict=True):
            _same(a, b)
        return
    assert str(n.dtype) == str(t.dtype)
    np.testing.assert_array_equal(_np(n), _np(t))


KEYS = {
    "int": lambda m: 1,
    "neg_int": lambda m: -1,
    "slice": lambda m: slice(1, None),
    "step": lambda m: (Ellipsis, slice(None, None, 2)),
    "none": lambda m: None,
    "ellipsis": lambda m: Ellipsis,
    "empty_tuple": lambda m: (),
    "mixed": lambda m: (0, None, slice(1, None)),
    "full_slices": lambda m: (slice(None), slice(0, 100)),
    "tensor": lambda m: m.tensor([1, 0, 1]),
    "list": lambda m: [1, 0],
    "int_then_tensor": lambda m: (0, slice(None), m.tensor([3, 1])),
    "separated": lambda m: (m.tensor([0, 1]), slice(None), m.tensor([2, 3])),
    "none_between": lambda m: (m.tensor([0, 1]), None, m.tensor([1, 2])),
    "broadcast": lambda m: (m.tensor([[0], [1]]), slice(None), m.tensor([0, 3])),
    "mask": lambda m: m.tensor([[True, False, True], [False, True, True]]),
    "mask_then_int": lambda m: (m.tensor([[True, False, True], [False, True, True]]), 2),
    "mask_list": lambda m: (slice(None), [True, False, True]),
    "py_true": lambda m: True,
    "py_false": lambda m: (Ellipsis, False),
    "zero_dim_int": lambda m: m.tensor(1),
    "zero_dim_bool": lambda m: (m.tensor(True), 0),
    "int32_index": lambda m: m.tensor([1, 0], dtype=m.int32),
    "uint8_mask": lambda m: m.tensor([1, 0], dtype=m.uint8),
    "numpy_index": lambda m: np.array([1, 1]),
    "nested_list": lambda m: [[0, 1], [1, 2]],
    "tensor_slice_bound": lambda m: slice(m.tensor(1), None),
}


@pytest.mark.parametrize("name", KEYS)
def test_getitem_matches_torch(name):
    t, n = _both(lambda m: _data(m)[KEYS[name](m)])
    _same(t, n)
    if not isinstance(t, Exception):
        assert n._is_view() == t._is_view()


@pytest.mark.parametrize("name", KEYS)
def test_setitem_matches_torch(name):
    def run(m):
        x = _data(m)
        x[KEYS[name](m)] = -7
        return x

    _same(*_both(run))


def _log(fn):
    """The aten ops a call issues, as PyTorch names them, with tensors shown by shape."""
    keep = (
        "select",
        "slice",
        "unsqueeze",
        "alias",
        "index",
        "index_put_",
        "copy_",
        "fill_",
        "expand",
        "view",
    )

    def record(m, mode_cls):
        calls = []

        class Log(mode_cls):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if func.__name__.split(".")[0] in keep:
                    calls.append((func.__name__, [list(a.shape) if hasattr(a, "shape") else a for a in args
                                                  if not isinstance(a, (list, tuple))]))  # fmt: skip
                return func(*args, **(kwargs or {}))

        x = _data(m)
        args = fn(m, x)
        with Log():
            args()
        return calls

    return record(torch, TorchMode), record(numtorch, NtMode)


DECOMP = {
    "x[0]": lambda m, x: lambda: x[0],
    "x[1:]": lambda m, x: lambda: x[1:],
    "x[...]": lambda m, x: lambda: x[...],
    "x[0, None, 1:]": lambda m, x: lambda: x[0, None, 1:],
    "x[:, :, :]": lambda m, x: lambda: x[:, :, :],
    "x[0, :, I]": lambda m, x: (lambda i: lambda: x[0, :, i])(m.tensor([0, 1])),
    "x[0] = 1": lambda m, x: lambda: x.__setitem__(0, 1),
    "x[0] = t": lambda m, x: (lambda v: lambda: x.__setitem__(0, v))(m.ones(1, 4)),
    "x[:] = 1": lambda m, x: lambda: x.__setitem__(slice(None), 1),
    "x[I] = t": lambda m, x: (lambda i, v: lambda: x.__setitem__(i, v))(
        m.tensor([0]), m.ones(1, 3, 4)
    ),
}


@pytest.mark.parametrize("name", DECOMP)
def test_decomposes_into_the_same_aten_ops(name):
    t, n = _log(DECOMP[name])
    assert n == t


ERRORS = {
    "out_of_range": lambda m: _data(m)[5],
    "out_of_range_later": lambda m: _data(m)[0, 0, 9],
    "too_many": lambda m: _data(m)[0, 0, 0, 0],
    "negative_step": lambda m: _data(m)[::-1],
    "zero_step": lambda m: _data(m)[::0],
    "float_index": lambda m: _data(m)[1.5],
    "float_tensor_index": lambda m: _data(m)[m.tensor([0.0])],
    "mask_shape": lambda m: _data(m)[m.tensor([True, False, True])],
    "mask_shape_dim1": lambda m: _data(m)[:, m.tensor([True, False])],
    "tensor_oob": lambda m: _data(m)[:, m.tensor([0, 7])],
    "broadcast_mismatch": lambda m: _data(m)[m.tensor([0, 1]), m.tensor([0, 1, 2])],
    "zero_dim_int": lambda m: m.tensor(3.0)[0],
    "zero_dim_slice": lambda m: m.tensor(3.0)[:],
    "set_list": lambda m: _data(m).__setitem__(0, [1, 2, 3, 4]),
    "set_dtype": lambda m: _data(m).__setitem__(m.tensor([0]), m.ones(3, 4, dtype=m.int64)),
    "set_shape": lambda m: _data(m).__setitem__(0, m.ones(2, 4)),
    "set_overflow": lambda m: _data(m, "int8").__setitem__(0, 300),
    "set_complex": lambda m: _data(m).__setitem__(0, 1j),
    "set_adv_shape": lambda m: _data(m).__setitem__(
        (m.tensor([0, 1]), m.tensor([0, 1])), m.ones(5, 4)
    ),
    "gather_dtype": lambda m: m.gather(_data(m), 1, m.tensor([[[0.0]]])),
    "gather_oob": lambda m: m.gather(_data(m), 2, m.tensor([[[7]]])),
    "gather_dims": lambda m: m.gather(_data(m), 1, m.tensor([0])),
    "gather_size": lambda m: m.gather(_data(m), 1, m.zeros(3, 1, 1, dtype=m.int64)),
    "scatter_dims": lambda m: m.zeros(3, 4).scatter(1, m.tensor([0]), m.ones(1, 1)),
    "scatter_src_dtype": lambda m: m.zeros(3, 4).scatter(
        1, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)
    ),
    "scatter_size": lambda m: m.zeros(3, 4).scatter(1, m.zeros(4, 1, dtype=m.int64), m.ones(4, 1)),
    "scatter_reduce_name": lambda m: m.zeros(3).scatter(0, m.tensor([0]), m.ones(1), reduce="max"),
    "scatter_reduce_two_name": lambda m: m.zeros(3).scatter_reduce(
        0, m.tensor([0]), m.ones(1), "max2"
    ),
    "index_select_float": lambda m: m.index_select(_data(m), 1, m.tensor([0.0])),
    "index_select_2d": lambda m: m.index_select(_data(m), 1, m.tensor([[0]])),
    "index_select_oob": lambda m: m.index_select(m.zeros(3), 0, m.tensor([3])),
    "index_add_shape": lambda m: m.zeros(3, 4).index_add(1, m.tensor([0]), m.ones(2, 1)),
    "index_add_numel": lambda m: m.zeros(3, 4).index_add(1, m.tensor([0, 1]), m.ones(3, 1)),
    "index_add_dtype": lambda m: m.zeros(3, 4).index_add(
        1, m.tensor([0]), m.ones(3, 1, dtype=m.float64)
    ),
    "index_add_oob": lambda m: m.zeros(3, 4).index_add(1, m.tensor([7]), m.ones(3, 1)),
    "index_copy_oob": lambda m: m.zeros(3, 4).index_copy(1, m.tensor([7]), m.ones(3, 1)),
    "index_copy_slices": lambda m: m.zeros(2, 3, 4).index_copy(1, m.tensor([0]), m.ones(2, 1, 5)),
    "index_fill_dtype": lambda m: m.zeros(3).index_fill(0, m.tensor([0], dtype=m.int32), 1.0),
    "index_fill_oob": lambda m: m.zeros(3).index_fill(0, m.tensor([5]), 1.0),
    "masked_fill_float_mask": lambda m: m.zeros(3).masked_fill(m.ones(3), 1.0),
    "masked_fill_long_mask": lambda m: m.zeros(3).masked_fill(m.ones(3, dtype=m.int64), 1.0),
    "masked_fill_value_dim": lambda m: m.zeros(3).masked_fill(m.ones(3, dtype=m.bool), m.ones(1)),
    "masked_fill__broadcast": lambda m: m.zeros(3).masked_fill_(m.ones(2, 3, dtype=m.bool), 1.0),
    "masked_fill_overflow": lambda m: m.zeros(3, dtype=m.int8).masked_fill(
        m.ones(3, dtype=m.bool), 300
    ),
    "masked_select_mask": lambda m: m.zeros(3).masked_select(m.ones(3)),
    "masked_scatter_few": lambda m: m.zeros(3).masked_scatter(m.ones(3, dtype=m.bool), m.ones(2)),
    "where_condition": lambda m: m.where(m.ones(3), m.zeros(3), 1.0),
    "take_oob": lambda m: m.take(m.zeros(3), m.tensor([3])),
    "take_dtype": lambda m: m.take(m.zeros(3), m.tensor([0], dtype=m.int32)),
    "take_empty": lambda m: m.take(m.zeros(0), m.tensor([0])),
    "put_numel": lambda m: m.zeros(3).put_(m.tensor([0]), m.ones(2)),
    "put_dtype": lambda m: m.zeros(3).put_(m.tensor([0]), m.ones(1, dtype=m.int64)),
    "take_along_dim_dims": lambda m: m.take_along_dim(m.zeros(3, 4), m.tensor([0]), 1),
    "take_along_dim_dtype": lambda m: m.take_along_dim(
        m.zeros(3, 4), m.tensor([[0]], dtype=m.int32), 1
    ),
    "bincount_negative": lambda m: m.bincount(m.tensor([-1, 2])),
    "bincount_float": lambda m: m.bincount(m.tensor([1.0])),
    "bincount_weights": lambda m: m.bincount(m.tensor([1, 2]), m.tensor([1.0])),
    "searchsorted_side": lambda m: m.searchsorted(m.tensor([1.0, 2.0]), m.tensor([1.0]), side="up"),
    "searchsorted_rows": lambda m: m.searchsorted(m.tensor([[1.0, 2.0]]), m.tensor([[1.0], [2.0]])),
    "bucketize_2d": lambda m: m.bucketize(m.tensor([1.0]), m.tensor([[1.0, 2.0]])),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error_matches_torch(name):
    t, n = _both(ERRORS[name])
    assert isinstance(t, Exception), "the case must raise in PyTorch"
    _same(t, n)


def _i(m, v):
    return m.tensor(v)


def _scatter_reduce_case(reduce, include_self):
    def run(m):
        src = m.tensor([5.0, -1.0, 0.5, 7.0, -3.0])
        x = m.tensor([1.0, -2.0, 3.0, 4.0])
        return x.scatter_reduce(0, _i(m, [0, 0, 2, 2, 2]), src, reduce, include_self=include_self)

    return run


OPS = {
    "gather": lambda m: m.gather(_data(m), 2, _i(m, [[[3, 0]], [[1, 1]]])),
    "gather_int32": lambda m: m.gather(_data(m), 0, _i(m, [[[1]]]).int()),
    "scatter_src": lambda m: m.zeros(3, 4).scatter(1, _i(m, [[2, 0], [1, 3]]), m.ones(2, 3)),
    "scatter_value": lambda m: m.zeros(3, 4, dtype=m.int64).scatter(0, _i(m, [[2, 0, 1]]), 2.7),
    "scatter_add_dup": lambda m: m.zeros(5).scatter_add(0, _i(m, [0, 0, 4, 0]), m.ones(4)),
    "scatter_legacy_mul": lambda m: m.full((3,), 2.0).scatter(
        0, _i(m, [0, 0]), m.full((2,), 3.0), reduce="multiply"
    ),
    "scatter_value_add": lambda m: m.ones(3).scatter(0, _i(m, [0, 0]), 3.0, reduce="add"),
    **{
        f"scatter_reduce_{r}_{inc}": _scatter_reduce_case(r, inc)
        for r in ("sum", "prod", "mean", "amax", "amin")
        for inc in (True, False)
    },
    "scatter_reduce_mean_int": lambda m: m.tensor([0, 1, 2, 3]).scatter_reduce(
        0, _i(m, [0, 0, 1]), _i(m, [1, 2, 4]), "mean"
    ),
    "scatter_reduce_mean_int_neg": lambda m: m.tensor([-1, 0]).scatter_reduce(
        0, _i(m, [0, 0]), _i(m, [-2, 0]), "mean", include_self=False
    ),
    "index_select": lambda m: m.index_select(_data(m), 2, _i(m, [3, 0, 3])),
    "index_select_nc": lambda m: m.index_select(_data(m).transpose(0, 2), 0, _i(m, [1])),
    "index_select_scalar": lambda m: m.index_select(m.tensor(5.0), 0, _i(m, [0])),
    "index_add_alpha": lambda m: m.zeros(3, 2).index_add(
        0, _i(m, [0, 0, 2]), m.ones(3, 2), alpha=2
    ),
    "index_add_int_alpha": lambda m: m.zeros(3, dtype=m.int64).index_add(
        0, _i(m, [1]), _i(m, [3]), alpha=2.5
    ),
    "index_copy": lambda m: m.zeros(3, 2).index_copy(0, _i(m, [2, 0]), m.ones(2, 2)),
    "index_fill_neg": lambda m: m.zeros(2, 3).index_fill(1, _i(m, [-1]), 4.0),
    "index_fill_tensor": lambda m: m.zeros(2, 3).index_fill(1, _i(m, [0]), m.tensor(3.0)),
    "index_put_acc": lambda m: m.zeros(3).index_put_(
        (_i(m, [0, 0, 1]),), m.tensor([1.0, 2.0, 3.0]), accumulate=True
    ),
    "index_put_2d_acc": lambda m: m.zeros(3, 3).index_put(
        (_i(m, [[0], [1]]), _i(m, [0, 2])), m.tensor(1.0), accumulate=True
    ),
    "index_put_mask_acc": lambda m: m.zeros(2, 2).index_put(
        (m.tensor([[True, False], [True, True]]),), m.tensor([1.0, 2, 3]), True
    ),
    "index_put_int8_wrap": lambda m: m.zeros(3, dtype=m.int8).index_put_(
        (_i(m, [0, 0]),), m.tensor([100, 100], dtype=m.int8), True
    ),
    "masked_fill": lambda m: _data(m).masked_fill(_data(m) > 5, -1.0),
    "masked_fill_broadcast": lambda m: m.zeros(3).masked_fill(m.ones(2, 3, dtype=m.bool), 1.0),
    "masked_fill_int_value": lambda m: m.tensor([1, 2, 3]).masked_fill(
        m.tensor([True, False, True]), 2.5
    ),
    "masked_select": lambda m: _data(m).masked_select(m.tensor([True, False, False, True])),
    "masked_scatter": lambda m: m.zeros(2, 3).masked_scatter(
        m.tensor([[True, False, True], [False, True, False]]), m.arange(6.0).reshape(2, 3)
    ),
    "where": lambda m: m.where(_data(m) > 5, _data(m), m.zeros(1)),
    "where_scalars_int": lambda m: m.where(_data(m) > 5, 1, 0),
    "where_scalars_float": lambda m: m.where(_data(m) > 5, 1.0, 0),
    "where_int_float_scalar": lambda m: m.where(_data(m) > 5, _data(m, "int64"), 0.5),
    "where_zero_dim_promotion": lambda m: m.where(
        _data(m) > 5, m.tensor(1.0, dtype=m.float64), _data(m)
    ),
    "where_uint8_condition": lambda m: m.where(m.tensor([1, 0], dtype=m.uint8), m.zeros(2), 1.0),
    "where_condition_only": lambda m: m.where(_data(m) > 20),
    "nonzero": lambda m: m.nonzero(_data(m) > 20),
    "nonzero_tuple": lambda m: m.nonzero(_data(m) > 20, as_tuple=True),
    "nonzero_0d": lambda m: m.nonzero(m.tensor(1.0)),
    "nonzero_0d_tuple": lambda m: m.nonzero(m.tensor(1.0), as_tuple=True),
    "argwhere": lambda m: m.argwhere(m.tensor([[0.0, float("nan")], [2.0, 0.0]])),
    "take": lambda m: m.take(_data(m), _i(m, [[0, -1], [5, 23]])),
    "take_nc": lambda m: m.take(_data(m).transpose(0, 2), _i(m, [1, 2])),
    "put": lambda m: m.zeros(2, 3).put(_i(m, [0, -1]), m.tensor([1.0, 2.0])),
    "put_acc": lambda m: m.zeros(2, 3).put_(_i(m, [1, 1]), m.tensor([1.0, 2.0]), accumulate=True),
    "take_along_dim": lambda m: m.take_along_dim(_data(m), _i(m, [[[0, 3]]]), 2),
    "take_along_dim_none": lambda m: m.take_along_dim(_data(m), _i(m, [0, 23])),
    "take_along_dim_neg": lambda m: m.take_along_dim(m.zeros(3, 4), _i(m, [[-1]]), 1),
    "bincount": lambda m: m.bincount(_i(m, [0, 3, 3, 1])),
    "bincount_weights": lambda m: m.bincount(_i(m, [0, 3, 3]), m.tensor([0.5, 1.0, 2.0])),
    "bincount_int_weights": lambda m: m.bincount(_i(m, [0, 1]), _i(m, [1, 1])),
    "bincount_minlength": lambda m: m.bincount(_i(m, [1]), minlength=4),
    "searchsorted": lambda m: m.searchsorted(
        m.tensor([1.0, 3.0, 5.0]), m.tensor([[3.0, 6.0], [0.0, float("nan")]])
    ),
    "searchsorted_right": lambda m: m.searchsorted(
        m.tensor([1.0, 3.0, 5.0]), m.tensor([3.0]), right=True
    ),
    "searchsorted_rows": lambda m: m.searchsorted(
        m.tensor([[1.0, 3.0], [0.0, 9.0]]), m.tensor([[3.0], [4.0]]), side="right"
    ),
    "searchsorted_scalar": lambda m: m.searchsorted(m.tensor([1, 3, 5]), 4),
    "searchsorted_sorter": lambda m: m.searchsorted(
        m.tensor([5.0, 1.0, 3.0]), m.tensor([3.0]), sorter=_i(m, [1, 2, 0])
    ),
    "searchsorted_int32": lambda m: m.searchsorted(
        m.tensor([1.0, 3.0]), m.tensor([2.0]), out_int32=True
    ),
    "bucketize": lambda m: m.bucketize(m.tensor([3.0, 4.0]), m.tensor([1.0, 3.0, 5.0]), right=True),
}


@pytest.mark.parametrize("name", OPS)
def test_op_matches_torch(name):
    _same(*_both(OPS[name]))


GRADS = {
    "getitem": lambda m, x: x[0, 1:].sum() + x[m.tensor([1, 1])].sum(),
    "setitem": lambda m, x: _set_then_sum(m, x),
    "gather": lambda m, x: (
        m.gather(x, 1, m.tensor([[0, 0], [2, 1]])) * m.tensor([[1.0, 2.0], [3.0, 4.0]])
    ).sum(),
    "scatter": lambda m, x: (
        m.ones(2, 3)
        .scatter(1, m.tensor([[0, 0], [2, 1]]), x[:, :2])
        .mul(m.tensor([[1.0, 2.0, 3.0]]))
        .sum()
    ),
    "index_select": lambda m, x: (m.index_select(x, 1, m.tensor([2, 2, 0])) * 3).sum(),
    "masked_fill": lambda m, x: (x.masked_fill(x > 2, 0.0) * x).sum(),
    "where": lambda m, x: m.where(x > 2, x * 2, x * x).sum(),
    "take": lambda m, x: (m.take(x, m.tensor([5, 5, 0])) * m.tensor([1.0, 2.0, 3.0])).sum(),
    "masked_select": lambda m, x: (x.masked_select(x > 1) * 2).sum(),
    "index_put": lambda m, x: (
        x.index_put((m.tensor([0, 0]),), x[1, :] * 2, accumulate=True) * x
    ).sum(),
}


def _set_then_sum(m, x):
    y = x * 1
    y[0, m.tensor([1, 2])] = x[1, :2] * 5
    return (y * y).sum()


@pytest.mark.parametrize("name", GRADS)
def test_gradient_matches_torch(name):
    def run(m):
        x = m.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        GRADS[name](m, x).backward()
        return x.grad

    _same(*_both(run))


def _reduce_2_3(reduce):
    def run(m, dt):
        return m.full((3,), 2, dtype=dt).scatter_reduce(
            0, _i(m, [0, 0]), m.full((2,), 3, dtype=dt), reduce
        )

    return run


DTYPE_OPS = {
    "where": lambda m, dt: m.where(
        m.tensor([True, False]), m.ones(2, dtype=dt), m.zeros(2, dtype=dt)
    ),
    "gather": lambda m, dt: m.ones(2, 2, dtype=dt).gather(1, _i(m, [[1, 0], [0, 0]])),
    "scatter_add": lambda m, dt: m.zeros(3, dtype=dt).scatter_add(
        0, _i(m, [0, 0, 2]), m.ones(3, dtype=dt)
    ),
    "index_add": lambda m, dt: m.zeros(3, dtype=dt).index_add(
        0, _i(m, [0, 0, 2]), m.ones(3, dtype=dt)
    ),
    "masked_fill": lambda m, dt: m.zeros(3, dtype=dt).masked_fill(m.tensor([True, False, True]), 1),
    "index_put_acc": lambda m, dt: m.zeros(3, dtype=dt).index_put(
        (_i(m, [0, 0]),), m.ones(2, dtype=dt), True
    ),
    **{f"scatter_reduce_{r}": _reduce_2_3(r) for r in ("sum", "prod", "mean", "amax", "amin")},
    "take": lambda m, dt: m.ones(3, dtype=dt).take(_i(m, [2, 0])),
    "nonzero": lambda m, dt: m.tensor([0, 2, 3]).to(dt).nonzero(),
    "searchsorted": lambda m, dt: m.searchsorted(m.tensor([1, 2, 3]).to(dt), m.tensor([2]).to(dt)),
}


@pytest.mark.parametrize("dtype", ["complex64", "float16", "bool", "uint8", "int16"])
@pytest.mark.parametrize("name", DTYPE_OPS)
def test_op_dtype_support_matches_torch(name, dtype):
    _same(*_both(lambda m: DTYPE_OPS[name](m, getattr(m, dtype))))


def _overlap_case(fn):
    def run(m):
        b = m.arange(12.0).reshape(3, 4)
        fn(m, b)
        return b

    return run


OVERLAP = {
    "setitem_index_view": lambda m, b: b.__setitem__(m.tensor([1]), b[0]),
    "setitem_mask_scalar_view": lambda m, b: b.__setitem__(b > 5, b[0, 0]),
    "index_put_accumulate": lambda m, b: b.index_put_((m.tensor([1]),), b[0], accumulate=True),
    "index_put_functional": lambda m, b: b.copy_(b.index_put((m.tensor([1]),), b[0])),
    "scatter_": lambda m, b: b.scatter_(0, m.tensor([[0, 1, 2, 3]]), b[1:2]),
    "scatter_add_": lambda m, b: b.scatter_add_(0, m.tensor([[0, 1, 2, 3]]), b[1:2]),
    "index_add_": lambda m, b: b.index_add_(0, m.tensor([0]), b[1:2]),
    "index_copy_": lambda m, b: b.index_copy_(0, m.tensor([0]), b[1:2]),
    "put_": lambda m, b: b.put_(m.tensor([0]), b[1, :1]),
    "index_fill_": lambda m, b: b.index_fill_(0, m.tensor([0]), b[1, 0]),
}


@pytest.mark.parametrize("name", OVERLAP)
def test_writes_from_overlapping_memory_match_torch(name):
    _same(*_both(_overlap_case(OVERLAP[name])))


def test_index_fill_value_gradient_with_repeated_index_matches_torch():
    grads = []
    for lib in (numtorch, torch):
        x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        x.index_fill(1, lib.tensor([3, 0, 3, 3]), v).backward(lib.arange(12.0, dtype=lib.float64).reshape(3, 4))
        grads.append((v.grad.item(), x.grad.tolist()))
    assert grads[0] == grads[1]
