"""numtorch.library on CUDA: elementwise ops from a scalar function get CUDA kernels from the
same function; custom ops take a ``register_kernel("cuda")`` implementation."""

from __future__ import annotations

import math

import numpy as np

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda


def softplus_b(x, beta=1.0):
    return math.log1p(math.exp(beta * x)) / beta


def dsoftplus_b(x, beta=1.0):
    return 1.0 / (1.0 + math.exp(-beta * x))


def test_library_elementwise_runs_on_cuda_with_its_derivative():
    sp = numtorch.library.elementwise("cudatest::softplus_b", softplus_b, derivative=dsoftplus_b)
    h = np.array([0.0, 1.0, -2.0, 3.5])
    y = numtorch.tensor(h, device="cuda", requires_grad=True)
    r = sp(y, beta=2.0)
    assert r.device.type == "cuda"
    np.testing.assert_allclose(r.detach().cpu().numpy(), np.log1p(np.exp(2 * h)) / 2, rtol=1e-12)
    r.sum().backward()
    np.testing.assert_allclose(y.grad.cpu().numpy(), 1 / (1 + np.exp(-2 * h)), rtol=1e-12)
    out = numtorch.empty(4, dtype=numtorch.float64, device="cuda")
    sp(y.detach(), out=out)
    np.testing.assert_allclose(out.cpu().numpy(), np.log1p(np.exp(h)), rtol=1e-12)


def test_custom_op_dispatches_to_its_cuda_kernel():
    @numtorch.library.custom_op("cudatest::scaled", mutates_args=())
    def scaled(x: numtorch.Tensor) -> numtorch.Tensor:
        return x * 2

    @scaled.register_kernel("cuda")
    def _(x):
        return x * 3

    assert scaled(numtorch.ones(2)).tolist() == [2.0, 2.0]
    r = scaled(numtorch.ones(2, device="cuda"))
    assert r.device.type == "cuda" and r.cpu().tolist() == [3.0, 3.0]
