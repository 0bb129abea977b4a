"""Indexing regressions found by differential fuzzing against PyTorch (issue 10); expected
values are PyTorch 2.13's."""

import math
import warnings

import numpy as np
import pytest

import numtorch as nt


def test_bucketize_compares_in_the_common_dtype():
    # int64 past float16's range is inf against float16 boundaries
    b = nt.tensor([0.1, 300.0, 65504.0, 70000.0], dtype=nt.float64).to(nt.float16)  # [.., inf]
    assert nt.bucketize(nt.tensor([2**24 + 1]), b, right=True).tolist() == [4]
    x = nt.tensor([70000.0], dtype=nt.float64).to(nt.float16)  # inf
    assert nt.bucketize(x, nt.tensor([0, 300, 65504, 2**24 + 1])).tolist() == [3]
    assert nt.searchsorted(nt.tensor([0, 300, 65504, 2**24 + 1]), x).tolist() == [3]


def test_bucketize_takes_a_python_scalar():
    r = nt.bucketize(1.5, nt.tensor([1, 2]))
    assert r.ndim == 0 and r.item() == 1 and r.dtype is nt.int64


@pytest.mark.parametrize("index", [[0, 0], []])
def test_index_select_of_a_0d_tensor_takes_exactly_one_index(index):
    idx = nt.tensor(index, dtype=nt.int64)
    msg = rf"^index_select\(\): Index to scalar can have only 1 value, got {len(index)} value\(s\)$"
    with pytest.raises(RuntimeError, match=msg):
        nt.index_select(nt.tensor(1.5), 0, idx)
    assert nt.index_select(nt.tensor(1.5), 0, nt.tensor([0])).shape == ()


@pytest.mark.parametrize("value", [1j, nt.tensor(2j)])
@pytest.mark.parametrize("dtype", [nt.bool, nt.float32])
def test_index_fill_refuses_a_complex_value_for_a_real_tensor(value, dtype):
    x = nt.zeros(2, dtype=dtype)
    with pytest.raises(RuntimeError, match=r"^index_fill_\(\): Converting complex Scalar to non-complex type is not supported$"):
        x.index_fill_(0, nt.tensor([0]), value)
    assert not x.any()
    assert nt.index_fill(nt.zeros(1, dtype=nt.complex64), 0, nt.tensor([0]), 1j).tolist() == [1j]


@pytest.mark.parametrize("key", [(slice(None), 0), slice(None), Ellipsis, None])
def test_setitem_through_a_view_with_repeated_elements_refuses(key):
    a = nt.tensor([[1.0, 2.0]]).expand(3, 2)
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor"):
        a[key] = 5.0
    assert a.tolist() == [[1.0, 2.0]] * 3


def test_setitem_of_a_non_repeating_view_of_an_expanded_tensor_writes():
    a = nt.tensor([[1.0, 2.0]]).expand(3, 2)
    a[0] = 5.0  # the row itself has distinct elements (PyTorch writes the shared row)
    a[0, 1] = 6.0
    assert a.tolist() == [[5.0, 6.0]] * 3


def test_setitem_of_a_lone_mask_with_one_value_converts_it_as_masked_fill_does():
    a = nt.tensor([[1, 2, 3], [4, 5, 6]])
    a[a > 2] = nt.tensor([2.7])  # PyTorch: masked_fill_(mask, value.item()), any dtype
    assert a.tolist() == [[1, 2, 2], [2, 2, 2]] and a.dtype == nt.int64
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
        a[a > 1] = nt.tensor(float("inf"))
    with pytest.raises(RuntimeError, match="^Index put requires the source and destination dtypes match, got Long"):
        a[a > 1] = nt.tensor([2.7, 1.0, 2.0, 3.0, 4.0])  # more than one value: index_put_'s own check
    with pytest.raises(RuntimeError, match="^Index put requires the source and destination dtypes match, got Long"):
        a[nt.tensor([0])] = nt.tensor(2.7)  # an integer index: no masked_fill_ route


@pytest.mark.parametrize("call,msg", [
    (lambda x, i: nt.scatter_add(x, 0, i, 1.5), r"scatter_add\(\): argument 'src' \(position 4\) must be Tensor, not float"),
    (lambda x, i: x.scatter_add_(0, i, True), r"scatter_add_\(\): argument 'src' \(position 3\) must be Tensor, not bool"),
    (lambda x, i: nt.scatter_reduce(x, 0, i, 1j, "sum"), r"scatter_reduce\(\): argument 'src' \(position 4\) must be Tensor, not complex"),
    (lambda x, i: x.scatter_reduce_(0, i, 2, "mean"), r"scatter_reduce_\(\): argument 'src' \(position 3\) must be Tensor, not int"),
    (lambda x, i: nt.index_add(x, 0, i, 1.0), r"index_add\(\): argument 'source' \(position 4\) must be Tensor, not float"),
    (lambda x, i: x.index_copy_(0, i, 1.0), r"index_copy_\(\): argument 'source' \(position 3\) must be Tensor, not float"),
])  # fmt: skip
def test_scatter_add_reduce_index_add_copy_refuse_a_number_source_as_the_parser_does(call, msg):
    x = nt.zeros(3)
    with pytest.raises(TypeError, match=f"^{msg}$"):
        call(x, nt.tensor([0]))
    assert not x.any()


@pytest.mark.parametrize("call", [
    lambda: nt.scatter(nt.zeros(2, 3), 5, nt.tensor([[0]]), nt.ones(1, 1, dtype=nt.int8)),
    lambda: nt.gather(nt.zeros(2), 3, nt.zeros(1, dtype=nt.float32)),
    lambda: nt.index_add(nt.zeros(2, 3, dtype=nt.float64), 3, nt.tensor([0]), nt.zeros(1, 3)),
])  # fmt: skip
def test_scatter_gather_index_add_check_the_dim_first(call):
    with pytest.raises(IndexError, match=r"^Dimension out of range"):
        call()


def test_scatter_gather_of_an_empty_index_take_any_index_dtype():
    assert nt.scatter(nt.zeros(0), 0, nt.zeros(0, dtype=nt.uint8), nt.zeros(0)).shape == (0,)
    assert nt.gather(nt.zeros(0), 0, nt.zeros(0, dtype=nt.float32)).shape == (0,)


def test_index_add_shapes_of_0d_operands():
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        nt.index_add(nt.tensor(1.0), 0, nt.tensor([0, 0]), nt.tensor(2.0))
    with pytest.raises(RuntimeError, match=r"^source tensor shape must match self tensor shape.*self.shape = \[3\] source.shape = \[\]$"):
        nt.index_add(nt.zeros(3), 0, nt.tensor([0]), nt.tensor(2.0))
    with pytest.raises(RuntimeError, match=r"^index_add_\(\): Indexing dim 1 is out of bounds of the source tensor with dim 1$"):
        nt.index_add(nt.zeros(2, 3), 1, nt.tensor([0]), nt.ones(1))
    assert nt.index_add(nt.tensor(3.0), 0, nt.tensor([0]), nt.tensor(2.0)).item() == 5.0


@pytest.mark.parametrize("args,exc,msg", [
    ((nt.zeros(2, 0, dtype=nt.int8), 2**40), RuntimeError, "value cannot be converted to type int8_t without overflow"),
    ((300, nt.zeros(2, dtype=nt.int8)), RuntimeError, "value cannot be converted to type int8_t without overflow"),
    ((nt.zeros(2, dtype=nt.int8), 2**70), OverflowError, "int too big to convert"),
])  # fmt: skip
def test_where_refuses_an_int_outside_the_tensors_dtype(args, exc, msg):
    cond = nt.ones(args[0].shape if isinstance(args[0], nt.Tensor) else (2,), dtype=nt.bool)
    with pytest.raises(exc, match=f"^{msg}$"):
        nt.where(cond, *args)
    assert nt.where(nt.zeros(2, dtype=nt.bool), nt.zeros(2, dtype=nt.uint8), -1).tolist() == [255, 255]  # wraps, as c10


def test_index_select_checks_dim_and_index_shape_before_its_dtype():
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got 5\)$"):
        nt.index_select(nt.ones(3, dtype=nt.uint8), 5, nt.zeros(1))
    with pytest.raises(IndexError, match=r"^index_select\(\): Index is supposed to be a vector$"):
        nt.index_select(nt.ones(3), 0, nt.zeros(1, 1))


def test_index_put_into_an_empty_dim_is_an_index_error_before_the_dtype_check():
    x = nt.zeros(2, 0)
    with pytest.raises(IndexError, match="^index is out of bounds for dimension with size 0$"):
        x[:, nt.tensor([0])] = nt.tensor(1.0, dtype=nt.float64)
    with pytest.raises(RuntimeError, match="^Index put requires the source and destination dtypes match"):
        nt.zeros(0).index_put_((nt.tensor([], dtype=nt.int64),), nt.tensor(1.5, dtype=nt.float64))


_INTERNAL_OVERLAP = "^unsupported operation: more than one element of the written-to tensor refers to a single memory"


@pytest.mark.parametrize("call", [
    lambda x: x.index_copy_(1, nt.tensor([0]), nt.ones(3, 1)),
    lambda x: x.index_copy_(1, nt.tensor([-2]), nt.ones(3, 1)),  # before the index bounds
    lambda x: x.index_add_(1, nt.tensor([], dtype=nt.int64), nt.ones(3, 0)),
    lambda x: x.scatter_(1, nt.tensor([[0]]), 1.0),
    lambda x: x.scatter_(1, nt.tensor([[5]]), nt.ones(3, 1)),
    lambda x: x.scatter_add_(1, nt.tensor([[0]]), nt.ones(3, 1)),
    lambda x: x.scatter_reduce_(1, nt.tensor([[0]]), nt.ones(3, 1), "sum"),
    lambda x: x.put_(nt.tensor([0]), nt.ones(1), accumulate=True),
    lambda x: x.put_(nt.tensor([9]), nt.ones(1)),
    lambda x: x.masked_scatter_(nt.ones(3, 2, dtype=nt.bool), nt.ones(6)),
])  # fmt: skip
def test_indexed_writes_refuse_an_expanded_destination(call):
    base = nt.zeros(3, 1)
    with pytest.raises(RuntimeError, match=_INTERNAL_OVERLAP):
        call(base.expand(3, 2))
    assert base.tolist() == [[0.0]] * 3


@pytest.mark.parametrize("shape, dim, index, msg", [
    ((2, 0), 0, [1, 5], "INDICES element is out of DATA bounds, id=5 axis_dim=2"),
    ((2, 0, 3), 2, [-1], "INDICES element is out of DATA bounds, id=-1 axis_dim=3"),
    ((2, 0), 1, [1], r"index_select\(\): self indexing axis dim should be positive"),
])  # fmt: skip
def test_index_select_of_an_empty_matrix_checks_indices_as_torch_does(shape, dim, index, msg):
    with pytest.raises(RuntimeError, match=f"^{msg}$"):
        nt.index_select(nt.empty(shape), dim, nt.tensor(index))
    assert nt.index_select(nt.empty(2, 0), 0, nt.tensor([1])).shape == (1, 0)


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: nt.index_copy(nt.ones(3, dtype=nt.int64), 5, nt.ones(0, dtype=nt.int64), nt.ones(3)), IndexError,
     r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 5\)"),
    (lambda: nt.scatter_reduce(nt.ones(0, dtype=nt.complex128), -1, nt.ones(0), nt.ones(0, dtype=nt.complex64), "amin"),
     RuntimeError, r"scatter\(\): Expected self.dtype to be equal to src.dtype"),
    (lambda: nt.dot(nt.ones(2, dtype=nt.bool), nt.ones(2, dtype=nt.bool), out=nt.ones(2)), RuntimeError,
     "result dtype Float does not match input dtype Bool"),
])  # fmt: skip
def test_meta_checks_precede_the_kernel_dtype(call, exc, msg):
    with pytest.raises(exc, match=f"^{msg}$"):
        call()


def test_index_add_of_an_empty_source_reads_no_index():
    # fuzz seed 30: PyTorch reads no slice, so an out-of-range index is never checked
    r = nt.index_add(nt.empty(2, 0, dtype=nt.int64), -2, nt.tensor([4, 1], dtype=nt.int32), nt.empty(2, 0, dtype=nt.int64))
    assert r.shape == (2, 0) and r.dtype is nt.int64
    with pytest.raises(RuntimeError, match="^index 4 is out of bounds for dimension 0 with size 2$"):
        nt.index_add(nt.zeros(2, 1), 0, nt.tensor([4, 1]), nt.ones(2, 1))


def test_index_fill_in_place_writes_only_the_indexed_slots():
    # fuzz seed 31: through an expanded self the copy written back let the last alias win (False)
    b = nt.zeros(1, dtype=nt.bool).expand(3)
    b.index_fill_(0, nt.tensor([0]), -3)
    assert b.tolist() == [True, True, True]
    x = nt.arange(12.0).reshape(3, 4).t()  # a transposed (non-contiguous) self
    want = x.contiguous().index_fill(1, nt.tensor([0, 2]), -1.0)
    assert x.index_fill_(1, nt.tensor([0, 2]), -1.0).tolist() == want.tolist()
    with pytest.raises(IndexError, match="^index 3 is out of bounds for dimension 1 with size 3$"):
        x.index_fill_(1, nt.tensor([3]), 0.0)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_value_shape_and_dtype_before_bounds(accumulate):
    # ATen: the value's shape, then its dtype, then (in the kernel) the indices' bounds
    x = nt.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"value tensor of shape \[3, 4\] cannot be broadcast to indexing result of shape \[2, 4\]"):
        x.index_put_((nt.tensor([5, 0]),), nt.zeros(3, 4), accumulate=accumulate)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        x.index_put_((nt.tensor([5, 0]),), nt.zeros(2, 4, dtype=nt.float64), accumulate=accumulate)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x.index_put_((nt.tensor([5, 0]),), nt.zeros(2, 4), accumulate=accumulate)
    assert not x.any()


def test_masked_fill_inplace_through_expanded_self():
    # seed 36: a copy written back let the last alias win; ATen writes through self's strides
    x = nt.tensor([[2.5, -6.0]], dtype=nt.float64).expand(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x.masked_fill_(nt.tensor([[True, True], [False, False], [False, True]]), nt.tensor(-7, dtype=nt.int16))
    assert x.tolist() == [[-7.0, -7.0]] * 3
    y = nt.arange(12.0).reshape(3, 4).t()
    y.masked_fill_(y > 5, 0)
    assert y.tolist() == [[0.0, 4.0, 0.0], [1.0, 5.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]]


def test_scatter_reduce_check_order():
    # seed 38: ATen's meta checks the dim and src's dtype before the reduce name
    x = nt.zeros(2, 3, dtype=nt.int8)
    with pytest.raises(IndexError, match="Dimension out of range"):
        nt.scatter_reduce(x, -4, nt.zeros(2, 2, dtype=nt.int32), nt.zeros(2, 2), "bad")
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        nt.scatter_reduce(x, 0, nt.zeros(2, 2, dtype=nt.int32), nt.zeros(2, 2), "bad")
    with pytest.raises(RuntimeError, match="reduce argument must be either sum"):
        nt.scatter_reduce(x, 0, nt.zeros(2, 2, dtype=nt.int32), nt.zeros(2, 2, dtype=nt.int8), "bad")


@pytest.mark.parametrize("call", [
    lambda: nt.zeros(2, 0)[nt.tensor([3, 4])],
    lambda: nt.zeros(2, 0).index_put_((nt.tensor([3, 4]),), nt.tensor(1.0)),
    lambda: nt.zeros(2, 0).index_put_((nt.tensor([3, 4]),), nt.tensor(1.0), True),  # seed 38
    lambda: nt.zeros(2, 0, dtype=nt.int64).scatter_(-1, nt.zeros(2, 0, dtype=nt.int64), math.inf),  # seed 39
])  # fmt: skip
def test_empty_result_checks_no_index_or_value(call):
    # ATen's kernel loops never run: no bounds check, no value conversion
    assert call().shape == (2, 0)


def test_index_add_copy_into_an_empty_self_check_no_index():
    # past 1-D, index_add_cpu_ returns before its bounds check when self is empty; index_copy_'s
    # kernel never runs when self's other dims hold no element
    assert nt.zeros(0, 3).index_add_(0, nt.tensor([5, -7]), nt.ones(2, 3)).shape == (0, 3)
    assert nt.zeros(2, 0).index_copy_(0, nt.tensor([5, -7]), nt.ones(2, 0)).shape == (2, 0)
    assert nt.index_copy(nt.zeros(2, 0, 3), 0, nt.tensor([9]), nt.ones(1, 0, 3)).shape == (2, 0, 3)
    with pytest.raises(IndexError, match=r"^index out of range in self$"):  # 1-D: checked
        nt.zeros(0).index_add_(0, nt.tensor([5]), nt.ones(1))
    with pytest.raises(IndexError, match=r"^index_copy_\(\): index 5 is out of bounds for dimension 0 with size 2$"):
        nt.zeros(2, 1).index_copy_(0, nt.tensor([5]), nt.ones(1, 1))


def test_index_fill_checks_the_dim_before_the_index_shape_and_the_value():
    # fuzz seed 45: an out-of-range value was reported before an out-of-range dim
    x = nt.zeros(2, 3, dtype=nt.int64)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)$"):
        nt.index_fill(x, 3, nt.tensor([], dtype=nt.int64), math.inf)
    with pytest.raises(IndexError, match=r"^Dimension out of range"):
        nt.index_fill(x, 3, nt.tensor([[0]]), 1)
    with pytest.raises(RuntimeError, match=r"^Index has to be a vector/scalar$"):
        nt.index_fill(x, 0, nt.tensor([[0]]), math.inf)


@pytest.mark.parametrize("value", [-1.0, -0.5, nt.tensor(-1.0)])
def test_a_negative_float_overflows_an_unsigned_fill(value):
    # fuzz seed 53: c10 wraps negative integers into unsigned types, never floats (255 was written)
    x, m = nt.zeros(3, dtype=nt.uint8), nt.tensor([True, False, True])
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        nt.masked_fill(x, m, value)
    assert nt.masked_fill(x, m, nt.tensor(-1)).tolist() == [255, 0, 255]  # an integer wraps


@pytest.mark.parametrize("dtype", [nt.float16, nt.bfloat16])
@pytest.mark.parametrize("how", ["mask", "basic", "int", "list", "ellipsis"])
def test_setitem_of_a_number_past_a_half_range_writes_inf(dtype, how):
    # fuzz seed 22: x[mask] = 2**31 on float16 raised c10's overflow error; PyTorch's setitem
    # makes its scalar tensor without the check (inf), as its fill_ / masked_fill do not
    big = {nt.float16: [2**31, 1e10, 70000, -1e5], nt.bfloat16: [1e39, 3.4e39, -1e300]}[dtype]
    for v in big:
        x = nt.zeros(2, 3, dtype=dtype)
        key = {"mask": x > -1, "basic": 0, "int": (0, 1), "list": [0, 1], "ellipsis": Ellipsis}[how]
        x[key] = v
        assert x[0, 1].item() == math.copysign(math.inf, v)
    x = nt.zeros(2, 3, dtype=dtype)
    x[0, 1] = 65510 if dtype is nt.float16 else 70000  # in range after rounding: rounded once
    assert x[0, 1].item() == (65504.0 if dtype is nt.float16 else 70144.0)
    x[1] = -129.5
    assert x[1, 0].item() == (-129.5 if dtype is nt.float16 else -130.0)
    with pytest.raises(RuntimeError, match="without overflow"):  # fill_ keeps c10's check
        x.fill_(1e39)
    with pytest.raises(RuntimeError, match="without overflow"):
        x.masked_fill_(x > -1, 1e39)


def test_index_fill_value_gradient_counts_a_repeated_index_once():
    # derivatives.yaml: grad.index_select(dim, _unique(index)).sum(); summing the index as given
    # counted column 0 twice (42 where PyTorch gives 30)
    x = nt.arange(12.0, dtype=nt.float64).reshape(3, 4).requires_grad_()
    v = nt.tensor(2.0, dtype=nt.float64, requires_grad=True)
    idx = nt.tensor([0, 2, 0])
    g = np.arange(12.0).reshape(3, 4)
    x.index_fill(1, idx, v).backward(nt.tensor(g))
    assert v.grad.item() == g[:, [0, 2]].sum() == 30.0
    want = g.copy()
    want[:, [0, 2]] = 0
    np.testing.assert_array_equal(x.grad.numpy(), want)
    assert nt.autograd.gradcheck(lambda t, s: t.index_fill(1, idx, s), (x, v))
