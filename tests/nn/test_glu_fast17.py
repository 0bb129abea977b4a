"""Note [GLU fast call]: F.glu's plain calls run glu's kernel entry with the body's bits; every
other call (errors, modes, graphs, subclasses, strided or large inputs) is the body's."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
import numtorch.nn.functional as F
from numtorch.ops.nn import glu_fast
from numtorch.ops.nn.layers import glu as GLU
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from ..ops._fastcall import binding, outcome, same


def _body(*v):
    return binding("glu", "torch.nn.functional").fast[0].__wrapped__(*v)


def _x(shape, dtype=torch.float32):
    a = np.random.default_rng(7).standard_normal(shape) * 4
    a.flat[:2] = (np.nan, -np.inf)
    return torch.from_numpy(a).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(("shape", "dim"), [((2, 6, 2), 1), ((2, 6, 2), -2), ((4, 3), 0), ((8,), -1), ((3, 2, 4), 2)])
def test_plain_calls_take_the_entry_with_the_body_bits(shape, dim, dtype):
    x = _x(shape, dtype)
    want = _body(x, dim)
    for _ in range(2):  # the first call learns the entry, the second runs it
        n = glu_fast.COUNT[0]
        r = F.glu(x, dim)
        assert glu_fast.COUNT[0] == n + 1
        same(r, want)


def test_errors_and_declined_calls_are_the_body():
    cases = [
        (_x((2, 5)), -1),  # odd halving dimension
        (torch.tensor(3.0), 0),  # 0-d
        (_x((2, 4)), 2),  # dim out of range
        (_x((2, 4)), True),  # a bool dim
        (torch.arange(8).reshape(2, 4), 1),  # integer: not implemented
        (_x((2, 0)), 1),  # empty
        (_x((4, 2)).t(), 1),  # strided
        (_x((4, 2), torch.float16), 1),
        (_x((600, 500)), 1),  # past the parallel size
    ]
    for x, dim in cases:
        n = glu_fast.COUNT[0]
        same(outcome(F.glu, x, dim), outcome(_body, x, dim))
        assert glu_fast.COUNT[0] == n


def test_modes_grads_forward_ad_and_subclasses():
    x = _x((2, 6, 2), torch.float64)
    F.glu(x, 1)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        F.glu(x, 1)
    assert any("aten.glu.default" in s for s in logs)
    g = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    n = glu_fast.COUNT[0]
    torch.autograd.gradcheck(lambda t: F.glu(t, 1), (g,))
    torch.autograd.gradgradcheck(lambda t: F.glu(t, 1), (g,))
    assert F.glu(g, 1).grad_fn.name() == "GluBackward0"
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones_like(x))
        assert fwAD.unpack_dual(F.glu(d, 1)).tangent is not None
    assert glu_fast.COUNT[0] == n

    class Sub(torch.Tensor):
        pass

    assert type(F.glu(x.as_subclass(Sub), 1)) is Sub


def test_a_registered_kernel_takes_every_call():
    x = _x((2, 4))
    F.glu(x, 1)
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl("glu", lambda t, dim=-1: torch.zeros(2, 2), "CPU")
        n = glu_fast.COUNT[0]
        assert F.glu(x, 1).tolist() == [[0.0, 0.0], [0.0, 0.0]]
        assert glu_fast.COUNT[0] == n
    finally:
        lib._destroy()
    assert GLU.impls.get("cpu") is not None


def test_prelu_fast_call_runs_the_compiled_entry(monkeypatch):
    # Note [PReLU fast call]: after the first call, the kernel's dispatcher is never called
    from numtorch.ops.nn import prelu_rows
    from numtorch.ops.nn.layers_extra import _prelu

    for shape, w in [((2, 3, 4), torch.tensor([0.1, -0.2, 0.3])), ((2, 3), torch.tensor([0.25])), ((5,), torch.tensor(0.5))]:
        for dt in (torch.float32, torch.float64):
            x, ww = _x(shape, dt), w.to(dt)
            F.prelu(x, ww)

            class Boom:
                def __getattr__(self, name):
                    raise AssertionError("the dispatcher ran")

            monkeypatch.setattr(prelu_rows, "K", Boom())
            same(F.prelu(x, ww), _prelu(x, ww))
            monkeypatch.undo()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(("shape", "wshape"), [((2, 3, 4), (1, 3, 1)), ((2, 3), (1, 3)), ((5,), (1,)),
                                               ((2, 3, 20), (1, 3, 1)), ((4, 2), (1, 1)), ((3,), ()), ((2000, 3), (1, 3))])  # fmt: skip
def test_prelu_rows_give_the_kernels_bits(shape, wshape, dtype):
    # Note [PReLU rows]: _prelu_kernel and its backward against their Pointwise kernels
    from numtorch.ops.nn import layers_extra as LE
    from numtorch.ops.nn import prelu_rows

    x = _x(shape, dtype)
    w = torch.from_numpy(np.linspace(-0.5, 0.75, int(np.prod(wshape))).reshape(wshape)).to(dtype)
    g = _x(shape, dtype).flip(-1).contiguous()
    n = prelu_rows.COUNT[0]
    r = torch._dispatch.dispatch(LE._prelu_kernel, [x, w])
    gi, gw = torch._dispatch.dispatch(LE._prelu_kernel_backward, [g, x, w])
    assert prelu_rows.COUNT[0] == n + 2
    pw = LE._prelu_binary.__self__
    same(r, pw([x, w]))
    same(gi, LE._PRELU_GRADS[0]([g, x, w]))
    same(gw, LE._PRELU_GRADS[1]([g, x, w]))


def test_prelu_rows_decline_what_they_do_not_cover():
    from numtorch.ops.nn import layers_extra as LE
    from numtorch.ops.nn import prelu_rows

    x = _x((2, 3, 4))
    cases = [(x, torch.ones(2, 3, 4) * 0.5), (x.transpose(0, 2), torch.full((1, 1, 1), 0.5)),
             (x, torch.full((1, 3, 1), 0.5, dtype=torch.float64)), (x.to(torch.float16), torch.full((1, 3, 1), 0.5, dtype=torch.float16)),
             (x[0, 0, :1], torch.full((1,), 0.5)), (x, torch.full((1, 1, 1, 1), 0.5)),
             (_x((3000, 3)), torch.full((1, 3), 0.5))]  # fmt: skip
    for a, w in cases:
        n = prelu_rows.COUNT[0]
        same(outcome(torch._dispatch.dispatch, LE._prelu_kernel, [a, w]), outcome(LE._prelu_binary, a, w))
        assert prelu_rows.COUNT[0] == n
