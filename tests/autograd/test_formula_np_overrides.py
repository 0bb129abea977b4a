"""Note [Backward formulas in NumPy]'s gate: while a kernel is registered over an aten op, the
formulas run as ops, so that kernel is called (Note [Fast calls under kernel overrides])."""

from __future__ import annotations

import numpy as np

import numtorch as torch
from numtorch.ops import _formula_np


def test_a_kernel_over_an_aten_op_sees_the_formulas_ops():
    x = torch.tensor([1.0, 5.0, 3.0], requires_grad=True)
    y = torch.tensor([4.0, 2.0, 3.0], requires_grad=True)
    loss = (x * y).sum()  # MulBackward0's formula: grad * other under the gate
    seen = []

    def mul(a, b):
        seen.append(1)
        return torch.from_numpy(np.multiply(a.detach().numpy(), b.detach().numpy()))

    lib = torch.library.Library("aten", "IMPL")
    lib.impl("mul.Tensor", mul, "CPU")
    try:
        with torch.no_grad():
            assert not _formula_np.plain(torch.ones(2), torch.ones(2))
        loss.backward()
    finally:
        lib._destroy()
    assert seen, "the formula ran in NumPy: the registered mul kernel was not called"
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 2.0, 3.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 5.0, 3.0])
    with torch.no_grad():
        assert _formula_np.plain(torch.ones(2), torch.ones(2))  # the gate opens again
