"""linalg.ldl_factor_ex / ldl_solve against torch (LAPACK sytrf/sytrs): pivots, info, LD, solutions."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_ldl_matches_lapack_on_random_symmetric_matrices(dtype):
    rng = np.random.default_rng(5)
    tol = 2e-4 if dtype == np.float32 else 1e-10
    for trial in range(80):
        n = int(rng.integers(1, 10))
        A = rng.standard_normal((n, n)).astype(dtype)
        if dtype == np.complex128:
            A = A + 1j * rng.standard_normal((n, n))
        A = A + A.T
        if trial % 4 == 0:
            A[np.diag_indices(n)] = 0  # 2x2 pivots
        if trial % 7 == 0 and n > 2:
            A[1, :] = A[:, 1] = 0  # a zero pivot: info
        ours = numtorch.linalg.ldl_factor_ex(numtorch.tensor(A))
        theirs = torch.linalg.ldl_factor_ex(torch.tensor(A))
        assert ours.pivots.tolist() == theirs.pivots.tolist() and ours.info.item() == theirs.info.item()
        np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), atol=tol, rtol=tol)
        if theirs.info.item() == 0:
            B = rng.standard_normal((n, 2)).astype(dtype)
            x1 = numtorch.linalg.ldl_solve(ours.LD, ours.pivots, numtorch.tensor(B)).numpy()
            x2 = torch.linalg.ldl_solve(theirs.LD, theirs.pivots, torch.tensor(B)).numpy()
            np.testing.assert_allclose(x1, x2, atol=100 * tol, rtol=100 * tol)


_BAD = {
    "1d": lambda m: m.linalg.ldl_factor(m.ones(3)),
    "rect": lambda m: m.linalg.ldl_factor(m.ones(2, 3)),
    "long": lambda m: m.linalg.ldl_factor(m.ones(2, 2, dtype=m.int64)),
    "half": lambda m: m.linalg.ldl_factor(m.ones(2, 2, dtype=m.float16)),
    "solve_1d_ld": lambda m: m.linalg.ldl_solve(m.ones(3), m.ones(3, dtype=m.int32), m.ones(3, 1)),
    "solve_piv_shape": lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(2, dtype=m.int32), m.ones(3, 1)),
    "solve_piv_float": lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3), m.ones(3, 1)),
    "solve_dtype": lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(3, 1, dtype=m.float64)),
    "solve_rows": lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(2, 1)),
    "solve_1d_b": lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(3)),
}


@pytest.mark.parametrize("case", sorted(_BAD))
def test_ldl_errors_as_torch(case):
    def run(m):
        try:
            _BAD[case](m)
        except Exception as e:  # type and text are compared
            return type(e).__name__, str(e)
        return None

    assert run(numtorch) == run(torch)
