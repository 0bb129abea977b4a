"""Note [Small batched inverse]: linalg.inv / inverse of finite real n <= 4 matrices run one
Numba Gauss-Jordan pass (values as NumPy's float64 LAPACK inverse up to rounding), linalg.solve too; singular
batches raise the body's error, larger or complex matrices keep NumPy's route."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import solve as LS


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_small_inverse_matches_lapack(dt, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((257, n, n)) * 10.0 ** rng.integers(-3, 4, (257, 1, 1))
    a[0] = np.eye(n)[::-1]  # a permutation: pivoting needed
    want = np.linalg.inv(a).astype(dt)
    tol = 2e-4 if dt == np.float32 else 1e-10
    for x in (
        torch.tensor(a.astype(dt)),
        torch.tensor(a.astype(dt)).mT.contiguous().mT,
        torch.tensor(a[3].astype(dt)),
    ):
        for f in (torch.linalg.inv, torch.inverse):
            r = f(x)
            w = want if x.ndim == 3 else want[3]
            if x.ndim == 3 and not x.is_contiguous():
                w = np.linalg.inv(x.numpy().astype(np.float64)).astype(dt)
            assert r.dtype == x.dtype and r.shape == x.shape and r.is_contiguous()
            np.testing.assert_allclose(r.numpy(), w, rtol=tol, atol=tol * np.abs(w).max())


def test_small_inverse_takes_the_kernel(monkeypatch):
    calls = []
    monkeypatch.setattr(LS.np.linalg, "inv", lambda *a: calls.append(a) or np.zeros(1))
    torch.linalg.inv(torch.tensor([[2.0, 1.0], [1.0, 3.0]]))
    torch.inverse(torch.eye(4, dtype=torch.float64).expand(3, 4, 4))
    assert not calls
    torch.linalg.inv(torch.eye(5))  # n = 5: NumPy's route
    assert len(calls) == 1


def test_singular_batches_raise_the_body_error():
    a = np.eye(3, dtype=np.float32)[None].repeat(4, 0)
    a[2] = [[1, 2, 3], [2, 4, 6], [0, 0, 1]]
    with pytest.raises(
        torch.linalg.LinAlgError, match=r"\(Batch element 2\): The diagonal element 2 is zero"
    ):
        torch.linalg.inv(torch.tensor(a))
    with pytest.raises(
        torch.linalg.LinAlgError, match=r"linalg.inv: The diagonal element 1 is zero"
    ):
        torch.inverse(torch.zeros(2, 2, dtype=torch.float64))


def test_nonfinite_and_complex_keep_their_routes():
    x = torch.tensor([[float("inf"), 1.0], [0.0, 2.0]])
    r = torch.linalg.inv(x)
    assert r[1, 1].item() == 0.5 and r.shape == (2, 2)
    c = torch.tensor([[1 + 1j, 2.0], [0.0, 1j]])
    np.testing.assert_allclose(torch.linalg.inv(c).numpy(), np.linalg.inv(c.numpy()), rtol=1e-6)


def test_inverse_gradcheck():
    a = torch.tensor(
        np.random.default_rng(5).standard_normal((2, 3, 3)) + 3 * np.eye(3), requires_grad=True
    )
    assert torch.autograd.gradcheck(torch.linalg.inv, (a,))
    assert torch.autograd.gradgradcheck(torch.linalg.inv, (a,))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64])
def test_det_column_product_is_np_prod_bit_for_bit(dt):
    rng = np.random.default_rng(7)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3e38]
    for n in (1, 2, 3, 5, 8, 16, 17):
        d = (rng.standard_normal((300, n)) * 10.0 ** rng.integers(-20, 20, (300, n))).astype(dt)
        d[:40] = rng.choice(specials, (40, n))
        with np.errstate(all="ignore"):
            want, got = np.prod(d, axis=-1), LS._prod_last(d)
        assert (
            got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
        )


def test_det_sign_of_the_interchanges():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((200, 4, 4))
    np.testing.assert_allclose(
        torch.linalg.det(torch.tensor(a)).numpy(), np.linalg.det(a), rtol=1e-9, atol=1e-12
    )
    p = np.eye(4)[[1, 0, 3, 2]], np.eye(4)[[1, 2, 0, 3]], np.eye(4)[[3, 2, 1, 0]]
    assert [torch.linalg.det(torch.tensor(m)).item() for m in p] == [1.0, 1.0, 1.0]
    assert torch.linalg.det(torch.tensor(np.eye(3)[[1, 0, 2]])).item() == -1.0


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_small_solve_matches_lapack(dt, n):
    rng = np.random.default_rng(20 + n)
    a = rng.standard_normal((64, n, n)) * 10.0 ** rng.integers(-2, 3, (64, 1, 1))
    b = rng.standard_normal((n, 2))
    tol = 2e-4 if dt == np.float32 else 1e-10
    x, y = torch.tensor(a.astype(dt)), torch.tensor(b.astype(dt))
    for left in (True, False):
        for rhs in (y, y[:, 0], torch.tensor(rng.standard_normal((64, n, 3)).astype(dt))):
            if not left and rhs.ndim != 3:
                continue
            r = torch.linalg.solve(x, rhs.mT if not left else rhs, left=left)
            aa, bb = x.numpy().astype(np.float64), rhs.numpy().astype(np.float64)
            if left:
                w = (
                    np.linalg.solve(aa, bb[..., None])[..., 0]
                    if rhs.ndim == 1
                    else np.linalg.solve(aa, bb)
                )
            else:
                w = np.swapaxes(np.linalg.solve(np.swapaxes(aa, -1, -2), bb), -1, -2)
            assert r.dtype == x.dtype and r.shape == w.shape and r.is_contiguous()
            np.testing.assert_allclose(
                r.numpy(), w.astype(dt), rtol=tol, atol=tol * np.abs(w).max()
            )


def test_small_solve_takes_the_kernel_and_keeps_errors(monkeypatch):
    from numtorch.ops.linalg import _np_lapack as NL

    calls = []
    monkeypatch.setattr(NL, "solve", lambda *a: calls.append(a) or np.linalg.solve(*a))
    x = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
    torch.linalg.solve(x, torch.ones(2)), torch.linalg.solve(x.expand(3, 2, 2), torch.ones(2, 1))
    assert not calls
    torch.linalg.solve(
        x, torch.tensor([1.0, float("nan")])
    )  # a non-finite right-hand side: NumPy's route
    assert len(calls) == 1
    with pytest.raises(
        torch.linalg.LinAlgError, match=r"\(Batch element 1\): The solver failed because the input"
    ):
        torch.linalg.solve(torch.stack([x, torch.zeros(2, 2)]), torch.ones(2))
