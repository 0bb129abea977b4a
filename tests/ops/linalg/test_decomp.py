"""numtorch.linalg cholesky/eigh/svd/pinv/lstsq, cdist and block_diag: derivatives on Hermitian
inputs, PyTorch's errors, out=, return types (agreement with torch: tests/parity/test_linalg_decomp_parity.py)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck


def _a(*shape, seed=0):
    return numtorch.tensor(np.random.default_rng(seed).standard_normal(shape))


def _pd(*shape, seed=0):
    a = _a(*shape, seed=seed)
    return a @ a.mT + shape[-1] * numtorch.eye(shape[-1], dtype=numtorch.float64)


def _sym(x):
    return x + x.mT


# ---- cholesky ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradcheck_on_hermitian_input(shape, upper):
    a = _pd(*shape).requires_grad_()
    assert gradcheck(lambda x: numtorch.linalg.cholesky(_sym(x), upper=upper), (a,))
    assert gradgradcheck(lambda x: numtorch.linalg.cholesky(_sym(x), upper=upper), (a,))
    assert gradcheck(lambda x: numtorch.cholesky(_sym(x), upper), (a,))


def test_cholesky_upper_and_reconstruction():
    a = _pd(2, 4, 4)
    low, up = numtorch.linalg.cholesky(a), numtorch.linalg.cholesky(a, upper=True)
    np.testing.assert_allclose(low.numpy(), np.linalg.cholesky(a.numpy()), atol=1e-12)
    np.testing.assert_allclose(up.numpy(), np.swapaxes(low.numpy(), -1, -2), atol=1e-12)
    np.testing.assert_allclose((low @ low.mT).numpy(), a.numpy(), atol=1e-12)


def test_cholesky_reads_one_triangle():
    a = _pd(3, 3).numpy()
    lower_only, upper_only = np.tril(a) + np.triu(np.full((3, 3), 9.0), 1), np.triu(a) + np.tril(np.full((3, 3), 9.0), -1)
    np.testing.assert_allclose(numtorch.linalg.cholesky(numtorch.tensor(lower_only)).numpy(), np.linalg.cholesky(a), atol=1e-12)
    np.testing.assert_allclose(numtorch.linalg.cholesky(numtorch.tensor(upper_only), upper=True).numpy(),
                               np.linalg.cholesky(a).T, atol=1e-12)  # fmt: skip


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: numtorch.linalg.cholesky(numtorch.tensor([[1.0, 2.0], [2.0, 1.0]])),
         r"^linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
         r"\(the leading minor of order 2 is not positive-definite\).$"),
        (lambda: numtorch.linalg.cholesky(numtorch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0, ], [0.0, -1.0]]])),
         r"^linalg.cholesky: \(Batch element 1\): The factorization .* order 2 is not positive-definite\)\.$"),
        (lambda: numtorch.cholesky(numtorch.tensor([[-1.0]])),
         r"^cholesky: The factorization .* \(the leading minor of order 1 is not positive-definite\)\.$"),
    ],
)  # fmt: skip
def test_cholesky_not_pd_raises_linalg_error(call, msg):
    with pytest.raises(numtorch.linalg.LinAlgError, match=msg):
        call()


# ---- eigh / eigvalsh ---------------------------------------------------------------------------------
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_matches_numpy_and_reads_uplo_triangle(uplo):
    a = _a(2, 4, 4).numpy()
    w, v = numtorch.linalg.eigh(numtorch.tensor(a), UPLO=uplo)
    ew, ev = np.linalg.eigh(a, UPLO=uplo)
    np.testing.assert_allclose(w.numpy(), ew, atol=1e-12)
    np.testing.assert_allclose(v.numpy(), ev, atol=1e-12)
    np.testing.assert_allclose(numtorch.linalg.eigvalsh(numtorch.tensor(a), uplo).numpy(), ew, atol=1e-12)
    assert type(numtorch.linalg.eigh(numtorch.tensor(a))).__name__ == "linalg_eigh"


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_eigh_gradcheck_on_hermitian_input(shape):
    a = _a(*shape).requires_grad_()
    # eigenvectors up to sign: a sign-invariant function of them, as PyTorch's own gradcheck
    assert gradcheck(lambda x: numtorch.linalg.eigh(_sym(x)).eigenvalues, (a,))
    assert gradcheck(lambda x: numtorch.linalg.eigh(_sym(x)).eigenvectors.abs(), (a,))
    assert gradcheck(lambda x: numtorch.linalg.eigvalsh(_sym(x), "U"), (a,))
    assert gradgradcheck(lambda x: numtorch.linalg.eigh(_sym(x)), (a,))


def test_eigh_errors_and_out():
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        numtorch.linalg.eigh(numtorch.eye(2), UPLO="X")
    with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"):
        numtorch.linalg.eigh(numtorch.ones(2, 3))
    with pytest.raises(NotImplementedError, match="^\"linalg_eigh_cpu\" not implemented for 'Long'$"):
        numtorch.linalg.eigvalsh(numtorch.ones(2, 2, dtype=numtorch.long))  # PyTorch 2.13's kernel dispatch
    w, v = numtorch.empty(0), numtorch.empty(0)
    res = numtorch.linalg.eigh(numtorch.tensor([[2.0, 1.0], [1.0, 2.0]]), out=(w, v))
    assert res.eigenvalues is w and res.eigenvectors is v
    np.testing.assert_allclose(w.numpy(), [1.0, 3.0], atol=1e-6)


# ---- svd ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_matches_numpy(shape, full):
    a = _a(*shape)
    u, s, vh = numtorch.linalg.svd(a, full_matrices=full)
    eu, es, evh = np.linalg.svd(a.numpy(), full_matrices=full)
    for got, want in ((u, eu), (s, es), (vh, evh)):
        np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    tu, ts, tv = numtorch.svd(a, some=not full)
    np.testing.assert_allclose(tv.numpy(), np.swapaxes(evh, -1, -2), atol=1e-12)
    assert type(numtorch.svd(a)).__name__ == "svd" and type(numtorch.linalg.svd(a)).__name__ == "linalg_svd"


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
def test_svd_gradcheck_reduced(shape):
    a = _a(*shape).requires_grad_()
    assert gradcheck(lambda x: numtorch.linalg.svd(x, full_matrices=False), (a,))
    assert gradcheck(lambda x: numtorch.linalg.svd(x, full_matrices=False).U, (a,))
    assert gradcheck(lambda x: numtorch.linalg.svd(x, full_matrices=False).Vh, (a,))
    assert gradcheck(lambda x: numtorch.svd(x).V, (a,))
    assert gradgradcheck(lambda x: numtorch.linalg.svd(x, full_matrices=False), (a,))


def test_svd_full_matrices_gauge_invariant_loss_is_differentiable():
    # full_matrices=True: only the first min(m, n) singular vectors enter the derivative
    a = _a(4, 2).requires_grad_()
    assert gradcheck(lambda x: numtorch.linalg.svd(x).S, (a,))
    assert gradcheck(lambda x: (lambda r: r.U[..., :2] * r.Vh.sum(-1))(numtorch.linalg.svd(x)), (a,))


def test_svd_compute_uv_false_and_errors():
    u, s, v = numtorch.svd(_a(3, 2), compute_uv=False)
    assert u.shape == (3, 3) and v.shape == (2, 2) and not u.numpy().any() and not v.numpy().any()
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(_a(3, 2).numpy(), compute_uv=False), atol=1e-12)
    with pytest.raises(RuntimeError, match="linalg.svd: The input tensor A must have at least 2 dimensions."):
        numtorch.linalg.svd(numtorch.ones(3))
    with pytest.raises(RuntimeError, match="Got Long"):
        numtorch.linalg.svd(numtorch.ones(2, 2, dtype=numtorch.long))


# ---- pinv / lstsq ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
def test_pinv_gradcheck_and_penrose(shape):
    a = _a(*shape).requires_grad_()
    p = numtorch.linalg.pinv(a)
    np.testing.assert_allclose((a @ p @ a).detach().numpy(), a.detach().numpy(), atol=1e-10)
    assert gradcheck(numtorch.linalg.pinv, (a,))
    if shape == (4, 2):
        assert gradgradcheck(numtorch.linalg.pinv, (a,))


def test_pinv_hermitian_tolerances_and_pinverse():
    a = _sym(_a(3, 3)).requires_grad_()
    np.testing.assert_allclose(numtorch.linalg.pinv(a, hermitian=True).detach().numpy(),
                               np.linalg.pinv(a.detach().numpy(), hermitian=True), atol=1e-10)  # fmt: skip
    assert gradcheck(lambda x: numtorch.linalg.pinv(_sym(x), hermitian=True), (_a(3, 3).requires_grad_(),))
    d = numtorch.tensor([[2.0, 0.0], [0.0, 1e-3]])
    np.testing.assert_allclose(numtorch.linalg.pinv(d, atol=0.01).numpy(), [[0.5, 0], [0, 0]])
    np.testing.assert_allclose(numtorch.linalg.pinv(d, rtol=0.1).numpy(), [[0.5, 0], [0, 0]])
    np.testing.assert_allclose(numtorch.linalg.pinv(d, 0.1).numpy(), [[0.5, 0], [0, 0]])
    np.testing.assert_allclose(numtorch.pinverse(d).numpy(), [[0.5, 0], [0, 1000.0]], rtol=1e-5)
    np.testing.assert_allclose(d.pinverse(rcond=0.1).numpy(), [[0.5, 0], [0, 0]])


def test_lstsq_values_drivers_and_gradcheck():
    a, b = _a(5, 3), _a(5, 2, seed=1)
    x, resid, rank, sv = numtorch.linalg.lstsq(a, b)
    ex, eres, erank, esv = np.linalg.lstsq(a.numpy(), b.numpy(), rcond=None)
    np.testing.assert_allclose(x.numpy(), ex, atol=1e-12)
    assert resid.shape == (0,) and sv.shape == (0,) and rank.item() == erank and rank.dtype == numtorch.int64
    r = numtorch.linalg.lstsq(a, b, driver="gelsd")
    np.testing.assert_allclose(r.residuals.numpy(), eres, atol=1e-12)
    np.testing.assert_allclose(r.singular_values.numpy(), esv, atol=1e-12)
    assert type(r).__name__ == "linalg_lstsq"
    a.requires_grad_(), b.requires_grad_()
    assert gradcheck(lambda p, q: numtorch.linalg.lstsq(p, q).solution, (a, b))
    assert gradcheck(lambda p, q: numtorch.linalg.lstsq(p, q[:, 0]).solution, (a, b))
    wide = _a(2, 4).requires_grad_()
    assert gradcheck(lambda p, q: numtorch.linalg.lstsq(p, q[:2]).solution, (wide, b))
    batched = _a(2, 4, 3).requires_grad_()
    assert gradcheck(lambda p, q: numtorch.linalg.lstsq(p, q[:4].unsqueeze(0)).solution, (batched, b))


def test_lstsq_errors():
    with pytest.raises(RuntimeError, match=r"input.size\(-2\) should match other.size\(-2\)"):
        numtorch.linalg.lstsq(numtorch.randn(3, 2), numtorch.randn(4, 2))
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        numtorch.linalg.lstsq(numtorch.randn(3, 2), numtorch.randn(3, 2), driver="foo")
    with pytest.raises(RuntimeError, match="Expected input and other to have the same dtype"):
        numtorch.linalg.lstsq(numtorch.randn(3, 2), numtorch.randn(3, 2, dtype=numtorch.float64))
    with pytest.raises(RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(5\\)"):
        numtorch.linalg.lstsq(numtorch.randn(2, 5, 3), numtorch.randn(5, 2))  # one dim fewer: vectors
    with pytest.raises(RuntimeError, match="doesn't handle types other than float and double"):
        numtorch.linalg.lstsq(numtorch.ones(2, 2, dtype=numtorch.long), numtorch.ones(2, 2, dtype=numtorch.long))
    with pytest.raises(RuntimeError, match=r"^linalg.pinv\(Float\{\[3\]\}\): expected a tensor with 2 or more"):
        numtorch.linalg.pinv(numtorch.ones(3))
    with pytest.raises(NotImplementedError, match="\"cholesky_cpu\" not implemented for 'Half'"):
        numtorch.linalg.cholesky(numtorch.ones(2, 2, dtype=numtorch.half))
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        numtorch.cdist(numtorch.ones(2, 2, dtype=numtorch.float64), numtorch.ones(2, 2))


# ---- cdist / block_diag ------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf"), 0.0])
def test_cdist_values_and_gradcheck(p):
    x1, x2 = _a(2, 4, 3).requires_grad_(), _a(2, 5, 3, seed=1).requires_grad_()
    want = np.linalg.norm(x1.detach().numpy()[:, :, None] - x2.detach().numpy()[:, None], ord=p, axis=-1)
    np.testing.assert_allclose(numtorch.cdist(x1, x2, p=p).detach().numpy(), want, atol=1e-12)
    assert gradcheck(lambda a, b: numtorch.cdist(a, b, p=p), (x1, x2))


def test_cdist_zero_distance_gradient_is_zero_and_errors():
    x = numtorch.tensor([[1.0, 2.0]], requires_grad=True)
    numtorch.cdist(x, x.detach()).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.0]])
    for call, msg in [
        (lambda: numtorch.cdist(numtorch.randn(3), numtorch.randn(3)), "at least 2D tensors, X1 got: 1D"),
        (lambda: numtorch.cdist(numtorch.randn(2, 3), numtorch.randn(2, 4)), "X1: 3 X2: 4"),
        (lambda: numtorch.cdist(numtorch.randn(2, 3), numtorch.randn(2, 3), p=-1), "non-negative p values"),
        (lambda: numtorch.cdist(numtorch.ones(2, 3, dtype=numtorch.long), numtorch.ones(2, 3)), "X1 got: Long"),
    ]:
        with pytest.raises(RuntimeError, match=msg):
            call()


def test_block_diag_promotes_and_differentiates():
    out = numtorch.block_diag(numtorch.tensor([[1, 2]]), numtorch.tensor(3.0), numtorch.tensor([4, 5]))
    assert out.dtype == numtorch.float32 and out.shape == (3, 5)
    np.testing.assert_array_equal(out.numpy(), [[1, 2, 0, 0, 0], [0, 0, 3, 0, 0], [0, 0, 0, 4, 5]])
    assert numtorch.block_diag().shape == (1, 0)
    a, b = _a(2, 3).requires_grad_(), _a(2).requires_grad_()
    assert gradcheck(lambda x, y: numtorch.block_diag(x, y), (a, b))
    with pytest.raises(RuntimeError, match="Input 0 has 3 dimensions"):
        numtorch.block_diag(numtorch.ones(2, 2, 2))
