"""Note [Small strided operands run contiguous] (a small non-contiguous first operand of a
unary op, or of a binary op with a Python number, runs the learned contiguous kernel on a C-order
copy) and the expanded operand's ufunc route in expanded_call: the general path's bits, dtype
and strides, the new route taken, and its bounds."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise import _elementwise as ew
from numtorch.ops.pointwise import _expanded as ex

from .._fastcall import outcome as _outcome
from .._fastcall import same as _same

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
          torch.int8, torch.uint8, torch.bool, torch.complex64]  # fmt: skip


def _inputs(dt):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 4)) * 3
    a[0, 0], a[1, 1], a[2, 2] = np.nan, np.inf, -0.0
    x = torch.from_numpy(a).to(dt) if dt is not torch.bool else torch.from_numpy(a > 0)
    yield x.t()  # transposed
    yield x[::2]  # rows with a step
    yield x[:, 1]  # a strided column
    yield x[:1, :1].expand(3, 4)  # one value expanded (sum()'s gradient)
    yield torch.ones((), dtype=dt).expand(2, 3, 2)
    yield x[:, :1].expand(5, 3)  # a column expanded
    yield x.t()[:0]  # empty, non-contiguous
    yield x.unsqueeze(0).expand(2, 5, 4).transpose(0, 2)


def _calls():
    yield "exp", lambda t: t.exp()
    yield "neg", lambda t: -t
    yield "abs", lambda t: t.abs()
    yield "sin", lambda t: torch.sin(t)
    yield "tanh", lambda t: torch.tanh(t)
    yield "sigmoid", lambda t: torch.sigmoid(t)
    yield "mul", lambda t: t * 0.7
    yield "mul", lambda t: t * 3
    yield "add", lambda t: t + 2
    yield "sub", lambda t: t - 1.5
    yield "div", lambda t: t / 3
    yield "mul", lambda t: torch.mul(t, True)
    yield "gt", lambda t: t > 0.5




@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_small_strided_operands_match_the_general_path(dt, monkeypatch):
    copies = []
    real = ex.small_copy
    monkeypatch.setattr(ew, "small_copy", lambda d: copies.append(d.shape) or real(d))
    for name, call in _calls():
        for x in _inputs(dt):
            _outcome(call, x.contiguous())  # the contiguous call learns the signature
            with monkeypatch.context() as m:
                m.setattr(ex, "SMALL_COPY_MAX", -1)  # the general path (the body's kernels)
                want = _outcome(call, x)
            n = len(copies)
            got = _outcome(call, x)
            _same(got, want)
            if (
                not isinstance(want, tuple)
                and x.numel()
                and dt in (torch.float32, torch.float64, torch.int64)
                and name in ("exp", "neg", "mul", "add")
                and not (name == "exp" and dt is torch.int64)
            ):
                assert len(copies) > n, (name, dt, x.shape, x.stride())


def test_the_copy_route_skips_the_general_path(monkeypatch):
    x = torch.randn(6, 5)
    x.exp(), x * 0.5, -x  # learned
    for call in (lambda t: t.exp(), lambda t: t * 0.5, lambda t: -t):
        want = call(x.t().contiguous())
        with monkeypatch.context() as m:
            m.setattr(ew, "run", None)  # the general path would fail
            got = call(x.t())
        assert got.stride() == (6, 1) and got.numpy().tobytes() == want.numpy().tobytes()


def test_bounds_in_place_and_out_take_the_general_path(monkeypatch):
    copies = []
    real = ex.small_copy
    monkeypatch.setattr(ew, "small_copy", lambda d: copies.append(1) or real(d))
    big = torch.randn(ex.SMALL_COPY_MAX + 1, 2).t()
    big.exp()
    assert len(copies) == 1 and ex.small_copy(big._data) is None  # declined: the general path
    assert np.allclose(big.exp().numpy(), np.exp(big.numpy()), rtol=1e-6)
    x = torch.randn(4, 3).t()
    copies.clear()
    y = x.clone()
    y.mul_(0.5)
    out = torch.empty(3, 4)
    torch.exp(x, out=out)
    torch.exp(x[:, 1:], out=torch.empty(3, 3).t())
    assert not copies
    assert np.array_equal(y.numpy(), x.numpy() * np.float32(0.5))
    # recorded calls compute the same values (the engine's backward meets views)
    w = torch.randn(4, 3, requires_grad=True)
    (w.t() * 0.7).exp().sum().backward()
    assert np.allclose(
        w.grad.numpy(), np.exp(w.detach().numpy() * np.float32(0.7)) * np.float32(0.7)
    )


@pytest.mark.parametrize("dt", [torch.float32, torch.float64, torch.int64, torch.int8, torch.uint8, torch.bool],
                         ids=str)  # fmt: skip
def test_expanded_operand_ufunc_route_matches_the_kernel(dt, monkeypatch):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 5)) * 4
    a[0, 0], a[1, 2] = np.nan, -np.inf
    y = torch.from_numpy(a).to(dt) if dt is not torch.bool else torch.from_numpy(a > 0)
    ops = [torch.mul, torch.add, torch.maximum, torch.eq, torch.lt]
    if dt is not torch.bool:
        ops += [torch.sub]
    for v in (y[1:2, 3:4], y[0:1, 0:1], torch.zeros((), dtype=dt)):
        e = v.expand(4, 5) if v.dim() else v.expand(4, 5)
        for op in ops:
            op(y, y)  # the same-dtype signature and its ufunc
            for args in ((e, y), (y, e)):
                with monkeypatch.context() as m:
                    m.setattr(ex, "UFUNC_MAX", -1)
                    m.setattr(ex, "_BROADCAST_MAX", {})
                    want = op(*args)  # expanded_call's kernel
                _same(op(*args), want)
    calls = []
    real = ex._ufunc_broadcast
    monkeypatch.setattr(
        ex, "_ufunc_broadcast", lambda *a: calls.append(min(a[2].ndim, a[3].ndim)) or real(*a)
    )
    e = torch.ones((), dtype=dt).expand(4, 5)
    torch.mul(e, y), torch.mul(y, e)
    assert calls.count(0) == 2 or (dt is torch.bool and not calls)  # a 0-d view of the one value
