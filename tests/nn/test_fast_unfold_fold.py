"""F.unfold / F.fold fast calls (Note [Unfold and fold fast calls]) against their bodies: the same
bits, dtype, shape, strides and errors; plain calls take the route (the checks once per call
shape), and gradients, modes, subclasses, other dtypes, bad arguments and a kernel registered over
im2col/col2im take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import conv, fast_conv
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs
from tests.nn.test_fast_conv import cached_twice
from tests.ops._fastcall import outcome, same


def _t(*shape, dtype=torch.float32, seed=0):
    return torch.from_numpy(np.random.default_rng(seed + sum(shape)).standard_normal(shape)).to(
        dtype
    )


def _body(name):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == name]
    return b.body


def _unfold_calls():
    for dt in (torch.float32, torch.float64, torch.float16, torch.complex64, torch.bool):
        x = _t(1, 2, 4, 5, dtype=dt)
        yield (x, (2, 3), 1, 1, 2)  # the sweep's
        yield (x, 2, (1, 2), 0, 1)
        yield (_t(2, 4, 5, dtype=dt), [2, 2], 1, [1, 0], 1)  # unbatched
    x = _t(1, 2, 4, 5)
    yield (x, 0, 1, 0, 1)  # bad kernel size
    yield (x, 2, 0, 0, 1)  # bad dilation
    yield (x, 2, 1, -1, 1)  # bad padding
    yield (x, 2, 1, 0, 0)  # bad stride
    yield (x, 6, 1, 0, 1)  # no blocks
    yield (x, 2.0, 1, 0, 1)  # a float kernel size
    yield (x, (2, 2, 2), 1, 0, 1)  # three sizes
    yield (_t(4, 5), 2, 1, 0, 1)  # 2-D input
    yield (_t(0, 2, 4, 5), 2, 1, 0, 1)  # empty
    yield (_t(1, 2, 5, 4).transpose(2, 3), 2, 1, 0, 1)  # non-contiguous


def _fold_calls():
    for dt in (torch.float32, torch.float64, torch.float16, torch.complex64):
        yield (_t(2, 4, 16, dtype=dt), (3, 3), 2, 1, 1, 1)  # the sweep's
        yield (_t(2, 8, 4, dtype=dt), [3, 4], (2, 2), 1, 0, (1, 2))
        yield (_t(8, 4, dtype=dt), 4, 2, 1, 0, 2)  # unbatched
    x = _t(2, 4, 16)
    yield (x, (3, 3), 3, 1, 1, 1)  # channels not divisible by the kernel
    yield (x, (3, 3), 2, 1, 0, 1)  # wrong number of blocks
    yield (x, (3, 3), 2, 0, 1, 1)  # bad dilation
    yield (x, (3.0, 3), 2, 1, 1, 1)  # a float output size
    yield (_t(4, 16)[None, :, ::2], (3, 3), 2, 1, 1, 2)  # non-contiguous
    yield (_t(1, 2, 4, 16), (3, 3), 2, 1, 1, 1)  # 4-D


@pytest.fixture
def checks(monkeypatch):
    calls = []
    real = conv._fold_params
    monkeypatch.setattr(conv, "_fold_params", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(fast_conv, "_fold_params", lambda *a: calls.append(1) or real(*a))
    return calls


@pytest.mark.parametrize("name", ["unfold", "fold"])
def test_matches_body_and_checks_once(name, checks):
    fn, route = getattr(F, name), getattr(fast_conv, "_" + name)
    ran = 0
    for args in _unfold_calls() if name == "unfold" else _fold_calls():
        want = outcome(_body(name), *args)
        taken, first = cached_twice(fn, args, want, checks, route)
        ran += taken
        if taken:
            assert first == 1 and not checks, args[1:]
        else:
            assert (
                checks
                or isinstance(want, tuple)
                or args[0].dtype not in (torch.float32, torch.float64)
                or (
                    not args[0].numel()
                    or args[0].ndim not in ((3, 4) if name == "unfold" else (2, 3))
                )
            ), args[1:]
    assert ran >= 6


def test_grad_modes_subclasses_and_registered_kernels_take_the_body(checks):
    x = _t(1, 2, 4, 5, dtype=torch.float64).requires_grad_()
    assert F.unfold(x, 2).grad_fn is not None
    assert torch.autograd.gradcheck(lambda t: F.unfold(t, (2, 3), 1, 1, 2), (x,))
    c = _t(2, 4, 16, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(lambda t: F.fold(t, (3, 3), 2, 1, 1, 1), (c,))
    xd = x.detach()
    assert (
        fast_conv._unfold(xd, 2, 1, 0, 1) is not None and fast_conv._unfold(x, 2, 1, 0, 1) is None
    )
    with LoggingTensorMode(), capture_logs() as logs:
        F.unfold(xd, 2)
    assert logs

    class Sub(torch.Tensor):
        pass

    assert type(F.unfold(xd.as_subclass(Sub), 2)) is Sub
    assert type(F.fold(c.detach().as_subclass(Sub), (3, 3), 2, 1, 1, 1)) is Sub
    want = F.unfold(xd, 2)
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl("im2col", lambda *a, **k: torch.zeros(1), "CPU")
        lib.impl("col2im", lambda *a, **k: torch.zeros(2), "CPU")
        assert torch.equal(F.unfold(xd, 2), torch.zeros(1))
        assert torch.equal(F.fold(c.detach(), (3, 3), 2, 1, 1, 1), torch.zeros(2))
    finally:
        lib._destroy()
    same(F.unfold(xd, 2), want)
