"""eigh's node gets None, not zeros, for an output without a gradient (Derivative.undefined_grads):
eigvalsh's backward is PyTorch's (V * gL) @ V^H, four ops, not the full formula over zeros."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

from ._spy import OpLog


def _sym(n=3, batch=(2,), dtype=numtorch.float64):
    a = numtorch.randn(*batch, n, n, dtype=dtype)
    return (a + a.mH).detach().requires_grad_()


def test_eigenvalues_only_backward_is_pytorchs_four_ops():
    a = _sym(dtype=numtorch.float32)
    y = numtorch.linalg.eigvalsh(a)
    log = OpLog(short=True)
    with log:
        y.sum().backward()
    core = [c for c in log.calls[3:] if c != "detach.default"]
    assert core[:4] == ["unsqueeze.default", "mul.Tensor", "transpose.int", "expand.default"]
    assert "sub.Tensor" not in core and "diag_embed.default" not in core


def test_eigenvectors_only_backward_adds_no_zero_eigenvalue_gradient():
    a = _sym()
    _, v = numtorch.linalg.eigh(a)
    log = OpLog(short=True)
    with log:
        v.abs().sum().backward()
    assert "diag_embed.default" not in log.calls and "zeros.default" not in log.calls
    assert "div.Tensor" in log.calls  # the eigenvector part ran


def test_values_against_numpy():
    a = _sym(batch=())
    numtorch.linalg.eigvalsh(a).backward(numtorch.tensor([1.0, -2.0, 0.5], dtype=numtorch.float64))
    _, v = np.linalg.eigh(a.detach().numpy())
    np.testing.assert_allclose(a.grad.numpy(), (v * np.array([1.0, -2.0, 0.5])) @ v.T, atol=1e-12)


@pytest.mark.parametrize("dtype", [numtorch.float64, numtorch.complex128])
def test_gradcheck_and_gradgradcheck(dtype):
    a = _sym(dtype=dtype)
    h = lambda t: t + t.mH  # noqa: E731 - eigh reads one triangle: checked over Hermitian inputs
    assert gradcheck(lambda t: numtorch.linalg.eigvalsh(h(t)), (a,))
    assert gradgradcheck(lambda t: numtorch.linalg.eigvalsh(h(t)), (a,))
    # eigenvectors alone, through a phase-invariant loss
    assert gradcheck(lambda t: numtorch.linalg.eigh(h(t))[1].abs(), (a,))
    assert gradcheck(lambda t: sum(numtorch.linalg.eigh(h(t))[k].abs().sum() for k in (0, 1)), (a,))
    assert gradgradcheck(lambda t: numtorch.linalg.eigh(h(t))[1].abs(), (a,))


def test_svd_formula_skips_the_missing_outputs():
    a = numtorch.randn(2, 3, 2, dtype=numtorch.float64, requires_grad=True)
    u, s, vh = numtorch.linalg.svd(a, full_matrices=False)
    log = OpLog(short=True)
    with log:
        u.abs().sum().backward()  # gS and gVh missing: no S^2 - S^2 mask for them, no gS term
    assert "diag_embed.default" not in log.calls


@pytest.mark.parametrize("dtype", [numtorch.float64, numtorch.complex128])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_svd_single_output_gradcheck(dtype, k):
    for shape in ((3, 2), (2, 3)):
        a = numtorch.randn(*shape, dtype=dtype, requires_grad=True)
        fn = lambda t: numtorch.linalg.svd(t, full_matrices=False)[k].abs()  # noqa: E731
        assert gradcheck(fn, (a,))
        assert gradgradcheck(fn, (a,))
