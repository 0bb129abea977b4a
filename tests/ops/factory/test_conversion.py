"""dtype/device conversions: to, type, type_as, float()..., cpu(), cuda() (numtorch/ops/factory/conversion.py)."""

from __future__ import annotations

import pytest

import numtorch
from numtorch.ops.factory import conversion


def test_to_returns_self_unless_something_changes_or_copy_is_asked():
    x = numtorch.zeros(2, 3)
    assert (
        x.to(numtorch.float32) is x
        and x.to("cpu") is x
        and x.to(x) is x
        and x.to(device="cpu") is x
    )
    y = x.to(numtorch.float32, copy=True)
    assert y is not x and y.dtype == numtorch.float32 and y._base is None
    assert x.to(numtorch.float32, False, True) is not x


def test_to_overloads():
    x = numtorch.tensor([1.5, -2.5])
    assert x.to(numtorch.int32).tolist() == [1, -2]
    assert x.to("cpu", numtorch.float64).dtype == numtorch.float64
    assert x.to(device="cpu", dtype=numtorch.int64).dtype == numtorch.int64
    assert x.to(numtorch.zeros(1, dtype=numtorch.int8)).dtype == numtorch.int8
    assert (
        x.to(numtorch.device("cpu"), numtorch.float16, non_blocking=True).dtype == numtorch.float16
    )
    assert x.to(float).dtype == numtorch.float64 and x.to(dtype=int).dtype == numtorch.int64
    t = numtorch.zeros(2, 3).t()
    assert t.to(memory_format=numtorch.contiguous_format) is t  # PyTorch's to_will_alias rule
    assert t.to(numtorch.float64).stride() == (1, 3)
    assert t.to(numtorch.float64, memory_format=numtorch.contiguous_format).stride() == (2, 1)
    cl = numtorch.zeros(1, 2, 3, 4).contiguous(memory_format=numtorch.channels_last)
    assert cl.to(memory_format=numtorch.channels_last) is cl
    assert cl.to(memory_format=numtorch.contiguous_format).stride() == (24, 12, 4, 1)


def test_to_goes_through_aten_to_copy():
    from numtorch.ops import aten

    x = numtorch.zeros(2)
    y = aten._to_copy.default(x, dtype=numtorch.float64)
    assert y.dtype == numtorch.float64 and y is not x
    assert aten.to.dtype(x, numtorch.float32) is x


@pytest.mark.parametrize("call", [
    lambda x: x.to("cuda"), lambda x: x.cuda(), lambda x: x.to(0), lambda x: x.type("torch.cuda.FloatTensor"),
], ids=["to_cuda", "cuda", "to_index", "type_cuda"])  # fmt: skip
def test_cuda_without_a_backend_raises_torch_error(call):
    with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
        call(numtorch.zeros(2))
    with pytest.raises(AssertionError):
        call(numtorch.zeros(2))


def test_device_copies_route_through_the_registered_backend(monkeypatch):
    seen = []

    def fake(t, dtype, device):
        seen.append((dtype, device))
        return t.clone()

    monkeypatch.setitem(conversion.DEVICE_COPY, "cuda", fake)
    numtorch.zeros(2).cuda()
    numtorch.zeros(2).to("cuda:1", numtorch.float64)
    assert seen == [
        (numtorch.float32, numtorch.device("cuda", 0)),
        (numtorch.float64, numtorch.device("cuda", 1)),
    ]


CONVERSION_ERRORS = [
    (
        lambda x: x.to("cpu", "x"),
        TypeError,
        "to() received an invalid combination of arguments - got (str, str)",
    ),
    (
        lambda x: x.to([1]),
        TypeError,
        "to() received an invalid combination of arguments - got (list)",
    ),
    (
        lambda x: x.to("foo"),
        RuntimeError,
        "Expected one of cpu, cuda, meta device type at start of device string: foo",
    ),
    (lambda x: x.type("torch.Foo"), ValueError, "invalid type: 'torch.Foo'"),
    (lambda x: x.type("float"), ValueError, "invalid type: 'float'"),
    (lambda x: x.cuda("cpu"), RuntimeError, "Invalid device, must be cuda device"),
]


@pytest.mark.parametrize(
    "fn,exc,msg", CONVERSION_ERRORS, ids=[e[2][:30] for e in CONVERSION_ERRORS]
)
def test_conversion_error_type_and_message(fn, exc, msg):
    with pytest.raises(exc) as info:
        fn(numtorch.zeros(2))
    assert msg in str(info.value)


def test_type_strings():
    assert numtorch.zeros(2).type() == "torch.FloatTensor"
    assert numtorch.zeros(2, dtype=numtorch.float16).type() == "torch.HalfTensor"
    assert numtorch.zeros(2, dtype=numtorch.bool).type() == "torch.BoolTensor"
    assert numtorch.zeros(2, dtype=numtorch.complex64).type() == "torch.ComplexFloatTensor"
    x = numtorch.zeros(2)
    assert x.type("torch.IntTensor").dtype == numtorch.int32
    assert x.type(numtorch.float64).dtype == numtorch.float64 and x.type("torch.FloatTensor") is x


@pytest.mark.parametrize("name,dt", [("float", "float32"), ("double", "float64"), ("half", "float16"), ("int", "int32"),
                                     ("long", "int64"), ("short", "int16"), ("bool", "bool"), ("byte", "uint8"),
                                     ("char", "int8"), ("cfloat", "complex64"), ("cdouble", "complex128")])  # fmt: skip
def test_cast_methods(name, dt):
    x = numtorch.tensor([0.0, 1.5, -2.0])
    y = getattr(x, name)()
    assert y.dtype == getattr(numtorch, dt)
    assert getattr(y, name)() is y


def test_float_to_int_conversion_truncates_and_complex_drops_imag_with_a_warning():
    assert numtorch.tensor([2.9, -2.9]).long().tolist() == [2, -2]
    with pytest.warns(
        UserWarning, match="Casting complex values to real discards the imaginary part"
    ):
        r = numtorch.tensor([1 + 2j]).float()
    assert r.tolist() == [1.0]


def test_python_number_protocols_need_one_element():
    # int()/float()/complex() raise ValueError as torch.Tensor does; item() keeps its RuntimeError
    for conv in (int, float, complex):
        with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
            conv(numtorch.ones(2))
    with pytest.raises(RuntimeError, match="^a Tensor with 2 elements cannot be converted to Scalar$"):
        numtorch.ones(2).item()
    assert int(numtorch.tensor([3.7])) == 3 and float(numtorch.tensor(2)) == 2.0


def test_requires_grad_on_an_integer_tensor_uses_each_entry_points_message():
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        numtorch.tensor([1, 2]).requires_grad_()
    t = numtorch.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients$"):
        t.requires_grad = True


def test_plain_conversions_values_and_identity():
    # the contiguous _to_copy route and Tensor.to's one-argument shortcut
    import warnings

    import numpy as np

    x = numtorch.tensor([[1.5, -2.0, float("nan")], [float("inf"), 3e9, -0.0]])
    assert x.to("cpu") is x and x.to(numtorch.float32) is x
    y = numtorch.tensor([1.0, 2.0])
    assert y.to(y) is y and y.to(numtorch.zeros(1, dtype=numtorch.float64)).dtype == numtorch.float64
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the unsafe casts stay silent (NaN, inf, out of range)
        i = x.int()
        h = numtorch.tensor([1e6, 1.0]).half()
    assert i.dtype == numtorch.int32 and i.shape == (2, 3) and i[0, :2].tolist() == [1, -2]
    assert h.tolist() == [float("inf"), 1.0]
    d = x.double()
    assert d.dtype == numtorch.float64 and np.array_equal(d.numpy(), x.numpy().astype(np.float64), equal_nan=True)
    assert np.signbit(d.numpy()[1, 2])
    assert numtorch.tensor([3, -1]).to(numtorch.float32).tolist() == [3.0, -1.0]
    t = x.t()  # strided: the layout-preserving route
    assert t.double().stride() == t.stride()
