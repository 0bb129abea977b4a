"""gradcheck and gradgradcheck in float64 over every differentiable OpInfo."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.testing._opinfo import op_db

from ._harness import to_nt

GRAD_OPS = [i for i in op_db if i.grad and "float64" in i.dtypes]


def _samples(info, rng):
    out = []
    for s in info.sample_inputs("float64", rng):
        if not isinstance(s.input, np.ndarray) or s.input.size == 0 or s.input.size > 40:
            continue
        out.append(s)
    return out[:4]


def _closure(info, s):
    """A function of the differentiable (float64 array) arguments only; the rest is fixed."""
    fn = info.resolve()
    tensors = [s.input] + [a for a in s.args if isinstance(a, np.ndarray) and a.dtype == np.float64]
    nts = [to_nt(a.copy()).requires_grad_(True) for a in tensors]

    def f(*ts):
        it = iter(ts[1:])
        args = [next(it) if isinstance(a, np.ndarray) and a.dtype == np.float64 else to_nt(a) for a in s.args]
        out = fn(ts[0], *args, **to_nt(s.kwargs))
        return out

    return f, nts


@pytest.mark.parametrize("info", GRAD_OPS, ids=lambda i: i.name)
def test_grad_matches_finite_differences(info, rng):
    if "grad" in info.skips:
        pytest.skip(info.skips["grad"])
    for s in _samples(info, rng):
        f, nts = _closure(info, s)
        assert gradcheck(f, tuple(nts), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("info", [i for i in GRAD_OPS if i.gradgrad], ids=lambda i: i.name)
def test_gradgrad_matches_finite_differences(info, rng):
    if "gradgrad" in info.skips:
        pytest.skip(info.skips["gradgrad"])
    for s in _samples(info, rng)[:2]:
        f, nts = _closure(info, s)
        assert gradgradcheck(f, tuple(nts), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_gradcheck_detects_a_wrong_derivative():
    class Wrong(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g

    x = numtorch.tensor([0.5, 1.5], dtype=numtorch.float64, requires_grad=True)
    with pytest.raises(numtorch.autograd.GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(Wrong.apply, (x,))
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False


def _jvp_samples(info, rng):
    """Small samples for the forward-mode sweep (each costs one dual pass per input element)."""
    return [s for s in _samples(info, rng) if s.input.size <= 12][:2] or _samples(info, rng)[:1]


@pytest.mark.parametrize("info", GRAD_OPS, ids=lambda i: i.name)
def test_jvp_matches_finite_differences(info, rng):
    """Forward mode: the JVP of every differentiable op, column by column, vs central differences."""
    if "grad" in info.skips:
        pytest.skip(info.skips["grad"])
    if "fwgrad" in info.skips:
        pytest.skip(info.skips["fwgrad"])
    for s in _jvp_samples(info, rng):
        f, nts = _closure(info, s)
        assert gradcheck(f, tuple(nts), eps=1e-6, atol=1e-5, rtol=1e-3, check_forward_ad=True, check_backward_ad=False)
