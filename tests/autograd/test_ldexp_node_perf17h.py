"""ldexp's own node (Note [ldexp's own node]): LdexpBackward0 with PyTorch's formulas; the
recorded forward takes the array route (the composite's bits)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import forward_ad as fwAD
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.pointwise import extra

from ._spy import OpLog


@pytest.mark.parametrize("dt", [numtorch.float64, numtorch.complex128])
def test_gradcheck_gradgradcheck(dt):
    numtorch.manual_seed(0)
    a = numtorch.randn(3, 4, dtype=dt, requires_grad=True)
    b = numtorch.randn(4, dtype=dt, requires_grad=True)
    assert gradcheck(numtorch.ldexp, (a, b)) and gradgradcheck(numtorch.ldexp, (a, b))
    k = numtorch.tensor([1, -2, 3, 0])
    if not dt.is_complex:
        assert gradcheck(lambda a: numtorch.ldexp(a, k), (a,)) and gradgradcheck(lambda a: numtorch.ldexp(a, k), (a,))


def test_one_node_and_a_mode_sees_pytorchs_formulas():
    x = numtorch.randn(3, 4, requires_grad=True)
    e = numtorch.randn(3, 4, requires_grad=True)
    with OpLog(short=True) as log:
        r = numtorch.ldexp(x, e)
        assert type(r.grad_fn).__name__ == "LdexpBackward0"
        r.sum().backward()
    body = [c for c in log.calls if c not in ("detach.default",)]
    assert body[0] == "ldexp.Tensor" and "_to_copy.default" not in body
    assert body[-4:] == ["mul.Tensor", "mul.Tensor", "pow.Scalar", "mul.Tensor"]
    np.testing.assert_allclose(x.grad.numpy(), 2.0 ** e.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(e.grad.numpy(), r.detach().numpy() * np.log(2.0), rtol=1e-6)


@pytest.mark.parametrize("dt", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("edt", [numtorch.float32, numtorch.float64, numtorch.int64])
def test_recorded_forward_is_the_array_route(monkeypatch, dt, edt):
    seen = []
    real = extra._ldexp_arrays
    monkeypatch.setattr(extra, "_ldexp_arrays", lambda s, o: seen.append(1) or real(s, o))
    rng = np.random.default_rng(0)
    xa = rng.uniform(-3, 3, (4, 5))
    ea = rng.integers(-20, 20, (4, 5)) if edt is numtorch.int64 else rng.uniform(-3, 3, (4, 5))
    x = numtorch.tensor(xa, dtype=dt, requires_grad=True)
    e = numtorch.tensor(ea, dtype=edt, requires_grad=edt.is_floating_point)
    r = numtorch.ldexp(x, e)
    plain = extra._mul(numtorch.tensor(xa, dtype=dt), extra._pow2(numtorch.tensor(ea, dtype=edt))).to(r.dtype)
    assert r.requires_grad and r.dtype == plain.dtype and r.stride() == plain.stride()
    assert seen and seen[-1] == 1
    np.testing.assert_array_equal(r.detach().numpy(), plain.numpy())
    r.sum().backward()
    # an integer exponent: the composite's exact 2 ** k (PyTorch's integer pow gives 0 below 0)
    want = (2.0 ** np.asarray(ea, np.float64)).astype(x.grad.numpy().dtype)
    if edt is numtorch.int64:
        np.testing.assert_array_equal(x.grad.numpy(), want)
    else:  # PyTorch's pow(2, other) in the exponent's dtype
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=2e-7)


def test_forward_ad():
    a = numtorch.randn(3, dtype=numtorch.float64)
    e = numtorch.randn(3, dtype=numtorch.float64)
    with fwAD.dual_level():
        t = fwAD.unpack_dual(numtorch.ldexp(fwAD.make_dual(a, numtorch.ones(3, dtype=numtorch.float64)),
                                            fwAD.make_dual(e, numtorch.ones(3, dtype=numtorch.float64)))).tangent  # fmt: skip
    want = 2.0 ** e.numpy() + a.numpy() * 2.0 ** e.numpy() * np.log(2.0)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-12)
