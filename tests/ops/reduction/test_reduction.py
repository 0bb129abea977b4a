"""Reduction-area behaviour beyond the OpInfo value tests: dtypes, errors (type and message),
NaN and empty semantics, named tuples, out=, large inputs (parallel kernels) and gradients."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.testing._opinfo import reduction as red_infos

from .._harness import to_nt

T = numtorch.tensor
NAN = float("nan")


def _np(t):
    return t.detach().numpy()


# ---- dtypes -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_sum_prod_and_cumsum_of_integers_and_bools_give_int64(dt):
    x = numtorch.from_numpy(np.array([1, 0, 1], dtype=dt))
    for r in (x.sum(), x.sum(0), x.prod(), x.cumsum(0), x.cumprod(0), x.nansum()):
        assert r.dtype is numtorch.int64


def test_sum_dtype_argument_and_float16_results():
    x = T([[1.5, 2.5], [3.5, 4.5]])
    assert x.sum(1, dtype=numtorch.int32).tolist() == [3, 7]
    assert x.sum(dtype=numtorch.float64).dtype is numtorch.float64
    h = x.half()
    assert h.sum().dtype is numtorch.float16 and h.sum().item() == 12.0
    assert h.mean(0).dtype is numtorch.float16
    assert h.softmax(1).dtype is numtorch.float16


def test_complex_sum_mean_prod():
    z = T([1 + 1j, 2 - 3j])
    assert z.sum().item() == 3 - 2j
    assert z.mean().item() == 1.5 - 1j
    assert z.prod().item() == (1 + 1j) * (2 - 3j)


@pytest.mark.parametrize("dt", [numtorch.int64, numtorch.int32, numtorch.bool])
def test_mean_of_integers_raises_pytorch_error(dt):
    name = {numtorch.int64: "Long", numtorch.int32: "Int", numtorch.bool: "Bool"}[dt]
    with pytest.raises(
        RuntimeError,
        match=rf"^mean\(\): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {name}$",
    ):
        T([1, 0]).to(dt).mean()
    with pytest.raises(
        RuntimeError,
        match="Optional dtype must be either a floating point or complex dtype. Got: Long",
    ):
        T([1.0]).mean(dtype=numtorch.int64)
    assert T([1, 2]).mean(dtype=numtorch.float64).item() == 1.5


def test_all_any_are_bool_except_for_uint8():
    x = T([[1.0, 0.0], [2.0, 3.0]])
    assert x.all().dtype is numtorch.bool and x.all(1).tolist() == [False, True]
    assert x.any(0).tolist() == [True, True]
    u = T([1, 0, 2], dtype=numtorch.uint8)
    assert u.all().dtype is numtorch.uint8 and u.all().item() == 0 and u.any().item() == 1
    assert T([NAN]).all().item() is True


def test_float_sum_of_ten_million_ones_is_exact():
    x = numtorch.ones(10**7)
    assert x.sum().item() == 1e7
    assert x.reshape(10, 10**6).sum(1).tolist() == [1e6] * 10
    assert x.reshape(10**6, 10).sum(0).tolist() == [1e6] * 10


# ---- dims -------------------------------------------------------------------------------------
def test_out_of_range_dims_raise_index_error_with_the_range():
    x = numtorch.zeros(2, 3)
    msg = r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"
    for f in (lambda: x.sum(2), lambda: x.amax((0, 2)), lambda: x.max(2), lambda: x.cumsum(2),
              lambda: x.softmax(2), lambda: x.sort(2), lambda: x.argmax(2), lambda: x.var(2)):  # fmt: skip
        with pytest.raises(IndexError, match=msg):
            f()
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1\)"):
        numtorch.tensor(3.0).sum(1)


def test_duplicate_dims_raise():
    x = numtorch.zeros(2, 3)
    for f in (
        lambda: x.sum((0, 0)),
        lambda: x.mean((1, -1)),
        lambda: x.amax([0, -2]),
        lambda: x.var((1, 1)),
    ):
        with pytest.raises(
            RuntimeError, match="^dim [01] appears multiple times in the list of dims$"
        ):
            f()


def test_zero_dim_tensor_reduces_over_dim_0_and_minus_1():
    s = T(2.5)
    for d in (0, -1):
        assert s.sum(d).shape == () and s.sum(d, keepdim=True).shape == ()
        mx = s.max(d)
        assert mx.values.item() == 2.5 and mx.indices.item() == 0
        assert s.argmax(d).item() == 0 and s.cumsum(d).item() == 2.5
        assert s.softmax(d).item() == 1.0 and s.sort(d).values.item() == 2.5
        assert s.logsumexp(d).item() == 2.5


def test_multiple_dims_in_any_order_and_keepdim():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = numtorch.from_numpy(a)
    np.testing.assert_array_equal(_np(x.sum((2, 0))), a.sum((0, 2)))
    assert x.mean((0, 2), keepdim=True).shape == (1, 3, 1)
    assert x.sum([]).item() == a.sum() and x.amax(()).item() == 23.0


def test_noncontiguous_and_transposed_inputs(rng):
    a = rng.standard_normal((6, 5, 4))
    x = numtorch.from_numpy(a)
    views = [
        (x.permute(2, 0, 1), a.transpose(2, 0, 1)),
        (x[:, ::2], a[:, ::2]),
        (x.transpose(0, 2)[1:], a.transpose(2, 1, 0)[1:]),
    ]
    for t, b in views:
        for dims in (0, 1, 2, (0, 2), (1, 2), None):
            np.testing.assert_allclose(_np(t.sum(dims)), b.sum(axis=dims), rtol=1e-12)
            np.testing.assert_allclose(_np(t.amax(() if dims is None else dims)), b.max(axis=dims))
        np.testing.assert_array_equal(_np(t.argmax(1)), b.argmax(1))
        np.testing.assert_allclose(_np(t.var(0)), b.var(0, ddof=1), rtol=1e-10)


# ---- large inputs: the parallel variants ----------------------------------------------------------
def test_large_inputs_match_numpy_on_every_parallel_path(rng):
    a = rng.standard_normal((700, 500)).astype(np.float32)
    x = numtorch.from_numpy(a)
    for d in (None, 0, 1):
        np.testing.assert_allclose(_np(x.sum(d)), a.sum(d, dtype=np.float64), rtol=2e-5, atol=1e-3)
        np.testing.assert_array_equal(_np(x.amax(() if d is None else d)), a.max(d))
    np.testing.assert_array_equal(_np(x.argmax(1)), a.argmax(1))
    np.testing.assert_array_equal(_np(x.argmin(0)), a.argmin(0))
    np.testing.assert_allclose(_np(x.var(1)), a.astype(np.float64).var(1, ddof=1), rtol=1e-5)
    for d in (0, 1):
        e = np.exp(a - a.max(d, keepdims=True))
        np.testing.assert_allclose(
            _np(x.softmax(d)), e / e.sum(d, keepdims=True), rtol=1e-5, atol=1e-7
        )
    np.testing.assert_array_equal(_np(x.topk(5, 1).values), -np.sort(-a, 1)[:, :5])
    long = numtorch.from_numpy(a[:, :3].copy())
    np.testing.assert_allclose(_np(long.sum(0)), a[:, :3].astype(np.float64).sum(0), rtol=1e-5)


# ---- empty reductions -------------------------------------------------------------------------
def test_empty_sum_prod_mean_all_any():
    e = numtorch.zeros(0, 3)
    assert e.sum().item() == 0 and e.prod().item() == 1 and math.isnan(e.mean().item())
    assert e.sum(0).tolist() == [0.0] * 3 and e.sum(1).shape == (0,)
    assert e.all().item() is True and e.any().item() is False
    assert e.logsumexp(0).tolist() == [-math.inf] * 3
    assert e.count_nonzero().item() == 0 and e.norm().item() == 0.0
    assert math.isnan(e.median().item())


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
def test_empty_max_min_need_a_nonempty_dim(name):
    e = numtorch.zeros(0, 3)
    fn = getattr(numtorch, name)
    with pytest.raises(
        RuntimeError,
        match=rf"^{name}\(\): Expected reduction dim to be specified for input.numel\(\) == 0. Specify the reduction dim with the 'dim' argument.$",
    ):
        fn(e)
    with pytest.raises(
        IndexError, match=rf"^{name}\(\): Expected reduction dim 0 to have non-zero size.$"
    ):
        fn(e, 0)
    r = fn(e, 1)
    assert (r.values if isinstance(r, tuple) else r).shape == (0,)


def test_empty_argmax_median_aminmax_and_var_errors():
    e = numtorch.zeros(0, 3)
    with pytest.raises(
        IndexError,
        match=r"^argmax\(\): Expected reduction dim to be specified for input.numel\(\) == 0.$",
    ):
        e.argmax()
    with pytest.raises(
        IndexError, match=r"^argmin\(\): Expected reduction dim 0 to have non-zero size.$"
    ):
        e.argmin(0)
    with pytest.raises(
        IndexError, match=r"^median\(\): Expected reduction dim 0 to have non-zero size.$"
    ):
        e.median(0)
    with pytest.raises(
        RuntimeError, match="^aminmax\\(\\): cannot compute aminmax over an empty dimension"
    ):
        numtorch.aminmax(e)
    with pytest.warns(UserWarning, match=r"^var\(\): degrees of freedom is <= 0"):
        assert math.isnan(e.var().item())
    with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
        e.norm(float("inf"))


# ---- NaN ------------------------------------------------------------------------------------
def test_nan_propagates_through_max_min_and_is_the_largest_in_sorts():
    x = T([1.0, NAN, 3.0, NAN, 0.0])
    assert math.isnan(x.max().item()) and math.isnan(x.amin().item())
    assert x.argmax().item() == 1 and x.argmin().item() == 1
    r = x.max(0)
    assert math.isnan(r.values.item()) and r.indices.item() == 1
    s = x.sort()
    assert s.indices.tolist() == [4, 0, 2, 1, 3]
    assert x.sort(descending=True).indices.tolist() == [1, 3, 2, 0, 4]
    assert x.topk(2).indices.tolist() == [1, 3]
    assert x.topk(2, largest=False).indices.tolist() == [4, 0]
    assert math.isnan(x.median().item()) and x.median(0).indices.item() == 1
    assert x.nanmedian().item() == 1.0 and x.nansum().item() == 4.0
    assert x.cummax(0).indices.tolist() == [0, 1, 1, 3, 3]
    assert all(math.isnan(v) for v in x.softmax(0).tolist())


def test_argmax_and_max_dim_ties_pick_the_first_index():
    x = T([[3, 7, 7, 1], [5, 5, 5, 5]])
    assert x.argmax(1).tolist() == [1, 0] and x.argmin(1).tolist() == [3, 0]
    assert x.max(1).indices.tolist() == [1, 0] and x.argmax().item() == 1


# ---- named tuples -----------------------------------------------------------------------------
def test_max_dim_returns_the_pytorch_named_tuple():
    r = numtorch.max(T([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]), 1)
    assert type(r) is numtorch.return_types.max and isinstance(r, tuple)
    assert r._fields == ("values", "indices") and r.indices.dtype is numtorch.int64
    values, indices = r
    assert values.tolist() == [5.0, 6.0] and indices.tolist() == [1, 2]
    assert repr(r) == "torch.return_types.max(\nvalues=tensor([5., 6.]),\nindices=tensor([1, 2]))"
    assert str(r) == repr(r)


@pytest.mark.parametrize(
    ("call", "name", "fields"),
    [(lambda x: x.min(0), "min", ("values", "indices")), (lambda x: x.sort(), "sort", ("values", "indices")),
     (lambda x: x.topk(1), "topk", ("values", "indices")), (lambda x: x.kthvalue(1), "kthvalue", ("values", "indices")),
     (lambda x: x.median(0), "median", ("values", "indices")), (lambda x: x.mode(), "mode", ("values", "indices")),
     (lambda x: x.cummax(0), "cummax", ("values", "indices")), (lambda x: x.cummin(0), "cummin", ("values", "indices")),
     (lambda x: numtorch.aminmax(x), "aminmax", ("min", "max")), (lambda x: x.nanmedian(0), "nanmedian", ("values", "indices"))],
)  # fmt: skip
def test_every_multi_output_op_returns_its_named_tuple(call, name, fields):
    r = call(T([3.0, 1.0, 2.0]))
    assert type(r).__name__ == name and r._fields == fields
    assert repr(r).startswith(f"torch.return_types.{name}(\n{fields[0]}=tensor(")


def test_var_mean_and_std_mean_return_plain_tuples():
    r = numtorch.var_mean(T([1.0, 3.0]))
    assert type(r) is tuple and r[0].item() == 2.0 and r[1].item() == 2.0


# ---- max / min forms ------------------------------------------------------------------------
def test_max_binary_form_is_the_elementwise_maximum():
    a, b = T([1.0, 5.0]), T([3.0, 2.0])
    assert numtorch.max(a, b).tolist() == [3.0, 5.0] and numtorch.min(a, other=b).tolist() == [
        1.0,
        2.0,
    ]
    assert a.max(b).tolist() == [3.0, 5.0]


def test_max_keepdim_without_dim_is_an_argument_error():
    with pytest.raises(TypeError, match="max\\(\\) received an invalid combination of arguments"):
        numtorch.max(T([1.0]), keepdim=True)


def test_argmax_of_bool_and_complex_max_are_refused():
    with pytest.raises(RuntimeError, match=r"^argmax\(\): does not support bool input$"):
        T([True]).argmax()
    with pytest.raises(NotImplementedError, match="\"max_all\" not implemented for 'ComplexFloat'"):
        T([1j]).max()


# ---- var / std / norm ---------------------------------------------------------------------------
def test_var_std_correction_and_legacy_unbiased_forms():
    x = T([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0]])
    a = x.numpy().astype(np.float64)
    assert np.allclose(_np(x.var(1)), a.var(1, ddof=1))
    assert np.allclose(_np(x.var(1, unbiased=False)), a.var(1))
    assert np.allclose(_np(x.var(1, False, True)), a.var(1, keepdims=True))
    assert np.allclose(_np(x.std(correction=2.5)), np.sqrt(((a - a.mean()) ** 2).sum() / (8 - 2.5)))
    assert np.allclose(_np(x.var(False)), a.var())
    v, m = numtorch.std_mean(x, (0, 1), keepdim=True)
    assert v.shape == (1, 1) and np.isclose(m.item(), a.mean())
    with pytest.raises(TypeError):
        x.var(1, unbiased=True, correction=0)
    with pytest.raises(
        RuntimeError, match="^std and var only support floating point and complex dtypes$"
    ):
        T([1, 2]).var()
    with pytest.warns(UserWarning, match=r"^std\(\): degrees of freedom is <= 0"):
        assert x.std(1, correction=4).tolist() == [math.inf, math.inf]


def test_var_is_accurate_for_data_with_a_large_mean():
    # a one-pass E[x^2] - E[x]^2 loses every digit here
    assert numtorch.tensor([1e9 + 1, 1e9 + 2, 1e9 + 3], dtype=numtorch.float64).var().item() == 1.0
    assert numtorch.tensor([1e4 + 0.5, 1e4 + 1.5, 1e4 + 2.5]).var().item() == 1.0


def test_norm_orders_and_errors():
    x = T([[3.0, -4.0], [0.0, 12.0]])
    a = x.numpy()
    assert x.norm().item() == 13.0 and numtorch.norm(x, "fro", (0, 1)).item() == 13.0
    assert x.norm(1).item() == 19.0 and x.norm(0).item() == 3.0
    assert x.norm(float("inf")).item() == 12.0 and x.norm(-float("inf"), 1).tolist() == [3.0, 0.0]
    assert np.allclose(
        _np(x.norm(3, dim=1, keepdim=True)), (np.abs(a) ** 3).sum(1, keepdims=True) ** (1 / 3)
    )
    assert x.norm(dtype=numtorch.float64).dtype is numtorch.float64
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Order abc not supported.$"):
        x.norm("abc")
    with pytest.raises(
        RuntimeError, match="^linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2$"
    ):
        numtorch.zeros(2, 2, 2).norm("fro", (0, 1, 2))
    with pytest.raises(
        RuntimeError,
        match="^linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long$",
    ):
        T([1, 2]).norm()


def test_the_norm_of_one_element_is_its_magnitude_without_underflow():
    # fuzz seed 93: the float32 square of 1e-30 underflows; torch's reduction skips the power and
    # root when each output reads one element, so cosine_similarity's norm was 0 instead of 1e-30
    x = numtorch.full((3, 1), 1e-30)
    for p in (2, 3, 0.5, -1, math.inf):
        assert np.array_equal(_np(numtorch.linalg.vector_norm(x, p, dim=1)), np.full(3, 1e-30, np.float32))
    assert numtorch.linalg.vector_norm(x[:1]).item() == np.float32(1e-30)
    assert numtorch.linalg.vector_norm(x, 0, dim=1).tolist() == [1.0] * 3
    assert numtorch.linalg.vector_norm(x, dim=0).item() == 0.0  # three squares underflow, as in torch
    assert numtorch.linalg.vector_norm(numtorch.tensor([[NAN], [-math.inf]]), dim=1).tolist()[1] == math.inf


# ---- out= -------------------------------------------------------------------------------------
def test_out_for_tuple_results_is_written_and_dtype_checked():
    x = T([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    v, i = numtorch.empty(0), numtorch.empty(0, dtype=numtorch.int64)
    r = numtorch.max(x, 1, out=(v, i))
    assert r.values is v and r.indices is i and v.tolist() == [5.0, 6.0] and i.tolist() == [1, 2]
    s = numtorch.sort(x, 1, out=(numtorch.empty(0), numtorch.empty(0, dtype=numtorch.int64)))
    assert s.indices.tolist() == [[0, 2, 1], [1, 0, 2]]
    with pytest.raises(
        RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"
    ):
        numtorch.max(x, 1, out=(numtorch.empty(0, dtype=numtorch.float64), i))
    with pytest.raises(
        RuntimeError, match="^Expected out tensor to have dtype long int, but got int instead$"
    ):
        numtorch.argmax(x, 1, out=numtorch.empty(0, dtype=numtorch.int32))


def test_out_dtype_rules_of_single_results():
    x = T([[1.5, 2.5], [3.5, 4.5]])
    o = numtorch.empty(0, dtype=numtorch.int64)
    assert numtorch.sum(x, 0, out=o) is o and o.tolist() == [4, 6]
    with pytest.raises(
        RuntimeError,
        match="^Expected the dtype for input and out to match, but got Float for input's dtype and Double for out's dtype.$",
    ):
        numtorch.amax(x, 0, out=numtorch.empty(0, dtype=numtorch.float64))
    with pytest.raises(
        RuntimeError, match="^all only supports bool tensor for result, got: Float$"
    ):
        numtorch.all(x, 0, out=numtorch.empty(0))
    m = numtorch.empty(0, dtype=numtorch.float64)
    assert numtorch.mean(x, 1, out=m).dtype is numtorch.float64 and m.tolist() == [2.0, 4.0]
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        numtorch.sum(x, 1, out=numtorch.empty(5))
    v0 = o._version
    numtorch.sum(x, 1, out=o)
    assert o._version > v0


def test_out_requires_no_grad():
    x = T([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        numtorch.sum(x, 0, out=numtorch.empty(0))


# ---- scans ------------------------------------------------------------------------------------
def test_cumsum_inplace_keeps_its_dtype():
    y = T([1, 2, 3], dtype=numtorch.int32)
    assert y.cumsum_(0) is y and y.dtype is numtorch.int32 and y.tolist() == [1, 3, 6]
    with pytest.raises(
        RuntimeError,
        match="^Bad in-place call: input tensor dtype float and output tensor dtype double should match$",
    ):
        T([1.0]).cumsum_(0, dtype=numtorch.float64)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        numtorch.cumsum(T([1.0]))


def test_cumsum_of_float32_accumulates_in_double():
    x = numtorch.full((10**6,), 0.1)
    assert x.cumsum(0)[-1].item() == np.float32(np.float64(np.float32(0.1)) * 10**6)


# ---- softmax ----------------------------------------------------------------------------------
def test_functional_softmax_warns_on_implicit_dim_and_takes_dtype():
    x = numtorch.zeros(2, 3, 4)
    with pytest.warns(
        UserWarning, match="^Implicit dimension choice for softmax has been deprecated"
    ):
        r = numtorch.nn.functional.softmax(x)
    assert np.allclose(_np(r), 0.5)  # dim 0 for a 3-d input, as PyTorch's _get_softmax_dim
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (
            numtorch.nn.functional.log_softmax(x, 2, dtype=numtorch.float64).dtype
            is numtorch.float64
        )
    assert numtorch.softmax(T([1, 2]), 0, dtype=numtorch.float32).dtype is numtorch.float32


def test_softmax_refuses_integers_and_half_to_float():
    with pytest.raises(
        NotImplementedError, match="^\"softmax_lastdim_kernel_impl\" not implemented for 'Long'$"
    ):
        T([1, 2]).softmax(0)
    with pytest.raises(
        NotImplementedError, match="^\"log_softmax_kernel_impl\" not implemented for 'Long'$"
    ):
        T([[1, 2]]).log_softmax(0)
    with pytest.raises(
        RuntimeError, match="^softmax with half to float conversion is not supported on CPU$"
    ):
        numtorch.ops.aten._softmax(T([1.0]).half(), 0, True)


def test_softmax_is_stable_for_large_inputs():
    x = T([1000.0, 1000.0, -1000.0])
    assert np.allclose(_np(x.softmax(0)), [0.5, 0.5, 0.0])
    assert np.allclose(_np(x.log_softmax(0)), [-math.log(2), -math.log(2), -2000 - math.log(2)])


# ---- sorting ----------------------------------------------------------------------------------
def test_sort_is_stable_in_both_directions():
    x = T([2, 1, 2, 1, 2])
    assert x.sort().indices.tolist() == [1, 3, 0, 2, 4]
    assert x.sort(descending=True).indices.tolist() == [0, 2, 4, 1, 3]
    assert x.argsort(stable=True).tolist() == [1, 3, 0, 2, 4]


def test_topk_kthvalue_errors_and_partition_path(rng):
    x = T([3.0, 1.0, 2.0])
    for k in (-1, 4):
        with pytest.raises(RuntimeError, match="^selected index k out of range$"):
            x.topk(k)
    with pytest.raises(
        RuntimeError, match="^kthvalue\\(\\): selected number k out of range for dimension 0$"
    ):
        x.kthvalue(4)
    a = rng.standard_normal((3, 5000))
    t = numtorch.from_numpy(a).topk(7, 1)
    np.testing.assert_array_equal(_np(t.values), -np.sort(-a, 1)[:, :7])
    np.testing.assert_array_equal(np.take_along_axis(a, _np(t.indices), 1), _np(t.values))
    s = numtorch.from_numpy(a).topk(4, 1, largest=False)
    np.testing.assert_array_equal(_np(s.values), np.sort(a, 1)[:, :4])
    assert (
        numtorch.from_numpy(a).kthvalue(2500, 1).values.tolist() == np.sort(a, 1)[:, 2499].tolist()
    )


def test_median_is_the_lower_median_and_refuses_bool():
    assert T([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0
    with pytest.raises(NotImplementedError, match="\"median_cpu\" not implemented for 'Bool'"):
        T([True]).median()


def test_mode_prefers_the_smallest_value_and_returns_its_last_index():
    r = T([3, 2, 2, 3, 1]).mode()
    assert r.values.item() == 2 and r.indices.item() == 2


def test_unique_forms():
    x = T([3, 1, 3, 2])
    assert x.unique().tolist() == [1, 2, 3]
    u, inv, cnt = numtorch.unique(x, return_inverse=True, return_counts=True)
    assert inv.tolist() == [2, 0, 2, 1] and cnt.tolist() == [1, 1, 2]
    u, inv = numtorch.unique(T([[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True)
    assert u.tolist() == [[0, 1], [1, 2]] and inv.tolist() == [1, 1, 0]
    assert len(numtorch.unique(T([NAN, NAN, 1.0]))) == 3  # NaNs are not merged


# ---- gradients --------------------------------------------------------------------------------
def _grad_cases():
    for info in red_infos.OPINFOS:
        if not info.grad or "float64" not in info.dtypes:
            continue
        for s in info.sample_inputs("float64", np.random.default_rng(1)):
            if s.input.size and s.input.size <= 24:
                yield pytest.param(info, s, id=f"{info.name}-{s.name}")


@pytest.mark.parametrize(("info", "sample"), list(_grad_cases()))
def test_gradient_of_every_float64_sample(info, sample):
    fn = info.resolve()
    x = to_nt(sample.input.copy(), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(
            lambda t: fn(t, *sample.args, **to_nt(sample.kwargs)), (x,), atol=1e-5, rtol=1e-3
        )


def _f64(v, rg=True):
    return T(v, dtype=numtorch.float64, requires_grad=rg)


def test_prod_gradient_with_one_and_with_two_zeros():
    x = _f64([2.0, 0.0, 3.0, 4.0])
    (g,) = numtorch.autograd.grad(x.prod(), x)
    assert g.tolist() == [0.0, 24.0, 0.0, 0.0]
    y = _f64([[0.0, 2.0, 0.0], [1.0, 0.0, 5.0]])
    (g,) = numtorch.autograd.grad(y.prod(1).sum(), y)
    assert g.tolist() == [[0.0, 0.0, 0.0], [0.0, 5.0, 0.0]]
    assert gradcheck(lambda t: t.prod(1), (_f64([[0.0, 2.0, 3.0], [1.5, 0.5, 2.0]]),))


def test_cumprod_gradient_with_zeros():
    x = _f64([2.0, 0.0, 3.0, 0.0, 5.0])
    assert gradcheck(lambda t: t.cumprod(0), (x,))


def test_amax_gradient_is_shared_by_ties_and_max_dim_goes_to_the_index():
    x = _f64([1.0, 3.0, 3.0, 2.0])
    (g,) = numtorch.autograd.grad(x.amax(), x)
    assert g.tolist() == [0.0, 0.5, 0.5, 0.0]
    (g,) = numtorch.autograd.grad(x.max(0).values, x)
    assert g.tolist() == [0.0, 1.0, 0.0, 0.0]


def test_softmax_backward_is_an_op_with_a_double_backward():
    assert numtorch.ops.aten._softmax_backward_data.default is not None
    assert numtorch.ops.aten._log_softmax_backward_data.default is not None
    x = _f64([[0.1, -0.4, 0.9], [1.0, 0.2, -0.3]])
    assert gradgradcheck(lambda t: t.softmax(1), (x,))
    assert gradgradcheck(lambda t: t.log_softmax(0), (x,))
    y = x.softmax(1)
    assert type(y.grad_fn).__name__ == "SoftmaxBackward0"


def test_sum_node_names_follow_pytorch():
    x = _f64([1.0, 2.0])
    assert type(x.sum().grad_fn).__name__ == "SumBackward0"
    assert type(x.sum(0).grad_fn).__name__ == "SumBackward1"
    assert type(x.mean(0).grad_fn).__name__ == "MeanBackward1"


# ---- dim argument types, aminmax on an empty dim, nanmean, msort --------------------------------
@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "median", "nanmedian", "mode", "kthvalue"])
def test_a_tuple_where_one_dim_is_expected_is_a_type_error(name):
    x = numtorch.ones(2, 3)
    args = (1, (0, 1)) if name == "kthvalue" else ((0, 1),)
    with pytest.raises(TypeError, match="^argument 'dim' must be int, not tuple$"):
        getattr(numtorch, name)(x, *args)


def test_aminmax_over_an_empty_dim_raises_pytorchs_index_error():
    with pytest.raises(IndexError, match=r"^aminmax: Expected reduction dim 0 to have non-zero size\.$"):
        numtorch.aminmax(numtorch.zeros(0, 3), dim=0)
    with pytest.raises(IndexError, match=r"^aminmax: Expected reduction dim 1 to have non-zero size\.$"):
        numtorch.aminmax(numtorch.zeros(3, 0), dim=-1, keepdim=True)
    r = numtorch.aminmax(numtorch.zeros(0, 3), dim=1)
    assert r.min.shape == (0,) and r.max.shape == (0,)
    with pytest.raises(RuntimeError, match="cannot compute aminmax over an empty dimension"):
        numtorch.aminmax(numtorch.zeros(0, 3))


def test_nanmean_skips_nan_and_gives_nan_for_all_nan_rows():
    a = np.array([[1.0, NAN, 2.0], [3.0, 4.0, 5.0], [NAN, NAN, NAN]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.nanmean(a, axis=1)
    np.testing.assert_array_equal(numtorch.nanmean(T(a), 1).numpy(), want)
    assert numtorch.nanmean(T(a)).item() == 3.0
    assert T(a).float().nanmean(1, dtype=numtorch.float64).dtype == numtorch.float64
    x = T(a, requires_grad=True)
    x.nanmean().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(np.isnan(a), 0.0, 0.2))
    with pytest.raises(RuntimeError, match="^nanmean\\(\\): expected input to have floating point or complex dtype but got Long$"):
        numtorch.nanmean(T([1, 2]))


def test_msort_sorts_along_the_first_dim_with_nan_last():
    a = np.array([[3.0, 1.0, NAN], [2.0, 4.0, 1.0]])
    np.testing.assert_array_equal(numtorch.msort(T(a)).numpy(), np.sort(a, axis=0))
    assert T([[3, 1], [2, 4]]).msort().tolist() == [[2, 1], [3, 4]]


@pytest.mark.parametrize("n", [1, 63, 64, 65, 200])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_aminmax_over_everything_in_one_pass(n, dtype):
    # the one-pass kernel's lanes, tree and remainder each see the extremes and a NaN
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 100).astype(dtype)
    for pos in {0, n // 2, n - 1}:
        y = x.copy()
        y[pos] = 10**6
        lo, hi = numtorch.aminmax(numtorch.from_numpy(y.reshape(1, -1)), keepdim=True)
        assert lo.shape == hi.shape == (1, 1)
        assert lo.item() == y.min() and hi.item() == y.max()
        if dtype == np.float32:
            y[pos] = np.nan
            lo, hi = numtorch.aminmax(numtorch.from_numpy(y))
            assert np.isnan(lo.item()) and np.isnan(hi.item())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("correction", [None, 0, 2])
def test_whole_tensor_var_std_against_numpy(dtype, correction):
    # Note [Whole-tensor var]: dim=None on a contiguous tensor reads the data as it is
    x = np.random.default_rng(7).standard_normal((2, 3, 4)).astype(dtype) * 3 + 1
    t = numtorch.from_numpy(x)
    ddof = 1 if correction is None else correction
    tol = 1e-6 if dtype == np.float32 else 1e-12
    for fn, want in ((numtorch.var, np.var(x.astype(np.float64), ddof=ddof)),
                     (numtorch.std, np.std(x.astype(np.float64), ddof=ddof))):  # fmt: skip
        r = fn(t, correction=correction)
        assert r.shape == () and r.dtype == t.dtype
        np.testing.assert_allclose(r.item(), want, rtol=tol)
        rt = fn(t.transpose(0, 2), correction=correction)  # strided: the layout route, same value
        np.testing.assert_allclose(rt.item(), want, rtol=tol)
    v, m = numtorch.var_mean(t, correction=correction)
    assert v.shape == m.shape == ()
    np.testing.assert_allclose(m.item(), x.astype(np.float64).mean(), rtol=tol)
    assert numtorch.var(t, keepdim=True).shape == (1, 1, 1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "complex64", "bfloat16", "float16"])
def test_count_nonzero_over_all_dims(dtype):
    # the all-dims route (NumPy's count) and the fold over dims agree; NaN counts, -0.0 does not
    x = numtorch.tensor([[0.0, -0.0, float("nan"), 2.0], [1.0, 0.0, 0.0, -3.0]])
    if dtype in ("int64", "uint8", "bool"):
        x = numtorch.tensor([[0, 0, 5, 2], [1, 0, 0, 3]])
    x = x.to(getattr(numtorch, dtype))
    r = numtorch.count_nonzero(x)
    assert r.dtype == numtorch.int64 and r.shape == ()
    assert r.item() == numtorch.count_nonzero(x, (0, 1)).item() == int(numtorch.count_nonzero(x, 1).sum())
    assert r.item() == 4
    assert numtorch.count_nonzero(x, 0).tolist() == [1, 0, 1, 2]  # an int dim 0 is a dim, not "all"
