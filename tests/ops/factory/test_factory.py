"""Factories: dtype inference, sizes, out=, devices, dispatch, memory sharing, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch
from numtorch.utils._python_dispatch import TorchDispatchMode


class _Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


# ---- torch.tensor -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "data,dtype",
    [(3, "int64"), (3.5, "float32"), (True, "bool"), (1 + 2j, "complex64"), ([], "float32"),
     ([1, 2.5], "float32"), ([True, 2], "int64"), ([1, 2j], "complex64"), ([[1, 2], [3, 4]], "int64"),
     ((1, 2), "int64"), (range(3), "int64"), ([np.float32(2), 1.0], "float32"), ([np.float64(2), 1.0], "float64"),
     ([np.int32(2), 1], "int64"), (np.zeros(2, np.int16), "int16"), (np.float64(2), "float64")],
)  # fmt: skip
def test_tensor_infers_dtype_like_pytorch(data, dtype):
    assert numtorch.tensor(data).dtype is getattr(numtorch, dtype)


def test_tensor_inference_follows_the_default_dtype():
    numtorch.set_default_dtype(numtorch.float64)
    try:
        assert numtorch.tensor([1.5]).dtype is numtorch.float64
        assert numtorch.tensor([1j]).dtype is numtorch.complex128
        assert numtorch.arange(0.0, 1.0, 0.5).dtype is numtorch.float64
    finally:
        numtorch.set_default_dtype(numtorch.float32)


def test_tensor_of_zero_dim_tensors_promotes_with_their_dtypes():
    t = numtorch.tensor([numtorch.tensor(1, dtype=numtorch.int32), 5.0])
    assert t.dtype is numtorch.float32 and t.tolist() == [1.0, 5.0]
    t = numtorch.tensor([numtorch.tensor(1.0, dtype=numtorch.float64), 2.0])
    assert t.dtype is numtorch.float64


@pytest.mark.parametrize(
    "data,exc,msg",
    [([[1, 2], [1, 2, 3]], ValueError, "expected sequence of length 2 at dim 1 (got 3)"),
     ([[[1, 2]], [[1]]], ValueError, "expected sequence of length 2 at dim 2 (got 1)"),
     ([[1, 2], 3], TypeError, "not a sequence"),
     ([1, [2]], TypeError, "'list' object cannot be interpreted as an integer"),
     ([1.0, [2.0]], TypeError, "must be real number, not list"),
     (["a"], ValueError, "too many dimensions 'str'"),
     ("a", TypeError, "new(): invalid data type 'str'"),
     (None, RuntimeError, "Could not infer dtype of NoneType"),
     (2**63, ValueError, "Overflow when unpacking long long")],
)  # fmt: skip
def test_tensor_rejects_bad_data_with_pytorch_errors(data, exc, msg):
    with pytest.raises(exc) as e:
        numtorch.tensor(data)
    assert str(e.value) == msg


def test_tensor_checks_integer_overflow_but_wraps_negative_unsigned():
    assert numtorch.tensor([-1], dtype=numtorch.uint8).tolist() == [255]
    with pytest.raises(
        RuntimeError, match="value cannot be converted to type uint8 without overflow"
    ):
        numtorch.tensor([300], dtype=numtorch.uint8)
    with pytest.raises(
        RuntimeError, match="value cannot be converted to type int64 without overflow"
    ):
        numtorch.tensor([float("nan")], dtype=numtorch.int64)
    assert numtorch.tensor([1.7, -1.7], dtype=numtorch.int64).tolist() == [1, -1]


def test_multi_element_tensors_inside_lists_are_rejected():
    with pytest.raises(
        ValueError, match="only one element tensors can be converted to Python scalars"
    ):
        numtorch.tensor([numtorch.tensor([1.0, 2.0]), numtorch.tensor([3.0, 4.0])])


def test_tensor_copies_and_warns_for_tensor_input():
    src = numtorch.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match=r"rather than torch.tensor\(sourceTensor\)"):
        t = numtorch.tensor(src)
    t[0] = 5.0
    assert src.tolist() == [1.0, 2.0]


def test_from_numpy_and_as_tensor_share_memory_tensor_copies():
    a = np.zeros(3)
    numtorch.from_numpy(a)[0] = 1.0
    numtorch.as_tensor(a)[1] = 2.0
    numtorch.tensor(a)[2] = 3.0
    assert a.tolist() == [1.0, 2.0, 0.0]
    t = numtorch.ones(2)
    assert numtorch.as_tensor(t) is t
    assert numtorch.as_tensor(a, dtype=numtorch.float32).dtype is numtorch.float32


def test_from_numpy_rejects_unsupported_arrays():
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        numtorch.from_numpy([1])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.object_"):
        numtorch.from_numpy(np.zeros(2, object))
    with pytest.raises(ValueError, match="byte order different from the native byte order"):
        numtorch.from_numpy(np.zeros(2, ">f4"))


# ---- sized factories ---------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize(
    "size", [(2, 3), ((2, 3),), ([2, 3],), (numtorch.Size([2, 3]),), (np.int64(2), 3)]
)
def test_sized_factories_accept_every_size_spelling(fn, size):
    assert getattr(numtorch, fn)(*size).shape == (2, 3)


@pytest.mark.parametrize(
    "call,exc,msg",
    [(lambda: numtorch.zeros(-1), RuntimeError, "zeros: Dimension size must be non-negative."),
     (lambda: numtorch.ones(2, -1), RuntimeError, "Trying to create tensor with negative dimension -1: [2, -1]"),
     (lambda: numtorch.zeros("a"), TypeError, "zeros(): argument 'size' (position 1) must be tuple of ints, not str"),
     (lambda: numtorch.zeros(2.5), TypeError, "zeros(): argument 'size' (position 1) must be tuple of ints, not float"),
     (lambda: numtorch.zeros(2, "a"), TypeError,
      "zeros(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\""),
     (lambda: numtorch.zeros((2,), 3), TypeError, "zeros() takes 1 positional argument but 2 were given"),
     (lambda: numtorch.zeros(), TypeError, 'zeros() missing 1 required positional arguments: "size"'),
     (lambda: numtorch.zeros(2, dtype="float"), TypeError, "zeros(): argument 'dtype' must be torch.dtype, not str"),
     (lambda: numtorch.zeros(2, dtype=numtorch.int64, requires_grad=True), RuntimeError,
      "Only Tensors of floating point and complex dtype can require gradients"),
     (lambda: numtorch.full(2, 3.0), TypeError, "full(): argument 'size' (position 1) must be tuple of ints, not int"),
     (lambda: numtorch.full([2], numtorch.tensor([3.0])), TypeError,
      "full(): argument 'fill_value' (position 2) must be Number, not Tensor"),
     (lambda: numtorch.full([2], 300, dtype=numtorch.uint8), RuntimeError,
      "value cannot be converted to type uint8_t without overflow"),
     (lambda: numtorch.full([2], 1e300), RuntimeError, "value cannot be converted to type float without overflow"),
     (lambda: numtorch.full([2], 1j, dtype=numtorch.int64), RuntimeError,
      "value cannot be converted to type int64_t without overflow"),
     (lambda: numtorch.eye(-1), RuntimeError, "n must be greater or equal to 0, got -1"),
     (lambda: numtorch.eye(2, -1), RuntimeError, "m must be greater or equal to 0, got -1"),
     (lambda: numtorch.empty_strided((2, 3), (1,)), RuntimeError,
      "dimensionality of sizes (2) must match dimensionality of strides (1)"),
     (lambda: numtorch.scalar_tensor(1j), RuntimeError, "value cannot be converted to type float without overflow"),
     (lambda: numtorch.complex(numtorch.tensor([1]), numtorch.tensor([2])), RuntimeError,
      "Expected both inputs to be Half, Float or Double tensors but got Long and Long"),
     (lambda: numtorch.zeros(2).new_zeros(), TypeError, 'new_zeros() missing 1 required positional arguments: "size"')],
)  # fmt: skip
def test_factory_errors_match_pytorch(call, exc, msg):
    with pytest.raises(exc) as e:
        call()
    assert str(e.value) == msg


@pytest.mark.parametrize(
    "fill,dtype", [(True, "bool"), (3, "int64"), (3.0, "float32"), (3j, "complex64"), (np.float64(3), "float32"),
                   (numtorch.tensor(3), "int64")],
)  # fmt: skip
def test_full_infers_dtype_from_the_fill_value(fill, dtype):
    assert numtorch.full((2,), fill).dtype is getattr(numtorch, dtype)


def test_full_converts_fill_like_pytorch():
    assert numtorch.full([2], 2.5, dtype=numtorch.int64).tolist() == [2, 2]
    assert numtorch.full([2], -1, dtype=numtorch.uint8).tolist() == [255, 255]
    assert numtorch.full([2], 2, dtype=numtorch.bool).tolist() == [True, True]
    assert numtorch.full_like(numtorch.zeros(2, dtype=numtorch.int64), 2.7).tolist() == [2, 2]


def test_requires_grad_makes_a_leaf():
    for t in (numtorch.zeros(2, requires_grad=True), numtorch.arange(3.0, requires_grad=True),
              numtorch.tensor([1.0], requires_grad=True), numtorch.eye(2, requires_grad=True)):  # fmt: skip
        assert t.requires_grad and t.is_leaf and t.grad_fn is None


# ---- out= -----------------------------------------------------------------------------------------
def test_out_is_written_resized_and_returned():
    out = numtorch.ones(2, dtype=numtorch.int32)
    assert numtorch.zeros(3, out=out) is out
    assert out.shape == (3,) and out.dtype is numtorch.int32 and out.tolist() == [0, 0, 0]
    out = numtorch.zeros(4)
    assert numtorch.ones((2, 2), out=out) is out and out.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    v0 = out._version
    numtorch.full((2, 2), 3.0, out=out)
    assert out._version > v0


def test_out_dtype_conflict_raises():
    with pytest.raises(
        RuntimeError, match=r"^dtype Double does not match dtype of out parameter \(Float\)$"
    ):
        numtorch.zeros(2, out=numtorch.ones(2), dtype=numtorch.float64)
    with pytest.raises(
        RuntimeError, match=r"dtype Double does not match dtype of out parameter \(Float\)"
    ):
        numtorch.arange(3, out=numtorch.zeros(3), dtype=numtorch.float64)


def test_arange_out_takes_its_dtype_and_warns_on_length_change():
    out = numtorch.zeros(3, dtype=numtorch.int32)
    assert numtorch.arange(3, out=out).tolist() == [0, 1, 2] and out.dtype is numtorch.int32
    with pytest.warns(UserWarning, match="The number of elements in the out tensor of shape"):
        numtorch.arange(3, out=numtorch.zeros(5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numtorch.arange(3, out=numtorch.zeros(0))


# ---- arange / linspace / logspace -------------------------------------------------------------------
@pytest.mark.parametrize(
    "args,n",
    [((0, 1, 0.1), 10), ((1, 2, 0.1), 10), ((0, 0.3, 0.1), 3), ((0, 1, 1 / 3), 3), ((0, 1, 0.3), 4),
     ((-1, 1, 0.1), 20), ((0.0, 1.0, 1 / 49), 50), ((1e-3, 1, 1e-3), 999), ((10, 0, -3), 4), ((1, 1), 0),
     ((5, 0, -0.5), 10), ((0, 10, 3), 4)],
)  # fmt: skip
def test_arange_length_is_ceil_of_range_over_step(args, n):
    assert numtorch.arange(*args).shape == (n,)


def test_arange_dtype_inference_and_values():
    assert numtorch.arange(5).dtype is numtorch.int64
    assert numtorch.arange(5.0).dtype is numtorch.float32
    assert numtorch.arange(numtorch.tensor(3)).dtype is numtorch.int64
    assert numtorch.arange(0, 3, numtorch.tensor(0.5)).dtype is numtorch.float32
    assert numtorch.arange(1, 2.5, 0.5).tolist() == [1.0, 1.5, 2.0]
    assert numtorch.arange(0.5, 3.7, 1.5, dtype=numtorch.int32).tolist() == [0, 1, 2]
    assert numtorch.arange(0, 300, dtype=numtorch.uint8)[-1].item() == 43
    assert numtorch.arange(1e8, 1e8 + 3.0).tolist() == [
        1e8,
        1e8,
        1e8,
    ]  # float32 rounding, as PyTorch


@pytest.mark.parametrize(
    "args,kw,exc,msg",
    [((0, 3, 0), {}, RuntimeError, "step must be nonzero"),
     ((0, 2.5, 0.5), {"dtype": numtorch.int64}, ValueError, "step must be nonzero"),
     ((0, 3, -1), {}, RuntimeError, "upper bound and lower bound inconsistent with step sign"),
     ((0, float("inf")), {}, RuntimeError, "unsupported range: 0 -> inf"),
     ((0, float("nan")), {}, RuntimeError, "unsupported range: 0 -> nan"),
     ((3,), {"dtype": numtorch.bool}, NotImplementedError, "\"arange_cpu\" not implemented for 'Bool'"),
     (("a",), {}, TypeError, "arange(): argument 'end' (position 1) must be Number, not str"),
     ((0, 2**62), {}, RuntimeError, "Storage size calculation overflowed with sizes=[4611686018427387904]")],
)  # fmt: skip
def test_arange_errors(args, kw, exc, msg):
    with pytest.raises(exc) as e:
        numtorch.arange(*args, **kw)
    assert str(e.value) == msg


def test_linspace_and_logspace_follow_pytorchs_kernel():
    assert numtorch.linspace(0, 10, 4, dtype=numtorch.int64).tolist() == [0, 3, 6, 10]
    assert numtorch.linspace(10, 0, 4, dtype=numtorch.int64).tolist() == [10, 6, 3, 0]
    assert numtorch.linspace(0, 1, 1).tolist() == [0.0] and numtorch.linspace(0, 1, 0).shape == (0,)
    assert numtorch.linspace(0, 1j, 3).dtype is numtorch.complex64
    assert numtorch.logspace(0, 1, 3, dtype=numtorch.int64).tolist() == [1, 3, 10]
    assert numtorch.logspace(0, 2, 3, base=2).tolist() == [1.0, 2.0, 4.0]
    with pytest.raises(RuntimeError, match="^number of steps must be non-negative$"):
        numtorch.linspace(0, 1, -1)
    with pytest.raises(
        RuntimeError, match="linspace only supports 0-dimensional start and end tensors"
    ):
        numtorch.linspace(numtorch.tensor([0.0]), numtorch.tensor(1.0), 3)
    with pytest.raises(
        TypeError,
        match=r"linspace\(\) received an invalid combination of arguments - got \(int, int, float\)",
    ):
        numtorch.linspace(0, 1, 3.0)


# ---- *_like, new_*, empty_strided ------------------------------------------------------------------
def test_like_factories_keep_dtype_and_dense_strides():
    base = numtorch.from_numpy(np.zeros((3, 4)).T)
    assert numtorch.zeros_like(base).stride() == (1, 4)
    assert numtorch.empty_like(numtorch.from_numpy(np.zeros((3, 4))[:, ::2])).stride() == (2, 1)
    assert numtorch.ones_like(numtorch.zeros(2, dtype=numtorch.int32)).dtype is numtorch.int32
    assert numtorch.full_like(numtorch.zeros(2), 7, dtype=numtorch.int64).tolist() == [7, 7]
    assert not numtorch.ones_like(numtorch.zeros(2, requires_grad=True)).requires_grad


def test_new_methods_inherit_dtype_and_device():
    x = numtorch.zeros(2, dtype=numtorch.float64)
    assert x.new_zeros(2, 3).dtype is numtorch.float64 and x.new_zeros((2, 3)).shape == (2, 3)
    assert x.new_ones(2, dtype=numtorch.int32).dtype is numtorch.int32
    assert x.new_full((2,), 3).tolist() == [3.0, 3.0]
    assert x.new_tensor([1, 2]).dtype is numtorch.float64
    assert x.new_empty(3).device == x.device
    assert x.new_empty_strided((2, 3), (1, 2)).stride() == (1, 2)
    assert x.new_zeros(2, requires_grad=True).requires_grad


def test_empty_strided_allocates_the_requested_layout():
    t = numtorch.empty_strided((2, 3), (1, 2))
    assert t.shape == (2, 3) and t.stride() == (1, 2)
    assert numtorch.empty_strided((0, 2), (1, 1)).shape == (0, 2)


def test_eye_scalar_tensor_complex_values():
    assert numtorch.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert numtorch.eye(2, dtype=numtorch.bool).dtype is numtorch.bool
    assert (
        numtorch.scalar_tensor(3).dtype is numtorch.float32
        and numtorch.scalar_tensor(3).shape == ()
    )
    c = numtorch.complex(numtorch.tensor([1.0]), numtorch.tensor([[2.0], [3.0]]))
    assert c.dtype is numtorch.complex64 and c.tolist() == [[1 + 2j], [1 + 3j]]


def test_predicates():
    x = numtorch.zeros(2, 3)
    assert numtorch.numel(x) == 6
    assert numtorch.is_tensor(x) and not numtorch.is_tensor([1])
    assert numtorch.is_floating_point(x) and not numtorch.is_complex(x)
    assert (
        numtorch.is_nonzero(numtorch.tensor([1])) is True
        and numtorch.tensor(0.0).is_nonzero() is False
    )
    with pytest.raises(
        RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"
    ):
        numtorch.is_nonzero(x)
    with pytest.raises(
        TypeError, match=r"numel\(\): argument 'input' \(position 1\) must be Tensor, not list"
    ):
        numtorch.numel([1])


# ---- dispatch and devices ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call,op",
    [(lambda: numtorch.zeros(2), "aten.zeros.default"), (lambda: numtorch.arange(5), "aten.arange.default"),
     (lambda: numtorch.arange(1, 5), "aten.arange.start"), (lambda: numtorch.arange(1, 5, 2), "aten.arange.start_step"),
     (lambda: numtorch.eye(2), "aten.eye.default"), (lambda: numtorch.eye(2, 3), "aten.eye.m"),
     (lambda: numtorch.full((2,), 1.0), "aten.full.default"), (lambda: numtorch.linspace(0, 1, 3), "aten.linspace.default"),
     (lambda: numtorch.zeros(2, out=numtorch.empty(2)), "aten.zeros.out"),
     (lambda: numtorch.empty_strided((2,), (1,)), "aten.empty_strided.default"),
     (lambda: numtorch.scalar_tensor(1), "aten.scalar_tensor.default")],
)  # fmt: skip
def test_factories_dispatch_as_aten_ops(call, op):
    with _Log() as log:
        call()
    assert op in log.ops


def test_factories_pass_the_device_to_the_backend_key():
    assert numtorch.zeros(2, device="cpu").device == numtorch.device("cpu")
    assert numtorch.arange(3, device=numtorch.device("cpu")).device.type == "cpu"
    # the device reaches the backend key; with no CUDA backend loaded PyTorch's CPU-only answer follows
    with pytest.raises(AssertionError, match=r"Torch not compiled with CUDA enabled"):
        numtorch.zeros(2, device="cuda")
    with pytest.raises(RuntimeError, match=r"Torch not compiled with CUDA enabled"):
        numtorch.eye(2, 3, device="cuda:0")


# ---- size= keyword, broadcast_shapes, the legacy constructor's errors ---------------------------
@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_sized_factories_take_the_size_by_keyword(name):
    fn = getattr(numtorch, name)
    assert fn(size=(2, 3)).shape == (2, 3) and fn(size=[4]).shape == (4,) and fn(size=()).shape == ()
    with pytest.raises(TypeError, match=f"^{name}\\(\\) got multiple values for argument 'size'$"):
        fn(2, size=(3,))
    with pytest.raises(TypeError, match=f"^{name}\\(\\): argument 'size' must be tuple of ints, not int$"):
        fn(size=3)


def test_broadcast_shapes_returns_a_size():
    r = numtorch.broadcast_shapes((2, 1), (3,))
    assert type(r) is numtorch.Size and r == (2, 3)
    assert numtorch.broadcast_shapes(2, (3, 1)) == (3, 2) and numtorch.broadcast_shapes() == ()
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1"):
        numtorch.broadcast_shapes((2, 3), (2, 4))


def test_legacy_constructor_rejects_numbers_strings_and_negative_sizes():
    for v, name in ((2.5, "float"), (True, "bool")):
        with pytest.raises(TypeError, match=f"^new\\(\\): data must be a sequence \\(got {name}\\)$"):
            numtorch.Tensor(v)
    with pytest.raises(TypeError, match="^new\\(\\): invalid data type 'str'$"):
        numtorch.Tensor("ab")
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[2, -1\]$"):
        numtorch.Tensor(2, -1)
    assert numtorch.Tensor(3, 4).shape == (3, 4) and numtorch.Tensor([1, 2]).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row, col, offset", [(3, 3, 0), (3, 4, 1), (4, 2, -1), (0, 0, 0), (2, 5, -3)])
def test_triangle_indices_match_numpy(name, row, col, offset):
    got = getattr(numtorch, name)(row, col, offset)
    want = np.stack(getattr(np, name)(row, offset, col))
    assert got.dtype == numtorch.int64 and got.shape == (2, want.shape[1])
    np.testing.assert_array_equal(got.numpy(), want)
    assert getattr(numtorch, name)(row, col, offset, dtype=numtorch.int32).dtype == numtorch.int32
    with pytest.raises(RuntimeError, match="^row must be non-negative, got-1$"):
        getattr(numtorch, name)(-1, 2)


def test_empty_tensors_report_pytorchs_contiguous_strides():
    # NumPy 2 gives empty arrays all-zero strides; PyTorch reports contiguous ones
    for shape, want in (((0, 3), (3, 1)), ((2, 0), (1, 1)), ((0,), (1,)), ((2, 0, 3), (3, 3, 1))):
        x = numtorch.zeros(shape)
        assert x.stride() == want and numtorch.empty_like(x).stride() == want
    out = numtorch.empty_like(numtorch.zeros(0, 3))
    assert out.copy_(numtorch.ones(0, 3)) is out  # no internal-overlap error for an empty destination
