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
