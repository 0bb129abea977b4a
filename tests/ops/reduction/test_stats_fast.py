"""var_mean / std_mean whole-tensor fast calls (Note [Whole-tensor var_mean fast call]) against
their bodies: the same bits, dtypes and shapes; dims, corrections, out=, gradients, modes and
one-element inputs take the body."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import stats_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, same


def _inputs(dtype):
    rng = np.random.default_rng(0)
    yield rng.standard_normal((2, 3, 4)).astype(dtype)
    yield np.array([1e30, -1e30, 3e38, 5.0], dtype)  # a float32 variance past its range: inf
    yield np.array([np.nan, 1.0, 2.0], dtype)
    yield np.array([np.inf, 1.0], dtype)
    yield np.full((5, 5), 0.1, dtype)  # a constant: variance (nearly) 0
    yield np.array([-0.0, 0.0], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_fast_call_matches_the_body(dtype, name):
    body = binding(name).body
    for a in _inputs(dtype):
        x = torch.from_numpy(a)
        n = stats_fast.COUNT[0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the fast call warns of nothing
            r = getattr(torch, name)(x)
        assert stats_fast.COUNT[0] == n + 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = body(x, None, None, False, None, None)
        assert type(r) is type(want) and len(r) == 2
        same(r[0], want[0])
        same(r[1], want[1])


def test_other_arguments_grad_and_modes_take_the_body():
    x = torch.from_numpy(np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32))
    n = stats_fast.COUNT[0]
    torch.std_mean(x, 1), torch.var_mean(x, None, False), torch.std_mean(x, correction=0)
    torch.var_mean(x, keepdim=True), torch.std_mean(x.t()), torch.var_mean(x.double()[:, ::2])
    torch.var_mean(x.half()), torch.std_mean(x, dim=(0, 1))
    with pytest.warns(UserWarning, match="degrees of freedom"):
        torch.var_mean(x[:1, :1])
    with pytest.raises(RuntimeError, match="std and var only support|std_mean only support|only support floating"):
        torch.std_mean(x.to(torch.int64))
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.std_mean(x)
    assert "std_mean" in " ".join(logs)
    w = x.double().requires_grad_(True)
    s, m = torch.std_mean(w)
    assert s.grad_fn is not None and m.grad_fn is not None
    assert stats_fast.COUNT[0] == n
    assert torch.autograd.gradcheck(lambda v: torch.std_mean(v)[0], (w,))
    with torch.inference_mode():
        assert torch.var_mean(x)[0].is_inference()
