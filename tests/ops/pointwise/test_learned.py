"""Note [Learned prepared calls]: an op with prepared parameters keeps its learned record in its
functional impl; later plain calls with the same key run the entry, bit for bit the general path."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise import _learned
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

_x = np.array([[-2.5, -0.0, 0.0, 0.3], [1.7, 3.9, np.nan, -np.inf], [0.2, 0.9, 1e-30, np.inf]])
_y = np.array([[0.5, 2.0, -1.0, 0.25], [4.0, -3.0, 1.5, 0.75], [0.0, -0.0, 7.0, 1e30]])

CALLS = {
    "addcmul": lambda x, y: torch.addcmul(x, y, x, value=0.5),
    "addcmul_default": lambda x, y: torch.addcmul(x, y, y),
    "addcdiv": lambda x, y: torch.addcdiv(x, x, y, value=-2),
    "lerp_scalar": lambda x, y: torch.lerp(x, y, 0.3),
    "lerp_method": lambda x, y: x.lerp(y, 2),
    "lerp_tensor": lambda x, y: torch.lerp(x, y, y),
    "logit": lambda x, y: torch.logit(y.abs() / 10),
    "logit_eps": lambda x, y: torch.logit(x, eps=0.25),
    "nan_to_num": lambda x, y: torch.nan_to_num(x),
    "nan_to_num_values": lambda x, y: x.nan_to_num(nan=-0.0, posinf=3.0, neginf=-2),
}


def _args(dtype):
    return torch.from_numpy(_x.astype(dtype)), torch.from_numpy(_y.astype(dtype))


def _clear(memos=None):
    for memo in _learned.MEMOS if memos is None else memos:
        memo.clear()


def _spy(memos=None):
    calls = []
    for memo in _learned.MEMOS if memos is None else memos:
        for k, f in memo.items():
            memo[k] = ((lambda e: lambda *a: calls.append(1) or e(*a))(f[0]), *f[1:])
    return calls


def check_learned(call, memos, kept):
    """``call()`` learns a record in ``kept`` (a list of tables) within four calls; the fifth
    takes it (the spied entry) and gives the first call's result bit for bit."""
    _clear(memos)
    want = call()  # the general path
    for _ in range(3):  # the prepared key, its entry, then the learned call
        call()
    assert any(kept), "nothing learned"
    calls = _spy(memos)
    got = call()
    assert calls == [1], "the learned call was not taken"
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got.numpy().tobytes() == want.numpy().tobytes()
    assert got.grad_fn is None and got._data.flags.c_contiguous


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_learned_call_is_the_general_path_bit_for_bit(name, dtype):
    check_learned(lambda: CALLS[name](*_args(dtype)), _learned.MEMOS, _learned.MEMOS)


def test_other_calls_take_the_general_path():
    x, y = _args(np.float32)
    _clear()
    want = torch.addcmul(x, y, x, value=0.5)
    for _ in range(3):
        torch.addcmul(x, y, x, value=0.5)
    calls = _spy()
    assert torch.addcmul(
        x, y, x, value=0.5
    ).numpy().tobytes() == want.numpy().tobytes() and calls == [1]
    np.testing.assert_array_equal(
        torch.addcmul(x, y.t().contiguous().t(), x, value=0.5).numpy(), want.numpy()
    )
    assert torch.addcmul(x, y.double(), x, value=0.5).dtype is torch.float64
    assert torch.addcmul(x, y[0], x, value=0.5).shape == (3, 4)  # broadcast
    assert torch.addcmul(x, y, x, value=1.5).shape == (3, 4)  # another key
    assert torch.addcmul(x[0, :1], y[0, :1], x[0, :1], value=0.5).shape == (1,)  # one element
    out = torch.empty(3, 4)
    assert torch.addcmul(x, y, x, value=0.5, out=out) is out
    xg = x.clone().requires_grad_(True)
    r = torch.addcmul(xg, y, x, value=0.5)
    assert r.grad_fn is not None
    with capture_logs() as logs, LoggingTensorMode():
        torch.addcmul(x, y, x, value=0.5)
    assert any("addcmul" in line for line in logs)

    class Sub(torch.Tensor):
        pass

    assert type(torch.addcmul(x.as_subclass(Sub), y, x, value=0.5)) is Sub
    assert torch.nan_to_num(x, nan=float("nan")).isnan().any()  # a NaN parameter is never kept
    n = len(calls)
    with torch.inference_mode():
        assert torch.addcmul(x, y, x, value=0.5).is_inference()
    assert len(calls) == n + 1
    with pytest.raises(
        RuntimeError, match="value cannot be converted to type float without overflow"
    ):
        torch.addcmul(x, y, x, value=1e300)
    with pytest.raises(RuntimeError):
        torch.addcmul(x, y, torch.ones(5), value=0.5)


def test_signed_zero_parameters_are_distinct_keys():
    x, _ = _args(np.float64)
    _clear()
    runs = [(torch.nan_to_num(x, nan=0.0), torch.nan_to_num(x, nan=-0.0)) for _ in range(4)]
    for a, b in runs:
        assert not np.signbit(a.numpy()[1, 2]) and np.signbit(b.numpy()[1, 2])
