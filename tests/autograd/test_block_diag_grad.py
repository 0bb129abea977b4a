"""block_diag's own node (PyTorch's block_diag_backward) against the decomposition's graph it
replaced: same gradients, bit for bit, for every input kind and dtype mix."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.linalg import decomp

from ._spy import OpLog

_SHAPES = [[(2, 3), (1, 2)], [(3,), (), (2, 2)], [(0,), (2, 1)], [(1, 1)], [(2, 0), (0, 3), (2,)]]


def _pair(shapes, dtypes, seed=0):
    rng = np.random.default_rng(seed)
    a = [rng.standard_normal(s) for s in shapes]
    mk = lambda: [numtorch.tensor(x, dtype=d, requires_grad=d.is_floating_point or d.is_complex)
                  for x, d in zip(a, dtypes, strict=True)]  # fmt: skip
    return mk(), mk()


@pytest.mark.parametrize("shapes", _SHAPES)
@pytest.mark.parametrize("mix", ["f32", "f64", "f32+f64", "int+f32", "c64+f32"])
def test_gradients_match_the_decomposition(shapes, mix):
    kinds = {"f32": [numtorch.float32], "f64": [numtorch.float64], "f32+f64": [numtorch.float32, numtorch.float64],
             "int+f32": [numtorch.int64, numtorch.float32], "c64+f32": [numtorch.complex64, numtorch.float32]}[mix]  # fmt: skip
    dtypes = [kinds[i % len(kinds)] for i in range(len(shapes))]
    xs, ys = _pair(shapes, dtypes)
    out = numtorch.block_diag(*xs)
    assert type(out.grad_fn).__name__ == "BlockDiagBackward0" or not any(
        x.requires_grad for x in xs
    )
    ref = decomp._block_diag_composite(ys)
    assert out.dtype == ref.dtype and out.shape == ref.shape and out.stride() == ref.stride()
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    if not out.requires_grad:
        return
    w = numtorch.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), dtype=out.dtype)
    (out * w).sum().abs().backward()
    (ref * w).sum().abs().backward()
    for x, y in zip(xs, ys, strict=True):
        if not x.requires_grad:
            continue
        # strides of size-1 dims may differ: the node hands the leaf a view of the gradient (as
        # PyTorch's does: a (1, 2) block of a (3, 5) gradient keeps stride (5, 1) there too)
        assert (
            x.grad.dtype == y.grad.dtype and x.grad.shape == y.grad.shape and x.grad.is_contiguous()
        )
        np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())


def test_gradcheck_and_gradgradcheck_float64_and_complex():
    a = numtorch.randn(2, 3, dtype=numtorch.float64, requires_grad=True)
    b = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    c = numtorch.randn((), dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(numtorch.block_diag, (a, b, c))
    assert gradgradcheck(numtorch.block_diag, (a, b, c))
    z = numtorch.randn(2, 2, dtype=numtorch.complex128, requires_grad=True)
    assert gradcheck(numtorch.block_diag, (z, b))
    assert gradgradcheck(numtorch.block_diag, (z, b))


def test_only_sizes_are_saved_so_inputs_may_change_in_place():
    a = numtorch.randn(2, 2, requires_grad=True)
    b = numtorch.randn(3)
    out = numtorch.block_diag(a, b)
    b.add_(1)  # PyTorch saves sizes: no version-counter error
    out.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((2, 2), np.float32))


def test_a_dispatch_mode_sees_one_block_diag_call():
    a, b = numtorch.randn(2, 2, requires_grad=True), numtorch.randn(1, 3)
    log = OpLog()
    with log:
        out = numtorch.block_diag(a, b)
    assert log.calls == ["aten.block_diag.default"]
    with log:
        out.sum().backward()
    assert "aten.slice.Tensor" in log.calls and "aten.cat.default" not in log.calls


def test_errors_and_other_devices_keep_the_decomposition():
    with pytest.raises(RuntimeError, match="Input 1 has 3 dimensions"):
        numtorch.block_diag(numtorch.randn(2, requires_grad=True), numtorch.randn(1, 2, 3))
    m = numtorch.block_diag(numtorch.empty(2, 3, device="meta"), numtorch.empty(1, device="meta"))
    assert m.device.type == "meta" and tuple(m.shape) == (3, 4)
    assert tuple(numtorch.block_diag().shape) == (1, 0)
