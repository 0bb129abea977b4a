"""matmul of two CUDA tensors runs the CUDA product directly (Note [matmul fast path]: the
composite's dozen dispatches cost more host time than the product), for every shape case of
PyTorch's matmul, with one MatmulBackward0 node; what it does not take keeps the decomposition
and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(11)
SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)),
          ((4,), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (2, 4, 5)),
          ((2, 3, 4), (4,)), ((0, 3, 4), (4, 2)), ((3, 0), (0, 2))]  # fmt: skip


@pytest.mark.parametrize("sa,sb", SHAPES)
def test_matmul_matches_cpu_with_grads(sa, sb):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    out = []
    for dev in ("cpu", "cuda"):
        x = numtorch.tensor(a, device=dev, requires_grad=True)
        y = numtorch.tensor(b, device=dev, requires_grad=True)
        r = x @ y
        (r * 1.5).sum().backward()
        out.append((r, x.grad, y.grad))
    (rc, gxc, gyc), (rg, gxg, gyg) = out
    assert rg.device.type == "cuda" and rg.shape == rc.shape and rg.dtype == rc.dtype
    for g, c in ((rg, rc), (gxg, gxc), (gyg, gyc)):
        np.testing.assert_allclose(g.detach().cpu().numpy(), c.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_matmul_takes_the_direct_path_and_keeps_the_decomposition_errors(monkeypatch):
    from numtorch.cuda import _matmul

    x = numtorch.randn(2, 3, 4, device="cuda", requires_grad=True)
    y = numtorch.randn(4, 5, device="cuda")
    calls = []
    real = _matmul._gemm
    monkeypatch.setattr(_matmul, "_gemm", lambda *a: calls.append(a[2:6]) or real(*a))
    r = x @ y
    assert calls == [((2,), 3, 4, 5)]  # one batched product, no reshape/expand pieces
    assert type(r.grad_fn).__name__ == "MatmulBackward0"
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x4 and 3x5\)"):
        x @ numtorch.randn(3, 5, device="cuda")
    with pytest.raises(RuntimeError, match="expected .*same dtype|expected scalar type|dtype"):
        x @ numtorch.randn(4, 5, device="cuda", dtype=numtorch.float64)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x @ numtorch.randn(4, 5)
