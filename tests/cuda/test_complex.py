"""complex64/complex128 on CUDA (Note [Complex on CUDA]) against the same ops on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
C64, C128 = numtorch.complex64, numtorch.complex128


def _pair(*shape, dtype=C64, seed=0):
    g = np.random.default_rng(seed)
    x = numtorch.from_numpy((g.standard_normal(shape) + 1j * g.standard_normal(shape)).astype(dtype.np))
    return x, x.cuda()


def _same(got, want, rtol=1e-5):
    assert got.is_cuda and got.dtype is want.dtype
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=rtol, atol=1e-6)


ELEMENTWISE = {
    "add": lambda a, b: a + b * (2 - 1j),
    "mul_div": lambda a, b: a * b / (b + 3),
    "exp_abs_angle": lambda a, b: (a.exp(), a.abs(), a.angle()),
    "sqrt_log_tanh": lambda a, b: (a.sqrt(), a.log(), a.tanh(), a.sigmoid()),
    "compare_sgn": lambda a, b: (a == b, a != a.conj(), a.sgn(), a.isfinite()),
    "where_conj_physical": lambda a, b: numtorch.where(a.real > 0, a, numtorch.conj_physical(b)),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_from_the_same_declarations(name):
    (a, ac), (b, bc) = _pair(2, 3), _pair(3, seed=1)
    got, want = ELEMENTWISE[name](ac, bc), ELEMENTWISE[name](a, b)
    for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
        _same(g, w)


def test_complex128_add_and_sum():
    (a, ac), (b, bc) = _pair(2, 3, dtype=C128), _pair(3, dtype=C128, seed=1)
    _same((ac + bc).sum(0), (a + b).sum(0), rtol=1e-12)


def test_sum_mean_and_products():
    (a, ac), (b, bc) = _pair(2, 3, 4), _pair(4, 3, seed=1)
    _same(ac.sum(), a.sum())
    _same(ac.sum((0, 2), keepdim=True), a.sum((0, 2), keepdim=True))
    _same(ac.mean(-1), a.mean(-1))
    _same(ac @ bc, a @ b)  # batched matmul: four real GEMMs
    _same(ac[0].mm(bc), a[0].mm(b))
    _same(numtorch.dot(ac[0, 0], bc[:, 0]), numtorch.dot(a[0, 0], b[:, 0]))
    _same(ac.conj() @ bc, a.conj() @ b)
    _same(ac.cumsum(1), a.cumsum(1))


def test_conjugate_views_and_reinterpreting_views():
    a, ac = _pair(3)
    c = ac.conj()
    assert c.is_conj() and c.tolist() == a.conj().tolist()
    _same(c.resolve_conj(), a.conj().resolve_conj())
    _same(c * 2, a.conj() * 2)
    c.mul_(2)  # written through the view: the base holds the conjugate
    np.testing.assert_allclose(ac.cpu().numpy(), a.numpy() * 2, rtol=1e-6)
    r = numtorch.view_as_real(ac)
    r[:, 1].zero_()  # a float32 view of the same memory
    assert ac.imag.cpu().abs().sum().item() == 0.0
    ac.real.fill_(1.5)
    assert ac.cpu().tolist() == [(1.5 + 0j)] * 3
    z = numtorch.complex(ac.real, numtorch.ones(3, device="cuda"))
    assert z.dtype is C64 and z.cpu().tolist() == [(1.5 + 1j)] * 3


# Note [Complex device math]: once refused by name, these complex variants now run on CUDA
def _once_refused(a, b):
    return (a**b, a ** (0.5 - 1j), a**-0.5, a**0.5, 2.0**a, a.rsqrt(), a.expm1(), a.log1p(), a.acosh(),
            numtorch.logaddexp(a, b))  # fmt: skip


@pytest.mark.parametrize("dtype", [C64, C128])
def test_complex_variants_with_numpy_calls_match_the_cpu(dtype):
    (a, ac), (b, bc) = _pair(2, 3, dtype=dtype), _pair(3, dtype=dtype, seed=1)
    for g, w in zip(_once_refused(ac, bc), _once_refused(a, b)):
        _same(g, w, rtol=1e-5 if dtype is C64 else 1e-12)


def test_complex_gradients_of_once_refused_ops_match_the_cpu():
    (a, ac), (b, bc) = _pair(4, dtype=C128), _pair(4, dtype=C128, seed=1)
    fns = (lambda x, y: (x ** (0.5 - 1j) * y**2).abs().sum(), lambda x, y: (x.rsqrt() * x.expm1() + x.log1p()).real.sum(),
           lambda x, y: (x.acosh() * numtorch.logaddexp(x, y)).imag.sum())  # fmt: skip
    for fn in fns:
        cpu = [t.clone().requires_grad_() for t in (a, b)]
        dev = [t.clone().requires_grad_() for t in (ac, bc)]
        fn(*cpu).backward()
        fn(*dev).backward()
        for g, w in zip(dev, cpu):
            if w.grad is None:  # the function does not read y
                assert g.grad is None
            else:
                _same(g.grad, w.grad, rtol=1e-10)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_prod_multiplies_in_complex128(dtype):
    a, ac = _pair(3, 9, dtype=dtype, seed=2)
    for fn in (lambda t: t.prod(), lambda t: t.prod(1), lambda t: t.conj().prod(0, keepdim=True),
               lambda t: t[:, :0].prod(1)):  # fmt: skip
        _same(fn(ac), fn(a))


def test_half_cumsum_accumulates_in_float32():
    x = numtorch.linspace(0, 1, 64).half()
    got = x.cuda().cumsum(0)
    assert got.dtype is numtorch.float16
    np.testing.assert_array_equal(got.cpu().numpy(), x.float().cumsum(0).half().numpy())


def test_complex_to_real_casts_keep_the_real_part_with_pytorchs_warning():
    a, ac = _pair(2, 3)
    for f in (lambda t: t.float(), lambda t: t.t().double(), lambda t: t[:, 1].to(numtorch.int64)):
        with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
            got = f(ac)
        with pytest.warns(UserWarning):
            want = f(a)
        assert got.dtype is want.dtype and got.cpu().tolist() == want.tolist()
    y = numtorch.zeros(2, 3, device="cuda")
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        y.copy_(ac)
    assert y.cpu().tolist() == a.real.tolist()
