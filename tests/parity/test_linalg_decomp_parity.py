"""numtorch.linalg cholesky/eigh/svd/pinv and cdist against torch: values, gradients, errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def test_parity_with_torch():
    a = np.random.default_rng(0).standard_normal((2, 4, 3))
    pd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    for name, arr in [("cholesky", pd), ("eigvalsh", pd), ("svdvals", a), ("pinv", a)]:
        got = getattr(numtorch.linalg, name)(numtorch.tensor(arr)).numpy()
        np.testing.assert_allclose(got, getattr(torch.linalg, name)(torch.tensor(arr)).numpy(), atol=1e-10)
    for fn in (lambda m, x: m.linalg.cholesky(x).sum(), lambda m, x: m.linalg.eigh(x).eigenvalues.sum(),
               lambda m, x: m.linalg.svd(x, full_matrices=False).U.abs().sum()):  # fmt: skip
        t, n = torch.tensor(pd, requires_grad=True), numtorch.tensor(pd, requires_grad=True)
        fn(torch, t).backward()
        fn(numtorch, n).backward()
        np.testing.assert_allclose(n.grad.numpy(), t.grad.numpy(), atol=1e-8)
    x1, x2 = np.random.default_rng(1).standard_normal((2, 3, 4, 2))
    for p in (1.0, 2.0, 3.0):
        t1 = torch.tensor(x1, requires_grad=True)
        n1 = numtorch.tensor(x1, requires_grad=True)
        torch.cdist(t1, torch.tensor(x2), p=p).sum().backward()
        numtorch.cdist(n1, numtorch.tensor(x2), p=p).sum().backward()
        np.testing.assert_allclose(n1.grad.numpy(), t1.grad.numpy(), atol=1e-10)
    bad = [[1.0, 2.0], [2.0, 1.0]]
    with pytest.raises(torch.linalg.LinAlgError) as te:
        torch.linalg.cholesky(torch.tensor(bad))
    with pytest.raises(numtorch.linalg.LinAlgError) as ne:
        numtorch.linalg.cholesky(numtorch.tensor(bad))
    assert str(te.value) == str(ne.value)


def test_more_values_match_torch():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))
    s = rng.standard_normal((3, 3))
    s = s + s.T
    pairs = [
        (numtorch.linalg.lstsq(numtorch.tensor(a), numtorch.tensor(b)).solution, torch.linalg.lstsq(torch.tensor(a), torch.tensor(b)).solution),
        (numtorch.linalg.lstsq(numtorch.tensor(a), numtorch.tensor(b)).rank, torch.linalg.lstsq(torch.tensor(a), torch.tensor(b)).rank),
        (numtorch.linalg.eigvalsh(numtorch.tensor(s), "U"), torch.linalg.eigvalsh(torch.tensor(s), "U")),
        (numtorch.svd(numtorch.tensor(a)).S, torch.svd(torch.tensor(a)).S),
        (numtorch.linalg.pinv(numtorch.tensor(s), hermitian=True), torch.linalg.pinv(torch.tensor(s), hermitian=True)),
        (numtorch.block_diag(numtorch.tensor(s), numtorch.tensor([1, 2])), torch.block_diag(torch.tensor(s), torch.tensor([1, 2]))),
        (numtorch.cdist(numtorch.tensor(a), numtorch.tensor(b[..., :1].repeat(3, -1)), p=float("inf")),
         torch.cdist(torch.tensor(a), torch.tensor(b[..., :1].repeat(3, -1)), p=float("inf"))),
    ]  # fmt: skip
    for got, want in pairs:
        assert tuple(got.shape) == tuple(want.shape) and str(got.dtype) == str(want.dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-10)
    u, s_, v = numtorch.svd(numtorch.tensor(a), some=False)
    tu, ts, tv = torch.svd(torch.tensor(a), some=False)
    assert tuple(u.shape) == tuple(tu.shape) and tuple(v.shape) == tuple(tv.shape)
