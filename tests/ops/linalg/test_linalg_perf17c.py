"""Session 17 (perf17c): cholesky's finite-diagonal check on a few real values (decomp's
_finite_diagonal) still sends every NaN pivot to PyTorch's error and lets huge finite factors
through."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import decomp


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("batch", [(), (2,), (2, 3)])
@pytest.mark.parametrize(
    "bad, order", [((0, 0, math.nan), 1), ((1, 1, math.nan), 2), ((0, 0, math.inf), 2)]
)
def test_a_non_finite_pivot_is_pytorchs_error(dtype, batch, bad, order):
    a = np.tile(np.array([[4.0, 1.0], [1.0, 3.0]]), batch + (1, 1))
    i, j, v = bad
    a[(-1,) * len(batch) + (i, j)] = v
    if v == math.inf:  # inf/inf in LAPACK's second pivot, where OpenBLAS scales by 1/inf = 0
        a[(-1,) * len(batch) + (0, 1)] = a[(-1,) * len(batch) + (1, 0)] = math.inf
    where = f"(Batch element {int(np.prod(batch)) - 1}): " if batch else ""
    msg = (f"linalg.cholesky: {where}The factorization could not be completed because the input is not "
           f"positive-definite (the leading minor of order {order} is not positive-definite).")  # fmt: skip
    with pytest.raises(torch.linalg.LinAlgError, match=f"^{re.escape(msg)}$"):
        torch.linalg.cholesky(torch.tensor(a, dtype=dtype))


def test_the_python_sum_route_decides_small_real_factors(monkeypatch):
    seen = []
    real = decomp._isfinite_f
    monkeypatch.setattr(decomp, "_isfinite_f", lambda s: seen.append(s) or real(s))
    a = np.array(
        [[[4.0, 1.0], [1.0, 3.0]], [[1e300, 0.0], [0.0, 1e300]]]
    )  # the sum of the roots: finite
    r = torch.linalg.cholesky(torch.tensor(a))
    assert r._data.tobytes() == np.linalg.cholesky(a).tobytes() and seen
    # a factor whose diagonal sums past the float64 range reads as not finite: _check_pd
    # re-checks it and finds it positive-definite (no error)
    big = np.diag([1.7e308, 1.7e308])
    assert decomp._finite_diagonal(big) is False
    decomp._check_pd(big, "linalg.cholesky", False)


# ---- Note [Batched LU for det and slogdet] -------------------------------------------------------
def _mats(rng, dtype):
    for shape in [(3, 3), (2, 4, 4), (2, 3, 2, 2), (5, 1, 1), (7, 7)]:
        yield rng.standard_normal(shape).astype(dtype)
    yield rng.standard_normal((3, 4, 4)).astype(dtype).transpose(0, 2, 1)  # not contiguous
    yield (rng.standard_normal((2, 3, 3)) * 1e30).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_slogdet_of_a_real_batch_is_numpys_within_rounding(dtype, monkeypatch):
    from numtorch.ops.linalg import solve

    calls = []
    real = solve._KD.lu_slogdet
    monkeypatch.setattr(
        solve,
        "_KD",
        type("K", (), {"lu_slogdet": staticmethod(lambda *a: calls.append(1) or real(*a))}),
    )
    rng = np.random.default_rng(17)
    for a in _mats(rng, dtype):
        got = torch.linalg.slogdet(torch.tensor(a))
        sign, logabs = np.linalg.slogdet(a)
        assert got.sign.dtype == got.logabsdet.dtype == torch.tensor(a).dtype
        assert got.sign.shape == sign.shape and np.array_equal(got.sign.numpy(), sign)
        np.testing.assert_allclose(
            got.logabsdet.numpy(), logabs, rtol=1e-6 if dtype == np.float32 else 1e-13
        )
    assert len(calls) == 7


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_slogdet_of_singular_and_permuted_matrices(dtype):
    a = torch.tensor([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]],
                      [[0.0, 2.0], [3.0, 0.0]]], dtype=dtype)  # fmt: skip
    got = torch.linalg.slogdet(a)
    assert got.sign.tolist() == [0.0, 0.0, -1.0, -1.0]
    assert got.logabsdet.tolist()[:3] == [-math.inf, -math.inf, 0.0]
    assert abs(got.logabsdet.tolist()[3] - math.log(6.0)) < 1e-6
    p = torch.tensor(np.eye(4)[[2, 0, 3, 1]], dtype=dtype)  # a 4-cycle: det -1
    assert torch.linalg.slogdet(p).sign.item() == -1.0 and torch.linalg.det(p).item() == -1.0
    assert (
        math.isnan(torch.logdet(p).item()) and torch.logdet(torch.eye(3, dtype=dtype)).item() == 0.0
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_det_takes_the_parity_from_its_lu_call(dtype):
    # the determinant as _det_lu computed it before: getf2, then the parity in NumPy passes
    from numtorch.kernels.cpu import linalg as KL

    rng = np.random.default_rng(18)
    for a in _mats(rng, dtype):
        t = torch.tensor(a)
        m = np.swapaxes(a, -1, -2) if t.is_contiguous() else a
        n = a.shape[-1]
        lu = np.array(m, order="C", copy=True).reshape(-1, n, n)
        piv = np.zeros((lu.shape[0], n), np.int32)
        KL.lu_partial_pivot(lu, piv, np.zeros(lu.shape[0], np.int32), False)
        odd = (piv != np.arange(1, n + 1)).sum(-1) % 2 == 1
        d = np.diagonal(lu, 0, -2, -1)
        with np.errstate(all="ignore"):
            want = np.where(odd, -1, 1).astype(dtype) * np.prod(d, axis=-1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an overflowing product is inf without NumPy's warning
            got = torch.linalg.det(t)
        assert got.numpy().tobytes() == want.reshape(a.shape[:-2]).tobytes()


# ---- Note [Eigenvalues without eigenvectors] -----------------------------------------------------
def _sym(rng, shape, dtype):
    a = rng.standard_normal(shape)
    return (a + np.swapaxes(a, -1, -2)).astype(dtype)


def _spy_values(monkeypatch):
    from numpy.linalg import _umath_linalg as U

    seen = []
    for name in ("eigvalsh_lo", "eigvalsh_up"):
        real = getattr(U, name)
        monkeypatch.setattr(U, name, lambda *a, real=real, **k: seen.append(1) or real(*a, **k))
    return seen


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eigvalsh_of_plain_real_input_is_numpys_eigvalsh(dtype, monkeypatch):
    seen = _spy_values(monkeypatch)
    rng = np.random.default_rng(19)
    for shape in [(3, 3), (2, 4, 4), (2, 3, 2, 2), (1, 1)]:
        a = _sym(rng, shape, dtype)
        for uplo in ("L", "U"):
            n = len(seen)
            got = torch.linalg.eigvalsh(torch.tensor(a), uplo)
            assert len(seen) == n + 1  # the values-only route ran
            want = np.linalg.eigvalsh(a, UPLO=uplo)
            assert (
                got.dtype == torch.tensor(a).dtype
                and got.shape == want.shape
                and got.is_contiguous()
            )
            assert got.numpy().tobytes() == want.tobytes()
            # the body's eigh gives the same eigenvalues within its rounding
            body = torch.linalg.eigh(torch.tensor(a), uplo).eigenvalues.numpy()
            np.testing.assert_allclose(
                got.numpy(), body, rtol=1e-5, atol=1e-5 if dtype == np.float32 else 1e-12
            )
    a = _sym(rng, (3, 3), dtype)
    a_t = torch.tensor(a)
    assert (
        torch.linalg.eigvalsh(a_t.mT).numpy().tobytes() == np.linalg.eigvalsh(a.T).tobytes()
    )  # strided


def test_eigvalsh_takes_the_body_where_the_call_is_seen_recorded_or_refused(monkeypatch):
    import numtorch.autograd.forward_ad as fwAD
    from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

    seen = _spy_values(monkeypatch)
    rng = np.random.default_rng(20)
    a = torch.tensor(_sym(rng, (2, 3, 3), np.float64))
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.linalg.eigvalsh(a)
    assert "aten.linalg_eigh" in " ".join(logs)
    x = a.clone().requires_grad_(True)
    assert torch.linalg.eigvalsh(x).grad_fn is not None
    assert torch.autograd.gradcheck(lambda t: torch.linalg.eigvalsh(t + t.mT), (x,))
    with torch.no_grad():
        assert torch.linalg.eigvalsh(x).grad_fn is None

    class Sub(torch.Tensor):
        pass

    # a subclass: its __torch_function__ calls the binding again with torch functions disabled
    assert type(torch.linalg.eigvalsh(a.as_subclass(Sub))) is Sub
    n = len(seen)
    with fwAD.dual_level():
        d = fwAD.make_dual(a, torch.ones_like(a))
        assert fwAD.unpack_dual(torch.linalg.eigvalsh(d)).tangent is not None

    out = torch.empty(0, dtype=torch.float64)
    assert torch.linalg.eigvalsh(a, out=out) is out
    assert torch.linalg.eigvalsh(a, "l").shape == (2, 3)  # lower-case UPLO: the body's
    c = torch.tensor(_sym(rng, (3, 3), np.float64) + 0j)
    assert torch.linalg.eigvalsh(c).dtype == torch.float64
    bad = a.clone()
    bad[0, 1, 1] = math.nan
    with pytest.raises(
        torch.linalg.LinAlgError, match="linalg.eigh: The algorithm failed to converge"
    ):
        torch.linalg.eigvalsh(bad)
    with pytest.raises(RuntimeError, match="linalg.eigh: A must be batches of square matrices"):
        torch.linalg.eigvalsh(torch.ones(2, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        torch.linalg.eigvalsh(a, "X")
    assert torch.linalg.eigvalsh(torch.ones(0, 3, 3)).shape == (0, 3)
    assert len(seen) == n  # none of these took the values-only route


def test_eigvalsh_honours_a_kernel_registered_over_eigh(monkeypatch):
    seen = _spy_values(monkeypatch)
    a = torch.tensor(np.eye(3))
    called = []
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl(
            "linalg_eigh",
            lambda A, UPLO="L": called.append(1) or (torch.zeros(3, dtype=A.dtype), A),
            "CPU",
        )
        assert torch.linalg.eigvalsh(a).tolist() == [0.0, 0.0, 0.0] and called and not seen
    finally:
        lib._destroy()
    assert torch.linalg.eigvalsh(a).tolist() == [1.0, 1.0, 1.0] and seen
