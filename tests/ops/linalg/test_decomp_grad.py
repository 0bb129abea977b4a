"""cholesky's, qr's, eigh's and svd's derivatives on the arrays (Note [Decomposition derivatives
in NumPy]) against the same formulas as ops: the same bits, dtype and layout; graphs, modes and
complex inputs run the ops."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.linalg import _decomp_grad
from numtorch.ops.linalg import solve as _solve_module
from tests.autograd._spy import OpLog

_MODULES = (_decomp_grad, _solve_module)  # solve's formula lives beside its op


@pytest.fixture
def hits(monkeypatch):
    """Counts the gradients the NumPy route returns."""
    seen = []
    real = _decomp_grad.wrap

    def counted(a, like):
        seen.append(a.shape)
        return real(a, like)

    for module in _MODULES:
        monkeypatch.setattr(module, "wrap", counted)
    return seen


def _spd(a):
    return a @ a.mH + a.shape[-1] * numtorch.eye(a.shape[-1], dtype=a.dtype)


def _weights(out, seed):
    rng = np.random.default_rng(seed)
    return [numtorch.tensor(rng.standard_normal(o.shape), dtype=o.dtype) for o in out]


# each case: (function of x, input shape); the function returns the outputs the loss reads
_CASES = {
    "cholesky": (lambda x: (numtorch.linalg.cholesky(_spd(x)),), (3, 3)),
    "cholesky_upper_batch": (lambda x: (numtorch.cholesky(_spd(x), upper=True),), (2, 3, 3)),
    "cholesky_1x1": (lambda x: (numtorch.linalg.cholesky(_spd(x)),), (1, 1)),
    "qr_square": (lambda x: tuple(numtorch.linalg.qr(x)), (3, 3)),
    "qr_tall_batch": (lambda x: tuple(numtorch.linalg.qr(x)), (2, 4, 2)),
    "qr_wide": (lambda x: tuple(numtorch.linalg.qr(x)), (2, 4)),
    "qr_wide_batch_q": (lambda x: (numtorch.linalg.qr(x)[0],), (2, 2, 3)),
    "qr_r_only": (lambda x: (numtorch.linalg.qr(x)[1],), (3, 2)),
    "qr_complete_square": (lambda x: tuple(numtorch.linalg.qr(x, mode="complete")), (3, 3)),
    "qr_transposed": (lambda x: tuple(numtorch.linalg.qr(x.mT)), (2, 4)),
    "eigh": (
        lambda x: (numtorch.linalg.eigh(x + x.mT)[0], numtorch.linalg.eigh(x + x.mT)[1] ** 2),
        (3, 3),
    ),
    "eigh_vectors_batch": (
        lambda x: (numtorch.linalg.eigh(x + x.mT, UPLO="U")[1] ** 2,),
        (2, 4, 4),
    ),
    "eigvalsh": (lambda x: (numtorch.linalg.eigvalsh(x + x.mT),), (2, 3, 3)),
    "svd_reduced": (lambda x: _svd_all(numtorch.linalg.svd(x, full_matrices=False)), (3, 3)),
    "svd_full_tall": (lambda x: _svd_all(numtorch.linalg.svd(x)), (4, 2)),
    "svd_wide_batch": (lambda x: _svd_all(numtorch.linalg.svd(x, full_matrices=False)), (2, 2, 4)),
    "svd_u_only_tall": (lambda x: (numtorch.linalg.svd(x)[0][..., :2] ** 2,), (2, 4, 2)),
    "svd_vh_only_wide": (lambda x: (numtorch.linalg.svd(x, False)[2] ** 2,), (3, 5)),
    "svd_s_only": (lambda x: (numtorch.linalg.svd(x)[1],), (2, 3)),
    "solve": (lambda x: (numtorch.linalg.solve(_spd(x), x),), (3, 3)),
    "solve_vector_batch": (lambda x: (numtorch.linalg.solve(_spd(x), x[..., 0]),), (2, 3, 3)),
    "solve_right_broadcast": (
        lambda x: (numtorch.linalg.solve(_spd(x[0]), x[:, :2], left=False),),
        (2, 3, 3),
    ),
    "svdvals": (lambda x: (numtorch.linalg.svdvals(x),), (2, 3, 4)),
    "pinv_wide": (lambda x: (numtorch.linalg.pinv(x),), (2, 4)),
    "pinv_tall_batch": (lambda x: (numtorch.linalg.pinv(x),), (2, 4, 3)),
    "lstsq": (lambda x: (numtorch.linalg.lstsq(x, x[..., :2]).solution,), (2, 4, 3)),
    "torch_svd": (lambda x: (numtorch.svd(x)[0] ** 2, numtorch.svd(x)[2] ** 2), (2, 3, 2)),
}


def _svd_all(res):
    u, s, vh = res
    k = s.shape[-1]
    return u[..., :k] ** 2, s, vh[..., :k, :] ** 2


def _grad(name, a, dtype, seed, weighted):
    fn, _ = _CASES[name]
    x = numtorch.tensor(a, dtype=dtype, requires_grad=True)
    out = fn(x)
    loss = sum(((o * w).sum() for o, w in zip(out, _weights(out, seed), strict=True)) if weighted
               else (o.sum() for o in out))  # fmt: skip
    loss.backward()
    return x.grad


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("name", sorted(_CASES))
def test_numpy_formula_matches_the_ops(name, dtype, weighted, hits, monkeypatch):
    a = np.random.default_rng(1).standard_normal(_CASES[name][1])
    got = _grad(name, a, dtype, 2, weighted)
    assert hits, "the NumPy formula was not taken"
    for module in _MODULES:
        monkeypatch.setattr(module, "plain", lambda *t, **k: False)
    ref = _grad(name, a, dtype, 2, weighted)
    assert got.dtype == ref.dtype and got.stride() == ref.stride()
    np.testing.assert_array_equal(got.numpy(), ref.numpy())


def test_matches_numpy_reference():
    # dA of sum(L) for A = L L^T, from the definition: L^{-T} Phi L^{-1}, Phi = sym(L^T gL)
    a = numtorch.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=numtorch.float64, requires_grad=True)
    numtorch.linalg.cholesky(a).sum().backward()
    low = np.linalg.cholesky(a.detach().numpy())
    phi = np.tril(low.T @ np.ones((2, 2)))
    phi = 0.5 * (phi + np.tril(phi, -1).T)
    ref = np.linalg.solve(low.T, np.linalg.solve(low.T, phi.T).T)
    np.testing.assert_allclose(a.grad.numpy(), ref, rtol=1e-12)


def test_graphs_modes_and_complex_run_the_ops(hits):
    a = numtorch.randn(3, 3, dtype=numtorch.float64, requires_grad=True)
    (g,) = numtorch.autograd.grad(numtorch.linalg.qr(a)[0].sum(), a, create_graph=True)
    assert g.requires_grad and not hits
    y = numtorch.linalg.svd(a)[0].sum()
    log = OpLog()
    with log:
        y.backward()
    assert "aten.linalg_solve.default" not in log.calls and "aten.mm.default" in log.calls
    assert not hits
    z = numtorch.randn(3, 3, dtype=numtorch.complex128, requires_grad=True)
    numtorch.linalg.qr(z)[0].abs().sum().backward()
    numtorch.linalg.cholesky(_spd(z)).abs().sum().backward()
    assert not hits


def test_errors_come_before_the_numpy_formula(hits):
    a = numtorch.randn(4, 2, dtype=numtorch.float64, requires_grad=True)
    q, r = numtorch.linalg.qr(a, mode="complete")
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        q.sum().backward()
    assert not hits


@pytest.mark.parametrize("name", ["cholesky_upper_batch", "qr_wide", "qr_tall_batch", "eigh",
                                  "svd_wide_batch", "svd_full_tall", "solve_vector_batch", "pinv_wide"])  # fmt: skip
def test_gradcheck_and_gradgradcheck(name):
    fn, shape = _CASES[name]
    x = numtorch.tensor(np.random.default_rng(3).standard_normal(shape), requires_grad=True)
    loss = lambda t: sum((o * o).sum() for o in fn(t))  # noqa: E731
    assert gradcheck(loss, (x,))
    assert gradgradcheck(loss, (x,))


def test_a_kernel_registered_over_solve_is_called_by_the_formulas(hits):
    # Note [Fast calls under kernel overrides]: plain() declines, so the ops (and the kernel) run
    seen = []
    lib = numtorch.library.Library("aten", "IMPL")

    def kernel(A, B, left=True):
        seen.append(tuple(B.shape))
        return numtorch.zeros(B.shape, dtype=B.dtype)

    lib.impl("linalg_solve", kernel, "CPU")
    try:
        a = numtorch.randn(3, 3, dtype=numtorch.float64, requires_grad=True)
        numtorch.linalg.cholesky(_spd(a)).sum().backward()
        numtorch.linalg.qr(a)[0].sum().backward()
    finally:
        lib._destroy()
    assert len(seen) == 4 and not hits
    b = numtorch.randn(3, 3, dtype=numtorch.float64, requires_grad=True)
    numtorch.linalg.cholesky(_spd(b)).sum().backward()
    assert hits and len(seen) == 4  # the NumPy formula is back once the kernel is removed
