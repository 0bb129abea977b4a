"""Session 17's reduction/scan/selection fast-call changes (docs/PERFORMANCE.md, perf17f):
layouts and plans that keep a kernel's compiled entry per dtype (cumsum/cumprod, cummax/cummin,
topk/sort), aminmax's one-pass minmax_cols, std_mean/var_mean's float32 rounding without a quiet
state, and result namedtuples built by tuple.__new__: the body's bits and types."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.kernels import PARALLEL_THRESHOLD
from numtorch.ops.reduction import _select_fast, arg_fast, scan_fast, stats_fast

from .._fastcall import binding, outcome, same


def _x(*shape, dtype=torch.float32, seed=0):
    a = np.random.default_rng(seed + sum(shape)).standard_normal(shape) * 3
    return torch.from_numpy(a).to(dtype)


def _body(name, *args, module="torch"):
    return outcome(binding(name, module).body, *args)


def _pairs(r, want):
    assert type(r) is type(want) and r._fields == want._fields
    for a, b in zip(r, want, strict=True):
        same(a, b)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_entry_follows_the_dtype(name):
    scan_fast._ENTRY.clear()
    for dt in (torch.float32, torch.float64, torch.float32):  # one shape, the entry swapped per dtype
        x = _x(2, 3, 4, dtype=dt)
        for dim in (0, 1, -1):
            for _ in range(2):
                same(getattr(torch, name)(x, dim), _body(name, x, dim, None, None))
        assert scan_fast._ENTRY[(2, 3, 4), 1][4] == x.numpy().dtype


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cumext_layout_per_dtype(name):
    arg_fast._SCANS.clear()
    for dt in (torch.float32, torch.float64, torch.int32, torch.int64):  # one shape, four entries
        x = _x(2, 3, 4, dtype=dt)
        x[0, 1, 2] = x[0, 0, 2]  # a tie: the later index, as the body's
        for dim in (0, 1, -1):
            for _ in range(2):
                r = getattr(torch, name)(x, dim)
                _pairs(r, _body(name, x, dim, None))
                _pairs(getattr(x, name)(dim), r)
    assert sum(1 for k in arg_fast._SCANS if k[0] == (2, 3, 4) and k[1] == 1) == 4
    assert all(v[3] is not None for v in arg_fast._SCANS.values())


def test_topk_plan_and_result_types(monkeypatch):
    _select_fast._TOPK.clear()
    for dt in (torch.float32, torch.float64, torch.int64, torch.int32):
        x = _x(2, 3, 4, dtype=dt)
        for k, dim, largest in ((2, 1, True), (1, -1, False), (3, 0, True), (3, 1, False)):
            if k > x.shape[dim]:
                continue
            for _ in range(2):
                r = torch.topk(x, k, dim, largest)
                _pairs(r, _body("topk", x, k, dim, largest, True, None))
                assert r.values is r[0] and repr(r).startswith("torch.return_types.topk(")
        _pairs(torch.sort(x, 1), _body("sort", x, 1, False, None, None))
        _pairs(torch.kthvalue(x, 2, 1), _body("kthvalue", x, 2, 1, False, None))
        _pairs(torch.mode(x, 1), _body("mode", x, 1, False, None))
        _pairs(torch.aminmax(x, dim=1), _body("aminmax", x, 1, False, None))
    assert all(p is False or p[3] is not None for p in _select_fast._TOPK.values())
    # a shape the reshapes keep (3-d, dim 1) and one they change (2-d)
    assert any(p and p[0] is None and p[2] is None for p in _select_fast._TOPK.values())
    y = _x(5, 6)
    _pairs(torch.topk(y, 2, 0), _body("topk", y, 2, 0, True, True, None))


@pytest.mark.parametrize("dt", [torch.float32, torch.float64, torch.int32, torch.int64])
@pytest.mark.parametrize("shape", [(2, 3, 4), (PARALLEL_THRESHOLD // 12 + 7, 3, 4), (4, 64, 3), (3, 65, 2)])
def test_aminmax_one_pass_is_amin_and_amax(dt, shape, monkeypatch):
    names = []
    real = arg_fast.call
    monkeypatch.setattr(arg_fast, "call", lambda *a: names.append(a[1]) or real(*a))
    a = np.random.default_rng(7).integers(-3, 4, shape).astype(np.float64)
    if dt.is_floating_point:
        a[0, 1, 1] = np.nan
        a[-1, :, 0] = -0.0  # signed-zero ties with the +0.0 elsewhere
        a[-1, 0, 0] = 0.0
    x = torch.from_numpy(a).to(dt)
    r = torch.aminmax(x, dim=1)
    same(r.min, torch.amin(x, 1))
    same(r.max, torch.amax(x, 1))
    assert names.count("minmax_cols") == (1 if shape[1] <= 64 else 0)
    same(torch.aminmax(x, dim=1, keepdim=True).max, torch.amax(x, 1, keepdim=True))


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
def test_stats_float32_rounding(name):
    big = torch.tensor([3e38, -3e38, 1.0, 2.0])  # the variance overflows float32: inf, quietly
    small = _x(2, 3, 4)
    for x in (big, small, small.double()):
        n = stats_fast.COUNT[0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = getattr(torch, name)(x)
        assert stats_fast.COUNT[0] == n + 1
        want = _body(name, x, None, None, False, None, None)
        for a, b in zip(r, want, strict=True):
            same(a, b)
    assert torch.isinf(torch.var_mean(big)[0])  # the quiet route ran (and std_mean is finite)


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dt", [torch.float32, torch.float64, torch.int32, torch.int64])
def test_whole_amax_by_numpy(name, dt, monkeypatch):
    from numtorch.ops.reduction import _reduce

    seen = []
    real = dict(_reduce._NP_EXT)
    monkeypatch.setattr(_reduce, "_NP_EXT", {k: (lambda a, f=f: seen.append(1) or f(a)) for k, f in real.items()})
    rng = np.random.default_rng(11)
    a = rng.integers(-50, 50, (10924, 3, 4)).astype(np.float64)
    cases = [a, -np.abs(a), np.abs(a)]  # a zero extreme (+0.0 and -0.0 tie): the kernel's order
    if dt.is_floating_point:
        neg, pos = -np.abs(a), np.abs(a)  # zeros all -0.0, all +0.0: add the other sign
        neg.reshape(-1)[[5, 70000]] = 0.0
        pos.reshape(-1)[[5, 70000]] = -0.0
        nan = a.copy()
        nan.reshape(-1)[9] = np.nan
        cases += [neg, pos, nan]
    for c in cases:
        x = torch.from_numpy(c).to(dt)
        seen.clear()
        r = getattr(torch, name)(x)
        assert seen == [1]
        with monkeypatch.context() as m:  # the kernel's answer
            m.setattr(_reduce, "_NP_EXT_MIN", 1 << 62)
            same(r, getattr(torch, name)(x))
    small = torch.from_numpy(a[:10]).to(dt)
    seen.clear()
    getattr(torch, name)(small)
    assert not seen  # below _NP_EXT_MIN: the kernel's entry
