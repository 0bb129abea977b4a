"""sort / argsort / msort / kthvalue / mode binding fast calls (Note [Sort binding fast calls])
against their bodies: the same bits, shapes, strides and return types; plain calls take the
fast route, and out=, bad arguments, modes and gradients take the body."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import sort_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same


def _same(r, want):
    if isinstance(want, tuple) and want and isinstance(want[0], torch.Tensor):
        assert type(r) is type(want) and len(r) == len(want)
        for a, b in zip(r, want, strict=True):
            same(a, b)
    else:
        same(r, want)


def _inputs():
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64, np.int32, np.int64):
        yield rng.integers(-3, 3, (2, 3, 4)).astype(dt)  # ties
        yield rng.standard_normal((3, 5)).astype(dt) if dt in (np.float32, np.float64) else rng.integers(0, 9, (3, 5)).astype(dt)
    yield np.array([1.0, np.nan, -0.0, 0.0, -np.inf, np.nan, 1.0], np.float32)
    yield np.array(2.5)  # 0-d: the body
    yield np.zeros((2, 0))  # empty: the body
    yield np.array([True, False])  # bool: the body


_CALLS = {
    "sort": lambda d: [(d,), (d, True), (d, False, {"stable": True})],
    "argsort": lambda d: [(d,), (d, True), (d, False, {"stable": True})],
    "msort": lambda d: [()] if d == 0 else [],
    "kthvalue": lambda d: [(1, d), (2, d, True), (3, d), (0, d), (99, d)],
    "mode": lambda d: [(d,), (d, True)],
}


@pytest.mark.parametrize("name", list(_CALLS))
def test_matches_body(name, monkeypatch):
    seen = []
    real = sort_fast._make
    monkeypatch.setattr(sort_fast, "_make", lambda *a: seen.append(1) or real(*a))
    for module in ("torch", "Tensor"):
        b = binding(name, module)
        fn = getattr(torch, name) if module == "torch" else getattr(torch.Tensor, name)
        core = sort_fast.CALLS[name]
        for a in _inputs():
            x = torch.from_numpy(a)
            for d in range(-a.ndim - 1, a.ndim + 1):
                for args in _CALLS[name](d):
                    args, kw = (args[:-1], args[-1]) if args and isinstance(args[-1], dict) else (args, {})
                    ba = inspect.signature(fn).bind(x, *args, **kw)
                    ba.apply_defaults()
                    full = tuple(ba.arguments.values())
                    want = outcome(b.body, *full)
                    n = len(seen)
                    _same(outcome(lambda fn=fn, x=x, args=args, kw=kw: fn(x, *args, **kw)), want)
                    fast = core(*full)
                    if fast is not None:
                        _same(fast, want)
                        assert len(seen) > n  # the public call took it too
    assert seen


def test_other_calls_take_the_body(monkeypatch):
    seen = []
    real = sort_fast._make
    monkeypatch.setattr(sort_fast, "_make", lambda *a: seen.append(1) or real(*a))
    x = torch.from_numpy(np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32))
    torch.sort(x.t()), outcome(torch.sort, x, 1.0), torch.argsort(x, descending=1), outcome(torch.kthvalue, x, True, 1)
    vals, idx = torch.empty(3, 4), torch.empty(3, 4, dtype=torch.int64)
    torch.sort(x, out=(vals, idx)), torch.msort(x, out=torch.empty(3, 4))
    torch.sort(x.half()), torch.mode(x.half())
    assert seen == []
    with LoggingTensorMode(), capture_logs() as logs:
        torch.sort(x), torch.kthvalue(x, 2), torch.mode(x)
    text = " ".join(logs)
    assert "sort" in text and "kthvalue" in text and "mode" in text
    w = x.double().requires_grad_()
    for fn in (lambda v: torch.sort(v, 1)[0], lambda v: torch.kthvalue(v, 2, 0)[0], lambda v: torch.mode(v, 1)[0],
               lambda v: torch.msort(v)):  # fmt: skip
        assert fn(w).grad_fn is not None
        assert torch.autograd.gradcheck(fn, (w,))
    assert seen == []
    with torch.autocast("cpu"):
        assert sort_fast._sort(x) is None
    with torch.no_grad():
        torch.sort(w)
    assert len(seen) == 2
