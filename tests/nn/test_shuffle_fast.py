"""Note [Channel shuffle fast call]: channel_shuffle / native_channel_shuffle's fast call gives
the composite's bits (a new C-contiguous tensor) and leaves groups 1 and C (views), errors,
modes and gradients to it."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import shuffle_fast

from ._fastcheck import grad_and_modes_take_the_body, outcome, same

_BINDS = [(m, n) for m in ("torch", "torch.nn.functional") for n in ("channel_shuffle", "native_channel_shuffle")]


def _b(module, name):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    return b


def _fn(module, name):
    return getattr(torch.nn.functional if module != "torch" else torch, name)


def _spy(monkeypatch):
    ran = []
    real = shuffle_fast._make
    monkeypatch.setattr(shuffle_fast, "_make", lambda *a: ran.append(1) or real(*a))
    return ran


@pytest.mark.parametrize("module,name", _BINDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool, torch.float16])
def test_fast_call_gives_the_bodys_bits(module, name, dtype, monkeypatch):
    ran = _spy(monkeypatch)
    rng = np.random.default_rng(0)
    for shape, g in (((2, 6, 3), 3), ((2, 6, 3), 2), ((1, 12, 2, 2), 4), ((3, 4, 1, 2, 2), 2)):
        x = torch.from_numpy(rng.standard_normal(shape) * 10).to(dtype)
        want = _b(module, name).body(x, g)
        ran.clear()
        same(_fn(module, name)(x, g), want)
        assert ran
        xt = torch.from_numpy(np.repeat(x.numpy(), 2, axis=-1))[..., ::2]  # strided
        same(_fn(module, name)(xt, g), _b(module, name).body(xt, g))


@pytest.mark.parametrize("module,name", _BINDS)
def test_the_rest_takes_the_body(module, name, monkeypatch):
    x = torch.randn(2, 6, 3)
    ran = _spy(monkeypatch)
    for args in ((x, 1), (x, 6), (x, 4), (x, 0), (x, -2), (x, 2.0), (x, True), (x[0], 2), (x[:0], 2),
                 (torch.ones(2, 6, 3, dtype=torch.uint32), 2)):  # fmt: skip
        same(outcome(_fn(module, name), *args), outcome(_b(module, name).body, *args))
    assert not ran
    grad_and_modes_take_the_body(_fn(module, name), x, 2)
    assert not ran
