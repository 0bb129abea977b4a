"""numtorch.linalg.qr: modes, errors, out=, empty inputs and the derivative's limits."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck


def _a(*shape, seed=0):
    return numtorch.tensor(np.random.default_rng(seed).standard_normal(shape))


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_reconstructs_and_matches_numpy(shape, mode):
    a = _a(*shape)
    q, r = numtorch.linalg.qr(a, mode=mode)
    eq, er = np.linalg.qr(a.numpy(), mode=mode)
    np.testing.assert_allclose(q.numpy(), eq, atol=1e-12)
    np.testing.assert_allclose(r.numpy(), er, atol=1e-12)
    np.testing.assert_allclose((q @ r).numpy(), a.numpy(), atol=1e-12)
    assert type(numtorch.linalg.qr(a)).__name__ == "linalg_qr"


def test_mode_r_returns_empty_q():
    q, r = numtorch.linalg.qr(_a(4, 3), mode="r")
    assert q.shape == (0,) and r.shape == (3, 3)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 3, 4)])
def test_qr_gradcheck(shape):
    a = _a(*shape).requires_grad_()
    assert gradcheck(lambda x: numtorch.linalg.qr(x), (a,))
    assert gradcheck(lambda x: numtorch.linalg.qr(x).Q.sum(-1), (a,))
    assert gradgradcheck(lambda x: numtorch.linalg.qr(x), (a,))


def test_complete_wide_is_differentiable():
    a = _a(3, 5).requires_grad_()
    assert gradcheck(lambda x: numtorch.linalg.qr(x, mode="complete"), (a,))


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: numtorch.linalg.qr(numtorch.randn(3)), "at least 2 dimensions"),
        (lambda: numtorch.linalg.qr(numtorch.ones(2, 2, dtype=numtorch.long)), "Got Long"),
        (lambda: numtorch.linalg.qr(numtorch.ones(2, 2), mode="foo"), "unrecognized mode 'foo'"),
    ],
)
def test_bad_input_raises_torch_errors(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call()


def test_backward_limits_raise_like_torch():
    a = numtorch.randn(4, 3, requires_grad=True)
    _, r = numtorch.linalg.qr(a, mode="r")
    with pytest.raises(RuntimeError, match="not computed when mode='r'"):
        r.sum().backward()
    q, r = numtorch.linalg.qr(a, mode="complete")
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        (q.sum() + r.sum()).backward()


def test_out_and_empty_inputs():
    a = _a(3, 2)
    q, r = numtorch.empty(0, dtype=numtorch.float64), numtorch.empty(0, dtype=numtorch.float64)
    res = numtorch.linalg.qr(a, out=(q, r))
    assert res.Q is q and res.R is r and q.shape == (3, 2)
    np.testing.assert_allclose((q @ r).numpy(), a.numpy(), atol=1e-12)
    q, r = numtorch.linalg.qr(numtorch.randn(3, 0), mode="complete")
    np.testing.assert_array_equal(q.numpy(), np.eye(3))
    assert r.shape == (3, 0)
