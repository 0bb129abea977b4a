"""The kernel routes of sorting.py's selection ops (Note [Selection by quickselect]) against
the NumPy routes they stand in for and against NumPy's stable sort: values, indices, -0.0 vs
0.0, NaN, ties, every dim and keepdim, non-contiguous inputs."""

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import _reduce as R
from numtorch.ops.reduction import _select_fast as F

RNG = np.random.default_rng(12)
SHAPES = [(7,), (2, 3, 4), (5, 1, 3), (1, 9)]
DTYPES = [np.float32, np.float64, np.int32, np.int64]


def _sample(dt, shape, kind):
    if kind == "rand":
        return (RNG.standard_normal(shape) * 5).astype(dt)
    a = RNG.integers(-2, 3, size=shape).astype(dt)
    if kind == "nan":
        a[RNG.random(shape) < 0.3] = np.nan
    elif kind == "allnan":
        a[...] = np.nan
    elif kind == "zeros":
        a = np.where(RNG.random(shape) < 0.5, 0.0, -0.0).astype(dt)
    return a


def _cases():
    for dt in DTYPES:
        for shape in SHAPES:
            kinds = ["rand", "ties"] + (
                ["nan", "allnan", "zeros"] if dt in (np.float32, np.float64) else []
            )
            for kind in kinds:
                yield pytest.param(
                    _sample(dt, shape, kind), id=f"{np.dtype(dt).name}-{shape}-{kind}"
                )


def _same(r1, r2):
    for x, y in zip(r1, r2, strict=True):
        x, y = x.numpy(), y.numpy()
        assert x.shape == y.shape and x.dtype == y.dtype
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
        if x.dtype.kind == "f":
            assert np.array_equal(np.signbit(x), np.signbit(y))


def _both(monkeypatch, src, name, *args, **kwargs):
    """src.name(*args) by the kernel route (which must be the one taken) and the NumPy route."""
    calls = []
    real, plan = F._rows, F._topk_plan
    monkeypatch.setattr(F, "_rows", lambda a, d: calls.append(1) or real(a, d))
    # topk/sort keep a plan per geometry: a fresh one each time, made where the kernel runs
    monkeypatch.setattr(F, "_TOPK", {})
    monkeypatch.setattr(F, "_topk_plan", lambda *k: (calls.append(1) or p) if (p := plan(*k)) else p)
    fast = getattr(src, name)(*args, **kwargs)
    assert calls, "the kernel route was not taken"
    with monkeypatch.context() as m:
        m.setattr(F, "_DTYPES", frozenset())
        m.setattr(F, "_TOPK", {})
        slow = getattr(src, name)(*args, **kwargs)
    return fast, slow


@pytest.mark.parametrize("a", _cases())
def test_kernel_routes_match_numpy_routes(a, monkeypatch):
    for src in (
        torch.from_numpy(a.copy()),
        torch.from_numpy(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim))),
    ):
        for d in range(a.ndim):
            n = a.shape[d]
            for kd in (False, True):
                for k in range(1, n + 1):
                    _same(*_both(monkeypatch, src, "kthvalue", k, d, kd))
                _same(*_both(monkeypatch, src, "median", d, kd))
                _same(*_both(monkeypatch, src, "nanmedian", d, kd))
                _same(*_both(monkeypatch, src, "mode", d, kd))
            for desc in (False, True):
                _same(*_both(monkeypatch, src, "sort", d, desc))
                _same(*_both(monkeypatch, src, "sort", dim=d, descending=desc, stable=True))
                for k in range(0, n + 1):
                    _same(*_both(monkeypatch, src, "topk", k, d, desc))


@pytest.mark.parametrize("a", _cases())
def test_kernel_routes_match_numpy_stable_sort(a):
    t = torch.from_numpy(a.copy())
    for d in range(a.ndim):
        order = np.argsort(a, axis=d, kind="stable")  # NaN last, as PyTorch orders it
        srt = np.take_along_axis(a, order, d)
        v, i = t.sort(d)
        assert np.array_equal(v.numpy(), srt, equal_nan=True) and np.array_equal(i.numpy(), order)
        n = a.shape[d]
        for k in range(1, n + 1):
            v, i = t.kthvalue(k, d, keepdim=True)
            want = np.take(order, [k - 1], axis=d)
            assert np.array_equal(i.numpy(), want)
            assert np.array_equal(v.numpy(), np.take_along_axis(a, want, d), equal_nan=True)
        v, i = t.topk(min(2, n), d, largest=False)
        assert np.array_equal(i.numpy(), np.take(order, range(min(2, n)), axis=d))


def test_kthvalue_long_rows_and_sorted_input():
    # quickselect on long rows, sorted and reversed (pivot choice), many ties
    for a in (
        np.arange(5000.0),
        np.arange(5000.0)[::-1].copy(),
        RNG.integers(0, 3, 5001).astype(np.float64),
    ):
        t = torch.from_numpy(a)
        order = np.argsort(a, kind="stable")
        for k in (1, 2, len(a) // 2, len(a) - 1, len(a)):
            assert t.kthvalue(k).indices.item() == order[k - 1]
        assert t.median(0).indices.item() == order[(len(a) - 1) // 2]


def test_routes_left_to_numpy():
    # outside the kernels' dtypes, long sorts, 0-d and empty inputs: the NumPy routes
    assert F.topk(np.zeros(3, np.int8), 0, 3, False) is None
    assert F.topk(np.zeros(1000), 0, 1000, False) is None
    assert F.mode(np.zeros(1000), 0, False) is None
    assert F.kth(np.zeros(()), 0, 0, 0, False) is None
    assert F.kth(np.zeros((0, 3)), 1, 0, 0, False) is None
    v, i = torch.tensor([3, 1, 2], dtype=torch.int8).sort()
    assert v.tolist() == [1, 2, 3] and i.tolist() == [1, 2, 0]


def test_grad_through_kernel_routes():
    x = torch.from_numpy(RNG.standard_normal((3, 5))).requires_grad_(True)
    for fn in (
        lambda t: t.kthvalue(2, 1).values,
        lambda t: t.topk(2, 0).values,
        lambda t: t.nanmedian(1).values,
        lambda t: t.sort(1).values,
        lambda t: t.mode(0).values,
    ):
        assert torch.autograd.gradcheck(fn, (x,))


@pytest.mark.parametrize("a", _cases())
def test_argext_route_matches_numpy(a, monkeypatch):
    # core._argext's direct route (no layout()) is the one a C-contiguous input takes
    calls = []
    real = R.layout
    monkeypatch.setattr(R, "layout", lambda *args: calls.append(1) or real(*args))
    t = torch.from_numpy(a.copy())
    for d in range(-a.ndim, a.ndim):
        for kd in (False, True):
            # NumPy's argmax/argmin: the first extreme, the first NaN where a row has one
            for name, want in (("argmax", np.argmax), ("argmin", np.argmin)):
                i = getattr(t, name)(d, kd)
                assert (
                    np.array_equal(i.numpy(), want(a, axis=d, keepdims=kd))
                    and i.dtype == torch.int64
                )
            for name, want in (("max", np.argmax), ("min", np.argmin)):
                v, i = getattr(t, name)(d, kd)
                wi = want(a, axis=d, keepdims=True)
                assert np.array_equal(i.numpy(), wi if kd else wi.squeeze(d))
                wv = np.take_along_axis(a, wi, d)
                assert np.array_equal(v.numpy(), wv if kd else wv.squeeze(d), equal_nan=True)
    assert not calls
    f = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    assert torch.from_numpy(f).argmax(0).tolist() == [1, 1, 1] and calls  # layout() for the rest
