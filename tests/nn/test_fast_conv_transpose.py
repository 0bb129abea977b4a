"""The conv_transpose1d/conv_transpose2d fast calls (Note [Transposed convolution fast calls])
against their bodies: the same bits, dtype, shape, strides and errors; plain calls take the route
(the body's _check_conv once per call shape), and gradients, modes, autocast, subclasses, other
dtypes, bad arguments and a kernel registered over convolution take the body."""

from __future__ import annotations

import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import fast_conv
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs
from tests.nn.test_fast_conv import _body, _t, cached_twice, checks  # noqa: F401  (the fixture)
from tests.ops._fastcall import outcome, same


def _calls():
    for dt in (torch.float32, torch.float64, torch.float16, torch.int64):
        x1, w1 = _t(1, 2, 4, dtype=dt), _t(2, 3, 3, dtype=dt, seed=1)
        yield "conv_transpose1d", (x1, w1, _t(3, dtype=dt, seed=2), 3, 1, 2, 1, 1)  # the sweep's
        yield "conv_transpose1d", (x1, w1, None, 1, 0, 0, 1, 1)
        yield "conv_transpose1d", (x1, _t(2, 2, 2, dtype=dt), None, 2, (1,), [1], 2, 2)  # groups
        x2, w2 = _t(2, 3, 4, 5, dtype=dt), _t(3, 2, 2, 3, dtype=dt, seed=1)
        yield "conv_transpose2d", (x2, w2, _t(2, dtype=dt, seed=2), 1, 0, 0, 1, 1)
        yield "conv_transpose2d", (x2, w2, None, (2, 1), [1, 0], (1, 0), 1, (1, 2))
        yield "conv_transpose2d", (x2, _t(3, 2, 1, 1, dtype=dt), None, 1, 0, 0, 1, 1)  # 1x1
    x1, w1 = _t(1, 2, 4), _t(2, 3, 3, seed=1)
    yield "conv_transpose1d", (x1, w1, None, 1, 0, 1, 1, 1)  # output_padding >= stride: error
    yield "conv_transpose1d", (x1, w1, None, 0, 0, 0, 1, 1)  # bad stride
    yield "conv_transpose1d", (x1, w1, None, 1, -1, 0, 1, 1)  # negative padding
    yield "conv_transpose1d", (x1, w1, None, 1.0, 0, 0, 1, 1)  # a float stride
    yield "conv_transpose1d", (x1, w1, None, (1, 1), 0, 0, 1, 1)  # two strides for one dim
    yield "conv_transpose1d", (x1, w1, None, 1, 0, 0, 3, 1)  # groups do not divide
    yield "conv_transpose1d", (x1, w1, _t(2), 1, 0, 0, 1, 1)  # bias of the wrong size
    yield "conv_transpose1d", (x1, w1, _t(3).double(), 1, 0, 0, 1, 1)  # bias of another dtype
    yield "conv_transpose1d", (x1, w1.double(), None, 1, 0, 0, 1, 1)  # weight of another dtype
    yield "conv_transpose1d", (_t(2, 4), w1, None, 1, 0, 0, 1, 1)  # unbatched: the body
    yield "conv_transpose1d", (_t(0, 2, 4), w1, None, 1, 0, 0, 1, 1)  # empty batch
    yield "conv_transpose1d", (_t(1, 2, 4), w1, None, 1, 3, 0, 1, 1)  # no output positions
    yield "conv_transpose2d", (_t(2, 3, 5, 4).transpose(2, 3), _t(3, 2, 2, 2), None, 1, 0, 0, 1, 1)


@pytest.mark.parametrize("module", ["torch", "torch.nn.functional"])
def test_conv_transpose_matches_body(module, checks):  # noqa: F811  (the fixture)
    ran = 0
    for name, args in _calls():
        fn = getattr(torch if module == "torch" else F, name)
        want = outcome(_body(name, module), *args)
        taken, first = cached_twice(fn, args, want, checks, fast_conv._convt)
        ran += taken
        if taken:
            assert first == 1 and not checks, (name, args[3:])  # checked once, then cached
        else:
            assert (
                checks
                or isinstance(want, tuple)
                or args[0].ndim < args[1].ndim
                or (args[0].dtype not in (torch.float32, torch.float64) or not args[0].numel())
            ), (name, args[3:])
    assert ran >= 13


def test_grad_modes_autocast_subclasses_take_the_body(checks):  # noqa: F811
    x = _t(1, 2, 4, dtype=torch.float64).requires_grad_()
    w = _t(2, 3, 3, dtype=torch.float64, seed=1).requires_grad_()
    b = _t(3, dtype=torch.float64, seed=2).requires_grad_()
    y = F.conv_transpose1d(x, w, b, 3, 1, 2)
    assert y.grad_fn is not None
    assert torch.autograd.gradcheck(lambda *a: F.conv_transpose1d(*a, 3, 1, 2), (x, w, b))
    xd, wd = x.detach(), w.detach()
    assert fast_conv._convt(xd, wd, None, 1, 0, 0, 1, 1) is not None
    assert fast_conv._convt(xd, w, None, 1, 0, 0, 1, 1) is None  # a weight to record
    with LoggingTensorMode(), capture_logs() as logs:
        F.conv_transpose1d(xd, wd)
    assert logs
    with torch.autocast("cpu"):
        assert fast_conv._convt(xd, wd, None, 1, 0, 0, 1, 1) is None

    class Sub(torch.Tensor):
        pass

    s = xd.as_subclass(Sub)
    assert type(F.conv_transpose1d(s, wd)) is Sub
    p = torch.nn.Parameter(wd)
    with torch.no_grad():
        checks.clear()
        same(F.conv_transpose1d(xd, p), F.conv_transpose1d(xd, wd))
        assert not checks
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        F.conv_transpose1d(xd, 3)


def test_a_kernel_registered_over_convolution_takes_the_call():
    x, w = _t(1, 2, 4), _t(2, 3, 3, seed=1)
    want = F.conv_transpose1d(x, w)
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl("convolution", lambda *a, **k: seen.append(1) or torch.zeros(1, 3, 6), "CPU")
        assert torch.equal(F.conv_transpose1d(x, w), torch.zeros(1, 3, 6)) and seen
        assert fast_conv._convt(x, w, None, 1, 0, 0, 1, 1) is None
    finally:
        lib._destroy()
    same(F.conv_transpose1d(x, w), want)
