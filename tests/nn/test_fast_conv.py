"""The conv1d/conv2d and torch.convolution fast calls (Note [Convolution fast calls]) against
their bodies: the same bits, dtype, shape, strides and errors; plain calls take the route (the
body's _check_conv runs once per call shape, never again), and gradients, modes, autocast,
subclasses, str padding, other dtypes and bad arguments take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import conv, fast_conv
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs
from tests.ops._fastcall import outcome, same


def _t(*shape, dtype=torch.float32, seed=0):
    return torch.from_numpy(np.random.default_rng(seed + sum(shape)).standard_normal(shape)).to(dtype)


def _body(name, module="torch.nn.functional"):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    return getattr(b.body, "__wrapped__", b.body)


def _conv_calls():
    for dt in (torch.float32, torch.float64, torch.float16, torch.int64):
        x, w, b = _t(2, 3, 6, 7, dtype=dt), _t(4, 3, 2, 3, dtype=dt, seed=1), _t(4, dtype=dt, seed=2)
        yield "conv2d", (x, w, b, 1, 0, 1, 1)
        yield "conv2d", (x, w, None, (2, 1), [1, 2], 2, 1)
        yield "conv2d", (x, _t(4, 3, 1, 1, dtype=dt), b, 1, 0, 1, 1)  # 1x1: _cols_of's reshape
        yield "conv2d", (x, _t(6, 1, 3, 3, dtype=dt), None, 1, 1, 1, 3)  # groups
        yield "conv1d", (_t(2, 3, 9, dtype=dt), _t(5, 3, 3, dtype=dt), None, 2, 1, 1, 1)
        yield "conv1d", (_t(2, 3, 9, dtype=dt), _t(5, 3, 3, dtype=dt), _t(5, dtype=dt), [1], (0,), 2, 1)
    x, w = _t(2, 3, 6, 7), _t(4, 3, 2, 3)
    yield "conv2d", (x, w, None, 1, "same", 1, 1)  # str padding: the body
    yield "conv2d", (x, w, None, 0, 0, 1, 1)  # bad stride: the body's error
    yield "conv2d", (x, w, None, 1, -1, 1, 1)  # negative padding
    yield "conv2d", (x, w, None, (1, 1, 1), 0, 1, 1)  # three strides
    yield "conv2d", (x, w, None, 1.0, 0, 1, 1)  # a float stride
    yield "conv2d", (x, w, None, 1, 0, 1, 2)  # groups do not divide
    yield "conv2d", (x, w, _t(3), 1, 0, 1, 1)  # bias of the wrong size
    yield "conv2d", (x, w, _t(4).double(), 1, 0, 1, 1)  # bias of another dtype
    yield "conv2d", (x, w.double(), None, 1, 0, 1, 1)  # weight of another dtype
    yield "conv2d", (_t(3, 6, 7), w, None, 1, 0, 1, 1)  # unbatched: the body
    yield "conv2d", (_t(2, 3, 1, 2), w, None, 1, 0, 1, 1)  # kernel larger than the input
    yield "conv2d", (_t(0, 3, 6, 7), w, None, 1, 0, 1, 1)  # empty batch
    yield "conv2d", (x.transpose(2, 3), _t(4, 3, 2, 2), None, 1, 0, 1, 1)  # non-contiguous input


@pytest.fixture
def checks(monkeypatch):
    """How often the body's _check_conv ran."""
    calls = []
    real = conv._check_conv
    monkeypatch.setattr(conv, "_check_conv", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(fast_conv, "_check_conv", lambda *a: calls.append(1) or real(*a))
    return calls


def cached_twice(fn, args, want, checks, route):
    """Call ``fn`` twice (the geometry cache cleared first) and compare both outcomes with the
    body's ``want``; returns whether ``route`` computes the call and how often the checks ran
    in the first call (``checks`` then holds the second call's)."""
    fast_conv._GEO.clear()
    checks.clear()
    same(outcome(fn, *args), want)
    first = len(checks)
    checks.clear()
    same(outcome(fn, *args), want)  # the second call: from the cache
    return route(*args) is not None, first


@pytest.mark.parametrize("module", ["torch", "torch.nn.functional"])
def test_conv_matches_body(module, checks):
    ran = 0
    for name, args in _conv_calls():
        fn = getattr(torch if module == "torch" else F, name)
        want = outcome(_body(name, module), *args)
        taken, first = cached_twice(fn, args, want, checks, fast_conv._conv)
        ran += taken
        if taken:
            assert first == 1 and not checks, (name, args[3:])  # checked once, then cached
        else:
            # an unbatched input: the body batches it and convolution's body takes the planned
            # steps (Note [Recorded convolutions take the planned steps]), checked once
            unbatched = args[0].dim() == args[1].dim() - 1
            named = isinstance(args[4], str)
            assert checks or isinstance(want, tuple) or named or unbatched, (name, args[3:])
    assert ran >= 13


def test_convolution_matches_body(checks):
    body = _body("convolution", "torch")
    x, w = _t(1, 2, 4, 4), _t(3, 2, 2, 2)
    calls = [(x, w, None, [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
             (x, w, _t(3), [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
             (_t(2, 2, 5), _t(3, 2, 2), _t(3), [1], [1], [2], False, [0], 1),
             (x, w, None, [1, 1], [0, 0], [1, 1], False, [1, 0], 1),  # output_padding: the body
             (x, w.transpose(0, 1).contiguous(), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1),  # transposed
             (x, w, None, [1, 1], [0, 0], [1, 1], False, [0], 1)]  # fmt: skip
    ran = 0
    for args in calls:
        want = outcome(body, *args)
        checks.clear()
        same(outcome(torch.convolution, *args), want)
        taken = fast_conv._convolution(*args) is not None
        ran += taken
        if taken:
            checks.clear()
            same(torch.convolution(*args), want)
            assert not checks
    assert ran == 3


def test_grad_modes_autocast_subclasses_take_the_body(checks):
    x = _t(2, 3, 6, 7, dtype=torch.float64).requires_grad_()
    w = _t(4, 3, 2, 3, dtype=torch.float64, seed=1).requires_grad_()
    b = _t(4, dtype=torch.float64, seed=2).requires_grad_()
    y = F.conv2d(x, w, b, 2, 1)
    assert y.grad_fn is not None
    torch.autograd.gradcheck(lambda *a: F.conv2d(*a, 2, 1), (x, w, b))
    xd, wd = x.detach(), w.detach()
    assert fast_conv._conv(xd, wd, None, 1, 0, 1, 1) is not None
    rec = fast_conv._conv(xd, w, None, 1, 0, 1, 1)  # a weight to record: dispatched (session 20)
    assert type(rec.grad_fn).__name__ == "ConvolutionBackward0"
    with LoggingTensorMode(), capture_logs() as logs:
        F.conv2d(xd, wd)
    assert logs
    with torch.autocast("cpu"):
        assert fast_conv._conv(xd, wd, None, 1, 0, 1, 1) is None
        assert F.conv2d(xd.float(), wd.float()).dtype == torch.bfloat16  # the autocast rule

    class Sub(torch.Tensor):
        pass

    s = xd.as_subclass(Sub)  # its __torch_function__ wraps the result
    assert type(F.conv2d(s, wd)) is Sub
    assert type(torch.convolution(s, wd, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)) is Sub
    assert fast_conv._convolution(s, wd, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1) is None
    p = torch.nn.Parameter(wd)  # a parameter weight under no_grad takes the route
    with torch.no_grad():
        checks.clear()
        same(F.conv2d(xd, p), F.conv2d(xd, wd))
        assert not checks
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        F.conv2d(xd, 3)
