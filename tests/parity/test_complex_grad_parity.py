"""Complex gradients follow PyTorch's convention (the conjugate Wirtinger derivative):
Note [Complex gradients]. Each case backpropagates a complex grad_output through an op with
complex inputs in numtorch and in PyTorch and compares the input gradients."""

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(0)
_V = _rng.standard_normal(3) + 1j * _rng.standard_normal(3)
_U = _rng.standard_normal(3) + 1j * _rng.standard_normal(3)
_A = _rng.standard_normal((3, 3)) + 1j * _rng.standard_normal((3, 3))
_B = _rng.standard_normal((3, 3)) + 1j * _rng.standard_normal((3, 3))

_UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
          "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh",
          "atanh", "sigmoid", "sgn", "abs", "square", "neg", "conj_physical"]  # fmt: skip
_BINARY = ["mul", "div", "add", "sub", "logaddexp", "ldexp", "outer", "kron", "dot", "vdot"]
_CASES = {
    **{n: (lambda L, n=n: (lambda a: getattr(L, n)(a)), [_V]) for n in _UNARY},
    **{n: (lambda L, n=n: (lambda a, b: getattr(L, n)(a, b)), [_V, _U]) for n in _BINARY},
    "prod": (lambda L: (lambda a: L.prod(a)), [_V]),
    "prod_dim": (lambda L: (lambda a: L.prod(a, 1)), [_A]),
    "cumprod": (lambda L: (lambda a: L.cumprod(a, 0)), [_V]),
    "mm": (lambda L: (lambda a, b: L.mm(a, b)), [_A, _B]),
    "real_times_complex": (lambda L: (lambda a, b: a.real * b), [_V, _U]),
    "add_alpha": (lambda L: (lambda a, b: L.add(a, b, alpha=2 - 1j)), [_V, _U]),
    "slogdet": (lambda L: (lambda a: L.linalg.slogdet(a)), [_A]),
    "qr": (lambda L: (lambda a: L.linalg.qr(a)), [_A]),
    "svd_reconstruct": (lambda L: (lambda a: (lambda u, s, vh: (u * s.to(a.dtype)) @ vh)(*L.linalg.svd(a))), [_A]),
    "pinv": (lambda L: (lambda a: L.linalg.pinv(a)), [_A]),
    "det": (lambda L: (lambda a: L.linalg.det(a)), [_A]),
}


def _grads(lib, make, arrays):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    ys = make(lib)(*xs)
    ys = [y for y in (ys if isinstance(ys, tuple) else (ys,)) if y.requires_grad]
    gos = []
    for i, y in enumerate(ys):
        k = np.arange(y.numel()).reshape(tuple(y.shape))
        g = np.cos(k + i) + (1j * np.sin(k + 2 * i) if y.is_complex() else 0)
        gos.append(lib.tensor(g))
    return [g.detach().numpy() for g in lib.autograd.grad(ys, xs, gos)]


@pytest.mark.parametrize("name", sorted(_CASES))
def test_complex_gradient_is_conjugate_wirtinger(name):
    make, arrays = _CASES[name]
    expected = _grads(torch, make, arrays)
    actual = _grads(numtorch, make, arrays)
    for e, a in zip(expected, actual):
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12)
