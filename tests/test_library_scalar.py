"""numtorch.library's scalar-function routes beyond first order: double backward of
``elementwise`` and the ``reduction`` counterpart."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.library import elementwise

from . import _library_ops as L

_COUNTER = [0]


def _ns() -> str:
    _COUNTER[0] += 1
    return f"libscalar{_COUNTER[0]}"


def _f64(*shape):
    return numtorch.randn(*shape, dtype=numtorch.float64, requires_grad=True)


# ---- elementwise: double backward ---------------------------------------------------------------
def test_elementwise_gradgradcheck_one_operand():
    sp = elementwise(f"{_ns()}::softplus", L.softplus, derivative=L.dsoftplus, second_derivative=L.d2softplus)
    x = _f64(6)
    assert gradcheck(lambda t: sp(t, 1.5), (x,))
    assert gradgradcheck(lambda t: sp(t, 1.5), (x,))
    # the second derivative's values against NumPy: d/dx (dsoftplus(x) * g) with g = 1
    (g,) = numtorch.autograd.grad(sp(x).sum(), x, create_graph=True)
    (h,) = numtorch.autograd.grad(g.sum(), x)
    s = 1 / (1 + np.exp(-x.detach().numpy()))
    np.testing.assert_allclose(h.numpy(), s * (1 - s))


def test_elementwise_gradgradcheck_two_operands_with_broadcasting():
    ms = elementwise(f"{_ns()}::mulsin", L.mulsin, derivative={"a": L.dmulsin_a, "b": L.dmulsin_b},
                     second_derivative={("a", "a"): L.zero2, ("a", "b"): L.d2mulsin_ab, "b": L.d2mulsin_bb})  # fmt: skip
    a, b = _f64(3, 1), _f64(4)
    np.testing.assert_allclose(ms(a, b).detach().numpy(), a.detach().numpy() * np.sin(b.detach().numpy()))
    assert gradcheck(ms, (a, b))
    assert gradgradcheck(ms, (a, b))


def test_elementwise_second_order_errors():
    ns = _ns()
    sp = elementwise(f"{ns}::softplus", L.softplus, derivative=L.dsoftplus)
    x = _f64(3)
    (g,) = numtorch.autograd.grad(sp(x).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match=rf"{ns}::softplus: no second derivative was given for \(x, x\)"):
        g.sum().backward()
    sp2 = elementwise(f"{ns}::softplus2", L.softplus, derivative=L.dsoftplus, second_derivative=L.d2softplus)
    (g,) = numtorch.autograd.grad(sp2(x).sum(), x, create_graph=True)
    (h,) = numtorch.autograd.grad(g.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="differentiates a scalar function at most twice"):
        h.sum().backward()
    with pytest.raises(ValueError, match="not a pair of operands"):
        elementwise(f"{ns}::bad2", L.softplus, derivative=L.dsoftplus, second_derivative={("x", "y"): L.d2softplus})
    with pytest.raises(ValueError, match="second_derivative needs derivative="):
        elementwise(f"{ns}::bad3", L.softplus, second_derivative=L.d2softplus)
