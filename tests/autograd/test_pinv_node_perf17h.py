"""linalg_pinv's own node (PyTorch's pinv_backward, CompositeExplicitAutograd) in place of the
recorded svd decomposition: one node, the gradient of the formula (also where singular values
are cut off), second order and forward AD through it, and its kernel's values while a
conjugate view is alive."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import forward_ad as fwAD
from numtorch.autograd import gradcheck, gradgradcheck

from ._spy import OpLog


def _pinv_backward_np(g, p, a):
    # PyTorch's pinv_backward in NumPy (m <= n and m > n give the same matrix)
    ph, gh = p.conj().swapaxes(-1, -2), g.conj().swapaxes(-1, -2)
    k = gh @ p
    return -(p @ k).conj().swapaxes(-1, -2) + k @ ph - a @ p @ k @ ph + ph @ p @ (gh - k @ a)


@pytest.mark.parametrize("dt", [numtorch.float64, numtorch.complex128])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3)])
def test_one_node_with_the_formula_gradient(dt, shape):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dt.is_complex else 0)
    w = rng.standard_normal(shape[:-2] + shape[:-3:-1])
    x = numtorch.tensor(a, dtype=dt, requires_grad=True)
    p = numtorch.linalg.pinv(x)
    assert type(p.grad_fn).__name__ == "LinalgPinvBackward0"
    assert p.grad_fn.next_functions[0][0].__class__.__name__ == "AccumulateGrad"
    (p * numtorch.tensor(w, dtype=dt)).sum().real.backward()
    want = _pinv_backward_np(w.astype(a.dtype), p.detach().numpy(), a)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10, atol=1e-12)


def test_cut_off_singular_values_take_the_formula():
    # rank 1 by the cut-off: the decomposition's gradient differed (PyTorch uses pinv_backward)
    a = np.array([[3.0, 1.0, 0.5], [1.0, 0.2, 0.1]])
    x = numtorch.tensor(a, dtype=numtorch.float64, requires_grad=True)
    p = numtorch.linalg.pinv(x, rtol=0.3)
    p.sum().backward()
    want = _pinv_backward_np(np.ones((3, 2)), p.detach().numpy(), a)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [numtorch.float64, numtorch.complex128])
def test_gradcheck_gradgradcheck(dt):
    numtorch.manual_seed(0)
    for shape in [(3, 4), (4, 3), (2, 3, 3)]:
        a = numtorch.randn(*shape, dtype=dt, requires_grad=True)
        assert gradcheck(numtorch.linalg.pinv, (a,))
        assert gradgradcheck(numtorch.linalg.pinv, (a,))
        assert gradcheck(lambda a: numtorch.linalg.pinv(a).mH, (a,))  # a conjugate-view gradient
    h = numtorch.randn(3, 3, dtype=dt, requires_grad=True)
    f = lambda x: numtorch.linalg.pinv(x + x.mH, hermitian=True)
    assert gradcheck(f, (h,)) and gradgradcheck(f, (h,))
    b = numtorch.randn(3, 2, dtype=dt)
    assert gradgradcheck(lambda a: numtorch.linalg.lstsq(a, b).solution, (numtorch.randn(3, 3, dtype=dt, requires_grad=True),))


def test_forward_ad_through_the_node():
    a = numtorch.randn(3, 4, dtype=numtorch.float64)
    t = numtorch.randn(3, 4, dtype=numtorch.float64)
    with fwAD.dual_level():
        tan = fwAD.unpack_dual(numtorch.linalg.pinv(fwAD.make_dual(a, t))).tangent
    eps = 1e-6
    num = (numtorch.linalg.pinv(a + eps * t) - numtorch.linalg.pinv(a - eps * t)) / (2 * eps)
    np.testing.assert_allclose(tan.numpy(), num.numpy(), rtol=1e-6, atol=1e-7)


def test_a_mode_sees_the_op_and_the_formula():
    x = numtorch.randn(3, 3, requires_grad=True)
    with OpLog(short=True) as log:
        numtorch.linalg.pinv(x).sum().backward()
    assert log.calls[0] == "linalg_pinv.default" and "linalg_svd.default" not in log.calls
    assert log.calls.count("mm.default") == 8  # PyTorch's pinv_backward: eight products


@pytest.mark.parametrize("dt", [numtorch.complex64, numtorch.complex128])
def test_values_while_a_conjugate_view_is_alive(dt):
    # the kernel runs inside _ConjMode's handling of the op: a conjugate view it made itself
    # reached the products as raw memory (the conjugated pseudoinverse came back)
    a = numtorch.randn(3, 4, dtype=dt)
    b = numtorch.randn(3, 3, dtype=dt)
    h = (b + b.mH).resolve_conj()
    want = numtorch.linalg.pinv(a).numpy().copy()
    want_h = numtorch.linalg.pinv(h, hermitian=True).numpy().copy()
    alive = numtorch.randn(2, dtype=dt).conj()
    assert alive.is_conj()
    np.testing.assert_array_equal(numtorch.linalg.pinv(a).numpy(), want)
    np.testing.assert_array_equal(numtorch.linalg.pinv(h, hermitian=True).numpy(), want_h)


@pytest.mark.parametrize("dt", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("kw", [{}, {"rtol": 0.3}, {"atol": 0.5}])
def test_recorded_forward_takes_the_numpy_kernel(monkeypatch, dt, kw):
    from numtorch.ops.linalg import _fast_small, decomp

    seen = []
    real = _fast_small.pinv_arrays
    monkeypatch.setattr(_fast_small, "pinv_arrays", lambda *a: seen.append(1) or real(*a))
    rng = np.random.default_rng(1)
    for shape in [(3, 4), (4, 3), (2, 3, 3)]:
        a = rng.standard_normal(shape)
        x = numtorch.tensor(a, dtype=dt, requires_grad=True)
        n = len(seen)
        p = numtorch.linalg.pinv(x, **kw)
        assert len(seen) == n + 1 and p.requires_grad
        ref = decomp._pinv_composite(numtorch.tensor(a, dtype=dt), kw.get("atol"), kw.get("rtol"), False)
        assert p.dtype == ref.dtype and p.shape == ref.shape and p.stride() == ref.stride()
        np.testing.assert_array_equal(p.detach().numpy(), ref.numpy())
    # hermitian, complex and lstsq's backward: the others take the decomposition or the kernel
    n = len(seen)
    numtorch.linalg.pinv(numtorch.eye(3, dtype=dt, requires_grad=True), hermitian=True)
    numtorch.linalg.pinv(numtorch.randn(3, 3, dtype=numtorch.complex128, requires_grad=True))
    assert len(seen) == n
    b = numtorch.tensor(rng.standard_normal((4, 2)), dtype=dt)
    numtorch.linalg.lstsq(numtorch.tensor(rng.standard_normal((4, 3)), dtype=dt, requires_grad=True), b).solution.sum().backward()
    assert len(seen) == n + 1
