"""Randomized low-rank SVD and PCA (Halko, Martinsson and Tropp 2009, algorithms 4.4 and 5.1), as
PyTorch's ``torch.svd_lowrank`` / ``torch.pca_lowrank``: written over public ops, so they follow
autograd and draw their random test matrix from numtorch's generator."""

from __future__ import annotations

import numtorch

__all__ = ["pca_lowrank", "svd_lowrank"]


def _floating(A):
    return A.dtype if A.dtype.is_floating_point or A.is_complex() else numtorch.float32


def get_approximate_basis(A, q: int, niter: int | None = 2, M=None):
    """An orthonormal ``(m, q)`` basis Q with A ~= Q Q^H A, from ``niter`` subspace (power) iterations."""
    niter = 2 if niter is None else niter
    R = numtorch.randn(A.shape[-1], q, dtype=_floating(A), device=A.device)
    X = A @ R if M is None else A @ R - M @ R
    Q = numtorch.linalg.qr(X).Q
    for _ in range(niter):  # re-orthonormalize each half-step: powers of A lose the small directions
        X = A.mH @ Q if M is None else A.mH @ Q - M.mH @ Q
        Q = numtorch.linalg.qr(X).Q
        X = A @ Q if M is None else A @ Q - M @ Q
        Q = numtorch.linalg.qr(X).Q
    return Q


def svd_lowrank(A, q: int | None = 6, niter: int | None = 2, M=None):
    """U, S, V of a rank-``q`` approximate SVD of ``A - M`` (A ~= U diag(S) V^H).

    >>> A = numtorch.randn(20, 3, dtype=numtorch.float64) @ numtorch.randn(3, 10, dtype=numtorch.float64)
    >>> U, S, V = numtorch.svd_lowrank(A, q=3)
    >>> bool(numtorch.allclose(U @ numtorch.diag(S) @ V.mT, A))
    True
    """
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:  # work on the tall side
        A = A.mH
        M = None if M is None else M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = numtorch.linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q @ U
    if m < n:
        U, V = V, U
    return U, S, V


def pca_lowrank(A, q: int | None = None, center: bool = True, niter: int = 2):
    """U, S, V of a low-rank PCA of ``A`` (rows are samples; ``center`` subtracts the column means)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)
