"""Note [Cross offsets]: a small cross product of C-contiguous operands reads them in place
(no broadcast copies), np.cross's bits; larger, non-contiguous or partly broadcast operands
take the copies; the fast call's per-shapes plan gives the op's results and errors."""

from __future__ import annotations

import types

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import _fast_small as FS
from numtorch.ops.linalg import cross as LX
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding as _binding
from .._fastcall import outcome as _outcome
from .._fastcall import same as _same

SHAPES = [
    ((4, 1, 3), (4, 2, 3), 2),  # the sweep's case: a broadcast leading dim
    ((3, 2), (3, 2), 0),
    ((3,), (3,), 0),
    ((2, 3, 4), (1, 3, 1), 1),  # broadcast over every trailing dim
    ((2, 3, 4), (2, 3, 1), 1),
    ((5, 3), (1, 3), 1),
    ((1, 3, 2, 2), (4, 3, 1, 2), 1),  # broadcast over some trailing dims: the copies
    ((2, 1, 3, 1), (1, 4, 3, 5), 2),
    ((3, 1, 1), (3, 4, 5), 0),
    ((0, 3), (1, 3), 1),  # empty: the copies
]


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = LX._KC.cross3_offsets

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(LX, "_KC", types.SimpleNamespace(cross3_offsets=counted))
    LX._OFFSET_PLANS.clear()
    return calls


def _arrays(sa, sb, dt, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(sa) * 1e3).astype(dt)
    b = (rng.standard_normal(sb) * 1e3).astype(dt)
    return a, b


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize(("sa", "sb", "d"), SHAPES)
def test_offsets_are_np_cross_bit_for_bit(spy, sa, sb, d, dt):
    a, b = _arrays(sa, sb, dt)
    shape = np.broadcast_shapes(sa, sb)
    for _ in range(2):  # planned, then from the plan
        with np.errstate(all="ignore"):
            want = np.ascontiguousarray(np.cross(a, b, axis=d))
        got = LX._cross3(a, b, d, shape)
        assert got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous
        assert got.tobytes() == want.tobytes()
    copies = 0 in shape or sb == (4, 3, 1, 2)  # empty; y broadcast over one of two trailing dims
    assert len(spy) == (0 if copies else 2)


def test_special_values_and_wrapping_integers(spy):
    inf, nan = float("inf"), float("nan")
    a = np.array([[inf, 0.0, -0.0], [nan, 1.0, 2.0], [1e38, 3e38, -3e38]], np.float32)
    b = np.array([[0.0, -0.0, inf], [1.0, nan, 0.0], [3e38, 1e38, 3e38]], np.float32)
    with np.errstate(all="ignore"):
        want = np.cross(a, b[:1], axis=1)
        assert LX._cross3(a, b[:1], 1, (3, 3)).tobytes() == want.tobytes()
    big = np.array([[2**40, 3, 2**41]], dtype=np.int64)
    assert (
        LX._cross3(big, big[:, ::-1].copy(), 1, (1, 3)).tobytes()
        == np.cross(big, big[:, ::-1], axis=1).tobytes()
    )
    assert len(spy) == 2


def test_large_and_non_contiguous_operands_take_the_copies(spy):
    n = LX._OFFSET_MAX // 3 + 1
    a, b = _arrays((n, 3), (1, 3), np.float32)
    assert LX._cross3(a, b, 1, (n, 3)).tobytes() == np.cross(a, b, axis=1).tobytes()
    c, e = _arrays((3, 4), (3, 4), np.float64)
    assert (
        LX._cross3(c.T, e.T, 1, (4, 3)).tobytes()
        == np.ascontiguousarray(np.cross(c.T, e.T, axis=1)).tobytes()
    )
    assert spy == []
    a, b = _arrays((n - 1, 3), (1, 3), np.float32)
    assert LX._cross3(a, b, 1, (n - 1, 3)).tobytes() == np.cross(a, b, axis=1).tobytes()
    assert len(spy) == 1


def _t(shape, dtype=torch.float32, start=0):
    n = int(np.prod(shape))
    return (torch.arange(start, start + n, dtype=torch.float64).reshape(shape) * 0.37 - 1).to(dtype)


CALLS = [
    ((4, 1, 3), (4, 2, 3), -1),
    ((3, 2), (3, 2), 0),
    ((2, 3, 4), (1, 3, 1), 1),
    ((3, 2), (3, 2), 1),  # not 3 along dim: the op's error
    ((3, 2), (2, 3), 0),
    ((3, 2), (3, 2, 1), 0),  # ranks differ
    ((4, 3), (2, 3), 1),  # no broadcast
    ((3, 2), (3, 2), 5),  # dim out of range
    ((3, 2), (3, 2), -3),
    ((0, 3), (1, 3), 1),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.float16, torch.bfloat16,
                                   torch.complex64, torch.bool])  # fmt: skip
def test_fast_call_plan_gives_the_ops_results_and_errors(dtype):
    b, lb = _binding("cross"), _binding("cross", "torch.linalg")
    FS._CROSS_PLANS.clear()
    for _ in range(2):
        for sa, sb, d in CALLS:
            x, y = _t(sa, dtype), _t(sb, dtype, start=3)
            want = _outcome(lb.body, x, y, d, None)
            _same(_outcome(lambda a, c, d=d: torch.linalg.cross(a, c, dim=d), x, y), want)
            _same(_outcome(torch.cross, x, y, d), _outcome(b.body, x, y, d, None))
            _same(_outcome(lb.fast[0], x, y, d), want)
    x, y = _t((3, 2)), _t((3, 2), torch.float64)
    _same(
        _outcome(lambda a, c: torch.linalg.cross(a, c, dim=0), x, y),
        _outcome(lb.body, x, y, 0, None),
    )


def test_plain_calls_take_the_plan_and_the_offsets(spy, monkeypatch):
    FS._CROSS_PLANS.clear()
    x, y = _t((4, 1, 3)), _t((4, 2, 3), start=2)
    want = np.cross(x.numpy(), y.numpy(), axis=-1)
    assert torch.linalg.cross(x, y).numpy().tobytes() == want.tobytes()
    assert (x.shape, y.shape, -1) in FS._CROSS_PLANS and len(spy) == 1
    with LoggingTensorMode(), capture_logs() as logs:  # a mode sees the op: the body
        r = torch.linalg.cross(x, y)
    assert any("linalg_cross" in line for line in logs)
    assert r.numpy().tobytes() == want.tobytes()


def test_recorded_calls_take_the_offsets_and_differentiate(spy):
    x = torch.randn(4, 1, 3, dtype=torch.float64, requires_grad=True)
    y = torch.randn(4, 2, 3, dtype=torch.float64, requires_grad=True)
    r = torch.linalg.cross(x, y)
    assert r.grad_fn is not None and len(spy) == 1
    assert (
        r.detach().numpy().tobytes() == np.cross(x.detach().numpy(), y.detach().numpy()).tobytes()
    )
    assert torch.autograd.gradcheck(torch.linalg.cross, (x, y))
