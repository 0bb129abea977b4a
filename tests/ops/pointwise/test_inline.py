"""The number-operand branch inlined into an Elementwise op's fast path (numtorch/ops/pointwise/_inline.py)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.utils._python_dispatch import TorchDispatchMode


@pytest.mark.parametrize("shape", [(5,), (2, 3)])
def test_number_operand_matches_numpy_once_its_signature_is_learned(shape):
    x = numtorch.from_numpy(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    for _ in range(2):  # the first call learns the (float32, float) signature, the second inlines it
        np.testing.assert_array_equal((x * 1.5).numpy(), x.numpy() * np.float32(1.5))
        np.testing.assert_array_equal((x - 0.25).numpy(), x.numpy() - np.float32(0.25))
        np.testing.assert_array_equal((2.0 - x).numpy(), np.float32(2.0) - x.numpy())
    assert (x * 1.5).dtype is numtorch.float32
    i = numtorch.arange(4)  # an int tensor times a float promotes: never the inlined branch
    for _ in range(2):
        r = i * 1.5
        assert r.dtype is numtorch.float32 and r.tolist() == [0.0, 1.5, 3.0, 4.5]
    t = numtorch.ones(3, 2).t()  # not contiguous: the general path
    np.testing.assert_array_equal((t * 2.0).numpy(), np.full((2, 3), 2.0, np.float32))


def test_number_operand_keeps_modes_subclasses_and_grad():
    x = numtorch.ones(3)
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x * 2.0
    with Log():
        x * 2.0
        x - 1.0
    assert seen == ["aten.mul.Tensor", "aten.sub.Tensor"]  # PyTorch's wrapped-number overloads
    p = numtorch.nn.Parameter(numtorch.ones(3))
    y = p * 3.0 - 0.5
    assert y.grad_fn.name() == "SubBackward0" and y.tolist() == [2.5, 2.5, 2.5]
    y.sum().backward()
    assert p.grad.tolist() == [3.0, 3.0, 3.0]
    assert x.__mul__("a") is NotImplemented
