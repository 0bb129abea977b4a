"""Indexing behaviour: __getitem__/__setitem__ against NumPy on hypothesis-generated keys, views
sharing memory and the version counter, PyTorch's errors, and the area's gradients."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import numtorch
from numtorch.testing import assert_close

# ---- a NumPy model of PyTorch's indexing ----------------------------------------------------------
# PyTorch applies ints/slices/None as views first, then the index tensors (with NumPy's placement
# rules) to that view; NumPy instead treats ints as advanced indices. The model below does the
# two steps with NumPy, so the result's shape and values are NumPy's, not the code under test's.


def _is_adv(o) -> bool:
    return isinstance(o, np.ndarray)


def _model_parts(a: np.ndarray, key: tuple):
    basic = tuple(slice(None) if _is_adv(o) else o for o in key)
    view = a[basic if Ellipsis in basic else basic + (Ellipsis,)]  # an array view, even for 0-d
    specified = sum(o is not None and o is not Ellipsis for o in key)
    adv, pos = [], 0
    for o in key:
        if o is Ellipsis:
            n = a.ndim - specified
            adv += [slice(None)] * n
            pos += n
        elif isinstance(o, (int, np.integer)):
            continue
        elif _is_adv(o):
            adv.append(np.nonzero(o)[0] if o.dtype == bool else o)
        else:
            adv.append(slice(None))
    return view, tuple(adv) if any(_is_adv(o) for o in key) else None


def _model_get(a, key):
    view, adv = _model_parts(a, key)
    return view if adv is None else view[adv]


def _model_set(a, key, value):
    view, adv = _model_parts(a, key)
    if adv is None:
        view[...] = value
    else:
        view[adv] = value


def _dim_item(draw, n):
    kind = draw(st.sampled_from(["int", "slice", "array", "mask"] if n else ["slice", "mask"]))
    if kind == "int":
        return draw(st.integers(-n, n - 1))
    if kind == "slice":
        bound = st.none() | st.integers(-n - 2, n + 2)
        return slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 3)))
    if kind == "array":
        return np.array(draw(st.lists(st.integers(-n, n - 1), max_size=3)), np.int64)
    return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)


@st.composite
def index_keys(draw, min_dim=0):
    """(shape, key): ints, slices (any start/stop, positive step), None, int arrays (negative
    entries included) and 1-D bool masks for leading dims, optionally an Ellipsis followed by
    items for trailing dims."""
    shape = tuple(draw(st.lists(st.integers(min_dim, 4), min_size=0, max_size=4)))
    nd = len(shape)
    head = draw(st.integers(0, nd))
    tail = draw(st.integers(0, nd - head))
    ellipsis = tail > 0 or draw(st.booleans())
    dims = list(range(head)) + ([None] if ellipsis else []) + list(range(nd - tail, nd))
    items = []
    for d in dims:
        if draw(st.booleans()) and draw(st.booleans()):
            items.append(None)
        items.append(Ellipsis if d is None else _dim_item(draw, shape[d]))
    key = tuple(items)
    arrays = [o for o in key if _is_adv(o)]
    shapes = [(int(o.sum()),) if o.dtype == bool else o.shape for o in arrays]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        key = tuple(
            slice(None) if _is_adv(o) else o for o in key
        )  # keep to broadcastable index tensors
    return shape, key


def _nt_array(a: np.ndarray):
    x = numtorch.zeros(a.shape, dtype=numtorch.float32)  # np copies of empty arrays have 0 strides
    x.numpy()[...] = a
    return x


def _nt_key(key):
    return tuple(numtorch.from_numpy(o.copy()) if _is_adv(o) else o for o in key)


_HYP = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_HYP
@given(index_keys())
def test_getitem_matches_numpy_model(case):
    shape, key = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = _nt_array(a)
    got = x[_nt_key(key)]
    want = _model_get(a, key)
    assert tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    basic = not any(_is_adv(o) for o in key)
    assert got._is_view() == basic
    if basic and got.numel():
        assert np.shares_memory(got.numpy(), x.numpy())


@_HYP
@given(index_keys(min_dim=1), st.booleans())  # empty targets: test_setitem_into_empty_tensor
def test_setitem_matches_numpy_model(case, tensor_value):
    shape, key = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = _nt_array(a)
    target_shape = _model_get(a, key).shape
    value = (
        np.arange(target_shape[-1] if target_shape else 1, dtype=np.float32) - 50
        if tensor_value
        else -7.5
    )
    if tensor_value and not target_shape:
        value = value.reshape(())
    v0 = x._version
    x[_nt_key(key)] = numtorch.from_numpy(value) if tensor_value else value
    _model_set(a, key, value)
    np.testing.assert_array_equal(x.numpy(), a)
    assert x._version == v0 + 1


def test_setitem_into_empty_tensor():
    x = numtorch.zeros(0, 2)
    x[()] = numtorch.ones(2)
    assert x.shape == (0, 2) and x.stride() == (2, 1)  # PyTorch's strides, not NumPy 2's zeros


# ---- views, memory and the version counter ----------------------------------------------------------
def test_basic_indexing_returns_views_sharing_storage_and_version():
    x = numtorch.zeros(3, 4)
    for v in (x[1], x[:, 1:3], x[None, ..., ::2], x[...], x[0, None]):
        assert v._is_view() and v._base is x
        assert np.shares_memory(v.numpy(), x.numpy())
    row = x[1]
    row[2] = 5.0
    assert x[1, 2].item() == 5.0
    v0 = x._version
    row.add_(1)
    assert x._version == row._version == v0 + 1
    assert x[1, 0].item() == 1.0


def test_ellipsis_alone_is_a_fresh_alias():
    x = numtorch.ones(2)
    y = x[...]
    assert y is not x and y._is_view() and y._base is x


def test_advanced_indexing_copies():
    x = numtorch.zeros(3)
    y = x[numtorch.tensor([0, 1])]
    y[0] = 9.0
    assert x[0].item() == 0.0 and not y._is_view()


def test_setitem_through_view_updates_base_and_bumps_version():
    x = numtorch.zeros(2, 3)
    v = x[0]
    before = v._version
    x[0, 1:] = numtorch.tensor([1.0, 2.0])
    assert v.tolist() == [0.0, 1.0, 2.0] and v._version == before + 1


def test_setitem_casts_scalars_and_tensors_to_the_destination_dtype():
    x = numtorch.zeros(3, dtype=numtorch.int64)
    x[0] = 2.7
    x[1:] = numtorch.tensor([-1.9, 4.2], dtype=numtorch.float64)
    assert x.tolist() == [2, -1, 4] and x.dtype is numtorch.int64


def test_setitem_strips_leading_unit_dims_of_the_value():
    x = numtorch.zeros(2, 3)
    x[0] = numtorch.ones(1, 1, 3)
    x[numtorch.tensor([1])] = numtorch.full((1, 1, 3), 2.0)
    assert x.tolist() == [[1.0] * 3, [2.0] * 3]


def test_false_index_writes_nothing_and_true_index_writes_all():
    x = numtorch.zeros(2)
    x[False] = 1.0
    assert x.tolist() == [0.0, 0.0] and x._version == 0
    x[True] = 1.0
    assert x.tolist() == [1.0, 1.0]


def test_zero_dim_tensors_index_like_ints_and_bools():
    x = numtorch.arange(6).reshape(2, 3)
    assert x[numtorch.tensor(1), numtorch.tensor(2)].item() == 5
    assert x[numtorch.tensor(1, dtype=numtorch.int32)]._is_view()
    assert x[numtorch.tensor(True)].shape == (1, 2, 3)
    assert x[numtorch.tensor(False)].shape == (0, 2, 3)
    assert x[numtorch.tensor(1) :].shape == (1, 3)


def test_non_tuple_sequences_follow_pytorchs_heuristic():
    x = numtorch.arange(6).reshape(2, 3)
    assert x[[1, 0]].tolist() == [[3, 4, 5], [0, 1, 2]]
    assert x[[True, False]].tolist() == [[0, 1, 2]]
    with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing"):
        assert x[[0, slice(1, None)]].tolist() == [1, 2]
    assert x[np.array([1])].tolist() == [[3, 4, 5]]
    assert x[[0.7]].tolist() == [[0, 1, 2]]  # float lists become int64 indices


def test_index_dtypes_accepted():
    x = numtorch.arange(4)
    assert x[numtorch.tensor([3, 1], dtype=numtorch.int32)].tolist() == [3, 1]
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        assert x[numtorch.tensor([1, 0, 0, 1], dtype=numtorch.uint8)].tolist() == [0, 3]


# ---- errors (type and PyTorch's text) ------------------------------------------------------------------
ERRORS = [
    (lambda: numtorch.zeros(3)[5], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    (lambda: numtorch.zeros(3)[-4], IndexError, "index -4 is out of bounds for dimension 0 with size 3"),
    (lambda: numtorch.zeros(2, 3)[0, 7], IndexError, "index 7 is out of bounds for dimension 1 with size 3"),
    (lambda: numtorch.zeros(3)[0, 0], IndexError, "too many indices for tensor of dimension 1"),
    (lambda: numtorch.zeros(3)[::-1], ValueError, "step must be greater than zero"),
    (lambda: numtorch.zeros(3)[::0], ValueError, "slice step cannot be zero"),
    (lambda: numtorch.zeros(3)[1.5], IndexError,
     "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got float)"),
    (lambda: numtorch.zeros(3)[numtorch.tensor([True, False])], IndexError,
     "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3] at index 0"),
    (lambda: numtorch.zeros(2, 3)[:, numtorch.tensor([True])], IndexError,
     "The shape of the mask [1] at index 0 does not match the shape of the indexed tensor [2, 3] at index 1"),
    (lambda: numtorch.zeros(3)[numtorch.tensor([0.0])], IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    (lambda: numtorch.zeros(2, 3)[:, numtorch.tensor([4])], IndexError,
     "index 4 is out of bounds for dimension 0 with size 3"),
    (lambda: numtorch.zeros(2, 3)[numtorch.tensor([0, 1]), numtorch.tensor([0, 1, 2])], IndexError,
     "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"),
    (lambda: numtorch.tensor(1.0)[0], IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python"),
    (lambda: numtorch.zeros(3).__setitem__(0, [1.0]), TypeError, "can't assign a list to a torch.FloatTensor"),
    (lambda: numtorch.zeros(3).__setitem__(0, "a"), TypeError, "can't assign a str to a torch.FloatTensor"),
    (lambda: numtorch.zeros(3, dtype=numtorch.int8).__setitem__(0, 300), RuntimeError,
     "value cannot be converted to type int8_t without overflow"),
    (lambda: numtorch.zeros(3).__setitem__(numtorch.tensor([0]), numtorch.ones(1, dtype=numtorch.int64)),
     RuntimeError, "Index put requires the source and destination dtypes match, got Float for the destination and Long"),
    (lambda: numtorch.zeros(3).__setitem__(numtorch.tensor([0, 1]), numtorch.ones(3)), RuntimeError,
     "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2]"),
    (lambda: numtorch.zeros(2, 3).__setitem__(0, numtorch.ones(2)), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0"),
    (lambda: numtorch.gather(numtorch.zeros(3, 3), 1, numtorch.tensor([[0.0]])), RuntimeError,
     "gather(): Expected dtype int32/int64 for index"),
    (lambda: numtorch.gather(numtorch.zeros(5, 3), 1, numtorch.tensor([[7]])), RuntimeError,
     "index 7 is out of bounds for dimension 1 with size 3"),
    (lambda: numtorch.gather(numtorch.zeros(5, 3), 1, numtorch.tensor([0])), RuntimeError,
     "Index tensor must have the same number of dimensions as input tensor"),
    (lambda: numtorch.zeros(5, 3).scatter(0, numtorch.tensor([[7]]), 1.0), RuntimeError,
     "index 7 is out of bounds for dimension 0 with size 5"),
    (lambda: numtorch.zeros(5, 3).scatter_add(0, numtorch.tensor([0]), numtorch.ones(1)), RuntimeError,
     "Index tensor must have the same number of dimensions as self tensor"),
    (lambda: numtorch.zeros(3).scatter(0, numtorch.tensor([0]), numtorch.ones(1, dtype=numtorch.float64)),
     RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda: numtorch.zeros(3).scatter_reduce(0, numtorch.tensor([0]), numtorch.ones(1), "max"), RuntimeError,
     "reduce argument must be either sum, prod, mean, amax or amin, got max"),
    (lambda: numtorch.zeros(3).masked_fill(numtorch.ones(3), 1.0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    (lambda: numtorch.zeros(3).masked_fill(numtorch.ones(3, dtype=numtorch.bool), numtorch.ones(2)), RuntimeError,
     "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    (lambda: numtorch.zeros(3).masked_fill_(numtorch.ones(2, 3, dtype=numtorch.bool), 1.0), RuntimeError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (lambda: numtorch.where(numtorch.ones(3), numtorch.zeros(3), 1.0), RuntimeError,
     "where expected condition to be a boolean tensor, but got a tensor with dtype Float"),
    (lambda: numtorch.zeros(3).index_fill(0, numtorch.tensor([3]), 1.0), IndexError,
     "index 3 is out of bounds for dimension 0 with size 3"),
    (lambda: numtorch.zeros(3).index_copy(0, numtorch.tensor([-1]), numtorch.ones(1)), IndexError,
     "index_copy_(): index -1 is out of bounds for dimension 0 with size 3"),
    (lambda: numtorch.take(numtorch.zeros(3), numtorch.tensor([3])), IndexError,
     "out of range: tried to access index 3 on a tensor of 3 elements."),
    (lambda: numtorch.bincount(numtorch.tensor([-1])), RuntimeError,
     "bincount only supports 1-d non-negative integral inputs."),
    (lambda: numtorch.bincount(numtorch.tensor([1.0])), NotImplementedError, "\"bincount_cpu\" not implemented for 'Float'"),
]  # fmt: skip


@pytest.mark.parametrize("fn, exc, text", ERRORS, ids=[e[2][:50] for e in ERRORS])
def test_errors_match_pytorch(fn, exc, text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as info:
            fn()
    assert str(info.value).startswith(text)
    assert "numba" not in str(info.value).lower() and "axis" not in str(info.value)


# ---- op behaviour the OpInfo table does not cover --------------------------------------------------------
def test_scatter_accumulates_duplicates_in_every_dtype_path():
    idx = numtorch.tensor([0, 0, 2, 0])
    for dt in (
        numtorch.float16,
        numtorch.float32,
        numtorch.int8,
        numtorch.int64,
        numtorch.complex64,
    ):
        r = numtorch.zeros(3, dtype=dt).scatter_add(0, idx, numtorch.ones(4, dtype=dt))
        assert r.tolist() == [3, 0, 1] and r.dtype is dt
    b = numtorch.zeros(3, dtype=numtorch.bool).scatter_add(
        0, idx, numtorch.ones(4, dtype=numtorch.bool)
    )
    assert b.tolist() == [True, False, True]


def test_index_put_accumulate_wraps_small_integers():
    x = numtorch.zeros(2, dtype=numtorch.int8)
    x.index_put_(
        (numtorch.tensor([0, 0]),),
        numtorch.tensor([100, 100], dtype=numtorch.int8),
        accumulate=True,
    )
    assert x.tolist() == [-56, 0]


def test_scatter_reduce_mean_floors_integers_and_keeps_untouched_entries():
    r = numtorch.tensor([-1, 5]).scatter_reduce(
        0, numtorch.tensor([0, 0]), numtorch.tensor([-2, 0]), "mean"
    )
    assert r.tolist() == [-1, 5]
    r = numtorch.tensor([0, 7]).scatter_reduce(
        0, numtorch.tensor([0, 0]), numtorch.tensor([1, 2]), "mean", include_self=False
    )
    assert r.tolist() == [1, 7]


def test_scatter_reduce_amax_propagates_nan():
    r = numtorch.zeros(2).scatter_reduce(
        0, numtorch.tensor([0, 0]), numtorch.tensor([float("nan"), 1.0]), "amax"
    )
    assert np.isnan(r[0].item()) and r[1].item() == 0.0


def test_inplace_ops_on_noncontiguous_views_write_through():
    base = numtorch.zeros(3, 4)
    col = base[:, 1]
    col.index_add_(0, numtorch.tensor([0, 0, 2]), numtorch.ones(3))
    col.scatter_(0, numtorch.tensor([1]), numtorch.tensor([5.0]))
    col.masked_fill_(numtorch.tensor([False, False, True]), -1.0)
    col.put_(numtorch.tensor([-3]), numtorch.tensor([7.0]), accumulate=True)
    assert base[:, 1].tolist() == [9.0, 5.0, -1.0] and base.sum().item() == 13.0


def test_where_with_condition_only_is_nonzero_as_tuple():
    c = numtorch.tensor([[True, False], [True, True]])
    for a, b in zip(numtorch.where(c), numtorch.nonzero(c, as_tuple=True), strict=True):
        assert a.tolist() == b.tolist()


def test_where_promotes_like_pytorch():
    c = numtorch.tensor([True, False])
    assert numtorch.where(c, 1, 0).dtype is numtorch.int64
    assert numtorch.where(c, 1.0, 0).dtype is numtorch.float32
    assert numtorch.where(c, numtorch.tensor([1, 2]), 0.5).dtype is numtorch.float32
    assert (
        numtorch.where(c, numtorch.tensor(1.0, dtype=numtorch.float64), numtorch.zeros(2)).dtype
        is numtorch.float32
    )


def test_searchsorted_puts_nan_last_and_honours_sorter():
    seq = numtorch.tensor([5.0, 1.0, 3.0])
    r = numtorch.searchsorted(
        seq, numtorch.tensor([3.0, float("nan")]), sorter=numtorch.tensor([1, 2, 0])
    )
    assert r.tolist() == [1, 3]


def test_out_variants_write_into_out():
    out = numtorch.empty(0)
    r = numtorch.gather(numtorch.tensor([[1.0, 2.0]]), 1, numtorch.tensor([[1]]), out=out)
    assert r is out and out.tolist() == [[2.0]]
    out = numtorch.empty(0, dtype=numtorch.int64)
    assert numtorch.nonzero(numtorch.tensor([0, 3]), out=out) is out and out.tolist() == [[1]]


# ---- gradients --------------------------------------------------------------------------------------------
def _grad(fn, x):
    x = numtorch.tensor(x, dtype=numtorch.float64, requires_grad=True)
    fn(x).sum().backward()
    return x.grad


def test_setitem_gradient_flows_to_value_and_masks_overwritten_entries():
    x = numtorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = numtorch.tensor(10.0, requires_grad=True)
    y = x * 1
    y[numtorch.tensor([0, 2])] = v
    (y * numtorch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 0.0] and v.grad.item() == 4.0


def test_index_gradient_accumulates_repeated_indices():
    g = _grad(lambda x: x[numtorch.tensor([0, 0, 1])], [1.0, 2.0, 3.0])
    assert g.tolist() == [2.0, 1.0, 0.0]


def test_scatter_reduce_gradients_follow_pytorch_rules():
    idx = numtorch.tensor([0, 0, 1])
    src = numtorch.tensor([3.0, 3.0, 1.0], dtype=numtorch.float64, requires_grad=True)
    x = numtorch.tensor([3.0, 5.0], dtype=numtorch.float64, requires_grad=True)
    x.scatter_reduce(0, idx, src, "amax").sum().backward()
    assert x.grad.tolist() == [1 / 3, 1.0] and src.grad.tolist() == [1 / 3, 1 / 3, 0.0]
    g = _grad(
        lambda s: numtorch.ones(2, dtype=numtorch.float64).scatter_reduce(0, idx, s, "mean"),
        [1.0, 2.0, 3.0],
    )
    assert g.tolist() == [1 / 3, 1 / 3, 0.5]
    g = _grad(
        lambda s: numtorch.ones(2, dtype=numtorch.float64).scatter_reduce(0, idx, s, "prod"),
        [0.0, 2.0, 3.0],
    )
    assert g.tolist() == [2.0, 0.0, 1.0]


def test_legacy_scatter_reduce_has_no_derivative():
    x = numtorch.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = x.scatter(0, numtorch.tensor([0]), numtorch.ones(1), reduce="add")
    with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
        y.sum().backward()


def test_where_gradient_goes_to_the_chosen_side():
    c = numtorch.tensor([True, False])
    a = numtorch.tensor([1.0, 2.0], requires_grad=True)
    b = numtorch.tensor([3.0, 4.0], requires_grad=True)
    numtorch.where(c, a, b).sum().backward()
    assert_close(a.grad, numtorch.tensor([1.0, 0.0]))
    assert_close(b.grad, numtorch.tensor([0.0, 1.0]))


# ---- extension points ---------------------------------------------------------------------------------------
def test_indexing_decomposes_into_aten_view_ops_and_index():
    from numtorch.utils._python_dispatch import TorchDispatchMode

    calls = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(str(func))
            return func(*args, **(kwargs or {}))

    x, i, v = numtorch.zeros(2, 3, 4), numtorch.tensor([1]), numtorch.ones(3, 4)
    with Log():
        x[0, None, 1:]
        x[:, :, :]
        x[0, :, i]
        x[0] = 1.0
        x[i] = v
    assert calls == [
        "aten.select.int", "aten.unsqueeze.default", "aten.slice.Tensor",
        "aten.alias.default",
        "aten.select.int", "aten.index.Tensor",
        "aten.select.int", "aten.fill_.Tensor",
        "aten.index_put_.default",
    ]  # fmt: skip


def test_tensor_subclass_inside_the_key_sees_torch_function():
    seen = []

    class Idx(numtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    x = numtorch.arange(4)
    i = numtorch.tensor([2, 0]).as_subclass(Idx)
    r = x[(i,)]
    assert seen and seen[0] is numtorch.Tensor.__getitem__
    assert r.tolist() == [2, 0]
    x[(i,)] = 7
    assert numtorch.Tensor.__setitem__ in seen and x.tolist() == [7, 1, 7, 3]


def test_setitem_on_a_leaf_requiring_grad_raises():
    w = numtorch.zeros(3, requires_grad=True)
    with pytest.raises(
        RuntimeError, match="a view of a leaf Variable that requires grad is being used"
    ):
        w[0] = 2.0


def test_setitem_on_a_leaf_requiring_grad_is_allowed_under_no_grad():
    w = numtorch.zeros(3, requires_grad=True)
    with numtorch.no_grad():
        w[0] = 1.0
        w[numtorch.tensor([2])] = 5.0
    assert w.tolist() == [1.0, 0.0, 5.0] and w.is_leaf and w.requires_grad


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "complex64", "bfloat16"])
def test_where_same_dtype_and_shape_select(dtype):
    # the one-dtype, one-shape route (np.where of the data) against the engine's general route
    rng = np.random.default_rng(5)
    c = numtorch.from_numpy(rng.random((3, 4)) < 0.5)
    x = (numtorch.from_numpy(rng.standard_normal((3, 4)) * 5)).to(getattr(numtorch, dtype))
    y = (numtorch.from_numpy(rng.standard_normal((3, 4)) * 5)).to(getattr(numtorch, dtype))
    r = numtorch.where(c, x, y)
    assert r.dtype == x.dtype and r.shape == (3, 4)
    want = [[a if k else b for k, a, b in zip(*rows, strict=True)] for rows in zip(c.tolist(), x.tolist(), y.tolist(), strict=True)]
    assert r.tolist() == want
    assert numtorch.where(c[:, :1], x, y).tolist() == [[a if k else b for a, b in zip(xs, ys, strict=True)]
                                                       for (k,), xs, ys in zip(c[:, :1].tolist(), x.tolist(), y.tolist(), strict=True)]  # fmt: skip
    f = numtorch.tensor([float("nan"), -0.0, 1.0])
    s = numtorch.where(numtorch.tensor([True, True, False]), f, numtorch.tensor([0.0, 0.0, -0.0]))
    assert np.isnan(s[0].item()) and np.signbit(s.numpy()[1:]).all()
