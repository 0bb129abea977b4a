"""The typed tensor classes (numtorch.FloatTensor, ...): constructors and isinstance."""

from __future__ import annotations

import pytest

import numtorch


@pytest.mark.parametrize(
    "cls,dtype",
    [("LongTensor", "int64"), ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("IntTensor", "int32"),
     ("BoolTensor", "bool"), ("ByteTensor", "uint8"), ("HalfTensor", "float16"), ("ShortTensor", "int16"),
     ("CharTensor", "int8")],
)  # fmt: skip
def test_constructors_and_isinstance(cls, dtype):
    T, dt = getattr(numtorch, cls), getattr(numtorch, dtype)
    assert T(2, 3).shape == (2, 3) and T(2, 3).dtype is dt
    assert T(numtorch.Size([4])).shape == (4,)
    assert T().shape == (0,)
    assert T([1, 0]).dtype is dt and T([1, 0]).tolist() == [bool(1), bool(0)] if dtype == "bool" else T([1, 0]).tolist() == [1, 0]
    assert isinstance(numtorch.zeros(2, dtype=dt), T)
    other = numtorch.float64 if dt is not numtorch.float64 else numtorch.float32
    assert not isinstance(numtorch.zeros(2, dtype=other), T)
    assert not issubclass(T, numtorch.Tensor)
    assert repr(T) == f"<class 'torch.{cls}'>"


def test_tensor_argument_aliases_same_dtype_and_refuses_others():
    x = numtorch.ones(3)
    y = numtorch.FloatTensor(x)
    y[0] = 5
    assert x[0].item() == 5
    with pytest.raises(TypeError, match=r"expected TensorOptions\(dtype=float, .*\(got TensorOptions\(dtype=long int"):
        numtorch.FloatTensor(numtorch.ones(2, dtype=numtorch.int64))


def test_bad_arguments():
    with pytest.raises(TypeError, match="failed to unpack the object at pos 2"):
        numtorch.FloatTensor(2, 3.0)
    with pytest.raises(TypeError, match="new\\(\\) received an invalid combination of arguments"):
        numtorch.FloatTensor(2, dtype=numtorch.float64)
    with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
        numtorch.FloatTensor(2, device="cuda")
