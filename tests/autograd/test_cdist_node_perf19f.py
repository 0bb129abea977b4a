"""Note [cdist's own node]: one CdistBackward0 with PyTorch's _cdist_backward formula for both
inputs in place of the recorded composite; the recorded forward is the plain call's bits, the
NumPy route of the formula is its ops' bits, first and second derivatives, errors, modes and
kernels registered over aten ops."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.autograd import forward_ad as fwAD
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.kernels import PARALLEL_THRESHOLD
from numtorch.ops.linalg import _cdist_grad, _fast_cdist, decomp

from ._spy import OpLog

_P = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf]
_SHAPES = [((3, 2), (4, 2)), ((2, 3, 2), (1, 2, 2)), ((1, 3, 1), (2, 4, 1)), ((2, 3, 5), (3, 5)),
           ((3, 1, 2, 3), (4, 1, 3)), ((4, 3), (4, 3))]  # fmt: skip


def _cdist_backward_np(g, a, b, p):
    # Distance.cpp's _cdist_backward in float64, for x1 and (operands swapped) for x2
    def one(g, a, b):
        diff = a[..., :, None, :] - b[..., None, :, :]
        d = np.linalg.norm(diff, ord=p, axis=-1)[..., None]
        gg = g[..., None]
        with np.errstate(all="ignore"):
            if p == 0:
                c = np.zeros_like(diff)
            elif p == 1:
                c = gg * np.sign(diff)
            elif math.isinf(p):
                c = gg * np.sign(diff) * (np.abs(diff) == d)
            elif p < 2:
                c = np.sign(diff) * np.abs(diff) ** (p - 1) * gg / d ** (p - 1)
                c = np.where((d == 0) | ((diff == 0) & (p < 1)), 0.0, c)
            else:
                c = np.where(d == 0, 0.0, diff * np.abs(diff) ** (p - 2) * gg / d ** (p - 1))
        return c.sum(-2)

    def to(r, shape):
        lead = r.ndim - len(shape)
        r = r.sum(tuple(range(lead)))
        return r.sum(tuple(i for i, s in enumerate(shape) if s == 1), keepdims=True)

    return to(one(g, a, b), a.shape), to(one(np.swapaxes(g, -1, -2), b, a), b.shape)


def _inputs(rng, s1, s2, dt=numtorch.float64, grad=True):
    a = numtorch.tensor(rng.standard_normal(s1), dtype=dt, requires_grad=grad)
    b = numtorch.tensor(rng.standard_normal(s2), dtype=dt, requires_grad=grad)
    return a, b


@pytest.mark.parametrize("p", _P)
@pytest.mark.parametrize("shapes", _SHAPES, ids=str)
def test_one_node_with_pytorchs_formula(p, shapes):
    rng = np.random.default_rng(0)
    a, b = _inputs(rng, *shapes)
    d = numtorch.cdist(a, b, p=p)
    assert type(d.grad_fn).__name__ == "CdistBackward0"
    assert [type(n[0]).__name__ for n in d.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    w = rng.standard_normal(tuple(d.shape))
    (d * numtorch.tensor(w)).sum().backward()
    wa, wb = _cdist_backward_np(w, a.detach().numpy(), b.detach().numpy(), p)
    np.testing.assert_allclose(a.grad.numpy(), wa, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), wb, rtol=1e-10, atol=1e-12)


def test_zero_distances_ties_and_zero_differences_take_pytorchs_values():
    # equal rows (d = 0: no gradient), inf-norm ties (each tied coordinate the whole gradient,
    # as PyTorch's; the norm's formula split it), a zero coordinate difference under p < 1
    a = np.array([[1.0, 2.0], [0.0, 0.0], [3.0, -1.0]])
    b = np.array([[1.0, 2.0], [1.0, 1.0], [3.0, 5.0]])
    for p in _P:
        x = numtorch.tensor(a, requires_grad=True)
        y = numtorch.tensor(b, requires_grad=True)
        numtorch.cdist(x, y, p=p).sum().backward()
        wa, wb = _cdist_backward_np(np.ones((3, 3)), a, b, p)
        np.testing.assert_allclose(x.grad.numpy(), wa, rtol=1e-12, atol=1e-12, err_msg=str(p))
        np.testing.assert_allclose(y.grad.numpy(), wb, rtol=1e-12, atol=1e-12, err_msg=str(p))
        assert np.isfinite(x.grad.numpy()).all() and np.isfinite(y.grad.numpy()).all()


@pytest.mark.parametrize("p", _P)
def test_gradcheck_gradgradcheck(p):
    rng = np.random.default_rng(1)
    for s1, s2 in _SHAPES[:4]:
        a, b = _inputs(rng, s1, s2)
        f = lambda a, b: numtorch.cdist(a, b, p=p)  # noqa: E731
        assert gradcheck(f, (a, b))
        assert gradgradcheck(f, (a, b))
        assert gradcheck(lambda a, b=b.detach(): numtorch.cdist(a, b, p=p), (a,))


def test_forward_ad_through_the_node():
    rng = np.random.default_rng(2)
    a, b = _inputs(rng, (2, 3, 2), (1, 4, 2), grad=False)
    t = numtorch.tensor(rng.standard_normal((2, 3, 2)))
    for p in (1.0, 2.0, 3.0):
        with fwAD.dual_level():
            tan = fwAD.unpack_dual(numtorch.cdist(fwAD.make_dual(a, t), b, p=p)).tangent
        eps = 1e-6
        num = (numtorch.cdist(a + eps * t, b, p=p) - numtorch.cdist(a - eps * t, b, p=p)) / (
            2 * eps
        )
        np.testing.assert_allclose(tan.numpy(), num.numpy(), rtol=1e-6, atol=1e-7)


def _pts(rng, shape, dt, special):
    v = rng.standard_normal(shape) * 3
    if special:
        flat = v.reshape(-1)
        flat[:6] = [0.0, -0.0, 1e-30, np.inf, np.nan, -2.5][: flat.size]
    return numtorch.tensor(v, dtype=dt)


@pytest.mark.parametrize("dt", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, math.inf])
def test_recorded_forward_is_the_plain_calls_bits(monkeypatch, dt, p):
    rng = np.random.default_rng(3)
    seen = []
    real = _fast_cdist.arrays
    monkeypatch.setattr(decomp, "_cdist_arrays", lambda *a: seen.append(1) or real(*a))
    shapes = _SHAPES + [((7, 2), (6, 2)), ((200, 3), (100, 3))]
    for special in (False, True):
        for s1, s2 in shapes:
            a, b = _pts(rng, s1, dt, special), _pts(rng, s2, dt, special)
            for x, y in ((a, b), (a.mT.contiguous().mT, b)):  # and a non-contiguous x1
                want = numtorch.cdist(x, y, p=p)
                n = len(seen)
                got = numtorch.cdist(x.requires_grad_(True), y, p=p)
                assert len(seen) == n + 1 and got.grad_fn is not None
                body = decomp._cdist_composite(x.detach(), y, p)
                for r in (want, body):
                    assert (
                        got.shape == r.shape and got.stride() == r.stride() and got.dtype == r.dtype
                    )
                    assert got.detach().numpy().tobytes() == r.numpy().tobytes()
                x.requires_grad_(False)


@pytest.mark.parametrize("route", ["kernel", "numpy"])
@pytest.mark.parametrize("dt", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("p", [1.0, 2.0, 2])
def test_kernel_and_numpy_routes_are_the_ops_bits(monkeypatch, route, dt, p):
    rng = np.random.default_rng(4)
    seen = []
    real_k, real_np = _cdist_grad._contribution_kernel, _cdist_grad._contribution_np
    if route == "kernel":
        spy_k = lambda *a: (lambda r: seen.append(r is not None) or r)(real_k(*a))  # noqa: E731
        monkeypatch.setattr(_cdist_grad, "_contribution_kernel", spy_k)
    else:
        monkeypatch.setattr(_cdist_grad, "_contribution_kernel", lambda *a: None)
        monkeypatch.setattr(
            _cdist_grad, "_contribution_np", lambda *a: seen.append(True) or real_np(*a)
        )
    big = ((300, 2), (PARALLEL_THRESHOLD // 500 + 1, 2))  # the threaded kernel
    for special in (False, True):
        for s1, s2 in _SHAPES + [((3, 2), (3, 2)), big]:
            a, b = _pts(rng, s1, dt, special), _pts(rng, s2, dt, special)
            if special and s1 == s2:
                b = a.clone()  # every diagonal distance zero
            shape = tuple(numtorch.cdist(a, b).shape)
            for w in (
                _pts(rng, shape, dt, False),
                _pts(rng, (1,), dt, False),
            ):  # and an expanded grad
                grads = []
                for create_graph in (False, True):  # the kernel or NumPy, then the ops
                    x, y = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
                    n = len(seen)
                    out = numtorch.autograd.grad(
                        (numtorch.cdist(x, y, p=p) * w).sum(), (x, y), create_graph=create_graph
                    )
                    assert len(seen) == n + (not create_graph)
                    grads.append(out)
                for r, want in zip(grads[0], grads[1], strict=True):
                    assert r.shape == want.shape and r.dtype == want.dtype
                    assert r.stride() == want.stride()
                    assert r.numpy().tobytes() == want.detach().numpy().tobytes()
    if route == "kernel":  # a batch broadcast over part of a side's batch dims: NumPy's
        assert True in seen and False in seen


def test_other_p_and_observed_backwards_take_the_ops(monkeypatch):
    seen = []
    real = _cdist_grad._contribution_kernel
    monkeypatch.setattr(_cdist_grad, "_contribution_kernel", lambda *a: seen.append(1) or real(*a))
    x = numtorch.randn(3, 2, requires_grad=True)
    y = numtorch.randn(4, 2)
    for p in (0.0, 0.5, 3.0, math.inf):
        numtorch.cdist(x, y, p=p).sum().backward()
    with OpLog():
        numtorch.cdist(x, y).sum().backward()
    assert not seen
    numtorch.cdist(x, y).sum().backward()
    assert seen == [1]


def test_a_mode_sees_the_op_and_the_formula():
    x = numtorch.randn(3, 2, requires_grad=True)
    y = numtorch.randn(4, 2)
    with OpLog(short=True) as log:
        numtorch.cdist(x, y).sum().backward()
    assert log.calls[0] == "cdist.default"
    assert "linalg_vector_norm.default" not in log.calls and log.calls.count("sum.dim_IntList") == 2


def test_errors_and_empty_inputs_with_grad():
    g = dict(requires_grad=True)
    cases = [
        ((numtorch.randn(3, **g), numtorch.randn(4, 2)), RuntimeError, "at least 2D"),
        ((numtorch.randn(3, 2, **g), numtorch.randn(4, 3)), RuntimeError, "same number of columns"),
        ((numtorch.randn(3, 2, **g), numtorch.randn(4, 2), -1.0), RuntimeError, "non-negative p"),
        ((numtorch.randn(3, 2, **g), numtorch.randn(4, 2, dtype=numtorch.float64)), RuntimeError, "expected scalar type"),
        ((numtorch.randn(3, 2, dtype=numtorch.float16, **g), numtorch.randn(4, 2, dtype=numtorch.float16)),
         NotImplementedError, "not implemented for 'Half'"),
    ]  # fmt: skip
    for args, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            numtorch.cdist(*args)
    x = numtorch.randn(0, 2, **g)
    y = numtorch.randn(4, 2, **g)
    d = numtorch.cdist(x, y)
    assert d.shape == (0, 4)
    d.sum().backward()
    assert x.grad.shape == (0, 2) and y.grad.shape == (4, 2) and not y.grad.numpy().any()


def test_a_kernel_registered_over_an_aten_op_sends_the_recorded_forward_to_the_composite(
    monkeypatch,
):
    # Note [Fast calls under kernel overrides]: the kernel's array route declines while one is
    # live (the composite's ops run, as the binding's body does)
    seen = []
    real = _fast_cdist.arrays
    monkeypatch.setattr(decomp, "_cdist_arrays", lambda *a: seen.append(1) or real(*a))
    lib = numtorch.library.Library("aten", "IMPL")
    try:
        lib.impl("linalg_vector_norm", lambda *a, **k: numtorch.zeros(3, 4), "CPU")
        d = numtorch.cdist(numtorch.ones(3, 2, requires_grad=True), numtorch.zeros(4, 2))
    finally:
        lib._destroy()
    assert not seen and type(d.grad_fn).__name__ == "CdistBackward0"
    numtorch.cdist(numtorch.ones(3, 2, requires_grad=True), numtorch.zeros(4, 2))
    assert seen == [1]


def test_a_kernel_registered_over_cdist_is_called():
    # cdist has a CPU kernel now: one registered over it replaces it, grad or not (PyTorch 2.13
    # calls it too; the composite never looked for one)
    seen = []
    lib = numtorch.library.Library("aten", "IMPL")
    try:
        lib.impl("cdist", lambda *a, **k: seen.append(1) or numtorch.zeros(3, 4), "CPU")
        numtorch.cdist(numtorch.ones(3, 2, requires_grad=True), numtorch.zeros(4, 2))
        r = numtorch.cdist(numtorch.ones(3, 2), numtorch.zeros(4, 2))
    finally:
        lib._destroy()
    assert len(seen) == 2 and not r.numpy().any()


@pytest.mark.parametrize("dt", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("p", [0.5, 2.0, 3.0])
def test_fast_call_of_a_transposed_operand_is_the_bodys_bits(dt, p):
    # NumPy's subtraction kept a transposed x1's layout and the norm folded another order
    rng = np.random.default_rng(5)
    for s1, s2 in [((2, 3, 5), (3, 5)), ((6, 4), (5, 4)), ((2, 7, 3), (1, 4, 3))]:
        a = _pts(rng, s1, dt, False)
        b = _pts(rng, s2, dt, False)
        for x, y in ((a.mT.contiguous().mT, b), (a, b.mT.contiguous().mT), (a[..., ::2, :], b)):
            got = numtorch.cdist(x, y, p=p)
            want = decomp._cdist_composite(x, y, p)
            assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()


def test_infinite_points_give_nan_without_a_warning():
    import warnings

    x = numtorch.tensor([[np.inf, 0.0, 1.0], [1.0, 2.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for g in (False, True):
            d = numtorch.cdist(x.detach().requires_grad_(g), x)
            assert np.isnan(d.detach().numpy()[0, 0]) and d.detach().numpy()[1, 1] == 0
