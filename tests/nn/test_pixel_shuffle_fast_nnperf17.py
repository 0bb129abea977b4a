"""Note [Pixel shuffle fast call]: pixel_shuffle / pixel_unshuffle's fast calls give the CPU
impl's bits (and its sharing of memory) and leave errors, modes, gradients, subclasses and a
kernel registered over the op to the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.nn import pixel_shuffle_fast as PS

from ._fastcheck import grad_and_modes_take_the_body, outcome, same
from .test_shuffle_fast import _b, _fn

_BINDS = [(m, n) for m in ("torch", "torch.nn.functional") for n in ("pixel_shuffle", "pixel_unshuffle")]


def _spy(monkeypatch):
    ran = []
    real = PS._make
    monkeypatch.setattr(PS, "_make", lambda *a: ran.append(1) or real(*a))
    return ran


def _shapes(name):
    if name == "pixel_shuffle":
        return (((1, 8, 2, 3), 2), ((2, 9, 1, 2), 3), ((3, 2, 4, 1, 2), 1), ((4, 3, 2), 1), ((2, 1, 4, 2, 2), 2))
    return (((1, 2, 4, 6), 2), ((2, 1, 3, 6), 3), ((3, 2, 4, 1, 2), 1), ((4, 3, 2), 1), ((2, 1, 1, 4, 4), 2))


@pytest.mark.parametrize("module,name", _BINDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool, torch.float16])
def test_fast_call_gives_the_bodys_bits(module, name, dtype, monkeypatch):
    ran = _spy(monkeypatch)
    rng = np.random.default_rng(0)
    for shape, r in _shapes(name):
        x = torch.from_numpy(rng.standard_normal(shape) * 10).to(dtype)
        for xin in (x, torch.from_numpy(np.repeat(x.numpy(), 2, axis=-1))[..., ::2]):  # and strided
            for _ in range(2):  # the first call plans
                want = _b(module, name).body(xin, r)
                ran.clear()
                got = _fn(module, name)(xin, r)
                same(got, want)
                assert ran
                # the impl's NumPy calls share the input's memory exactly where the body's do
                assert np.shares_memory(got.numpy(), xin.numpy()) == np.shares_memory(want.numpy(), xin.numpy())


@pytest.mark.parametrize("module,name", _BINDS)
def test_the_rest_takes_the_body(module, name, monkeypatch):
    x = torch.randn(2, 8, 4, 4)
    ran = _spy(monkeypatch)
    for args in ((x, 0), (x, -2), (x, 3), (x, 2.0), (x, True), (x[0, 0], 2), (x[0, :3, :3], 2),
                 (torch.randn(2, 6, 3, 5), 2), (torch.ones(2, 8, 4, 4, dtype=torch.uint32), 2)):  # fmt: skip
        same(outcome(_fn(module, name), *args), outcome(_b(module, name).body, *args))
    assert not ran
    logs = grad_and_modes_take_the_body(_fn(module, name), x, 2)
    assert name in "".join(logs) and not ran

    class Sub(torch.Tensor):
        pass

    s = x.as_subclass(Sub)  # Note [Plain subclasses]: either route, the body's class and bits
    r = _fn(module, name)(s, 2)
    assert type(r) is Sub and r.numpy().tobytes() == _b(module, name).body(s, 2).numpy().tobytes()


@pytest.mark.parametrize("name", ["pixel_shuffle", "pixel_unshuffle"])
def test_a_registered_kernel_replaces_the_fast_call(name):
    x = torch.randn(1, 4, 2, 2)
    fn = getattr(torch.nn.functional, name)
    for _ in range(2):
        want = fn(x, 2)
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl(name, lambda *a, **k: seen.append(1) or torch.zeros(3), "CPU")
        assert torch.equal(fn(x, 2), torch.zeros(3)) and seen
    finally:
        lib._destroy()
    assert torch.equal(fn(x, 2), want)
