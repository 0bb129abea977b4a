"""Note [Inlined number operand], int operands: ``x + 1``, ``i == 3``, ``x > 0`` run the learned
(dtype, int) kernel from op.fast (and the operator dunders pass an int to the scalar overload's
op.fast as they pass a float), bit for bit what the body gives; everything else takes the body."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise._elementwise import Elementwise
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import outcome, same


@pytest.fixture
def body(monkeypatch):
    """Counts Elementwise.__call__ (the body's route; op.fast's int branch skips it)."""
    calls = []
    real = Elementwise.__call__

    def spy(self, *a, **k):
        calls.append(self.name)
        return real(self, *a, **k)

    monkeypatch.setattr(Elementwise, "__call__", spy)
    return calls


_OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.eq, operator.ne, operator.lt,
        operator.ge, operator.and_, operator.or_, operator.xor, torch.add, torch.mul, torch.sub,
        torch.eq, torch.gt, torch.remainder, torch.fmod, torch.bitwise_and]  # fmt: skip
_DTYPES = [
    torch.float32,
    torch.float64,
    torch.int8,
    torch.uint8,
    torch.int16,
    torch.int32,
    torch.int64,
]
_INTS = [0, 1, -1, 3, 127, -128, 255, 300, -300, 2**31, 2**63 - 1, -(2**63), 2**63, 2**64 - 1]


def _data(dt):
    if dt.is_floating_point:
        v = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 3e38, 1e-40, 7.0])
    else:
        v = np.array([0, 1, -1, 5, 100, -100, 127, -128, 3, 7])
    return torch.from_numpy(v.astype(torch.empty(0, dtype=dt).numpy().dtype).reshape(2, 5))


def _call(fn, x, v):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return outcome(fn, x, v)


@pytest.mark.parametrize("dt", _DTYPES, ids=str)
def test_int_operand_is_the_body_bit_for_bit(dt, body):
    x = _data(dt)
    taken = 0
    for fn in _OPS:
        for v in _INTS:
            _call(fn, x, v)  # learns the signature (or raises as the body does)
            want = _call(fn, x.as_subclass(_Sub), v)  # a subclass: the body
            if not isinstance(want, tuple):
                want = want.as_subclass(torch.Tensor)
            n = len(body)
            got = _call(fn, x, v)
            taken += len(body) == n
            same(got, want)
    assert taken > len(_OPS) * len(_INTS) // 3, "op.fast's int branch was not taken"


class _Sub(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunctionSubclass():
            return func(*(a.as_subclass(torch.Tensor) if isinstance(a, torch.Tensor) else a for a in args),
                        **(kwargs or {}))  # fmt: skip


def test_plain_calls_take_the_branch(body):
    x = torch.randn(3, 4)
    i = torch.arange(12).reshape(3, 4)
    for f in (
        lambda: x + 1,
        lambda: i + 1,
        lambda: i == 3,
        lambda: x > 0,
        lambda: torch.add(i, 2),
        lambda: i * -1,
    ):
        f()
        n = len(body)
        f()
        assert len(body) == n, "op.fast's int branch was not taken"
    assert np.array_equal((i + 1)._data, i._data + 1) and (i + 1).dtype is torch.int64
    assert np.array_equal((x > 0)._data, x._data > 0)


def test_other_int_calls_take_the_body(body):
    x = torch.randn(3, 4)
    i = torch.arange(12, dtype=torch.int8).reshape(3, 4)
    x + 1
    i + 1
    n = len(body)
    assert torch.add(x, 1, alpha=2).tolist() == (x + 2).tolist() and len(body) == n + 1
    with pytest.raises(OverflowError):
        i + 2**64
    with pytest.raises(RuntimeError):
        i // 0  # integer division by zero: the body's check
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        torch.ones(2, dtype=torch.bool) - 1
    assert (torch.ones(2, dtype=torch.bool) + 1).dtype is torch.int64  # promotion
    g = x.clone().requires_grad_(True)
    y = g * 3
    assert y.grad_fn is not None
    y.sum().backward()
    assert np.array_equal(g.grad._data, np.full((3, 4), 3, np.float32))
    with capture_logs() as logs, LoggingTensorMode():
        x + 1
    assert any("add" in line for line in logs)
    with torch.inference_mode():
        assert (x + 1).is_inference()
    assert (i + 300).tolist() == ((i.to(torch.int64) + 300) % 256).to(torch.int8).tolist()  # wraps
    big = torch.ones(200_000)
    assert np.array_equal((big + 1)._data, np.full(200_000, 2, np.float32))
    a = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t * 3 - 2, (a,))
    assert torch.autograd.gradgradcheck(lambda t: (t * 3) ** 2, (a,))
