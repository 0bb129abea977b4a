"""numtorch/ops/linalg/ldl.py: Bunch-Kaufman LDL^T (Note [Bunch-Kaufman as LAPACK's sytf2])."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

LA = numtorch.linalg


def _reconstruct(LD: np.ndarray, piv: np.ndarray) -> np.ndarray:
    """A from sytrf's compact form (lower): A = U D U^T with U = P1 L1 P2 L2 ... (LAPACK's docs)."""
    n = LD.shape[0]
    U, D = np.eye(n, dtype=LD.dtype), np.zeros_like(LD)
    k = 0
    while k < n:
        s = 1 if piv[k] > 0 else 2
        kp = abs(piv[k]) - 1
        P = np.eye(n, dtype=LD.dtype)
        P[[k + s - 1, kp]] = P[[kp, k + s - 1]]
        Lk = np.eye(n, dtype=LD.dtype)
        Lk[k + s:, k:k + s] = LD[k + s:, k:k + s]
        D[k:k + s, k:k + s] = LD[k:k + s, k:k + s]
        if s == 2:
            D[k, k + 1] = LD[k + 1, k]
        U = U @ P @ Lk
        k += s
    return U @ D @ U.T


# one dtype here (each compiles the factor and solve kernels, seconds cold); complex symmetric and
# float32 input are compared with torch in tests/parity/test_linalg_ldl_parity.py
@pytest.mark.parametrize("dtype", [np.float64])
def test_ldl_factor_reconstructs_and_solves(dtype):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((2, 6, 6)).astype(dtype)
    if dtype == np.complex128:
        A = A + 1j * rng.standard_normal((2, 6, 6))
    A = A + np.swapaxes(A, -1, -2)
    A[0, np.arange(6), np.arange(6)] = 0  # forces 2x2 pivots
    LD, piv, info = LA.ldl_factor_ex(numtorch.tensor(A))
    assert info.tolist() == [0, 0] and piv.dtype is numtorch.int32 and (piv.numpy() < 0).any()
    assert np.all(np.triu(LD.numpy(), 1) == 0)
    for b in range(2):
        np.testing.assert_allclose(_reconstruct(LD.numpy()[b], piv.numpy()[b]), A[b], atol=1e-10)
    B = rng.standard_normal((2, 6, 3)).astype(dtype)
    X = LA.ldl_solve(LD, piv, numtorch.tensor(B)).numpy()
    np.testing.assert_allclose(X, np.linalg.solve(A, B), atol=1e-9)


def test_ldl_factor_reads_the_lower_triangle_only_and_reports_zero_pivots():
    A = np.array([[1.0, 99.0], [2.0, 3.0]])
    LD, piv = LA.ldl_factor(numtorch.tensor(A))
    np.testing.assert_allclose(_reconstruct(LD.numpy(), piv.numpy()), np.tril(A) + np.tril(A, -1).T)
    r = LA.ldl_factor_ex(numtorch.zeros(3, 3, dtype=numtorch.float64))
    assert r.info.item() == 1 and r.pivots.tolist() == [1, 2, 3]
    with pytest.raises(RuntimeError, match="Unknown error code: 1"):
        LA.ldl_factor(numtorch.zeros(3, 3, dtype=numtorch.float64))


@pytest.mark.parametrize(("fn", "exc", "msg"), [
    (lambda: LA.ldl_factor(numtorch.ones(3)), RuntimeError, "The input tensor A must have at least 2 dimensions"),
    (lambda: LA.ldl_factor(numtorch.ones(2, 3)), RuntimeError, "A must be batches of square matrices, but they are 2 by 3"),
    (lambda: LA.ldl_factor(numtorch.ones(2, 2, dtype=numtorch.int64)), RuntimeError,
     "Expected a floating point or complex tensor as input. Got Long"),
    (lambda: LA.ldl_factor(numtorch.ones(2, 2).half()), NotImplementedError, "ldl_factor_kernel_cpu"),
    (lambda: LA.ldl_solve(numtorch.eye(3), numtorch.ones(2, dtype=numtorch.int32), numtorch.ones(3, 1)), RuntimeError,
     r"Expected LD.shape\[:-1\] and pivots.shape to be the same, but got pivots with shape \[2\]"),
    (lambda: LA.ldl_solve(numtorch.eye(3), numtorch.ones(3), numtorch.ones(3, 1)), RuntimeError,
     "Expected pivots to be integers. Got Float"),
    (lambda: LA.ldl_solve(numtorch.eye(3), numtorch.ones(3, dtype=numtorch.int32), numtorch.ones(2, 1)), RuntimeError,
     "each A matrix is 3 by 3 but each b matrix is 2 by 1"),
])  # fmt: skip
def test_ldl_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


def test_ldl_has_no_derivative():
    A = numtorch.eye(2, dtype=numtorch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        LA.ldl_factor(A)[0].sum().backward()
    LD, piv = LA.ldl_factor(A.detach())
    B = numtorch.ones(2, 1, dtype=numtorch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not implemented"):
        LA.ldl_solve(LD, piv, B).sum().backward()
