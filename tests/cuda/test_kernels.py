"""Reductions (shared-memory trees) and matrix products (tiled GEMM) on CUDA against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(0)
H = rng.standard_normal((3, 5, 7))  # rows longer than a block: each thread folds several


def _cu(a):
    return numtorch.from_numpy(a.copy()).cuda()


@pytest.mark.parametrize("dtype,dim,keepdim", [(np.float32, None, False), (np.float64, 1, False),
                                               (np.float64, (0, 2), True), (np.float32, -1, True)])  # fmt: skip
def test_sum_mean_amax_match_numpy(dtype, dim, keepdim):
    h = H.astype(dtype)
    x = _cu(h)
    kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    npkw = {"axis": dim, "keepdims": keepdim and dim is not None}
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for got, want in ((x.sum(**kw), h.sum(**npkw)), (x.mean(**kw), h.mean(**npkw)),
                      (x.amax(**({} if dim is None else kw)), h.max(**npkw)),
                      (x.amin(**({} if dim is None else kw)), h.min(**npkw))):  # fmt: skip
        assert got.device.type == "cuda" and got.dtype == x.dtype
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=tol, atol=tol)


def test_long_rows_reduce_in_chunks_then_partials():
    # few rows much longer than a block: each row is cut into chunks, one block each (k > 1)
    h = rng.standard_normal((2, 900))
    x = _cu(h)
    np.testing.assert_allclose(x.sum(1).cpu().numpy(), h.sum(1), rtol=1e-12)
    np.testing.assert_allclose(x.mean().item(), h.mean(), rtol=1e-12)
    assert x.amax().item() == h.max() and x.amin(1).cpu().numpy().tolist() == h.min(1).tolist()
    h[1, 611] = np.nan
    assert np.isnan(_cu(h).amax(1).cpu().numpy()[1]) and not np.isnan(_cu(h).amax(1).cpu().numpy()[0])
    assert _cu(np.arange(1800)).sum().item() == 1800 * 1799 // 2


def test_reductions_of_views_and_integers():
    h = np.arange(24).reshape(4, 6)
    x = _cu(h)
    assert x.sum().item() == h.sum() and x.sum().dtype == numtorch.int64
    np.testing.assert_array_equal(x.t()[1:].sum(1).cpu().numpy(), h.T[1:].sum(1))
    np.testing.assert_array_equal(x.amax(0).cpu().numpy(), h.max(0))
    assert _cu(np.array([True, True, False])).sum().item() == 2
    assert numtorch.tensor([-5, -3], device="cuda").amax().item() == -3
    assert x.max().item() == 23 and x.min().item() == 0 and x.t().amin(1).cpu().tolist() == [0, 1, 2, 3, 4, 5]
    f = numtorch.tensor([2.0, -1.0, float("nan")], device="cuda")
    assert np.isnan(f.min().item()) and np.isnan(f.max().item()) and f[:2].min().item() == -1.0


def test_reduction_edge_cases():
    e = numtorch.zeros(0, 3, device="cuda")
    assert e.sum().item() == 0.0
    assert e.sum(0).cpu().tolist() == [0.0, 0.0, 0.0]
    assert np.isnan(e.mean().item())
    assert np.isnan(numtorch.tensor([1.0, float("nan"), 3.0], device="cuda").amax().item())
    assert numtorch.tensor(2.5, device="cuda").sum().item() == 2.5
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        numtorch.ones(2, dtype=numtorch.int64, device="cuda").mean()
    with pytest.raises(RuntimeError, match="max\\(\\): Expected reduction dim to be specified"):
        e.max()
    with pytest.raises(IndexError, match="Dimension out of range"):
        numtorch.ones(2, device="cuda").sum(3)
    assert numtorch.ones(2, 3, device="cuda").sum(1, dtype=numtorch.float64).dtype == numtorch.float64


_GPU_ONLY = pytest.mark.skipif(numtorch.cuda.is_available() and numtorch.cuda._rt.simulated(),
                               reason="several 64x64 output tiles: too slow in the simulator, run on a GPU")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (5, 7, 3), (2, 0, 3), (19, 13, 21),
                                   pytest.param(70, 33, 130, marks=_GPU_ONLY)])  # fmt: skip
def test_mm_matches_numpy(dtype, m, k, n):
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    got = numtorch.mm(_cu(a), _cu(b))
    assert got.device.type == "cuda" and got.shape == (m, n)
    np.testing.assert_allclose(got.cpu().numpy(), a @ b, rtol=tol, atol=tol)


def test_matmul_shapes_bmm_and_transposed_operands():
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5))
    np.testing.assert_allclose((_cu(a) @ _cu(b)).cpu().numpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(numtorch.bmm(_cu(a), _cu(a).transpose(1, 2)).cpu().numpy(),
                               a @ a.transpose(0, 2, 1), rtol=1e-12)  # fmt: skip
    v = rng.standard_normal(4)
    np.testing.assert_allclose((_cu(b.T) @ _cu(v)).cpu().numpy(), b.T @ v, rtol=1e-12)
    np.testing.assert_allclose((_cu(v) @ _cu(b)).cpu().numpy(), v @ b, rtol=1e-12)
    c = rng.standard_normal((3, 5))
    got = numtorch.addmm(_cu(c), _cu(a[0]), _cu(b), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(got.cpu().numpy(), 0.5 * c + 2.0 * (a[0] @ b), rtol=1e-12)


def test_mm_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied \\(2x3 and 4x5\\)"):
        numtorch.mm(numtorch.ones(2, 3, device="cuda"), numtorch.ones(4, 5, device="cuda"))
    with pytest.raises(RuntimeError, match="\"addmm_cuda\" not implemented for 'Long'"):
        numtorch.mm(numtorch.ones(2, 2, dtype=numtorch.int64, device="cuda"),
                    numtorch.ones(2, 2, dtype=numtorch.int64, device="cuda"))  # fmt: skip


def test_autograd_through_cuda_ops():
    f64 = numtorch.float64
    w = numtorch.tensor([[0.5, -1.0], [2.0, 0.25]], device="cuda", dtype=f64, requires_grad=True)
    x = numtorch.tensor([[1.0, 2.0], [3.0, 4.0]], device="cuda", dtype=f64)
    loss = (x @ w).tanh().sum()
    loss.backward()
    assert w.grad.device.type == "cuda"
    wc = w.detach().cpu().requires_grad_()
    (x.cpu() @ wc).tanh().sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), wc.grad.numpy(), rtol=1e-10)
