"""float16 on CUDA: elementwise kernels read half and compute in float32 (PyTorch's opmath),
reductions accumulate wider, matrix products multiply float32 copies; every result is compared
with the CPU's float16 result (which computes the same way)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
_g = np.random.default_rng(0)
A = _g.standard_normal((3, 5)).astype(np.float16)
B = _g.standard_normal(5).astype(np.float16)

_CALLS = {
    "add broadcast": lambda x, y: x + y,
    "mul number (opmath)": lambda x, y: x * 0.1,
    "add tiny number (rounds to half)": lambda x, y: x + 1e-4,
    "sub strided": lambda x, y: x.t()[1:] - 1,
    "exp": lambda x, y: x.exp(),
    "sigmoid": lambda x, y: x.sigmoid(),
    "floor": lambda x, y: (x * 3).floor(),
    "gt": lambda x, y: x > y,
    "where": lambda x, y: numtorch.where(x > 0, x, y),
    "clamp": lambda x, y: x.clamp(-0.5, 0.5),
    "sum": lambda x, y: x.sum(),
    "mean dim": lambda x, y: x.mean(1),
    "amax dim": lambda x, y: x.amax(0),
    "argmax, max dim": lambda x, y: x.max(1).values + x.argmax(0).sum(),
    "mm": lambda x, y: x @ x.t(),
    "to bool": lambda x, y: x.bool(),
    "to float32": lambda x, y: x.float(),
    "from float32": lambda x, y: x.float().half(),
    "softmax": lambda x, y: x.softmax(-1),
}


@pytest.mark.parametrize("name", list(_CALLS))
def test_half_matches_cpu(name):
    fn = _CALLS[name]
    want = fn(numtorch.from_numpy(A), numtorch.from_numpy(B))
    got = fn(numtorch.from_numpy(A).cuda(), numtorch.from_numpy(B).cuda())
    assert got.device.type == "cuda" and got.dtype == want.dtype
    np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want.numpy().astype(np.float64),
                               rtol=2e-3, atol=2e-3)  # fmt: skip


def test_half_in_place_and_out_and_gradients():
    x = numtorch.from_numpy(A).cuda().requires_grad_()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy().astype(np.float64), 2 * A.astype(np.float64), rtol=2e-3)
    y = numtorch.from_numpy(A).cuda()
    y.mul_(2).add_(1)
    np.testing.assert_allclose(y.cpu().numpy(), (A * np.float16(2) + np.float16(1)), rtol=1e-3)
    out = numtorch.empty(3, 5, dtype=numtorch.float16, device="cuda")
    numtorch.add(y, 1, out=out)
    assert out.dtype == numtorch.float16


def test_half_cumsum_rounds_a_float32_running_sum():
    got = numtorch.from_numpy(A).cuda().cumsum(0)
    assert got.dtype is numtorch.float16
    np.testing.assert_array_equal(got.cpu().numpy(), numtorch.from_numpy(A).float().cumsum(0).half().numpy())
